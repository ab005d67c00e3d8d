/** What a {@link NeuronEcsService} takes. */
import { Duration, Size } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { Plan } from '../../lib/planner';
import type { ModelImage } from '../image/model-image';
import type { SmokeBenchmarkOptions } from '../proof/smoke-benchmark-props';

/** The port the model server listens on unless `SAGEMAKER_BIND_TO_PORT` says otherwise (serving/README.md). */
export const MODEL_SERVER_PORT = 8080;

/** CloudWatch namespace neuron-monitor writes the NeuronCore metrics to, unless `neuronMonitorNamespace` is set. */
export const DEFAULT_NEURON_MONITOR_NAMESPACE = 'CdkInferentia/NeuronMonitor';

/** Target tracking and bounds of the task count. */
export interface EcsAutoScalingOptions {
  /**
   * Whether the task count follows the load. Without a peak in the plan (maximum = planned count) nothing scales.
   *
   * @default true
   */
  readonly enabled?: boolean;

  /**
   * Fraction of one instance's capacity (`plan.capacityPerInstanceRps`) each task is kept at, in (0, 1].
   *
   * @default - the plan's own operating point: target requests/s divided by the planned instances, which keeps the
   * plan's headroom on every instance
   */
  readonly targetUtilization?: number;

  /** Wait after a scale-in before the next one. @default Duration.minutes(10) */
  readonly scaleInCooldown?: Duration;

  /**
   * Wait after a scale-out before the next one: a new Neuron instance takes minutes to join and load the model.
   *
   * @default Duration.minutes(5)
   */
  readonly scaleOutCooldown?: Duration;
}

/**
 * The network, load balancer and logs of a model hosted on EC2 through Amazon ECS: shared by
 * {@link NeuronEcsServiceProps} (the model server) and {@link NeuronGenerativeEcsServiceProps} (vLLM), and by the
 * props of any later engine's service.
 */
export interface EcsHostingOptions {
  /**
   * The VPC to run in. Its private subnets need routes or VPC endpoints to ECS, ECR, S3 and CloudWatch Logs.
   *
   * @default - a new VPC: isolated subnets in two Availability Zones and VPC endpoints for every service the
   * instances and the deploy's proof call; no NAT gateway, no internet route
   */
  readonly vpc?: ec2.IVpc;

  /**
   * Subnets of the instances, the tasks and an internal load balancer; at least two Availability Zones.
   *
   * @default - the VPC's private subnets
   */
  readonly vpcSubnets?: ec2.SubnetSelection;

  /**
   * Availability Zones of the new VPC. Not every zone offers every Neuron instance type: check with
   * `aws ec2 describe-instance-type-offerings --location-type availability-zone --filters Name=instance-type,Values=<type>`.
   *
   * @default - the region's first two zones
   */
  readonly availabilityZones?: string[];

  /**
   * Put the load balancer on the internet (public subnets). Requires `certificate`.
   *
   * @default false
   */
  readonly internetFacing?: boolean;

  /**
   * Certificate of an HTTPS listener; HTTP on port 80 then redirects to it.
   *
   * @default - plain HTTP, allowed only on an internal load balancer
   */
  readonly certificate?: acm.ICertificate;

  /**
   * The host name clients use, covered by `certificate` and pointing at the load balancer: the URL the deploy's
   * proof calls, which verifies TLS.
   *
   * @default - the load balancer's DNS name (required with `certificate` and `smokeBenchmark`)
   */
  readonly domainName?: string;

  /**
   * Listener port.
   *
   * @default 443 with `certificate`, else 80
   */
  readonly listenerPort?: number;

  /**
   * Where the load balancer's access logs go (SSE-S3 encrypted, as ELB log delivery requires).
   *
   * @default - a bucket this construct defines, retained on delete, logs kept a year
   */
  readonly accessLogBucket?: s3.IBucket;

  /** Retention of the container logs (which carry the server's metrics). @default logs.RetentionDays.THREE_MONTHS */
  readonly logRetention?: logs.RetentionDays;
}

/** Props of {@link NeuronEcsService}. */
export interface NeuronEcsServiceProps extends EcsHostingOptions {
  /**
   * The plan to deploy, made with `hosting: 'ec2'` (`cdk-inferentia plan --hosting ec2`): instance type, instances
   * at the target and at the peak, NeuronCore groups per worker, batching. `stock` and `batching` plans both run: the
   * model server batches only when the plan says so.
   */
  readonly plan: Plan;

  /**
   * The model server image (`serving/`) with the compiled model and its handler in `/opt/ml/model`, pinned by digest.
   *
   * The model is baked into the image: the digest then names code and weights together, every instance starts
   * without an S3 download, and promotion copies one artifact.
   */
  readonly image: ModelImage;

  /**
   * Port the model server listens on in the container (passed as `SAGEMAKER_BIND_TO_PORT` when not 8080).
   *
   * @default 8080
   */
  readonly containerPort?: number;

  /**
   * Root volume of each instance (encrypted gp3), for the image (with its model) and the image of the next deploy.
   *
   * @default - 50 GiB for the image plus two copies of the planned model, plus 25 %, at least 100 GiB
   */
  readonly rootVolumeSize?: Size;

  /**
   * Time a new task has before failing load balancer checks count against it: the model load.
   *
   * @default - 600 s, or 45 s per GiB of planned model, at most 3600 s
   */
  readonly healthCheckGracePeriod?: Duration;

  /** Task count scaling. @default - enabled when the plan has a peak above its target */
  readonly autoScaling?: EcsAutoScalingOptions;

  /**
   * Each request's deadline in the model server (`MODEL_SERVER_REQUEST_TIMEOUT_MS`); past it the server answers 504.
   * The load balancer's deregistration delay is this plus 5 s.
   *
   * @default Duration.seconds(55)
   */
  readonly requestTimeout?: Duration;

  /** CloudWatch namespace of the model server's metrics. @default 'CdkInferentia/ModelServer' */
  readonly metricsNamespace?: string;

  /** CloudWatch namespace neuron-monitor reports NeuronCore utilization to. @default 'CdkInferentia/NeuronMonitor' */
  readonly neuronMonitorNamespace?: string;

  /** Extra container environment, merged over the plan-derived variables. @default - none */
  readonly environment?: Record<string, string>;

  /**
   * Prove every deployment against the load balancer: a Lambda in the VPC runs the golden request after the
   * service is stable, checks answers, latency, throughput and errors against the plan, and fails the deployment
   * (so CloudFormation rolls it back) when one is missed.
   *
   * @default - no smoke benchmark
   */
  readonly smokeBenchmark?: SmokeBenchmarkOptions;

  /** Add a CloudWatch dashboard. @default true */
  readonly dashboard?: boolean;
}
