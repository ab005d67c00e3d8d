/**
 * The fallback pools of a generative endpoint: which compiled artifacts each pool's model serves, and the one sizing
 * of an inference component whose copies may land on any pool.
 *
 * An inference component carries one specification per instance type (`Specifications`: its model, devices, memory,
 * CPU and startup timeouts; CloudFormation `AWS::SageMaker::InferenceComponent`, aws-cdk-lib 2.276
 * `InferenceComponentSpecificationForInstanceTypeProperty`), but one copy count and one scaling policy for all.
 */
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import type { Construct, IDependable } from 'constructs';
import type { GenerativePlan } from '../../../lib/generative/types';
import { checkGenerativeArtifacts } from '../../../lib/compile/generative-check';
import type { ICompiledGenerativeArtifacts } from '../../compile/neuron-generative-compile-job';
import type { ModelImage } from '../../image/model-image';
import { ModelData, type ModelDataConfig } from '../../model/model-data';
import { bindPoolImage, type DeployedPool } from './instance-pools';
import type { ComponentSizing } from './generative-sizing';

/**
 * The compiled artifacts each pool serves, by priority (priority 1: `primary`); a pool with none that fits, and an
 * `extra` entry that fits no pool, is a problem naming the fix. Without `primary` (plain weights, compiled at start)
 * every pool serves the weights and compiles for its own plan.
 */
export function poolCompiledArtifacts(pools: readonly DeployedPool<GenerativePlan>[], primary: ICompiledGenerativeArtifacts | undefined,
  extra: readonly ICompiledGenerativeArtifacts[], sdk: string, problems: string[]): Map<number, ICompiledGenerativeArtifacts | undefined> {
  const chosen = new Map<number, ICompiledGenerativeArtifacts | undefined>([[1, primary]]);
  if (primary === undefined) {
    if (extra.length > 0) {
      problems.push('poolCompiledArtifacts is set without compiledArtifacts; give the chosen plan\'s compiled artifacts too, or neither');
    }
    pools.slice(1).forEach((pool) => chosen.set(pool.priority, undefined));
    return chosen;
  }
  const used = new Set<number>();
  for (const pool of pools.slice(1)) {
    const fitting = extra.findIndex((artifacts) => checkGenerativeArtifacts(pool.plan, sdk, artifacts.manifest).length === 0);
    if (fitting >= 0) {
      used.add(fitting);
      chosen.set(pool.priority, extra[fitting]);
      continue;
    }
    const shared = pool.compiledAs < pool.priority ? chosen.get(pool.compiledAs) : undefined;
    if (shared !== undefined && checkGenerativeArtifacts(pool.plan, sdk, shared.manifest).length === 0) {
      chosen.set(pool.priority, shared);
      continue;
    }
    const e = pool.plan.generative.engine;
    problems.push(`instance pool ${pool.priority} (${pool.instanceType.sageMakerName}) needs artifacts compiled for it (tensor parallel `
      + `size ${e.tensorParallelSize}, ${e.maxNumSeqs} sequences, length ${e.maxModelLen} on ${pool.plan.instance.family}): pass them in `
      + 'poolCompiledArtifacts (a NeuronGenerativeCompileJob of the pool\'s plan), compile in the deploy (GenerativeInferenceStack '
      + 'weights), or re-plan without the pool');
  }
  extra.forEach((artifacts, i) => {
    if (!used.has(i)) {
      problems.push(`poolCompiledArtifacts[${i}] (tensor parallel size ${artifacts.manifest.tensorParallelSize}, `
        + `${artifacts.manifest.maxNumSeqs} sequences) fits none of the plan's fallback pools; remove it, or re-plan so a pool runs it`);
    }
  });
  return chosen;
}

/**
 * The component's sizing when its copies may land on any pool: each pool's own sizing for its specification, and
 * one copy count and scaling target for all: the mixed fleet's copies (the most any pool needs) and the lowest of
 * the pools' concurrency targets, so no copy is held above its own pool's planned load, whichever pool it is on.
 */
export function mixedComponentSizing(plan: GenerativePlan, sizings: readonly ComponentSizing[], scaleToZero: boolean): ComponentSizing {
  const fleet = plan.mixedFleet;
  const [primary] = sizings;
  if (fleet === undefined || sizings.length <= 1) {
    return primary;
  }
  return {
    ...primary,
    initialCopies: fleet.copies,
    minCopies: scaleToZero ? 0 : fleet.copies,
    maxCopies: fleet.maxCopies,
    minInstances: scaleToZero ? 0 : fleet.instanceCount,
    maxInstances: fleet.maxInstanceCount,
    requestsPerSecondPerCopy: plan.targets.requestsPerSecond / fleet.copies,
    targetConcurrentRequestsPerCopy: Math.min(...sizings.map((s) => s.targetConcurrentRequestsPerCopy)),
    // Each pool starts its copies within its own timeouts (its specification); the component's are the longest.
    downloadTimeoutSeconds: Math.max(...sizings.map((s) => s.downloadTimeoutSeconds)),
    startupTimeoutSeconds: Math.max(...sizings.map((s) => s.startupTimeoutSeconds)),
    timeoutCapped: sizings.some((s) => s.timeoutCapped),
  };
}

/** What one model of a generative endpoint is made of. */
export interface GenerativeModelProps {
  readonly role: iam.IRole;
  readonly imageUri: string;
  /** The bound weights (with the compiled artifacts beside them, when compiled). */
  readonly data: ModelDataConfig;
  readonly environment: Record<string, string>;
  /** The compile the files come from, which the model waits for. @default - none */
  readonly compiled?: ICompiledGenerativeArtifacts;
  readonly vpcConfig?: sagemaker.CfnModel.VpcConfigProperty;
}

/** One SageMaker model of a generative endpoint (the chosen type's, or a pool's): created after the role and the files. */
export function generativeModel(scope: Construct, id: string, props: GenerativeModelProps): sagemaker.CfnModel {
  const model = new sagemaker.CfnModel(scope, id, {
    executionRoleArn: props.role.roleArn,
    primaryContainer: {
      image: props.imageUri,
      // An uncompressed prefix: a component's own ArtifactUrl takes only a .tar.gz, too slow for tens of GiB.
      modelDataSource: { s3DataSource: { s3Uri: props.data.s3Uri, s3DataType: 'S3Prefix', compressionType: 'None' } },
      environment: props.environment,
    },
    vpcConfig: props.vpcConfig,
  });
  model.node.addDependency(props.role);
  if (props.data.dependable) model.node.addDependency(props.data.dependable as IDependable);
  if (props.compiled !== undefined) model.node.addDependency(props.compiled.resource);
  return model;
}

/** A generative fallback pool's image, bound for its type, and its files. */
export interface GenerativePoolParts {
  readonly imageUri: string;
  readonly data: ModelDataConfig;
}

/**
 * Each fallback pool's image (bound for its own instance type) and files, by priority: a pool with compiled artifacts
 * of its own reads them from their prefix; the others share the chosen plan's (`primary`) or the plain weights.
 */
export function bindGenerativePoolParts(scope: Construct, role: iam.IRole, pools: readonly DeployedPool<GenerativePlan>[], image: ModelImage,
  files: { readonly artifacts?: Map<number, ICompiledGenerativeArtifacts | undefined>; readonly primary?: ICompiledGenerativeArtifacts;
    readonly weights: ModelDataConfig }): Map<number, GenerativePoolParts> {
  return new Map(pools.slice(1).map((pool) => {
    const own = files.artifacts?.get(pool.priority);
    return [pool.priority, {
      imageUri: bindPoolImage(pool, () => image.bind(scope, role, pool.instanceType).imageUri),
      data: own === undefined || own === files.primary ? files.weights : ModelData.fromBucket(own.bucket, own.artifactPrefix).bind(scope, role),
    }];
  }));
}

/** A component specification's model, devices, memory, CPU and startup timeouts, from one pool's sizing. */
export function componentSpecification(model: sagemaker.CfnModel, sizing: ComponentSizing) {
  return {
    modelName: model.attrModelName,
    computeResourceRequirements: {
      numberOfAcceleratorDevicesRequired: sizing.devicesPerCopy,
      minMemoryRequiredInMb: sizing.memoryPerCopyMb,
      numberOfCpuCoresRequired: sizing.cpuCoresPerCopy,
    },
    startupParameters: {
      modelDataDownloadTimeoutInSeconds: sizing.downloadTimeoutSeconds,
      containerStartupHealthCheckTimeoutInSeconds: sizing.startupTimeoutSeconds,
    },
  };
}
