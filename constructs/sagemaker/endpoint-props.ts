/**
 * What a {@link NeuronSageMakerEndpoint} takes and what an endpoint, defined here or imported, offers.
 */
import { Duration, IResource, Size } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { NeuronInstanceType } from '../../lib/catalog';
import type { Plan } from '../../lib/planner';
import type { ModelImage } from '../image/model-image';
import type { ModelData } from '../model/model-data';
import type { SmokeBenchmarkOptions } from '../proof/smoke-benchmark-props';
import type { EndpointDeployment } from './endpoint-deployment';

/**
 * The 5XX rollback alarm's threshold, in percent of requests per minute: the smoke benchmark's default error-rate
 * threshold (1 %), so a deployment the benchmark would pass is not rolled back for the same errors.
 */
export const ERROR_RATE_ALARM_PERCENT = 1;

/**
 * The p99 rollback alarm fires above the plan's p99 target times this. ModelLatency is measured around the whole
 * container (TorchServe's frontend, the Python handler's JSON parsing, tokenization and padding, then the device),
 * while the plan's p99 is the device's, from the Neuron benchmarks; 50 % above the target leaves room for that
 * overhead and still catches what a rollback is for: a model fallen back to CPU, a shape recompiled per request,
 * or requests queueing on too few workers, each of which multiplies latency.
 */
export const P99_ALARM_FACTOR = 1.5;

/** The variant every endpoint of this construct serves; blue/green and rolling updates require a stable name. */
export const DEFAULT_VARIANT_NAME = 'AllTraffic';

/** Application Auto Scaling options of {@link NeuronSageMakerEndpoint}. */
export interface EndpointAutoScalingOptions {
  /**
   * Whether to register the variant with Application Auto Scaling.
   *
   * Nothing is registered when the maximum equals the minimum (a plan without a peak target): a registered
   * variant makes SageMaker refuse an instance-type change until it is deregistered, for no benefit. To move an
   * auto-scaled endpoint to another instance type, deploy once with `enabled: false`, then with the new plan.
   * Updates keep the instance count auto scaling reached (`RetainAllVariantProperties`).
   *
   * @default true
   */
  readonly enabled?: boolean;

  /**
   * Fraction of an instance's capacity target tracking aims for, in (0, 1]. Lower keeps more headroom for
   * bursts while new Neuron instances start (several minutes).
   *
   * @default 0.7
   */
  readonly targetUtilization?: number;

  /**
   * Most instances autoscaling may run.
   *
   * @default - the plan's `maxInstanceCount` (sized for its peak target), else the instance count
   */
  readonly maxInstanceCount?: number;

  /**
   * Requests per second one instance serves at full load; the scaling target derives from it.
   *
   * @default - the plan's `capacityPerInstanceRps`; required without a plan
   */
  readonly capacityPerInstanceRps?: number;

  /**
   * Wait after a scale-in before the next one: new Neuron instances take minutes to serve, so removing capacity
   * eagerly risks a shortfall at the next burst.
   *
   * @default Duration.minutes(10)
   */
  readonly scaleInCooldown?: Duration;

  /**
   * Wait after a scale-out before the next one: long enough for the added instances to come into service and
   * lower the metric, so target tracking does not add them twice.
   *
   * @default Duration.minutes(5)
   */
  readonly scaleOutCooldown?: Duration;
}

/**
 * Where a SageMaker endpoint's model containers run: shared by {@link NeuronSageMakerEndpointProps} and
 * {@link NeuronGenerativeEndpointProps}, with the same meaning and defaults.
 */
export interface EndpointNetworkOptions {
  /**
   * VPC to run the model containers in. Its subnets need routes or VPC endpoints to S3, ECR (api and dkr) and
   * CloudWatch Logs.
   *
   * @default - SageMaker's managed network
   */
  readonly vpc?: ec2.IVpc;

  /**
   * Subnets of `vpc` to place the containers in.
   *
   * @default - the VPC's private subnets
   */
  readonly vpcSubnets?: ec2.SubnetSelection;

  /**
   * Security groups of the containers in `vpc`.
   *
   * @default - one security group this construct defines, with no ingress
   */
  readonly securityGroups?: ec2.ISecurityGroup[];
}

/**
 * What every SageMaker endpoint of this library takes with the same meaning and defaults, whatever it serves: its
 * network, role, storage key, name and log retention ({@link NeuronSageMakerEndpointProps},
 * {@link NeuronGenerativeEndpointProps}).
 */
export interface EndpointHostingOptions extends EndpointNetworkOptions {
  /**
   * The role SageMaker runs the model as. A role you pass (an `iam.Role`, or one imported mutable) gets what the
   * default role has: its starting statements (`cloudwatch:PutMetricData` in the SageMaker namespaces and the
   * container's own, under a `cloudwatch:namespace` condition; `ecr:GetAuthorizationToken`) and the grants of what the
   * endpoint binds (ECR pull, S3 read on the prefix, logs on its log groups, `cloudwatch:DescribeAlarms` on the
   * rollback alarms, and with `vpc` the EC2 network-interface actions). A role imported with `mutable: false` takes
   * nothing and must already allow all of that; where a safety feature would silently lose its data without it (the
   * generative engine's metrics, which the TTFT/TPOT rollback alarms read), synth refuses it unless that feature is
   * turned off by name. docs/generative-sagemaker.md lists each grant and why.
   *
   * @default - a `NeuronSageMakerExecutionRole`
   */
  readonly role?: iam.IRole;

  /**
   * KMS key that encrypts the ML storage volume, applied on instance types with EBS storage (inf1, inf2). On those with
   * only local NVMe instance storage (trn1, trn1n, trn2, trn3) SageMaker rejects `KmsKeyId`, so a key given there is
   * refused at synth with the fix, never left off unseen: plan on Inferentia, or set `acceptInstanceStoreEncryption`.
   * The same holds when any of the plan's instance pools is on such a type: `KmsKeyId` is per configuration, so the
   * variant goes without it and its EBS pools' volumes get SageMaker's default key (synth warns).
   *
   * @default - a key this construct defines, with rotation, on EBS; none on local NVMe (the instance's hardware
   * encrypts it), nor with an instance pool there
   */
  readonly encryptionKey?: kms.IKey;

  /**
   * Deploy on an instance type with only local NVMe instance storage although `encryptionKey` is set, without the key.
   *
   * SageMaker rejects `KmsKeyId` on such instances ("You can't request a KmsKeyId when using an instance type with
   * local storage", CreateEndpointConfig); their NVMe volumes are encrypted with XTS-AES-256 by a hardware module on
   * the instance, with keys per volume that you cannot provide (EC2 User Guide, "Data protection in Amazon EC2").
   * Without this, such a plan is refused at synth, so a plan that moves from Inferentia to Trainium never turns your
   * key off unseen; with it, the key is not applied there and synth warns. No effect on EBS instance types.
   *
   * @default false
   * @see https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateEndpointConfig.html
   */
  readonly acceptInstanceStoreEncryption?: boolean;

  /**
   * Name of the endpoint.
   *
   * A fixed name makes any replacement of the endpoint conflict with itself, and after a failed deploy SageMaker
   * may recreate its log group `/aws/sagemaker/Endpoints/<name>`, which then blocks the next deploy ("already
   * exists") until you delete it.
   *
   * @default - generated: this construct's path in lower case (SageMaker lower-cases endpoint ARNs) plus the last
   * 12 hex digits of the stack's id, new each time the stack is created and fixed for its life; known before any
   * resource exists, so the log group is defined with retention first
   */
  readonly endpointName?: string;

  /**
   * Retention of the endpoint's log group (and of an inference component's).
   *
   * @default logs.RetentionDays.THREE_MONTHS
   */
  readonly logRetention?: logs.RetentionDays;

  /**
   * With a plan that has fallback pools (`plan.fallbacks`), how long SageMaker may try to provision the variant's
   * instances across every pool before the create or scale-out fails (`VariantInstanceProvisionTimeoutInSeconds`,
   * 300-3,600 s): capacity provisioning only, not the model download or the container start.
   *
   * @default Duration.minutes(15) - an insufficient-capacity error comes back in seconds, so falling through every
   * pool takes little of it, and it fits the 30 minutes the deployment policies budget for instance launch and image
   * pull; a first deploy into a region out of every pool's type fails in a quarter of an hour, not an hour
   */
  readonly instanceProvisionTimeout?: Duration;
}

/** Props of {@link NeuronSageMakerEndpoint}. */
export interface NeuronSageMakerEndpointProps extends EndpointHostingOptions {
  /**
   * The sizing plan to deploy (`plan(...)` from `lib/planner`, hosting `sagemaker`): instance type and count,
   * processes and cores per process, latency target and capacity.
   *
   * Pass either `plan` or `instanceType` (with optional counts).
   *
   * @default - the explicit `instanceType` and counts
   */
  readonly plan?: Plan;

  /**
   * Instance type, when not deploying a plan.
   *
   * @default - the plan's instance type
   */
  readonly instanceType?: NeuronInstanceType;

  /**
   * Instances to run, when not deploying a plan.
   *
   * @default 1
   */
  readonly instanceCount?: number;

  /**
   * Model server processes (TorchServe workers) per instance, when not deploying a plan. Must divide the
   * instance's NeuronCores.
   *
   * @default - the instance's NeuronCores divided by `coresPerProcess`
   */
  readonly processesPerInstance?: number;

  /**
   * NeuronCores each process owns (the core count the model was compiled for), when not deploying a plan.
   *
   * @default 1
   */
  readonly coresPerProcess?: number;

  /**
   * The serving container image, pinned by digest: the cdk-inferentia model server (`ModelImage.fromServer`), which
   * runs `stock` and `batching` plans with one worker pinned to each planned NeuronCore group, or a Neuron DLC's
   * stock toolkit (`ModelImage.fromNeuronDlc`), which runs `stock` plans made for it (`server: 'neuron-dlc'`) only.
   */
  readonly image: ModelImage;

  /**
   * A CloudWatch dashboard of the endpoint: SageMaker's invocations, latencies, errors and instance CPU, memory and
   * disk, and with the model server image the server's own metrics (batch size, queue wait, device time, refusals).
   *
   * @default true
   */
  readonly dashboard?: boolean;

  /**
   * The model artifacts, an uncompressed S3 prefix SageMaker copies to `/opt/ml/model`.
   *
   * @default - none: the image carries the model (not allowed with `networkIsolation`)
   */
  readonly modelData?: ModelData;

  /**
   * Model artifacts for the plan's fallback pools (`plan.fallbacks`) that `modelData` was not compiled for: a pool
   * on another chip family, or with another core group or batch size. Each pool serves the first of these whose
   * compiled artifact (`ModelData.compiledArtifact`: chip, cores per process, batch sizes) fits its plan, else the
   * model of the earlier pool it shares a compiled model with (`sharesCompiledModelWith`, priority 1 being
   * `modelData`); a pool with neither is refused at synth, naming what it needs. `NeuronCompileJob` artifacts
   * (`ModelData.fromCompileJob`) and `ModelData.fromBucket(bucket, prefix, { compiledArtifact })` carry the facts.
   *
   * @default - no artifacts besides `modelData`: every pool must share its compiled model
   */
  readonly poolModelData?: readonly ModelData[];

  /**
   * ML storage volume per instance, 1-512 GiB. Not supported on trn1/trn1n (local NVMe only).
   *
   * @default - two copies of the planned model (the S3 download and the TorchServe archive) plus 25 %, at least
   * 30 GiB and at most 512 GiB; 30 GiB without a plan; SageMaker's own on trn1/trn1n
   */
  readonly volumeSize?: Size;

  /**
   * How long SageMaker waits for `/ping` after the container starts, 60-3600 s. Neuron workers load the compiled
   * model onto their NeuronCores before the server answers.
   *
   * @default - 600 s, or 45 s per GiB of planned model (40 GiB gets 1800 s), at most 3600 s
   */
  readonly containerStartupHealthCheckTimeout?: Duration;

  /**
   * How long SageMaker may take to copy the model data to the instance, 60-3600 s.
   *
   * @default - 600 s, or 30 s per GiB of planned model (60 GiB gets 1800 s), at most 3600 s
   */
  readonly modelDataDownloadTimeout?: Duration;

  /**
   * How configuration changes reach the endpoint, with automatic rollback on the 5XX and latency alarms.
   *
   * Ignored by SageMaker on ml.inf1 (a synth warning says so); no `DeploymentConfig` is written there.
   *
   * @default - `EndpointDeployment.canary()` (10 % canary for 10 minutes, then a 10-minute termination wait);
   * `EndpointDeployment.allAtOnce()` with its 10-minute termination wait when only one instance is planned, since a
   * canary may be at most half the fleet
   */
  readonly deployment?: EndpointDeployment;

  /**
   * Application Auto Scaling of the variant's instance count: minimum = the planned count, maximum = the plan's
   * peak count, target tracking on invocations per instance.
   *
   * @default - enabled with its defaults when a plan with a peak target is deployed; disabled otherwise
   */
  readonly autoScaling?: EndpointAutoScalingOptions;

  /**
   * Cut the container off from the network: no S3, no package index, no model hub at runtime. The model must come
   * as `modelData` and everything the handler imports must be in the image or the model data.
   *
   * @default false
   */
  readonly networkIsolation?: boolean;

  /**
   * The Neuron SDK the image was built with (`2.31.1`), for an image that is not a Neuron DLC tag; it picks the
   * host AMI, whose Neuron driver the container's runtime must accept.
   *
   * @default - the SDK in the Neuron DLC tag (`ModelImage.fromNeuronDlc`); unknown for other images (synth warns,
   * and SageMaker chooses the host image)
   */
  readonly neuronSdkVersion?: string;

  /**
   * Pin the host AMI (`InferenceAmiVersion`), e.g. `al2-ami-sagemaker-inference-neuron-2` (Neuron driver 2.19).
   * Refused at synth unless the compatibility table lists it with the image's Neuron SDK.
   *
   * @default - derived from the image's Neuron SDK: the SageMaker Neuron AMI whose driver is at least the one that
   * SDK release shipped with; none (SageMaker chooses the host image) when no AMI has such a driver or the SDK is
   * unknown; none on Inf1
   */
  readonly inferenceAmiVersion?: string;

  /**
   * Extra container environment, merged over the plan-derived variables: the model server's `MODEL_SERVER_*`,
   * `MODEL_BATCH_SIZE` and `OMP_NUM_THREADS` with `ModelImage.fromServer`; `SAGEMAKER_MODEL_SERVER_WORKERS`,
   * `NEURON_RT_NUM_CORES` and `OMP_NUM_THREADS` with a stock DLC. Every instance pool's model gets it too, except
   * `MODEL_BATCH_SIZE`, which each fallback pool's model sets to its own plan's compiled batch.
   *
   * @default - the plan-derived variables only
   */
  readonly environment?: Record<string, string>;

  /**
   * p99 `ModelLatency` above which the rollback alarm fires (2 of 3 minutes).
   *
   * @default - the plan's p99 target x 1.5 (`P99_ALARM_FACTOR`); no latency alarm without a plan
   */
  readonly latencyAlarmThreshold?: Duration;

  /**
   * Prove every deployment of this endpoint: right after CloudFormation deploys it, a Lambda runs a smoke benchmark
   * with this golden request against the live endpoint, checks answers, latency, throughput and errors against the
   * plan's targets, and fails the deployment (so CloudFormation rolls back) when one is missed. It runs again
   * whenever the image, model data or endpoint configuration changes.
   *
   * @default - no smoke benchmark
   * @see SmokeBenchmark
   */
  readonly smokeBenchmark?: SmokeBenchmarkOptions;
}

/** A SageMaker real-time endpoint serving a Neuron model, defined here or imported. */
export interface INeuronSageMakerEndpoint extends IResource {
  /** Name of the endpoint. */
  readonly endpointName: string;
  /** ARN of the endpoint. */
  readonly endpointArn: string;
  /** Name of the production variant metrics are reported for. */
  readonly variantName: string;

  /** Lets `grantee` call `sagemaker:InvokeEndpoint` on this endpoint only. */
  grantInvoke(grantee: iam.IGrantable): iam.Grant;
  /** Invocations of the variant (`Invocations`, sum per 5 minutes unless overridden). */
  metricInvocations(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Time the model container took to answer, in MICROseconds (`ModelLatency`, p99 unless overridden). */
  metricModelLatency(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Requests the model container answered with 5XX (`Invocation5XXErrors`, sum unless overridden). */
  metric5xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Any `AWS/SageMaker` metric of the variant, by name (average per 5 minutes unless overridden). */
  metric(metricName: string, options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Requests answered with 4XX, i.e. rejected as malformed (`Invocation4XXErrors`, sum unless overridden). */
  metricInvocation4xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Time SageMaker itself added to each request, in MICROseconds (`OverheadLatency`, p99 unless overridden). */
  metricOverheadLatency(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /**
   * Invocations per instance (`InvocationsPerInstance`, sum unless overridden): what target-tracking auto scaling
   * follows, per minute.
   */
  metricInvocationsPerInstance(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
}

/** What identifies an endpoint defined elsewhere; see {@link NeuronSageMakerEndpoint.fromEndpointAttributes}. */
export interface NeuronSageMakerEndpointAttributes {
  /** Name of the endpoint, as it was created (metrics carry it with its case). */
  readonly endpointName: string;

  /**
   * ARN of the endpoint.
   *
   * @default - the ARN of `endpointName` in the scope's account and region, lower-cased as SageMaker writes it
   */
  readonly endpointArn?: string;

  /**
   * Name of the production variant its metrics are reported for.
   *
   * @default 'AllTraffic' - the variant of every endpoint this construct defines
   */
  readonly variantName?: string;
}
