import { Stack, StackProps } from 'aws-cdk-lib';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { GenerativePlan } from '../../lib/generative';
import type { GenerativeWeights, ICompiledGenerativeArtifacts, NeuronGenerativeCompileJob } from '../compile/neuron-generative-compile-job';
import { compileGenerativeInStack } from '../compile/private/generative-stack-compile';
import type { ModelImage } from '../image/model-image';
import { generativePlanOf, throwIfProblems } from '../private/construct-errors';
import { markOwned } from '../private/ownership';
import { deployTimeZones, stackOutputs } from '../private/stack-parts';
import type { NeuronGenerativeEcsServiceProps } from './generative-ecs-service-props';
import { NeuronGenerativeEcsService } from './neuron-generative-ecs-service';

/** Props of {@link GenerativeEcsInferenceStack}. */
export interface GenerativeEcsInferenceStackProps extends StackProps {
  /** The generative plan to deploy, made for hosting `ec2` in this stack's region. */
  readonly plan: GenerativePlan;

  /** The Neuron vLLM image, pinned by digest. */
  readonly image: ModelImage;

  /**
   * The weights to compile in the deploy, for this stack's plan: an S3 prefix, or a Hugging Face Hub commit with a token
   * secret; or a function of this stack returning them, for a secret or bucket referenced in the stack
   * (`Secret.fromSecretNameV2(stack, ...)`). The stack then compiles them with a `NeuronGenerativeCompileJob` (as
   * `GenerativeInferenceStack` does) and the tasks start from its artifacts.
   *
   * Give exactly one of `weights`, `compiledArtifacts`, or `modelBucketName` with `weightsPrefix`.
   *
   * @default - `compiledArtifacts`, or `modelBucketName` and `weightsPrefix`
   */
  readonly weights?: GenerativeWeights | ((stack: Stack) => GenerativeWeights);

  /**
   * VPC of the compile host (with `weights`), with a route to S3 and, for Hub weights, to huggingface.co.
   *
   * @default - with `weights`, a two-zone VPC with one NAT gateway and an S3 gateway endpoint
   */
  readonly compileVpc?: ec2.IVpc;

  /**
   * The artifacts a `NeuronGenerativeCompileJob` compiled for this plan (weights included), checked against the plan
   * and the image at synth: for artifacts compiled outside this stack.
   *
   * @default - `weights`, or `modelBucketName` and `weightsPrefix`
   */
  readonly compiledArtifacts?: ICompiledGenerativeArtifacts;

  /**
   * Name of the S3 bucket, in this stack's region, that holds the weights and compiled artifacts.
   *
   * @default - `weights` or `compiledArtifacts`
   */
  readonly modelBucketName?: string;

  /** Key prefix of the weights (Hugging Face layout), without a trailing slash. @default - `weights` or `compiledArtifacts` */
  readonly weightsPrefix?: string;

  /**
   * Key prefix of the artifacts compiled for this plan, with `modelBucketName` and `weightsPrefix`.
   *
   * @default - with `modelBucketName`, vLLM compiles at every task start
   */
  readonly compiledArtifactsPrefix?: string;

  /** Name clients send in the request's `model` field. @default - the plan's profile id */
  readonly servedModelName?: string;

  /** The proof each deploy must pass, in tokens. @default - the default golden prompt and short streamed run */
  readonly smokeBenchmark?: NeuronGenerativeEcsServiceProps['smokeBenchmark'];

  /** Availability Zones of the VPC. @default - the region's first two zones, resolved by CloudFormation */
  readonly availabilityZones?: string[];

  /** Certificate of an HTTPS listener. @default - HTTP on the internal load balancer */
  readonly certificate?: acm.ICertificate;

  /** Host name the certificate covers. @default - the load balancer's DNS name */
  readonly domainName?: string;
}

/**
 * One generative model served by vLLM on Neuron EC2 instances through Amazon ECS, as the token planner sized it:
 * compiled in the deploy for this plan when given `weights` (as `GenerativeInferenceStack` compiles for its own), the
 * service in a private VPC behind an internal load balancer, with outputs for the URL, the plan and the compiled
 * artifacts.
 *
 * Synthesizes offline with an explicit `env`: the VPC takes its zones from `Fn::GetAZs` at deploy time and the AMI
 * from its SSM public parameter.
 */
export class GenerativeEcsInferenceStack extends Stack {
  /** The service. */
  readonly service: NeuronGenerativeEcsService;
  /** The compile of `weights` for this stack's plan; undefined when the stack was given artifacts or S3 prefixes. */
  readonly compileJob?: NeuronGenerativeCompileJob;
  private readonly zones?: string[];

  constructor(scope: Construct, id: string, props: GenerativeEcsInferenceStackProps) {
    super(scope, id, props);
    markOwned(this);
    this.zones = props.availabilityZones;
    generativePlanOf(this, props.plan);
    throwIfProblems(this, modelSourceProblems(props));
    this.compileJob = props.weights === undefined ? undefined : compileGenerativeInStack(this, { ...props, weights: props.weights }).job;
    this.service = new NeuronGenerativeEcsService(this, 'Service', {
      plan: props.plan,
      image: props.image,
      compiledArtifacts: this.compileJob ?? props.compiledArtifacts,
      model: props.modelBucketName === undefined && props.weightsPrefix === undefined ? undefined : {
        bucket: s3.Bucket.fromBucketName(this, 'ModelBucket', props.modelBucketName ?? ''),
        weightsPrefix: props.weightsPrefix ?? '',
        compiledArtifactsPrefix: props.compiledArtifactsPrefix,
      },
      servedModelName: props.servedModelName ?? props.plan.profileId,
      availabilityZones: props.availabilityZones,
      certificate: props.certificate,
      domainName: props.domainName,
      smokeBenchmark: props.smokeBenchmark ?? {},
    });
    stackOutputs(this, {
      Url: ['Load balancer URL of vLLM (POST /v1/chat/completions, /v1/completions); internal to the VPC', this.service.url],
      PlanSummary: ['What the token planner chose and what it predicts', generativePlanSummary(props.plan)],
    });
  }

  /** The zones given, or the region's first two resolved by CloudFormation, so synth needs no lookup. */
  override get availabilityZones(): string[] {
    return this.zones ?? deployTimeZones();
  }
}

/** Why the props do not name the model exactly one way: compiled here, compiled elsewhere, or S3 prefixes. */
function modelSourceProblems(props: GenerativeEcsInferenceStackProps): string[] {
  const problems: string[] = [];
  const prefixes = props.modelBucketName !== undefined || props.weightsPrefix !== undefined;
  if ((props.modelBucketName === undefined) !== (props.weightsPrefix === undefined)) {
    problems.push(`modelBucketName and weightsPrefix go together (got only ${props.modelBucketName === undefined
      ? 'weightsPrefix' : 'modelBucketName'}); pass both, or weights (compiled in the deploy) or compiledArtifacts instead`);
  }
  const given = [
    ...(props.weights !== undefined ? ['weights'] : []),
    ...(props.compiledArtifacts !== undefined ? ['compiledArtifacts'] : []),
    ...(prefixes ? ['modelBucketName/weightsPrefix'] : []),
  ];
  if (given.length === 0) {
    problems.push(`no model given; pass weights (GenerativeWeights.fromHuggingFace or fromS3Prefix: compiled in the `
      + 'deploy for this plan), compiledArtifacts (a NeuronGenerativeCompileJob for this plan), or modelBucketName with weightsPrefix');
  } else if (given.length > 1) {
    problems.push(`${given.join(', ')} are given; pass only one: weights compiles in the deploy, `
      + 'compiledArtifacts serves artifacts compiled elsewhere, modelBucketName/weightsPrefix serves S3 prefixes');
  }
  if (props.compileVpc !== undefined && props.weights === undefined) {
    problems.push(`compileVpc is given without weights; it is the compile host's VPC, used only when the stack `
      + 'compiles weights: pass weights too, or drop compileVpc');
  }
  if (props.compiledArtifactsPrefix !== undefined && !prefixes) {
    problems.push(`compiledArtifactsPrefix=${JSON.stringify(props.compiledArtifactsPrefix)} goes with modelBucketName and `
      + 'weightsPrefix; with weights or compiledArtifacts the artifacts are the compile job\'s: drop it');
  }
  return problems;
}

/** One line on what the plan deploys and predicts. */
export function generativePlanSummary(plan: GenerativePlan): string {
  const g = plan.generative;
  const price = plan.price.unverified ? ' (price UNVERIFIED)' : '';
  return `${plan.profileId}: ${plan.instanceCount} x ${plan.instanceType} (max ${plan.maxInstanceCount}), `
    + `${g.replicasPerInstance} replica(s) per instance at TP ${g.tensorParallelDegree}, ${g.maxConcurrentSequences} `
    + `sequences, length ${g.maxModelLength}; predicted p99 TTFT ${g.predictedTtftP99Ms} ms, TPOT ${g.predictedTpotP99Ms} ms `
    + `for ${plan.targets.requestsPerSecond} requests/s; $${plan.hourlyCostUsd.toFixed(2)}/h, `
    + `$${g.costPer1MOutputTokensUsd.toFixed(2)} per 1M output tokens in ${plan.region}${price}`;
}
