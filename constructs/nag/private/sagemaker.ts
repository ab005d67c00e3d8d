import { instanceStorage } from '../../../lib/catalog/instance-storage';
import { NEURON_FAMILIES } from '../../../lib/catalog/instance-type';
import { cfnList, isIntrinsic, isRecord } from './cfn-properties';

/**
 * SageMaker hosting instance types that run on AWS Neuron.
 *
 * Families from the SageMaker API enum `ProductionVariantInstanceType` (ml.inf1.*, ml.inf2.*, ml.trn1.*,
 * ml.trn1n.32xlarge, ml.trn2.48xlarge): SageMaker API Reference (service model service-2.json of 2026-08-07, as
 * shipped in aws/sagemaker-python-sdk).
 */
const NEURON_INSTANCE_TYPE = /^ml\.(inf1|inf2|trn1|trn1n|trn2)\.[0-9a-z]+$/;

/** One production or shadow variant of an `AWS::SageMaker::EndpointConfig`, as far as it is known at synth time. */
export interface EndpointVariant {
  /** The literal `InstanceType`; absent for serverless variants, with instance pools, and for an intrinsic function. */
  readonly instanceType?: string;
  /**
   * Every literal instance type the variant may run on: its `InstanceType`, or the `InstanceType` of each of its
   * `InstancePools` (SageMaker instance pools: one variant provisioned from several types in priority order).
   */
  readonly instanceTypes: readonly string[];
  /** True when `InstanceType`, the pool list or a pool's type is an intrinsic function. */
  readonly instanceTypeUnresolved: boolean;
  /** True when the variant sets `VolumeSizeInGB` (to anything). */
  readonly setsVolumeSize: boolean;
}

/**
 * Every variant that puts instances behind the endpoint: `ProductionVariants` and `ShadowProductionVariants`.
 *
 * A list, or a list element, that is an intrinsic function becomes `'unresolved'`.
 */
export function endpointConfigVariants(properties: Record<string, unknown>): (EndpointVariant | 'unresolved')[] {
  return [properties.ProductionVariants, properties.ShadowProductionVariants].flatMap((list) => {
    const elements = cfnList(list);
    if (elements === 'unresolved') {
      return ['unresolved' as const];
    }
    return elements.map((variant) => {
      if (!isRecord(variant) || isIntrinsic(variant)) {
        return 'unresolved' as const;
      }
      const instanceType = variant.InstanceType;
      const pools = variant.InstancePools === undefined ? [] : cfnList(variant.InstancePools);
      const poolTypes = pools === 'unresolved' ? [] : pools.map((pool) => (isRecord(pool) && !isIntrinsic(pool) ? pool.InstanceType : pool));
      return {
        instanceType: typeof instanceType === 'string' ? instanceType : undefined,
        instanceTypes: [instanceType, ...poolTypes].filter((t): t is string => typeof t === 'string'),
        instanceTypeUnresolved: (instanceType !== undefined && typeof instanceType !== 'string') || pools === 'unresolved'
          || poolTypes.some((t) => typeof t !== 'string'),
        setsVolumeSize: variant.VolumeSizeInGB !== undefined,
      };
    });
  });
}

/** True for `ml.inf1|inf2|trn1|trn1n|trn2.*` instance types. */
export function isNeuronInstanceType(instanceType: string): boolean {
  return NEURON_INSTANCE_TYPE.test(instanceType);
}

/**
 * True for SageMaker instance types whose ML storage is local NVMe only (Trainium: `instanceStorage`, lib/catalog):
 * CreateEndpointConfig fails when `KmsKeyId` is set and any variant runs on one, and SageMaker rejects
 * `VolumeSizeInGB` there.
 */
export function hasLocalStorage(instanceType: string): boolean {
  const family = /^ml\.([0-9a-z]+)\./.exec(instanceType)?.[1];
  return family !== undefined && NEURON_FAMILIES.includes(family) && instanceStorage(family).storage === 'local-nvme';
}

/** True when the endpoint configuration sets `KmsKeyId` to anything other than an empty string. */
export function setsKmsKey(properties: Record<string, unknown>): boolean {
  return properties.KmsKeyId !== undefined && properties.KmsKeyId !== '';
}

/**
 * Every container of an `AWS::SageMaker::Model`: `PrimaryContainer` and the elements of `Containers`.
 *
 * A list, or a container, that is an intrinsic function becomes `'unresolved'`.
 */
export function modelContainers(properties: Record<string, unknown>): (Record<string, unknown> | 'unresolved')[] {
  const containers: (Record<string, unknown> | 'unresolved')[] = [];
  const primary = properties.PrimaryContainer;
  if (primary !== undefined) {
    containers.push(isRecord(primary) && !isIntrinsic(primary) ? primary : 'unresolved');
  }
  const list = cfnList(properties.Containers);
  if (list === 'unresolved') {
    containers.push('unresolved');
  } else {
    for (const container of list) {
      containers.push(isRecord(container) && !isIntrinsic(container) ? container : 'unresolved');
    }
  }
  return containers;
}
