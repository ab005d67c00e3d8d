import {
  Annotations, Arn, ArnFormat, Aws, Duration, Fn, IResource, Names, RemovalPolicy, Resource, Size, SizeRoundingBehavior,
  Stack, Token, Validations,
} from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import { Construct, IDependable } from 'constructs';
import { ec2Name, NEURON_FAMILIES, NeuronInstanceType } from '../lib/catalog';
import { compiledArtifactProblems } from '../lib/compile';
import { InputError } from '../lib/errors';
import { validateLayout } from '../lib/planner';
import type { Plan } from '../lib/planner';
import { EndpointDeployment } from './endpoint-deployment';
import { ModelData } from './model-data';
import { ModelImage } from './model-image';
import { ModelServerMetrics } from './model-server-metrics';
import { DEFAULT_METRICS_NAMESPACE } from '../lib/serving/environment';
import { modelServerEnvironment, serverEnvironment } from './private/endpoint-environment';
import { nagResource } from './private/data-nag';
import { stableHash } from './private/endpoint-fingerprint';
import {
  EndpointLayout,
  hasLocalStorageOnly,
  layoutFromPlan,
} from './private/endpoint-layout';
import { chooseHostImage } from './private/neuron-host';
import {
  defaultDownloadTimeoutSeconds,
  defaultStartupTimeoutSeconds,
  defaultVolumeSizeGiB,
  TIMEOUT_MAX_SECONDS,
  TIMEOUT_MIN_SECONDS,
  VOLUME_MAX_GIB,
  VOLUME_MIN_GIB,
} from './private/endpoint-sizing';
import { NeuronSageMakerExecutionRole } from './sagemaker-execution-role';
import { SmokeBenchmark, SmokeBenchmarkOptions, SmokeTarget } from './smoke-benchmark';

/** CloudWatch namespace of SageMaker endpoint invocation metrics. */
const NAMESPACE = 'AWS/SageMaker';

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

/** SageMaker endpoint names: letters, digits and hyphens, starting and ending with a letter or digit, <= 63. */
const ENDPOINT_NAME = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/;

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

/** Props of {@link NeuronSageMakerEndpoint}. */
export interface NeuronSageMakerEndpointProps {
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
   * stock toolkit (`ModelImage.fromNeuronDlc`), which runs `stock` plans only.
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
   * The role SageMaker runs the model as. The construct grants it what the image, model data, log group and
   * rollback alarms need; an imported immutable role must already allow all of that (ECR pull, S3 read on the
   * prefix, logs on `/aws/sagemaker/Endpoints/<name>`, `cloudwatch:DescribeAlarms` on the alarms, and with `vpc`
   * the EC2 network-interface actions SageMaker lists for a VPC config).
   *
   * @default - a `NeuronSageMakerExecutionRole`
   */
  readonly role?: iam.IRole;

  /**
   * KMS key that encrypts the ML storage volume. Not supported on trn1/trn1n (local NVMe only).
   *
   * @default - a key this construct defines, with rotation, on inf1/inf2; none on trn1/trn1n
   */
  readonly encryptionKey?: kms.IKey;

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
   * `NEURON_RT_NUM_CORES` and `OMP_NUM_THREADS` with a stock DLC.
   *
   * @default - the plan-derived variables only
   */
  readonly environment?: Record<string, string>;

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
   * p99 `ModelLatency` above which the rollback alarm fires (2 of 3 minutes).
   *
   * @default - the plan's p99 target x 1.5 (`P99_ALARM_FACTOR`); no latency alarm without a plan
   */
  readonly latencyAlarmThreshold?: Duration;

  /**
   * Retention of the endpoint's log group.
   *
   * @default logs.RetentionDays.THREE_MONTHS
   */
  readonly logRetention?: logs.RetentionDays;

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

abstract class EndpointBase extends Resource implements INeuronSageMakerEndpoint {
  abstract readonly endpointName: string;
  abstract readonly endpointArn: string;
  abstract readonly variantName: string;

  grantInvoke(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['sagemaker:InvokeEndpoint'],
      resourceArns: [this.endpointArn],
    });
  }

  metricInvocations(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('Invocations', { statistic: cloudwatch.Stats.SUM, ...options });
  }

  metricModelLatency(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('ModelLatency', { statistic: cloudwatch.Stats.p(99), unit: cloudwatch.Unit.MICROSECONDS, ...options });
  }

  metric5xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('Invocation5XXErrors', { statistic: cloudwatch.Stats.SUM, ...options });
  }

  metric(metricName: string, options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: NAMESPACE,
      metricName,
      dimensionsMap: { EndpointName: this.endpointName, VariantName: this.variantName },
      ...options,
    });
  }

  metricInvocation4xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('Invocation4XXErrors', { statistic: cloudwatch.Stats.SUM, ...options });
  }

  metricOverheadLatency(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('OverheadLatency', { statistic: cloudwatch.Stats.p(99), unit: cloudwatch.Unit.MICROSECONDS, ...options });
  }

  metricInvocationsPerInstance(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('InvocationsPerInstance', { statistic: cloudwatch.Stats.SUM, ...options });
  }
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

/**
 * A SageMaker real-time endpoint on Inferentia or Trainium, sized by a plan, secure and guarded by default.
 *
 * Defines the Model, EndpointConfig (with CloudFormation-generated names, so any change replaces them cleanly) and
 * Endpoint; a KMS key for the storage volume (inf1/inf2); the endpoint's log group with retention; 5XX and p99
 * latency alarms that roll a deployment back; and Application Auto Scaling between the plan's minimum and peak
 * instance counts. The model server gets one TorchServe worker per planned process, each owning its NeuronCores.
 *
 * Stateful children and their construct ids are a contract: `Resource` (the endpoint), `Key`, `LogGroup`.
 *
 * @example
 * const endpoint = new NeuronSageMakerEndpoint(this, 'Endpoint', {
 *   plan: plan(requireProfile('bert-base-uncased'), { throughputRps: 2000, p99Ms: 10 }, { region, hosting: 'sagemaker' }),
 *   image: ModelImage.fromNeuronDlc({ tag: '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04', digest }),
 *   modelData: ModelData.fromAsset('examples/bert-base-uncased/model'),
 * });
 * endpoint.grantInvoke(client);
 *
 * @see https://docs.aws.amazon.com/sagemaker/latest/dg/realtime-endpoints.html
 */
export class NeuronSageMakerEndpoint extends EndpointBase implements ec2.IConnectable {
  /** An endpoint defined elsewhere, by name; its variant is assumed to be `AllTraffic`. */
  static fromEndpointName(scope: Construct, id: string, endpointName: string): INeuronSageMakerEndpoint {
    return NeuronSageMakerEndpoint.fromEndpointAttributes(scope, id, { endpointName });
  }

  /**
   * An endpoint defined elsewhere, by ARN; its variant is assumed to be `AllTraffic`.
   *
   * The name is read from the ARN, which SageMaker writes in lower case: for an endpoint whose name has capitals,
   * use {@link fromEndpointAttributes} with the name as created, or its metrics find no data.
   */
  static fromEndpointArn(scope: Construct, id: string, endpointArn: string): INeuronSageMakerEndpoint {
    const endpointName = Arn.split(endpointArn, ArnFormat.SLASH_RESOURCE_NAME).resourceName as string;
    return NeuronSageMakerEndpoint.fromEndpointAttributes(scope, id, { endpointName, endpointArn });
  }

  /** An endpoint defined elsewhere, by name and, when it is not `AllTraffic`, the variant its metrics describe. */
  static fromEndpointAttributes(scope: Construct, id: string, attrs: NeuronSageMakerEndpointAttributes):
  INeuronSageMakerEndpoint {
    const { endpointName, endpointArn } = attrs;
    class Import extends EndpointBase {
      readonly endpointName = endpointName;
      readonly variantName = attrs.variantName ?? DEFAULT_VARIANT_NAME;
      readonly endpointArn = endpointArn ?? Stack.of(scope).formatArn({
        service: 'sagemaker',
        resource: 'endpoint',
        // SageMaker reports endpoint ARNs in lower case whatever the name's case.
        resourceName: Token.isUnresolved(endpointName) ? endpointName : endpointName.toLowerCase(),
      });
    }
    return new Import(scope, id);
  }

  readonly endpointName: string;
  /** ARN of the endpoint (its CloudFormation `Ref`). */
  readonly endpointArn: string;
  /** Name CloudFormation generated for the endpoint configuration. */
  readonly endpointConfigName: string;
  /** Name CloudFormation generated for the model. */
  readonly modelName: string;
  readonly variantName: string = DEFAULT_VARIANT_NAME;
  /** The plan deployed, when one was given. */
  readonly plan?: Plan;
  /** The instance type deployed. */
  readonly instanceType: NeuronInstanceType;
  /** The role SageMaker runs the model as. */
  readonly role: iam.IRole;
  /** The key encrypting the storage volume; undefined on trn1/trn1n. */
  readonly encryptionKey?: kms.IKey;
  /** The endpoint's log group, `/aws/sagemaker/Endpoints/<endpointName>`. */
  readonly logGroup: logs.ILogGroup;
  /**
   * Alarms that roll a deployment back: a 5XX rate above 1 % of requests, and p99 model latency above the plan's
   * target x 1.5 (or `latencyAlarmThreshold`), each in 2 of 3 minutes.
   */
  readonly rollbackAlarms: cloudwatch.IAlarm[];
  /** The auto scaling target, when auto scaling is enabled. */
  readonly scalableTarget?: appscaling.ScalableTarget;
  /** Security groups of the containers; empty outside a VPC. */
  readonly connections: ec2.Connections;
  /** The container environment, plan-derived variables merged with `environment`. */
  readonly environment: Readonly<Record<string, string>>;
  /**
   * A hash of everything that changes what the endpoint serves: the plan, the image URI, the model data
   * fingerprint and the endpoint configuration. A deploy-time check (e.g. a smoke benchmark) that takes it as a
   * property runs again whenever the deployment changes.
   */
  readonly deploymentFingerprint: string;

  /** The endpoint resource. */
  readonly cfnEndpoint: sagemaker.CfnEndpoint;
  /** The endpoint configuration resource. */
  readonly cfnEndpointConfig: sagemaker.CfnEndpointConfig;
  /** The model resource. */
  readonly cfnModel: sagemaker.CfnModel;
  /** The smoke benchmark that gates each deployment, when `smokeBenchmark` is set. */
  readonly smokeBenchmark?: SmokeBenchmark;
  /** The model server's metrics (namespace `CdkInferentia/ModelServer`, Service = the endpoint name), with its image. */
  readonly serverMetrics?: ModelServerMetrics;
  /** The endpoint's dashboard, unless `dashboard` is false. */
  readonly dashboard?: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: NeuronSageMakerEndpointProps) {
    super(scope, id);
    // Every problem is collected before any resource exists, then reported in one InputError.
    const problems: string[] = [];
    if (props.endpointName !== undefined && !Token.isUnresolved(props.endpointName)
      && !ENDPOINT_NAME.test(props.endpointName)) {
      problems.push(`endpointName=${JSON.stringify(props.endpointName)} is not a valid SageMaker endpoint name; use `
        + 'up to 63 letters, digits and hyphens, starting and ending with a letter or digit, or leave it unset');
    }
    if (props.networkIsolation === true && props.modelData === undefined) {
      problems.push('networkIsolation=true but no modelData is given: an isolated container cannot download the '
        + 'model from S3 or a model hub at runtime; pass modelData (ModelData.fromAsset(dir) or '
        + 'ModelData.fromBucket(bucket, prefix)) holding the compiled model, or set networkIsolation=false');
    }
    if (props.vpc === undefined && (props.vpcSubnets !== undefined || props.securityGroups !== undefined)) {
      problems.push('vpcSubnets or securityGroups is set without vpc; pass the vpc the containers run in, '
        + 'or remove them');
    }
    const layout = this.resolveLayout(props, problems);
    if (layout === undefined) {
      // Without an instance type nothing else can be checked.
      InputError.throwIfAny(problems);
      throw new InputError('NeuronSageMakerEndpoint: no instance type');
    }
    this.plan = props.plan;
    this.instanceType = layout.instanceType;
    const type = layout.instanceType;
    const localStorageOnly = hasLocalStorageOnly(type);
    this.endpointName = props.endpointName ?? generatedEndpointName(this);
    const host = chooseHostImage(type, props.neuronSdkVersion ?? props.image.neuronSdkVersion, props.inferenceAmiVersion);
    if (host.problem !== undefined) {
      problems.push(host.problem);
    }
    if (props.neuronSdkVersion !== undefined && props.image.neuronSdkVersion !== undefined
      && props.neuronSdkVersion !== props.image.neuronSdkVersion) {
      problems.push(`neuronSdkVersion=${JSON.stringify(props.neuronSdkVersion)} but the image's Neuron DLC tag says `
        + `${props.image.neuronSdkVersion}; remove neuronSdkVersion (the tag already tells)`);
    }

    // Storage and timeouts.
    if (localStorageOnly && props.encryptionKey !== undefined) {
      problems.push(`encryptionKey is set but ${type.sageMakerName} has only local NVMe storage and SageMaker rejects `
        + 'KmsKeyId there; remove encryptionKey (the instance store is encrypted by the hardware)');
    }
    if (localStorageOnly && props.volumeSize !== undefined) {
      problems.push(`volumeSize=${props.volumeSize.toGibibytes({ rounding: SizeRoundingBehavior.NONE })} GiB is set `
        + `but ${type.sageMakerName} has only local NVMe storage and SageMaker rejects VolumeSizeInGB there; `
        + 'remove volumeSize');
    }
    let volumeSizeInGb: number | undefined;
    if (!localStorageOnly) {
      if (props.volumeSize !== undefined) {
        volumeSizeInGb = props.volumeSize.toGibibytes({ rounding: SizeRoundingBehavior.NONE });
        if (!Token.isUnresolved(volumeSizeInGb)
          && (!Number.isInteger(volumeSizeInGb) || volumeSizeInGb < VOLUME_MIN_GIB || volumeSizeInGb > VOLUME_MAX_GIB)) {
          problems.push(`volumeSize=${volumeSizeInGb} GiB is outside the ${VOLUME_MIN_GIB}-${VOLUME_MAX_GIB} whole GiB `
            + 'SageMaker accepts; pass e.g. Size.gibibytes(64)');
        }
      } else {
        const { sizeGiB, capped } = defaultVolumeSizeGiB(layout);
        volumeSizeInGb = sizeGiB;
        if (capped) {
          Annotations.of(this).addWarningV2('@cdk-inferentia/neuron-sagemaker-endpoint:volumeCapped',
            `The planned model needs more than the ${VOLUME_MAX_GIB} GiB volume SageMaker allows for its download and `
            + 'TorchServe archive; the volume is 512 GiB. Ship a smaller artifact or check the startup logs.');
        }
      }
    }
    const downloadSeconds = this.timeoutSeconds('modelDataDownloadTimeout', props.modelDataDownloadTimeout,
      defaultDownloadTimeoutSeconds(layout), problems);
    const startupSeconds = this.timeoutSeconds('containerStartupHealthCheckTimeout',
      props.containerStartupHealthCheckTimeout, defaultStartupTimeoutSeconds(layout), problems);

    // Deployment policy: SageMaker ignores guardrails on Inf1, so none is written there.
    const guardrails = type.spec.family !== 'inf1';
    const deployment = props.deployment
      ?? (layout.instanceCount >= 2 ? EndpointDeployment.canary() : EndpointDeployment.allAtOnce());
    const renderDeployment = (alarmNames: string[]) => deployment._render({
      instanceCount: layout.instanceCount,
      alarmNames,
      containerSeconds: downloadSeconds + startupSeconds,
    });
    if (guardrails) {
      problems.push(...renderDeployment([]).problems);
    }

    // Auto scaling bounds, checked before any resource exists.
    const scaling = this.resolveAutoScaling(props, layout, problems);
    // A compiled artifact runs only on the chip, core group and batch it was compiled for.
    if (props.plan && props.modelData?.compiledArtifact) {
      problems.push(...compiledArtifactProblems(props.modelData.compiledArtifact, props.plan, `${this.node.path}: modelData`));
    }
    InputError.throwIfAny(problems);

    // Role and the grants the model needs.
    this.role = props.role ?? new NeuronSageMakerExecutionRole(this, 'Role');
    const image = props.image.bind(this, this.role, type);
    const modelData = props.modelData?.bind(this, this.role);

    this.encryptionKey = localStorageOnly ? undefined : props.encryptionKey ?? new kms.Key(this, 'Key', {
      description: `Encrypts the ML storage volumes of SageMaker endpoint ${this.endpointName}`,
      enableKeyRotation: true,
      // The volumes live and die with the endpoint; nothing encrypted with this key outlives the stack.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const logGroup = new logs.LogGroup(this, 'LogGroup', {
      logGroupName: `/aws/sagemaker/Endpoints/${this.endpointName}`,
      retention: props.logRetention ?? logs.RetentionDays.THREE_MONTHS,
      // Deleted with the stack. The generated endpoint name changes with each creation of the stack, so a group
      // SageMaker recreates during a rollback (the role may create it) never blocks the next deploy.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.logGroup = logGroup;
    logGroup.grantWrite(this.role);
    // The SageMaker log agent also describes streams and may try to create the group: allow both on this group only.
    logGroup.grant(this.role, 'logs:CreateLogGroup', 'logs:DescribeLogStreams');

    // Network.
    let vpcConfig: sagemaker.CfnModel.VpcConfigProperty | undefined;
    let securityGroups: ec2.ISecurityGroup[] = [];
    if (props.vpc) {
      securityGroups = props.securityGroups ?? [new ec2.SecurityGroup(this, 'SecurityGroup', {
        vpc: props.vpc,
        description: `SageMaker endpoint ${this.node.path} model containers`,
        allowAllOutbound: true,
      })];
      const subnets = props.vpc.selectSubnets(props.vpcSubnets).subnetIds;
      vpcConfig = {
        subnets,
        securityGroupIds: securityGroups.map((sg) => sg.securityGroupId),
      };
      this.grantVpcAccess(props.vpc, subnets, securityGroups);
    }
    this.connections = new ec2.Connections({ securityGroups });

    // Model.
    this.environment = {
      ...(props.image.modelServer
        ? serverEnvironment(layout, {
          batching: props.plan?.batching ?? null,
          visibleCores: props.plan?.visibleCores,
          metricsService: this.endpointName,
          metricsNamespace: DEFAULT_METRICS_NAMESPACE,
        })
        : modelServerEnvironment(layout)),
      ...props.environment,
    };
    const modelDataSource = modelData === undefined ? undefined : {
      s3DataSource: { s3Uri: modelData.s3Uri, s3DataType: 'S3Prefix', compressionType: 'None' },
    };
    this.cfnModel = new sagemaker.CfnModel(this, 'Model', {
      executionRoleArn: this.role.roleArn,
      primaryContainer: {
        image: image.imageUri,
        modelDataSource,
        environment: this.environment,
      },
      enableNetworkIsolation: props.networkIsolation ?? false,
      vpcConfig,
    });
    // SageMaker checks the role's access when it creates the model and starts the endpoint: attach the
    // policies first.
    this.cfnModel.node.addDependency(this.role);
    if (modelData?.dependable) {
      this.cfnModel.node.addDependency(modelData.dependable as IDependable);
    }
    this.modelName = this.cfnModel.attrModelName;

    // Endpoint configuration.
    const productionVariant: sagemaker.CfnEndpointConfig.ProductionVariantProperty = {
      variantName: this.variantName,
      modelName: this.modelName,
      instanceType: type.sageMakerName,
      initialInstanceCount: layout.instanceCount,
      initialVariantWeight: 1,
      volumeSizeInGb,
      modelDataDownloadTimeoutInSeconds: downloadSeconds,
      containerStartupHealthCheckTimeoutInSeconds: startupSeconds,
      inferenceAmiVersion: host.amiVersion,
    };
    this.cfnEndpointConfig = new sagemaker.CfnEndpointConfig(this, 'EndpointConfig', {
      productionVariants: [productionVariant],
      kmsKeyId: this.encryptionKey?.keyArn,
    });
    this.endpointConfigName = this.cfnEndpointConfig.attrEndpointConfigName;

    // Rollback alarms, on the endpoint's own metrics.
    this.rollbackAlarms = this.defineRollbackAlarms(layout, props.latencyAlarmThreshold);
    iam.Grant.addToPrincipal({
      grantee: this.role,
      // SageMaker reads the rollback alarms as the execution role during a deployment.
      actions: ['cloudwatch:DescribeAlarms'],
      resourceArns: this.rollbackAlarms.map((a) => a.alarmArn),
    });

    let deploymentConfig: sagemaker.CfnEndpoint.DeploymentConfigProperty | undefined;
    if (guardrails) {
      deploymentConfig = renderDeployment(this.rollbackAlarms.map((a) => a.alarmName)).config;
    } else {
      Annotations.of(this).addWarningV2('@cdk-inferentia/neuron-sagemaker-endpoint:inf1NoGuardrails',
        `${type.sageMakerName}: SageMaker does not apply deployment guardrails to Inf1 endpoints; every update shifts `
        + 'all traffic at once with no baking period and no automatic rollback. Watch the 5XX and latency alarms '
        + 'after each deploy, or plan on inf2.');
    }

    // Endpoint.
    this.cfnEndpoint = new sagemaker.CfnEndpoint(this, 'Resource', {
      endpointName: this.endpointName,
      endpointConfigName: this.endpointConfigName,
      deploymentConfig,
      // With auto scaling, an update keeps the instance count it reached instead of resetting to the planned
      // minimum (InitialInstanceCount), so a deploy during a peak does not drop capacity. A new minimum still
      // applies through the scalable target.
      retainAllVariantProperties: scaling ? true : undefined,
    });
    // The log group must exist, with its retention, before the first container writes to it.
    this.cfnEndpoint.node.addDependency(logGroup);
    this.cfnEndpoint.node.addDependency(this.role);
    this.endpointArn = this.cfnEndpoint.ref;

    // Auto scaling.
    if (scaling) {
      this.scalableTarget = new appscaling.ScalableTarget(this, 'ScalableTarget', {
        serviceNamespace: appscaling.ServiceNamespace.SAGEMAKER,
        resourceId: `endpoint/${this.endpointName}/variant/${this.variantName}`,
        scalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        minCapacity: scaling.min,
        maxCapacity: scaling.max,
      });
      // The resource id is a plain string: register only once the endpoint exists.
      this.scalableTarget.node.addDependency(this.cfnEndpoint);
      this.scalableTarget.scaleToTrackMetric('InvocationsPerInstance', {
        predefinedMetric: appscaling.PredefinedMetric.SAGEMAKER_VARIANT_INVOCATIONS_PER_INSTANCE,
        targetValue: scaling.targetInvocationsPerMinute,
        scaleInCooldown: scaling.scaleInCooldown,
        scaleOutCooldown: scaling.scaleOutCooldown,
      });
    }

    if (layout.batchSize > 1 && !props.image.modelServer) {
      Annotations.of(this).addInfo(`The model runs at batch ${layout.batchSize}: the stock toolkit makes one padded `
        + `batch-${layout.batchSize} call per request, so a request may carry up to ${layout.batchSize} inputs at the `
        + 'same cost as one' + (layout.capacityPerInstanceRps !== undefined
          ? `; the plan's ${layout.capacityPerInstanceRps} requests/s per instance already count one call per request.`
          : '.'));
    }
    if (host.warning !== undefined) {
      Annotations.of(this).addWarningV2('@cdk-inferentia/neuron-sagemaker-endpoint:hostImageUnchecked', host.warning);
    }
    if (host.info !== undefined) {
      Annotations.of(this).addInfo(host.info);
    }
    if (layout.instanceCount === 1) {
      Annotations.of(this).addWarningV2('@cdk-inferentia/neuron-sagemaker-endpoint:singleInstance',
        `${type.sageMakerName}: the endpoint runs on one instance, so an instance failure or an Availability Zone `
        + 'outage stops it, and AWS Config\'s sagemaker-endpoint-config-prod-instance-count rule flags it. For '
        + 'production, plan with minInstances of 2 or more (SageMaker spreads instances across Availability Zones).');
    }

    if (props.image.modelServer) {
      this.serverMetrics = new ModelServerMetrics({
        namespace: DEFAULT_METRICS_NAMESPACE,
        service: this.endpointName,
        workers: layout.processesPerInstance,
      });
    }
    if (props.dashboard ?? true) {
      this.dashboard = this.defineDashboard();
    }

    const stack = Stack.of(this);
    this.deploymentFingerprint = stableHash({
      plan: props.plan,
      layout: { ...layout, instanceType: type.name },
      imageUri: stack.resolve(image.imageUri),
      modelData: modelData?.fingerprint ?? (modelData ? stack.resolve(modelData.s3Uri) : undefined),
      environment: this.environment,
      networkIsolation: props.networkIsolation ?? false,
      vpcConfig: stack.resolve(vpcConfig),
      productionVariant: { ...productionVariant, modelName: undefined },
      kmsKeyId: stack.resolve(this.encryptionKey?.keyArn),
      role: stack.resolve(this.role.roleArn),
    });

    // Last: the benchmark reads the name, ARN and fingerprint set above, and runs after everything in this construct.
    if (props.smokeBenchmark) {
      this.smokeBenchmark = new SmokeBenchmark(this, 'SmokeBenchmark', {
        ...props.smokeBenchmark,
        target: SmokeTarget.sageMakerEndpoint(this),
        plan: this.plan,
      });
    }
  }

  /**
   * Lets the role manage the network interfaces SageMaker attaches to the containers in `vpc`: the EC2 actions the
   * SageMaker developer guide lists for a model with `VpcConfig` ("CreateModel API: Execution Role Permissions",
   * https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-roles.html#sagemaker-roles-createmodel-perms),
   * scoped as far as IAM allows (Service Authorization Reference, Amazon EC2,
   * https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html): interfaces may be
   * created, shared and deleted only in the chosen subnets of this VPC (`ec2:Subnet`, `ec2:Vpc` on the
   * network-interface resource), with only these subnets and security groups; the `Describe*` actions and
   * `DeleteNetworkInterfacePermission` support no resource-level permission, hence `*`.
   */
  private grantVpcAccess(vpc: ec2.IVpc, subnetIds: string[], securityGroups: ec2.ISecurityGroup[]): void {
    const stack = Stack.of(this);
    const ec2Arn = (resource: string, name: string) => stack.formatArn({ service: 'ec2', resource, resourceName: name });
    const interfaces = ec2Arn('network-interface', '*');
    // Both keys must match; a list of subnets matches any one of them.
    const inThisNetwork = {
      ArnEquals: { 'ec2:Vpc': ec2Arn('vpc', vpc.vpcId), 'ec2:Subnet': subnetIds.map((id) => ec2Arn('subnet', id)) },
    };
    iam.Grant.addToPrincipal({
      grantee: this.role,
      actions: ['ec2:CreateNetworkInterface', 'ec2:CreateNetworkInterfacePermission', 'ec2:DeleteNetworkInterface'],
      resourceArns: [interfaces],
      conditions: inThisNetwork,
    });
    iam.Grant.addToPrincipal({
      grantee: this.role,
      // CreateNetworkInterface is also authorized against the subnet and the security groups it uses.
      actions: ['ec2:CreateNetworkInterface'],
      resourceArns: [
        ...subnetIds.map((id) => ec2Arn('subnet', id)),
        ...securityGroups.map((sg) => ec2Arn('security-group', sg.securityGroupId)),
      ],
    });
    iam.Grant.addToPrincipal({
      grantee: this.role,
      actions: [
        'ec2:DeleteNetworkInterfacePermission', 'ec2:DescribeDhcpOptions', 'ec2:DescribeNetworkInterfaces',
        'ec2:DescribeSecurityGroups', 'ec2:DescribeSubnets', 'ec2:DescribeVpcs',
      ],
      resourceArns: ['*'],
    });
    const principal = this.role.grantPrincipal;
    if (Construct.isConstruct(principal)) {
      Validations.of(principal).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagResource(principal, interfaces)}]`,
        reason: 'SageMaker creates the network interfaces of the model containers at deploy time, so their ids are '
          + 'unknown; the statement allows only interfaces in the chosen subnets of this VPC (ec2:Subnet, ec2:Vpc).',
      }, {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'Actions with no resource-level permission (IAM requires Resource *): cloudwatch:PutMetricData '
          + '(limited by a cloudwatch:namespace condition), ecr:GetAuthorizationToken (grants no image), and for a VPC '
          + 'the ec2:Describe* calls and ec2:DeleteNetworkInterfacePermission SageMaker makes for the containers\' '
          + 'network interfaces.',
      });
    }
  }

  /** The layout from `plan` or from the explicit props; records problems and returns undefined when invalid. */
  private resolveLayout(props: NeuronSageMakerEndpointProps, problems: string[]): EndpointLayout | undefined {
    const explicit = (['instanceType', 'instanceCount', 'processesPerInstance', 'coresPerProcess'] as const)
      .filter((k) => props[k] !== undefined);
    const stackRegion = Stack.of(this).region;
    if (props.plan) {
      const plan = props.plan;
      if (explicit.length > 0) {
        problems.push(`${explicit.join(', ')} ${explicit.length === 1 ? 'is' : 'are'} set together with plan; the plan `
          + 'already fixes the instance type and counts: remove them, or re-plan with the values you want');
      }
      if (plan.hosting !== 'sagemaker') {
        problems.push(`plan.hosting=${JSON.stringify(plan.hosting)}: the plan was made for EC2 (instance names without `
          + "'ml.', EC2 prices); re-plan with { hosting: 'sagemaker' }");
      }
      if (plan.serving !== undefined && plan.serving !== 'stock' && !props.image.modelServer) {
        // The stock toolkit of a Neuron DLC makes one device call per request: a plan that counts on requests
        // sharing calls would promise a capacity it cannot serve. Only the model server batches.
        problems.push(`plan.serving=${JSON.stringify(plan.serving)} but the image runs the stock SageMaker toolkit, one `
          + "device call per request, which cannot hold a batching plan's capacity; use the model server, "
          + 'image: ModelImage.fromServer({ tag, digest }), or re-plan with { serving: \'stock\' }');
      }
      if (!Token.isUnresolved(stackRegion) && plan.region !== stackRegion) {
        problems.push(`plan.region=${JSON.stringify(plan.region)} but the stack deploys to ${stackRegion}; prices and `
          + `availability differ by region: re-plan with { region: '${stackRegion}' }`);
      }
      if (!plan.instanceType.startsWith('ml.')) {
        problems.push(`plan.instanceType=${JSON.stringify(plan.instanceType)} is not a SageMaker instance type `
          + "(no 'ml.' prefix); re-plan with { hosting: 'sagemaker' }");
      }
      let type: NeuronInstanceType | undefined;
      if (!NEURON_FAMILIES.includes(ec2Name(plan.instanceType).split('.')[0])) {
        problems.push(`plan.instanceType=${JSON.stringify(plan.instanceType)} is not a Neuron instance type (families `
          + `${NEURON_FAMILIES.join(', ')}); re-plan: the planner only picks Neuron instances`);
      } else {
        try {
          type = NeuronInstanceType.of(plan.instanceType, plan.instance);
        } catch (e) {
          problems.push(`plan.instanceType: ${(e as Error).message}`);
        }
      }
      if (!Number.isInteger(plan.instanceCount) || plan.instanceCount < 1) {
        problems.push(`plan.instanceCount=${plan.instanceCount} must be a whole number of at least 1; re-plan`);
      }
      if (type) {
        problems.push(...validateLayout(type.spec, plan.coresPerProcess, plan.processesPerInstance)
          .map((p) => `plan: ${p}`));
      }
      return type ? layoutFromPlan(plan, type) : undefined;
    }

    const type = props.instanceType;
    if (type === undefined) {
      problems.push('neither plan nor instanceType is set; pass plan (from `cdk-inferentia plan` or plan()) or an '
        + 'instanceType such as NeuronInstanceType.INF2_XLARGE');
      return undefined;
    }
    const instanceCount = props.instanceCount ?? 1;
    const coresPerProcess = props.coresPerProcess ?? 1;
    const processesPerInstance = props.processesPerInstance
      ?? Math.max(1, Math.floor(type.neuronCores / Math.max(1, coresPerProcess)));
    if (!Number.isInteger(instanceCount) || instanceCount < 1) {
      problems.push(`instanceCount=${instanceCount} must be a whole number of at least 1`);
    }
    problems.push(...validateLayout(type.spec, coresPerProcess, processesPerInstance));
    return { instanceType: type, instanceCount, processesPerInstance, coresPerProcess, batchSize: 1 };
  }

  private resolveAutoScaling(props: NeuronSageMakerEndpointProps, layout: EndpointLayout, problems: string[]):
  { min: number; max: number; targetInvocationsPerMinute: number; scaleInCooldown: Duration; scaleOutCooldown: Duration }
  | undefined {
    const options = props.autoScaling;
    if (options?.enabled === false || (options === undefined && props.plan === undefined)) {
      return undefined;
    }
    const o = options ?? {};
    const min = layout.instanceCount;
    const max = o.maxInstanceCount ?? layout.maxInstanceCount ?? min;
    const utilization = o.targetUtilization ?? 0.7;
    const capacity = o.capacityPerInstanceRps ?? layout.capacityPerInstanceRps;
    if (!Number.isInteger(max) || max < min) {
      problems.push(`autoScaling.maxInstanceCount=${max} is below the minimum instance count ${min}; `
        + `pass a whole number of at least ${min}`);
    }
    if (!(utilization > 0 && utilization <= 1)) {
      problems.push(`autoScaling.targetUtilization=${utilization} must be in (0, 1], e.g. 0.7 for 70 % of capacity`);
    }
    if (capacity === undefined) {
      problems.push('autoScaling needs the capacity of one instance to set its target: pass '
        + 'autoScaling.capacityPerInstanceRps, deploy a plan, or set autoScaling.enabled=false');
    } else if (!(capacity > 0)) {
      problems.push(`autoScaling.capacityPerInstanceRps=${capacity} must be above 0`);
    }
    if (problems.length > 0 || capacity === undefined || max === min) {
      return undefined;
    }
    // SageMakerVariantInvocationsPerInstance counts invocations per instance per MINUTE; the plan's capacity is
    // already in requests (invocations) per second, queueing and padding to the compiled batch included.
    const invocationsPerSecond = capacity;
    return {
      min,
      max,
      targetInvocationsPerMinute: Math.floor(invocationsPerSecond * 60 * utilization),
      scaleInCooldown: o.scaleInCooldown ?? Duration.minutes(10),
      scaleOutCooldown: o.scaleOutCooldown ?? Duration.minutes(5),
    };
  }

  private timeoutSeconds(name: string, value: Duration | undefined, dflt: number, problems: string[]): number {
    if (value === undefined) {
      return dflt;
    }
    const s = value.toSeconds();
    if (!Token.isUnresolved(s) && (!Number.isInteger(s) || s < TIMEOUT_MIN_SECONDS || s > TIMEOUT_MAX_SECONDS)) {
      problems.push(`${name}=${value.toHumanString()} is outside the ${TIMEOUT_MIN_SECONDS}-${TIMEOUT_MAX_SECONDS} `
        + `seconds SageMaker accepts; pass e.g. Duration.minutes(${dflt / 60})`);
    }
    return s;
  }

  /** SageMaker's view of the endpoint, then the model server's own, when the image runs it. */
  private defineDashboard(): cloudwatch.Dashboard {
    const minute = Duration.minutes(1);
    // Instance metrics are per variant in the `/aws/sagemaker/Endpoints` namespace, in percent of one vCPU (CPU)
    // or of the instance (memory, disk) (SageMaker Developer Guide, "SageMaker endpoint invocation metrics").
    const instance = (metricName: string) => new cloudwatch.Metric({
      namespace: '/aws/sagemaker/Endpoints',
      metricName,
      dimensionsMap: { EndpointName: this.endpointName, VariantName: this.variantName },
      statistic: cloudwatch.Stats.AVERAGE,
      period: minute,
      label: metricName,
    });
    const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = []) =>
      new cloudwatch.GraphWidget({ title, left, right, width: 6, height: 6, leftYAxis: { min: 0 } });
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    dashboard.addWidgets(
      graph('SageMaker: invocations per minute', [
        this.metricInvocations({ period: minute, label: 'Invocations' }),
        this.metricInvocationsPerInstance({ period: minute, label: 'Per instance' }),
      ]),
      graph('SageMaker: latency p50/p99 (microseconds)', [
        this.metricModelLatency({ period: minute, statistic: cloudwatch.Stats.p(50), label: 'ModelLatency p50' }),
        this.metricModelLatency({ period: minute, label: 'ModelLatency p99' }),
        this.metricOverheadLatency({ period: minute, label: 'OverheadLatency p99' }),
      ]),
      graph('SageMaker: errors', [
        this.metric5xxErrors({ period: minute, label: '5XX' }),
        this.metricInvocation4xxErrors({ period: minute, label: '4XX' }),
      ]),
      graph('SageMaker: instance CPU, memory, disk (%)', [
        instance('CPUUtilization'), instance('MemoryUtilization'), instance('DiskUtilization'),
      ]),
    );
    if (this.serverMetrics) {
      dashboard.addWidgets(...this.serverMetrics.widgets());
    }
    return dashboard;
  }

  private defineRollbackAlarms(layout: EndpointLayout, latencyThreshold: Duration | undefined): cloudwatch.IAlarm[] {
    const alarms: cloudwatch.IAlarm[] = [
      new cloudwatch.Alarm(this, 'Errors5xxAlarm', {
        alarmDescription: `More than ${ERROR_RATE_ALARM_PERCENT} % of the requests to ${this.endpointName} answered `
          + 'with 5XX in 2 of 3 minutes; rolls a deployment back.',
        // A rate, not a count: one 5XX among thousands of requests a minute is noise, not a bad deployment. The
        // 1 % matches the smoke benchmark's default error-rate threshold. No traffic leaves the rate missing.
        metric: new cloudwatch.MathExpression({
          expression: '100 * FILL(errors, 0) / invocations',
          usingMetrics: {
            errors: this.metric5xxErrors({ period: Duration.minutes(1) }),
            invocations: this.metricInvocations({ period: Duration.minutes(1) }),
          },
          label: '5XX error rate (%)',
          period: Duration.minutes(1),
        }),
        threshold: ERROR_RATE_ALARM_PERCENT,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        // Two bad minutes out of three: a single bad minute (a worker restarting) does not undo a deployment, a
        // sustained failure does within the canary's baking time.
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        // No traffic is not an error: stay OK, so a quiet deployment is not rolled back.
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    ];
    if (layout.p99TargetMs !== undefined || latencyThreshold !== undefined) {
      const thresholdMs = latencyThreshold?.toMilliseconds() ?? (layout.p99TargetMs as number) * P99_ALARM_FACTOR;
      alarms.push(new cloudwatch.Alarm(this, 'ModelLatencyP99Alarm', {
        alarmDescription: `p99 ModelLatency of ${this.endpointName} above ${thresholdMs} ms in 2 of 3 minutes`
          + (layout.p99TargetMs === undefined ? '' : ` (the plan's p99 target ${layout.p99TargetMs} ms plus `
            + `${Math.round((P99_ALARM_FACTOR - 1) * 100)} % for the container's own overhead)`)
          + '; rolls a deployment back.',
        metric: this.metricModelLatency({ period: Duration.minutes(1), statistic: cloudwatch.Stats.p(99) }),
        // ModelLatency is in MICROseconds.
        threshold: Math.round(thresholdMs * 1000),
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        // Two slow minutes out of three: one cold-start minute on fresh workers should not undo a deployment.
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }));
    }
    return alarms;
  }
}

/**
 * `<this construct's path, lower case, <= 50 chars>-<last 12 hex digits of AWS::StackId>`: unique per path like
 * any generated name, and new each time the stack is created (the stack id's UUID) while fixed for the stack's
 * life, so a log group SageMaker recreated during a rolled-back first deploy never blocks the next one. CloudFormation
 * resolves it from a pseudo parameter, before any resource exists, so the log group can be created first.
 */
function generatedEndpointName(scope: Construct): string {
  const prefix = Names.uniqueResourceName(scope, { maxLength: 50, separator: '-' }).toLowerCase();
  const stackUuid = Fn.select(2, Fn.split('/', Aws.STACK_ID));
  return `${prefix}-${Fn.select(4, Fn.split('-', stackUuid))}`;
}
