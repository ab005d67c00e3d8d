/**
 * The model of each fallback pool of a single-call endpoint: which compiled artifact it serves, and its checks.
 *
 * Compiled Neuron artifacts load only on the chip, core group and batch they were compiled for
 * (`compiledArtifactProblems`), so a pool serves model data compiled for its own plan: a `poolModelData` entry whose
 * compile facts fit it, or the artifact of the earlier pool the planner found it shares (`sharesCompiledModelWith`).
 */
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import type { Construct, IDependable } from 'constructs';
import { compiledArtifactProblems } from '../../../lib/compile/check';
import { chipOfFamily } from '../../../lib/compile/spec';
import { validateLayout } from '../../../lib/planner';
import type { Plan } from '../../../lib/planner/types';
import type { ModelImage } from '../../image/model-image';
import type { ModelData, ModelDataConfig } from '../../model/model-data';
import { bindPoolImage, type DeployedPool } from './instance-pools';

/**
 * The model data each pool serves, by priority (priority 1: `primary`); every pool that has none that fits, and
 * every `extra` entry that fits no pool or says nothing of its compile, is a problem naming the fix.
 *
 * Without `primary` (an image that carries its model) every pool serves the image's own, unchecked.
 */
export function poolModelData(pools: readonly DeployedPool<Plan>[], primary: ModelData | undefined, extra: readonly ModelData[],
  problems: string[]): Map<number, ModelData | undefined> {
  const chosen = new Map<number, ModelData | undefined>([[1, primary]]);
  const used = new Set<number>();
  extra.forEach((data, i) => {
    if (data.compiledArtifact === undefined) {
      problems.push(`poolModelData[${i}] does not say what it was compiled for, so no pool can be matched to it; use `
        + 'ModelData.fromCompileJob(job) or ModelData.fromBucket(bucket, prefix, { compiledArtifact })');
    }
  });
  for (const pool of pools.slice(1)) {
    const p = pool.plan;
    const where = `instance pool ${pool.priority} (${pool.instanceType.sageMakerName})`;
    const fitting = extra.findIndex((data) => data.compiledArtifact !== undefined
      && compiledArtifactProblems(data.compiledArtifact, pool.plan).length === 0);
    if (fitting >= 0) {
      used.add(fitting);
      chosen.set(pool.priority, extra[fitting]);
      continue;
    }
    if (primary === undefined) {
      chosen.set(pool.priority, undefined);
      continue;
    }
    const shared = pool.compiledAs < pool.priority ? chosen.get(pool.compiledAs) : undefined;
    const facts = shared?.compiledArtifact;
    const mismatch = facts === undefined ? [] : compiledArtifactProblems(facts, pool.plan, `${where}: the model data of priority ${pool.compiledAs}`);
    if (shared !== undefined && mismatch.length === 0) {
      chosen.set(pool.priority, shared);
      continue;
    }
    problems.push(...mismatch);
    problems.push(`${where} needs a model compiled for chip ${chipOfFamily(p.instance.family) ?? p.instance.family}, `
      + `${p.coresPerProcess} NeuronCore(s) per process, batch ${p.batchSize}, which modelData is not: pass it in poolModelData `
      + `(ModelData.fromCompileJob of a NeuronCompileJob with that spec), compile in the deploy (InferenceStack compile), or `
      + 're-plan without the pool (--instance-types, or fewer --fallbacks)');
  }
  extra.forEach((data, i) => {
    if (data.compiledArtifact !== undefined && !used.has(i)) {
      const f = data.compiledArtifact;
      problems.push(`poolModelData[${i}] (chip ${f.chip}, ${f.coresPerProcess} core(s) per process, batch ${f.batchSizes.join('/')}) `
        + 'fits none of the plan\'s fallback pools; remove it, or re-plan so a pool runs it');
    }
  });
  return chosen;
}

/** What a fallback pool's own plan asks of the image and its instance type, each problem naming the pool. */
export function poolPlanProblems(pool: DeployedPool<Plan>, modelServerImage: boolean): string[] {
  const where = `instance pool ${pool.priority} (${pool.instanceType.sageMakerName})`;
  const problems = validateLayout(pool.instanceType.spec, pool.plan.coresPerProcess, pool.plan.processesPerInstance)
    .map((p) => `${where}: ${p}`);
  if (pool.plan.serving === 'batching' && !modelServerImage) {
    problems.push(`${where} serves a batching plan, but the image runs the stock SageMaker toolkit, one device call per request; `
      + "use the model server, image: ModelImage.fromServer({ tag, digest }), or re-plan with { serving: 'stock' }");
  }
  return problems;
}

/** What one model of a single-call endpoint is made of. */
export interface EndpointModelProps {
  readonly role: iam.IRole;
  readonly imageUri: string;
  /** The bound model data; none when the image carries the model. */
  readonly data?: ModelDataConfig;
  readonly environment: Record<string, string>;
  readonly networkIsolation: boolean;
  readonly vpcConfig?: sagemaker.CfnModel.VpcConfigProperty;
}

/** One SageMaker model of a single-call endpoint (the chosen type's, or a pool's): created after the role and the data. */
export function endpointModel(scope: Construct, id: string, props: EndpointModelProps): sagemaker.CfnModel {
  const { data } = props;
  const model = new sagemaker.CfnModel(scope, id, {
    executionRoleArn: props.role.roleArn,
    primaryContainer: {
      image: props.imageUri,
      modelDataSource: data === undefined ? undefined : {
        s3DataSource: { s3Uri: data.s3Uri, s3DataType: 'S3Prefix', compressionType: 'None' },
      },
      environment: props.environment,
    },
    enableNetworkIsolation: props.networkIsolation,
    vpcConfig: props.vpcConfig,
  });
  // SageMaker checks the role's access when it creates the model and starts the endpoint: attach the policies first.
  model.node.addDependency(props.role);
  if (data?.dependable) {
    model.node.addDependency(data.dependable as IDependable);
  }
  return model;
}

/** A fallback pool's image, bound for its type, and its model data, bound once per artifact. */
export interface PoolParts {
  readonly imageUri: string;
  readonly modelData?: ModelDataConfig;
}

/**
 * Each fallback pool's image (bound for its own instance type: another image family on Inf1) and model data, by
 * priority; model data several pools share, the chosen type's included (`primary`), is bound once.
 */
export function bindPoolParts(scope: Construct, role: iam.IRole, pools: readonly DeployedPool<Plan>[], image: ModelImage,
  data: Map<number, ModelData | undefined> | undefined, primary: readonly [ModelData, ModelDataConfig] | undefined): Map<number, PoolParts> {
  const bound = new Map<ModelData, ModelDataConfig>(primary ? [primary] : []);
  const bind = (d: ModelData | undefined) => {
    if (d !== undefined && !bound.has(d)) {
      bound.set(d, d.bind(scope, role));
    }
    return d === undefined ? undefined : bound.get(d);
  };
  return new Map(pools.slice(1).map((pool) => [pool.priority, {
    imageUri: bindPoolImage(pool, () => image.bind(scope, role, pool.instanceType).imageUri),
    modelData: bind(data?.get(pool.priority)),
  }]));
}
