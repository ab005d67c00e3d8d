/**
 * Shapes of the Neuron instance catalog and its prices.
 *
 * Pure data types shared by the planner, the CLI, the constructs and the Lambdas.
 */

/** NeuronCore generation: v1 on Inf1, v2 on Inf2, Trn1 and Trn1n, v3 on Trn2, v4 on Trn3. */
export type CoreVersion = 'v1' | 'v2' | 'v3' | 'v4';

/** Where a model is hosted: EC2 instances we manage, or a SageMaker real-time endpoint (`ml.` instance names). */
export type Hosting = 'ec2' | 'sagemaker';

/** Every hosting the planner and the constructs support. */
export const HOSTINGS: readonly Hosting[] = ['ec2', 'sagemaker'];

/**
 * What an hourly price means.
 *
 * `on-demand` is what an account pays without commitment; `ri-effective` is the reserved-instance effective rate
 * the Neuron performance pages use for their "cost per 1M inferences" column; `capacity-block` is the effective
 * instance-hour rate of an EC2 Capacity Block for ML, how AWS sells some Trainium types: reserved ahead for whole days
 * or weeks, paid up front, in one Availability Zone (https://aws.amazon.com/ec2/capacityblocks/pricing/).
 */
export type PricingKind = 'on-demand' | 'ri-effective' | 'capacity-block';

/** Every pricing kind. */
export const PRICING_KINDS: readonly PricingKind[] = ['on-demand', 'ri-effective', 'capacity-block'];

/** Hardware facts of one Neuron instance type, as EC2 names it (`inf2.xlarge`, never `ml.inf2.xlarge`). */
export interface InstanceSpec {
  /** EC2 instance type name, e.g. `inf2.xlarge`. */
  readonly name: string;
  /** Instance family, e.g. `inf2`. */
  readonly family: string;
  /** Neuron devices (chips); each is one `/dev/neuronN`. */
  readonly chips: number;
  /**
   * NeuronCores per chip as the Neuron runtime numbers them: 4 on Inf1, 2 on Inf2/Trn1; on Trn2, logical cores at the
   * instance's default Logical NeuronCore Configuration (8 physical cores at LNC=2 make 4).
   */
  readonly coresPerChip: number;
  /**
   * Physical NeuronCores one logical core combines (Logical NeuronCore Configuration, `NEURON_LOGICAL_NC_CONFIG`):
   * 2 by default on Trn2.
   *
   * @default 1 - every core is physical (Inf1, Inf2, Trn1)
   */
  readonly logicalNeuronCoreConfig?: number;
  /** NeuronCore generation. */
  readonly coreVersion: CoreVersion;
  /** Accelerator memory per chip in GiB (8 on Inf1, 32 on Inf2/Trn1, 96 on Trn2). */
  readonly deviceMemoryPerChipGiB: number;
  /** vCPUs of the host. */
  readonly vcpus: number;
  /** Host memory in GiB. */
  readonly memoryGiB: number;
  /** Where the numbers come from (document and date). */
  readonly source: string;
  /** True when no AWS-authored source backs a value of this row. */
  readonly unverified: boolean;
}

/** One hourly price of one instance type in one region for one hosting. */
export interface Price {
  /** EC2 instance type name (`inf2.xlarge`); the hosting says whether it is billed as `ml.inf2.xlarge`. */
  readonly instanceType: string;
  /** AWS region code, e.g. `us-east-1`. */
  readonly region: string;
  /** EC2 instance hours or SageMaker hosting instance hours. */
  readonly hosting: Hosting;
  /** USD per instance-hour. */
  readonly usdPerHour: number;
  /** What the number means. */
  readonly kind: PricingKind;
  /** Where the number comes from. */
  readonly source: string;
  /** The day the number was read (ISO date). */
  readonly asOf: string;
  /** True when no AWS-authored source backs the number; shown as UNVERIFIED wherever it is printed. */
  readonly unverified: boolean;
  /**
   * How the number was estimated when no source lists it (SageMaker outside us-east-1: `sageMakerEstimates` in prices.ts);
   * shown as ESTIMATE wherever it is printed, and replaced by any listed price of the same key.
   *
   * @default - listed by its source, not estimated
   */
  readonly estimate?: string;
}
