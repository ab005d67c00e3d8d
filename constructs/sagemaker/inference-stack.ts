import { Stack, StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';
import type { CompileSpecInput } from '../../lib/compile';
import { chipOfFamily } from '../../lib/compile/spec';
import type { Plan } from '../../lib/planner';
import { ModelData } from '../model/model-data';
import { ModelImage } from '../image/model-image';
import { ModelImageRepository } from '../image/model-image-repository';
import { NeuronCompileJob } from '../compile/neuron-compile-job';
import { NeuronSageMakerEndpoint } from './neuron-sagemaker-endpoint';
import type { SmokeBenchmarkOptions } from '../proof/smoke-benchmark-props';
import { constructError, singleCallPlanOf } from '../private/construct-errors';
import { markOwned } from '../private/ownership';
import { deployTimeZones, stackModelServerImage, stackOutputs } from '../private/stack-parts';

/** How {@link InferenceStack} compiles its model in the deploy. */
export interface InferenceCompileOptions {
  /** The compile spec; its chip, cores per process and batch sizes must match the plan (checked at synth). */
  readonly spec: CompileSpecInput;

  /**
   * VPC of the compile instance, with a route to S3 and, for a Hugging Face Hub source, to the internet.
   *
   * @default - a VPC of this stack: two Availability Zones, one NAT gateway, flow logs, an S3 gateway endpoint
   */
  readonly vpc?: ec2.IVpc;
}

/** Props of {@link InferenceStack}. */
export interface InferenceStackProps extends StackProps {
  /**
   * The plan to deploy, made for hosting `sagemaker` in this stack's region. With fallback pools (`plan.fallbacks`)
   * and `compile`, each pool that cannot load an earlier pool's artifact is compiled for its own chip and shape; with
   * `modelDataPath` or `modelData`, every pool must load that one (the same chip, core group and batch).
   */
  readonly plan: Plan;

  /**
   * The serving image: the model server on a Neuron DLC pinned by digest (`ModelImage.fromServer`, which runs
   * `stock` and `batching` plans), or a Neuron DLC's stock toolkit (`ModelImage.fromNeuronDlc`, `stock` plans made
   * with `server: 'neuron-dlc'` only).
   *
   * Pass either `image` or `imageDigest`.
   *
   * @default - the image with `imageDigest` in this stack's repository
   */
  readonly image?: ModelImage;

  /**
   * Digest of an image pushed to this stack's repository (`sha256:` and 64 hex digits): the model server image
   * (built from `serving/`, e.g. the one `ModelImage.fromServer` builds, or FROM it), configured from the plan.
   *
   * @default - `image` is used
   */
  readonly imageDigest?: string;

  /**
   * Directory with the model data (compiled model, tokenizer, `code/inference.py`), uploaded as an asset and
   * served uncompressed from S3.
   */
  readonly modelDataPath?: string;

  /**
   * Compile the model in the deploy instead: a `NeuronCompileJob` of this spec (docs/compile.md) runs on a compile
   * instance before the endpoint is created, and the endpoint serves its artifact. Pass either `modelDataPath` or
   * `compile`; with `compile`, the image must carry the handler (`ModelImage.fromServer({ handler })`), since the
   * artifact holds only the model and its tokenizer.
   *
   * @default - the model data comes from `modelDataPath`
   */
  readonly compile?: InferenceCompileOptions;

  /**
   * Model data that already exists, e.g. a compiled artifact promoted into this environment
   * (`ModelData.fromBucket(bucket, 'compiled/<hash>/')`). Pass exactly one of `modelDataPath`, `compile` and
   * `modelData`.
   *
   * @default - the model data comes from `modelDataPath` or `compile`
   */
  readonly modelData?: ModelData;

  /**
   * Files in `modelDataPath` the model handler loads, relative to it, e.g. `['model.pt', 'tokenizer_config.json',
   * 'vocab.txt']`. A missing one warns at synth and makes CloudFormation refuse the deploy before anything is
   * created.
   *
   * @default - only that the directory holds at least one file
   */
  readonly requiredModelFiles?: readonly string[];

  /**
   * Sequence length the model was compiled for, passed to the handler as `MODEL_SEQUENCE_LENGTH`.
   *
   * @default 128 - the Neuron encoder benchmarks' shape
   */
  readonly sequenceLength?: number;

  /**
   * The smoke benchmark that proves each deployment and rolls it back when the endpoint misses the plan's targets.
   *
   * @default - no smoke benchmark
   */
  readonly smokeBenchmark?: SmokeBenchmarkOptions;
}

/**
 * One model served on a SageMaker Neuron endpoint, as the plan sized it: an image repository for your own builds,
 * the endpoint with its guardrails, and outputs for the endpoint name, the repository URI and the plan.
 *
 * The model handler receives the plan's batch as `MODEL_BATCH_SIZE` and the compiled sequence length as
 * `MODEL_SEQUENCE_LENGTH` (see `examples/bert-base-uncased/model/code/inference.py`).
 */
export class InferenceStack extends Stack {
  /** Repository for serving images built for this model. */
  readonly repository: ModelImageRepository;
  /** The endpoint. */
  readonly endpoint: NeuronSageMakerEndpoint;
  /** The compile job, when the stack compiles its model. */
  readonly compileJob?: NeuronCompileJob;
  /**
   * The compile jobs of the plan's fallback pools that need their own compiled model (another chip family, core
   * group or batch), when the stack compiles; empty otherwise.
   */
  readonly poolCompileJobs: readonly NeuronCompileJob[];

  constructor(scope: Construct, id: string, props: InferenceStackProps) {
    super(scope, id, props);
    markOwned(this);
    const plan = singleCallPlanOf(this, props.plan);
    const sources = (['modelDataPath', 'compile', 'modelData'] as const).filter((key) => props[key] !== undefined);
    if (sources.length !== 1) {
      throw constructError(this, sources.length === 0
        ? 'InferenceStack: none of modelDataPath, compile and modelData is set; pass the directory of your compiled '
          + 'model, a compile spec to compile it in the deploy (docs/compile.md), or existing model data'
        : `InferenceStack: ${sources.join(' and ')} are set; pass only one`);
    }

    this.repository = new ModelImageRepository(this, 'Repository');
    const image = stackModelServerImage(this, this.repository, props, 'InferenceStack', 'pass image (e.g. '
      + "ModelImage.fromServer({ tag, digest })) or the imageDigest of an image pushed to the stack's repository");

    let modelData: ModelData;
    const poolCompileJobs: NeuronCompileJob[] = [];
    if (props.compile) {
      const vpc = props.compile.vpc ?? new ec2.Vpc(this, 'CompileVpc', {
        maxAzs: 2,
        natGateways: 1,
        // The compile host downloads from S3 through the gateway, not the NAT gateway's per-GB charge.
        gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
        flowLogs: { Rejected: { trafficType: ec2.FlowLogTrafficType.REJECT } },
      });
      this.compileJob = new NeuronCompileJob(this, 'Compile', { spec: props.compile.spec, plan, vpc });
      modelData = ModelData.fromCompileJob(this.compileJob);
      // A fallback pool that cannot load an earlier pool's artifact (another chip, core group or batch) gets its own
      // compile of the same model, for its chip and shape, content-hashed and cached like the first.
      for (const pool of plan.fallbacks ?? []) {
        if (pool.sharesCompiledModelWith === undefined) {
          poolCompileJobs.push(new NeuronCompileJob(this, `Pool${pool.priority}Compile`, {
            spec: poolCompileSpec(props.compile.spec, pool.plan), plan: pool.plan, vpc,
          }));
        }
      }
    } else if (props.modelData) {
      modelData = props.modelData;
    } else {
      modelData = ModelData.fromAsset(props.modelDataPath as string, { requiredFiles: props.requiredModelFiles });
    }

    this.poolCompileJobs = poolCompileJobs;
    this.endpoint = new NeuronSageMakerEndpoint(this, 'Endpoint', {
      plan,
      image,
      modelData,
      ...(poolCompileJobs.length > 0 ? { poolModelData: poolCompileJobs.map((job) => ModelData.fromCompileJob(job)) } : {}),
      environment: {
        MODEL_BATCH_SIZE: `${plan.batchSize}`,
        MODEL_SEQUENCE_LENGTH: `${props.sequenceLength ?? 128}`,
      },
      smokeBenchmark: props.smokeBenchmark,
    });

    stackOutputs(this, {
      EndpointName: ['SageMaker endpoint to invoke', this.endpoint.endpointName],
      RepositoryUri: ['ECR repository for serving images built for this model', this.repository.repositoryUri],
      PlanSummary: ['What the planner chose and why it meets the targets', planSummary(plan)],
    });
  }

  /**
   * The region's first two zones, resolved by CloudFormation (`Fn::GetAZs`): with an explicit `env` the compile VPC
   * would otherwise look its zones up at synth, which needs credentials.
   */
  override get availabilityZones(): string[] {
    return deployTimeZones();
  }
}

/**
 * The compile spec of a fallback pool: the stack's spec (same source, task, shape and compiler settings) for the
 * pool's chip, cores per process and compiled batch.
 */
export function poolCompileSpec(spec: CompileSpecInput, pool: Plan): CompileSpecInput {
  const family = pool.instance.family;
  return { ...spec, chip: chipOfFamily(family) ?? family, coresPerProcess: pool.coresPerProcess, batchSizes: [pool.batchSize] } as CompileSpecInput;
}

/** One line a reviewer reads: layout, capacity against target, latency against target, cost. */
export function planSummary(plan: Plan): string {
  const price = plan.price.unverified ? ' (price UNVERIFIED)' : '';
  return `${plan.profileId}: ${plan.instanceCount} x ${plan.instanceType} `
    + `(max ${plan.maxInstanceCount}), ${plan.processesPerInstance} processes x ${plan.coresPerProcess} NeuronCore(s), `
    + `batch ${plan.batchSize}, ${plan.serving} serving on ${plan.server === 'neuron-dlc' ? "a Neuron DLC's toolkit" : 'the model server'}; capacity ${round(plan.capacityRps)} requests/s for `
    + `${plan.targets.throughputRps} requests/s; predicted p99 ${round(plan.predictedP99Ms)} ms for <= ${plan.targets.p99Ms} ms; `
    + `$${plan.hourlyCostUsd.toFixed(2)}/h, $${plan.monthlyCostUsd.toFixed(2)}/month in ${plan.region}${price}`;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
