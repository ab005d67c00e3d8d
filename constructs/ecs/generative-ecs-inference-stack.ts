import { CfnOutput, Fn, Stack, StackProps } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { GenerativePlan } from '../../lib/generative';
import { InputError } from '../../lib/errors';
import type { ICompiledGenerativeArtifacts } from '../compile/neuron-generative-compile-job';
import type { ModelImage } from '../image/model-image';
import { markOwned } from '../private/ownership';
import type { NeuronGenerativeEcsServiceProps } from './generative-ecs-service-props';
import { NeuronGenerativeEcsService } from './neuron-generative-ecs-service';

/** Props of {@link GenerativeEcsInferenceStack}. */
export interface GenerativeEcsInferenceStackProps extends StackProps {
  /** The generative plan to deploy, made for hosting `ec2` in this stack's region. */
  readonly plan: GenerativePlan;

  /** The Neuron vLLM image, pinned by digest. */
  readonly image: ModelImage;

  /**
   * The artifacts a `NeuronGenerativeCompileJob` compiled for this plan (weights included), checked against the plan
   * and the image at synth. Pass either this or `modelBucketName` with `weightsPrefix`.
   *
   * @default - `modelBucketName` and `weightsPrefix`
   */
  readonly compiledArtifacts?: ICompiledGenerativeArtifacts;

  /**
   * Name of the S3 bucket, in this stack's region, that holds the weights and compiled artifacts.
   *
   * @default - `compiledArtifacts`
   */
  readonly modelBucketName?: string;

  /** Key prefix of the weights (Hugging Face layout), without a trailing slash. @default - `compiledArtifacts` */
  readonly weightsPrefix?: string;

  /** Key prefix of the artifacts compiled for this plan. @default - vLLM compiles at every task start */
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
 * the service in a private VPC behind an internal load balancer, with outputs for the URL and the plan.
 *
 * Synthesizes offline with an explicit `env`: the VPC takes its zones from `Fn::GetAZs` at deploy time and the AMI
 * from its SSM public parameter.
 */
export class GenerativeEcsInferenceStack extends Stack {
  /** The service. */
  readonly service: NeuronGenerativeEcsService;
  private readonly zones?: string[];

  constructor(scope: Construct, id: string, props: GenerativeEcsInferenceStackProps) {
    super(scope, id, props);
    markOwned(this);
    this.zones = props.availabilityZones;
    if ((props.modelBucketName === undefined) !== (props.weightsPrefix === undefined)) {
      throw new InputError('GenerativeEcsInferenceStack: modelBucketName and weightsPrefix go together; pass both, or '
        + 'compiledArtifacts instead');
    }
    this.service = new NeuronGenerativeEcsService(this, 'Service', {
      plan: props.plan,
      image: props.image,
      compiledArtifacts: props.compiledArtifacts,
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
    new CfnOutput(this, 'Url', {
      description: 'Load balancer URL of vLLM (POST /v1/chat/completions, /v1/completions); internal to the VPC',
      value: this.service.url,
    });
    new CfnOutput(this, 'PlanSummary', {
      description: 'What the token planner chose and what it predicts',
      value: generativePlanSummary(props.plan),
    });
  }

  /** The zones given, or the region's first two resolved by CloudFormation, so synth needs no lookup. */
  override get availabilityZones(): string[] {
    return this.zones ?? [Fn.select(0, Fn.getAzs()), Fn.select(1, Fn.getAzs())];
  }
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
