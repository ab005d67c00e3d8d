import { Stack, StackProps } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { GenerativePlan } from '../../lib/generative/types';
import type { GenerativeWeights, ICompiledGenerativeArtifacts, NeuronGenerativeCompileJob } from '../compile/neuron-generative-compile-job';
import { compileGenerativeInStack } from '../compile/private/generative-stack-compile';
import type { ModelImage } from '../image/model-image';
import { constructError, generativePlanOf } from '../private/construct-errors';
import { markOwned } from '../private/ownership';
import { deployTimeZones, stackOutputs } from '../private/stack-parts';
import { SmokeBenchmark } from '../proof/smoke-benchmark';
import type { GenerativeSmokeBenchmarkOptions } from '../proof/smoke-benchmark-props';
import type { GenerativeScaleToZeroOptions } from './generative-endpoint-props';
import { NeuronGenerativeEndpoint } from './neuron-generative-endpoint';
import { inferenceComponentProof } from './private/endpoint-monitoring';

/** Props of {@link GenerativeInferenceStack}. */
export interface GenerativeInferenceStackProps extends StackProps {
  /**
   * The generative plan to deploy, made for hosting `sagemaker` in this stack's region. With fallback pools
   * (`plan.fallbacks`) and `weights`, each pool that loads no earlier pool's artifacts is compiled for its own plan in
   * the same deploy; with `compiledArtifacts`, every pool must load those.
   */
  readonly plan: GenerativePlan;

  /** The Neuron vLLM image (`ModelImage.fromNeuronVllm`), pinned by digest; it also compiles the model. */
  readonly image: ModelImage;

  /**
   * The weights: an S3 prefix, or a Hugging Face Hub commit with a token secret; or a function of this stack returning
   * them, for a secret or bucket referenced in the stack (`Secret.fromSecretNameV2(stack, ...)`). Give either
   * `weights` (the stack compiles them) or `compiledArtifacts` (it serves what another deploy compiled).
   *
   * @default - none: `compiledArtifacts` is given
   */
  readonly weights?: GenerativeWeights | ((stack: Stack) => GenerativeWeights);

  /**
   * Artifacts compiled elsewhere for this plan, e.g. the prefix an earlier environment compiled and `promote` copied
   * here: the stack compiles nothing and serves them (refused at synth when they were compiled for another plan).
   *
   * @default - none: the stack compiles `weights`
   */
  readonly compiledArtifacts?: ICompiledGenerativeArtifacts;

  /** Bucket the stack's compile writes to. @default - the model data bucket */
  readonly compileBucket?: s3.IBucket;

  /** Key prefix of the stack's compile, empty or ending in `/`. @default 'compiled/' */
  readonly compilePrefix?: string;

  /** Name clients send in the request's `model` field. @default - the plan's profile id */
  readonly servedModelName?: string;

  /**
   * VPC of the compile host, with a route to S3 and, for Hub weights, to huggingface.co.
   *
   * @default - a two-zone VPC with one NAT gateway and an S3 gateway endpoint
   */
  readonly compileVpc?: ec2.IVpc;

  /** Scale the endpoint to zero copies when idle. @default - no: the plan's copies always run */
  readonly scaleToZero?: GenerativeScaleToZeroOptions;

  /**
   * The proof each deploy must pass, in tokens (golden prompt, streamed run, optional capacity proof).
   *
   * @default - the default golden prompt and a short streamed run judged against the plan's targets
   */
  readonly smokeBenchmark?: GenerativeSmokeBenchmarkOptions;
}

/**
 * A generative model on SageMaker, as the token planner sized it: compiled in the deploy for the plan's tensor-parallel
 * degree, concurrency and length by the serving image's own vLLM, served by inference components, and proven in
 * tokens before the deploy completes.
 *
 * Synthesizes offline with an explicit `env`: the compile VPC takes its zones from `Fn::GetAZs` at deploy time.
 */
export class GenerativeInferenceStack extends Stack {
  /** The compile in this stack's deploy; undefined when it serves `compiledArtifacts`. */
  readonly compileJob?: NeuronGenerativeCompileJob;
  /**
   * The compiles of the plan's fallback pools that load no earlier pool's artifacts (another chip family or other
   * engine settings), when the stack compiles; empty otherwise.
   */
  readonly poolCompileJobs: readonly NeuronGenerativeCompileJob[];
  /** What the endpoint serves: this stack's compile, or the artifacts it was given. */
  readonly compiledArtifacts: ICompiledGenerativeArtifacts;
  readonly endpoint: NeuronGenerativeEndpoint;
  readonly smokeBenchmark: SmokeBenchmark;

  constructor(scope: Construct, id: string, props: GenerativeInferenceStackProps) {
    super(scope, id, props);
    markOwned(this);
    const plan = generativePlanOf(this, props.plan);
    const servedModelName = props.servedModelName ?? plan.profileId;
    if ((props.weights === undefined) === (props.compiledArtifacts === undefined)) {
      throw constructError(this, `give either weights (the stack compiles them) or compiledArtifacts (it serves `
        + `what another deploy compiled), not ${props.weights === undefined ? 'neither' : 'both'}`);
    }
    let poolJobs: readonly NeuronGenerativeCompileJob[] = [];
    if (props.weights !== undefined) {
      ({ job: this.compileJob, poolJobs } = compileGenerativeInStack(this, { ...props, weights: props.weights }));
    }
    this.poolCompileJobs = poolJobs;
    this.compiledArtifacts = this.compileJob ?? props.compiledArtifacts!;
    this.endpoint = new NeuronGenerativeEndpoint(this, 'Endpoint', {
      plan: props.plan,
      image: props.image,
      compiledArtifacts: this.compiledArtifacts,
      ...(poolJobs.length > 0 ? { poolCompiledArtifacts: poolJobs } : {}),
      servedModelName,
      scaleToZero: props.scaleToZero,
    });
    this.smokeBenchmark = new SmokeBenchmark(this, 'SmokeBenchmark',
      inferenceComponentProof(this.endpoint, props.plan, servedModelName, props.smokeBenchmark ?? {}));

    stackOutputs(this, {
      EndpointName: ['SageMaker endpoint to invoke (with InferenceComponentName)', this.endpoint.endpointName],
      InferenceComponentName: ['Inference component serving the model', this.endpoint.inferenceComponentName],
      PlanSummary: ['What the token planner chose and what it predicts', generativePlanLine(props.plan)],
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

/** One line a reviewer reads: layout, engine, predicted tokens against targets, cost per hour and per 1M output tokens. */
export function generativePlanLine(plan: GenerativePlan): string {
  const g = plan.generative;
  const price = plan.price.unverified ? ' (price UNVERIFIED)' : '';
  return `${plan.profileId}: ${plan.instanceCount} x ${plan.instanceType} (max ${plan.maxInstanceCount}), ${g.replicasPerInstance} `
    + `replica(s) x TP ${g.tensorParallelDegree}, ${g.maxConcurrentSequences} sequences, length ${g.maxModelLength}; `
    + `${plan.targets.requestsPerSecond} requests/s: TTFT p99 ${g.predictedTtftP99Ms} ms for <= ${plan.targets.ttftP99Ms}, `
    + `TPOT p99 ${g.predictedTpotP99Ms} ms for <= ${plan.targets.tpotP99Ms}; $${plan.hourlyCostUsd.toFixed(2)}/h, `
    + `$${g.costPer1MOutputTokensUsd.toFixed(2)} per 1M output tokens in ${plan.region}${price}`;
}
