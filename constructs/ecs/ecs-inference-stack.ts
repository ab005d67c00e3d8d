import { Stack, StackProps } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import { Construct } from 'constructs';
import type { Plan } from '../../lib/planner';
import { planSummary } from '../sagemaker/inference-stack';
import { ModelImage } from '../image/model-image';
import { ModelImageRepository } from '../image/model-image-repository';
import { NeuronEcsService } from './neuron-ecs-service';
import type { SmokeBenchmarkOptions } from '../proof/smoke-benchmark-props';
import { singleCallPlanOf } from '../private/construct-errors';
import { markOwned } from '../private/ownership';
import { deployTimeZones, stackModelServerImage, stackOutputs } from '../private/stack-parts';

/** Props of {@link EcsInferenceStack}. */
export interface EcsInferenceStackProps extends StackProps {
  /** The plan to deploy, made for hosting `ec2` in this stack's region. */
  readonly plan: Plan;

  /**
   * The model server image with the compiled model baked into `/opt/ml/model`, pinned by digest.
   *
   * Pass either `image` or `imageDigest`.
   *
   * @default - the image with `imageDigest` in this stack's repository
   */
  readonly image?: ModelImage;

  /**
   * Digest of an image pushed to this stack's repository (`sha256:` and 64 hex digits): the model server built from
   * `serving/` with the model in `/opt/ml/model` (docs/ecs.md).
   *
   * @default - `image` is used
   */
  readonly imageDigest?: string;

  /**
   * An existing ECR repository in the stack's account and region that holds the `imageDigest` image, so the image
   * can be pushed before the stack's first deploy.
   *
   * @default - this stack's repository
   */
  readonly imageRepositoryName?: string;

  /**
   * Availability Zones of the VPC; each must offer the plan's instance type.
   *
   * @default - the region's first two zones, resolved by CloudFormation (`Fn::GetAZs`), so synth needs no lookup
   */
  readonly availabilityZones?: string[];

  /** Certificate of an HTTPS listener. @default - HTTP on the internal load balancer */
  readonly certificate?: acm.ICertificate;

  /** Host name the certificate covers, pointing at the load balancer. @default - the load balancer's DNS name */
  readonly domainName?: string;

  /**
   * The smoke benchmark that proves each deployment against the load balancer and rolls it back when the service
   * misses the plan's targets.
   *
   * @default - no smoke benchmark
   */
  readonly smokeBenchmark?: SmokeBenchmarkOptions;
}

/**
 * One model served from Neuron EC2 instances by Amazon ECS, as the plan sized it: an image repository for the
 * model server builds, the service in a private VPC behind an internal load balancer, and outputs for the URL, the
 * repository URI and the plan.
 *
 * Synthesizes offline with an explicit `env`: the VPC takes its zones from `Fn::GetAZs` at deploy time (no context
 * lookup) and the AMI from its SSM public parameter.
 */
export class EcsInferenceStack extends Stack {
  /** Repository for the model server images of this model. */
  readonly repository: ModelImageRepository;
  /** The service. */
  readonly service: NeuronEcsService;
  private readonly zones?: string[];

  constructor(scope: Construct, id: string, props: EcsInferenceStackProps) {
    super(scope, id, props);
    markOwned(this);
    singleCallPlanOf(this, props.plan);
    this.zones = props.availabilityZones;
    this.repository = new ModelImageRepository(this, 'Repository');
    const image = stackModelServerImage(this, this.repository, props, 'EcsInferenceStack', 'pass the imageDigest of the '
      + "model server image (with the model) pushed to the stack's repository, or image");

    this.service = new NeuronEcsService(this, 'Service', {
      plan: props.plan,
      image,
      availabilityZones: props.availabilityZones,
      certificate: props.certificate,
      domainName: props.domainName,
      smokeBenchmark: props.smokeBenchmark,
    });

    stackOutputs(this, {
      Url: ['Load balancer URL of the model server (POST /invocations); internal to the VPC', this.service.url],
      RepositoryUri: ['ECR repository for the model server images of this model', this.repository.repositoryUri],
      PlanSummary: ['What the planner chose and why it meets the targets', planSummary(props.plan)],
    });
  }

  /** The zones given, or the region's first two resolved by CloudFormation, so synth needs no lookup. */
  override get availabilityZones(): string[] {
    return this.zones ?? deployTimeZones();
  }
}
