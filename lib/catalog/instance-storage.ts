/**
 * What storage each Neuron instance family's hosts carry, which decides whether a SageMaker endpoint on it can take
 * a customer-managed KMS key.
 *
 * SageMaker encrypts an endpoint's ML storage volume with `CreateEndpointConfig.KmsKeyId` only on EBS: "Certain
 * Nitro-based instances include local storage ... You can't request a KmsKeyId when using an instance type with local
 * storage ... If you specify a value for KmsKeyId when using any nitro-based instances with local storage, the call to
 * CreateEndpointConfig fails" (SageMaker API Reference, CreateEndpointConfig, `KmsKeyId`,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateEndpointConfig.html); `VolumeSizeInGB` is for
 * EBS volumes only (ProductionVariant, `VolumeSizeInGB`). Local NVMe instance store is encrypted by the instance
 * instead: "XTS-AES-256 ... implemented on a hardware module on the instance. The keys ... are per-customer, and per
 * volume ... destroyed when the instance is stopped or terminated ... you cannot provide your own encryption key"
 * (EC2 User Guide, "Data protection in Amazon EC2").
 */

/** Where an instance family's ML storage lives: EBS volumes only, or local NVMe instance store. */
export type InstanceStorage = 'ebs-only' | 'local-nvme';

/** The storage of one family and where that comes from. */
export interface InstanceStorageFact {
  readonly storage: InstanceStorage;
  /** The document that says so, or why it is assumed. */
  readonly source: string;
  /** True when no AWS page read for this library states it for the family; printed wherever it decides something. */
  readonly unverified: boolean;
}

/** EC2 User Guide (awsdocs/amazon-ec2-user-guide @ e3707c43, 2023-06-15, archived). */
const EC2UG = 'EC2 User Guide (awsdocs/amazon-ec2-user-guide @ e3707c43, 2023-06-15)';

const EBS_ONLY: InstanceStorageFact = {
  storage: 'ebs-only', unverified: false,
  source: `${EC2UG}, instance-types.md, accelerated computing: "EBS only: Yes, Instance store: No"`,
};

const TRN1_NVME: InstanceStorageFact = {
  storage: 'local-nvme', unverified: false,
  source: `${EC2UG}, InstanceStorage.md: trn1.2xlarge 1 x 474 GB, trn1.32xlarge and trn1n.32xlarge 4 x 1900 GB NVMe SSD`,
};

/** Trainium2 and later: not in the archived guide. Every Trainium type before them carries NVMe, so they are read so. */
const LATER_TRAINIUM: InstanceStorageFact = {
  storage: 'local-nvme', unverified: true,
  source: 'UNVERIFIED: no AWS page read for this library lists its instance store; treated as trn1 and trn1n, which carry '
    + 'NVMe instance store (EC2 User Guide)',
};

/** The storage of every Neuron family (`NEURON_FAMILIES`). */
export const INSTANCE_STORAGE: Readonly<Record<string, InstanceStorageFact>> = {
  inf1: EBS_ONLY,
  inf2: EBS_ONLY,
  trn1: TRN1_NVME,
  trn1n: TRN1_NVME,
  trn2: LATER_TRAINIUM,
  trn2u: LATER_TRAINIUM,
  trn3: LATER_TRAINIUM,
};

/**
 * The storage of an instance family (`inf2`, `trn1`): a family the table does not list is read as local NVMe,
 * unverified, so a KMS key on it is refused with the reason rather than failing CreateEndpointConfig at deploy time
 * or, worse, being left off unseen.
 */
export function instanceStorage(family: string): InstanceStorageFact {
  return INSTANCE_STORAGE[family] ?? { ...LATER_TRAINIUM, source: `UNVERIFIED: ${family} is not a family this library knows the storage of` };
}
