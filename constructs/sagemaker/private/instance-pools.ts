/**
 * A plan's fallback pools as both SageMaker endpoints deploy them: checked, rendered as the production variant's
 * `InstancePools`, and the host, storage and provisioning settings every pool of one variant must share.
 *
 * API facts (SageMaker Developer Guide, "Deploy to multiple instance types with instance pools"; CloudFormation
 * `AWS::SageMaker::EndpointConfig` `InstancePool`, aws-cdk-lib 2.276 `CfnEndpointConfig.InstancePoolProperty`): a
 * variant takes `InstancePools` instead of `InstanceType`, up to five, each an instance type, a `Priority` from 1
 * (highest) to 5 and an optional `ModelNameOverride`; SageMaker provisions from priority 1 and moves to the next pool
 * on an insufficient-capacity error until the instances are there, every pool is exhausted, or
 * `VariantInstanceProvisionTimeoutInSeconds` (300-3,600 s; capacity provisioning only, not the model download or the
 * container start) runs out. Volume size, KMS key and host AMI stay per variant, so every pool must accept them.
 *
 * @see https://docs.aws.amazon.com/sagemaker/latest/dg/realtime-endpoints-heterogeneous.html
 */
import { Annotations, Duration, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import { Construct } from 'constructs';
import { ec2Name } from '../../../lib/catalog/catalog';
import { InputError } from '../../../lib/errors';
import { NEURON_FAMILIES, NeuronInstanceType } from '../../../lib/catalog/instance-type';
import { MAX_FALLBACKS } from '../../../lib/planner/pools';
import type { DeploymentPlan, PoolSummary } from '../../../lib/planner/types';
import { hasLocalStorageOnly } from '../../private/endpoint-layout';
import { chooseHostImage, type HostImageChoice } from './neuron-host';

/** One pool as a hosting deploys it; priority 1 is the chosen plan itself. */
export interface DeployedPool<P> {
  readonly priority: number;
  readonly instanceType: NeuronInstanceType;
  /** The plan its instances run: the chosen plan at priority 1, the pool's own plan after. */
  readonly plan: P;
  /** Priority of the pool whose compiled model it loads: its own priority when it needs its own compile. */
  readonly compiledAs: number;
}

/** A plan that may carry fallback pools, each with its own plan. */
export type PlanWithPools<P> = DeploymentPlan & { readonly fallbacks?: ReadonlyArray<PoolSummary & { readonly plan: P }> };

/** Range SageMaker accepts for `VariantInstanceProvisionTimeoutInSeconds`. */
export const PROVISION_TIMEOUT_MIN_SECONDS = 300;
export const PROVISION_TIMEOUT_MAX_SECONDS = 3600;

/**
 * Default provisioning timeout: 15 minutes. An insufficient-capacity error comes back in seconds, so falling through
 * every pool takes little of it; the rest is SageMaker retrying while capacity frees up. 15 minutes fits in the 30
 * minutes the deployment policies budget for instance launch and image pull (`EndpointDeployment`), and a first
 * deploy into a region out of every pool's type fails in a quarter of an hour rather than an hour.
 */
export const DEFAULT_PROVISION_TIMEOUT = Duration.minutes(15);

/**
 * The chosen plan (on `primary`, its instance type, checked by the caller) and its fallback pools in priority order,
 * each with its instance type; every problem of the pools (an order, type or region a variant cannot take) is added
 * to `problems`, naming the field and the fix.
 */
export function deployedPools<P extends DeploymentPlan>(plan: PlanWithPools<P> & P, primary: NeuronInstanceType,
  problems: string[]): DeployedPool<P>[] {
  const pools: DeployedPool<P>[] = [{ priority: 1, instanceType: primary, plan, compiledAs: 1 }];
  const fallbacks = plan.fallbacks ?? [];
  if (fallbacks.length > MAX_FALLBACKS) {
    problems.push(`plan.fallbacks has ${fallbacks.length} pools; a SageMaker variant takes ${MAX_FALLBACKS} besides the chosen type: `
      + `re-plan with fallbacks of at most ${MAX_FALLBACKS}`);
  }
  const seen = new Set([plan.instanceType]);
  fallbacks.forEach((pool, i) => {
    const where = `plan.fallbacks[${i}]`;
    if (pool.priority !== i + 2) {
      problems.push(`${where}.priority=${pool.priority}, but the pools must follow the chosen type in order, priorities 2 to 5: `
        + 're-plan rather than edit the plan');
    }
    if (seen.has(pool.instanceType)) {
      problems.push(`${where}.instanceType=${JSON.stringify(pool.instanceType)} repeats an earlier pool's type; each pool is its own `
        + 'instance type: re-plan');
    }
    seen.add(pool.instanceType);
    if (pool.plan.instanceType !== pool.instanceType || pool.plan.region !== plan.region || pool.plan.hosting !== plan.hosting) {
      problems.push(`${where}.plan is for ${pool.plan.instanceType} in ${pool.plan.region} (${pool.plan.hosting}), not the pool's `
        + `${pool.instanceType} in ${plan.region} (${plan.hosting}): re-plan rather than edit the plan`);
    }
    const shares = pool.sharesCompiledModelWith;
    if (shares !== undefined && !(Number.isInteger(shares) && shares >= 1 && shares < pool.priority)) {
      problems.push(`${where}.sharesCompiledModelWith=${shares} names no earlier pool; re-plan rather than edit the plan`);
    }
    const type = neuronType(pool, where, problems);
    if (type !== undefined) {
      pools.push({ priority: i + 2, instanceType: type, plan: pool.plan, compiledAs: shares ?? i + 2 });
    }
  });
  return pools;
}

function neuronType(plan: Pick<DeploymentPlan, 'instanceType'> & { readonly instance?: DeploymentPlan['instance'] }, where: string,
  problems: string[]): NeuronInstanceType | undefined {
  if (!plan.instanceType.startsWith('ml.')) {
    problems.push(`${where}.instanceType=${JSON.stringify(plan.instanceType)} is not a SageMaker instance type (no 'ml.' prefix); `
      + "re-plan with { hosting: 'sagemaker' }");
    return undefined;
  }
  if (!NEURON_FAMILIES.includes(ec2Name(plan.instanceType).split('.')[0])) {
    problems.push(`${where}.instanceType=${JSON.stringify(plan.instanceType)} is not a Neuron instance type (families `
      + `${NEURON_FAMILIES.join(', ')}); re-plan: the planner only picks Neuron instances`);
    return undefined;
  }
  try {
    return NeuronInstanceType.of(plan.instanceType, plan.instance);
  } catch (e) {
    problems.push(`${where}.instanceType: ${(e as Error).message}`);
    return undefined;
  }
}

/** `VariantInstanceProvisionTimeoutInSeconds`: the prop, checked against SageMaker's range, or the default. */
export function provisionTimeoutSeconds(value: Duration | undefined, problems: string[]): number {
  const seconds = (value ?? DEFAULT_PROVISION_TIMEOUT).toSeconds();
  if (!Token.isUnresolved(seconds) && !(Number.isInteger(seconds) && seconds >= PROVISION_TIMEOUT_MIN_SECONDS
    && seconds <= PROVISION_TIMEOUT_MAX_SECONDS)) {
    problems.push(`instanceProvisionTimeout=${seconds} seconds is outside the ${PROVISION_TIMEOUT_MIN_SECONDS}-`
      + `${PROVISION_TIMEOUT_MAX_SECONDS} whole seconds SageMaker accepts for VariantInstanceProvisionTimeoutInSeconds; pass e.g. `
      + 'Duration.minutes(15)');
  }
  return seconds;
}

/**
 * The variant's `InstancePools`: every pool's type and priority, and the model of each pool that has its own.
 *
 * @param modelNameOf the name of a pool's own model, undefined for a pool that runs the variant's `ModelName`
 */
export function instancePoolsProperty<P>(pools: readonly DeployedPool<P>[],
  modelNameOf: (priority: number) => string | undefined): sagemaker.CfnEndpointConfig.InstancePoolProperty[] {
  return pools.map((pool) => {
    const model = pool.priority === 1 ? undefined : modelNameOf(pool.priority);
    return {
      instanceType: pool.instanceType.sageMakerName,
      priority: pool.priority,
      ...(model !== undefined ? { modelNameOverride: model } : {}),
    };
  });
}

/**
 * The first pool on local NVMe storage only (Trainium): SageMaker rejects `KmsKeyId` for a configuration with any
 * variant on such an instance and `VolumeSizeInGB` for such a variant, so with one pool there the whole variant goes
 * without both, whatever the other pools' types.
 */
export function localStoragePool<P>(pools: readonly DeployedPool<P>[]): DeployedPool<P> | undefined {
  return pools.find((pool) => hasLocalStorageOnly(pool.instanceType));
}

/**
 * A refused key, said of the fallback pool that makes the variant local NVMe when it is not the chosen type: `KmsKeyId`
 * is per configuration, so a key given is refused for every pool.
 */
export function poolKeyProblem<P>(storagePool: DeployedPool<P> | undefined, problem: string): string {
  return storagePool === undefined || storagePool.priority === 1 ? problem
    : `instance pool ${storagePool.priority} (${storagePool.instanceType.sageMakerName}) is on local NVMe storage, and KmsKeyId is one per `
      + `endpoint configuration: ${problem}`;
}

/**
 * The warning of a variant whose chosen type keeps an EBS volume but one of whose pools is on local storage only: the
 * whole variant then goes without a customer managed key, so the EBS pools' volumes get SageMaker's default one.
 */
export function poolWithoutKeyWarning<P>(pools: readonly DeployedPool<P>[]): string | undefined {
  const nvme = localStoragePool(pools);
  if (nvme === undefined || hasLocalStorageOnly(pools[0].instanceType)) {
    return undefined;
  }
  return `The instance pool ${nvme.instanceType.sageMakerName} has only local NVMe storage, so the variant takes no KmsKeyId (SageMaker `
    + 'refuses it for a configuration with such instances) and no VolumeSizeInGB: the ML storage volumes of its other pools are '
    + 'encrypted with SageMaker\'s default key, not a customer managed one. Plan the fallbacks without Trainium types '
    + '(--instance-types) to keep the key.';
}

/**
 * The host AMI of a variant whose pools may differ: `InferenceAmiVersion` is one per variant, so it is pinned only
 * when every pool's type takes the same one; a pool type refused with the pin is a problem naming the pool.
 *
 * @param sdk the image's Neuron SDK version, when known
 * @param pinned the `inferenceAmiVersion` prop
 */
export function hostImageForPools<P>(pools: readonly DeployedPool<P>[], sdk: string | undefined, pinned: string | undefined): HostImageChoice {
  const choices = pools.map((pool) => ({ pool, choice: chooseHostImage(pool.instanceType, sdk, pinned) }));
  const [first] = choices;
  if (choices.length <= 1) {
    return first?.choice ?? {};
  }
  const problem = choices.filter((c) => c.choice.problem !== undefined)
    .map((c) => `instance pool ${c.pool.priority} (${c.pool.instanceType.sageMakerName}): ${c.choice.problem}`).join('; ');
  if (problem !== '') {
    return { problem };
  }
  const versions = new Set(choices.map((c) => c.choice.amiVersion));
  if (versions.size === 1) {
    return first.choice;
  }
  return {
    info: 'The instance pools take different host AMIs ('
      + choices.map((c) => `${c.pool.instanceType.sageMakerName}: ${c.choice.amiVersion ?? 'none listed'}`).join(', ')
      + '), and InferenceAmiVersion is one per variant: none is pinned, so SageMaker chooses the host image of each.',
  };
}

/**
 * Tells at synth which pools run which compiled model (info) and, where a Trainium pool takes the variant's KMS key
 * away, warns under `warningId`.
 */
export function annotatePools<P>(scope: Construct, pools: readonly DeployedPool<P>[], what: string, warningId: string): void {
  Annotations.of(scope).addInfo(poolsNote(pools, what));
  const withoutKey = poolWithoutKeyWarning(pools);
  if (withoutKey !== undefined) {
    Annotations.of(scope).addWarningV2(warningId, withoutKey);
  }
}

/** The annotation that says which pools run which compiled model, and what each pool's model is. */
export function poolsNote<P>(pools: readonly DeployedPool<P>[], what: string): string {
  const compiled = pools.map((pool) => pool.compiledAs === pool.priority
    ? `${pool.priority} ${pool.instanceType.sageMakerName} (its own compile)`
    : `${pool.priority} ${pool.instanceType.sageMakerName} (priority ${pool.compiledAs}'s compiled model)`);
  return `Instance pools, by priority: ${compiled.join(', ')}. Each fallback pool has its own ${what} with its plan's layout, `
    + 'so its containers know their pool (CDK_INFERENTIA_POOL) and the proof tells which pool answered; pools of one chip '
    + 'family with the same compiled shape share the compiled artifacts.';
}

/** A pool's image bound for its instance type; an image that cannot serve that type is refused naming the pool. */
export function bindPoolImage<P>(pool: DeployedPool<P>, bind: () => string): string {
  try {
    return bind();
  } catch (e) {
    if (e instanceof InputError) {
      throw new InputError(e.problems.map((p) => `instance pool ${pool.priority} (${pool.instanceType.sageMakerName}): ${p}; `
        + 're-plan without that type (--instance-types) or with fewer fallbacks'));
    }
    throw e;
  }
}

/** What {@link poolCheck} mirrors of the endpoint. */
export interface PoolCheckProps {
  readonly image: string;
  readonly role: iam.IRole;
  /** The endpoint's variant, whose `InstancePools` and settings the check repeats. */
  readonly productionVariant: sagemaker.CfnEndpointConfig.ProductionVariantProperty;
  readonly kmsKeyId?: string;
}

/**
 * An endpoint configuration with the endpoint's instance pools, volume, KMS key and host settings on a model that
 * needs no artifact (the same image, no model data): created before any compile or upload (callers make those wait
 * for it), so a SageMaker refusal of a pool's type, or of the pools with the key or volume, fails the deploy before
 * anything costly starts. It costs nothing and runs nothing; no endpoint uses it.
 */
export function poolCheck(scope: Construct, props: PoolCheckProps): sagemaker.CfnEndpointConfig {
  const check = new Construct(scope, 'InstancePoolCheck');
  const model = new sagemaker.CfnModel(check, 'Model', {
    executionRoleArn: props.role.roleArn,
    primaryContainer: { image: props.image },
  });
  model.node.addDependency(props.role);
  const pools = props.productionVariant.instancePools as sagemaker.CfnEndpointConfig.InstancePoolProperty[];
  return new sagemaker.CfnEndpointConfig(check, 'Resource', {
    productionVariants: [{
      ...props.productionVariant,
      modelName: model.attrModelName,
      instancePools: pools.map(({ instanceType, priority }) => ({ instanceType, priority })),
    }],
    kmsKeyId: props.kmsKeyId,
  });
}

/** A dashboard text widget naming the pools: the variant's metrics beside it cover every one of them. */
export function poolsWidget<P>(pools: readonly DeployedPool<P>[]): cloudwatch.TextWidget {
  const rows = pools.map((pool) => `| ${pool.priority} | ${pool.instanceType.sageMakerName} | `
    + `${pool.compiledAs === pool.priority ? 'its own' : `priority ${pool.compiledAs}'s`} |`);
  return new cloudwatch.TextWidget({
    markdown: ['### Instance pools', 'SageMaker provisions priority 1 first and the next pool on insufficient capacity. The variant\'s '
      + 'metrics and alarms cover the instances of every pool; the deploy proof reports each pool\'s answers.', '',
    '| priority | instance type | compiled model |', '|---|---|---|', ...rows].join('\n'),
    width: 24,
    height: 2 + pools.length,
  });
}
