import {
  Annotations, Arn, ArnFormat, IResolvable, RemovalPolicy, SizeRoundingBehavior, Stack, Token,
} from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import { Construct } from 'constructs';
import { NeuronInstanceType } from '../../lib/catalog/instance-type';
import { compiledArtifactProblems } from '../../lib/compile/check';
import type { Plan } from '../../lib/planner';
import { DEFAULT_METRICS_NAMESPACE } from '../../lib/serving/environment';
import type { ModelDataConfig } from '../model/model-data';
import { ModelServerMetrics } from '../monitoring/model-server-metrics';
import { canonicalJson, sha256Hex } from '../../lib/compile/hash';
import { EndpointLayout, hasLocalStorageOnly, layoutFromPlan, neuronDlcPlanNote } from '../private/endpoint-layout';
import {
  defaultDownloadTimeoutSeconds,
  defaultStartupTimeoutSeconds,
  defaultVolumeSizeGiB,
  VOLUME_MAX_GIB,
  VOLUME_MIN_GIB,
} from '../private/endpoint-sizing';
import { SmokeBenchmark } from '../proof/smoke-benchmark';
import { SmokeTarget } from '../proof/smoke-target';
import { EndpointDeployment } from './endpoint-deployment';
import {
  DEFAULT_VARIANT_NAME,
  INeuronSageMakerEndpoint,
  NeuronSageMakerEndpointAttributes,
  NeuronSageMakerEndpointProps,
} from './endpoint-props';
import { EndpointBase, sageMakerScalableTarget } from './private/endpoint-base';
import { endpointEnvironment } from './private/endpoint-environment';
import {
  endpointDashboard, endpointNetwork, endpointRollbackAlarms, networkProblems, rollbackAlarmsReadBy,
} from './private/endpoint-monitoring';
import { generatedEndpointName } from './private/endpoint-naming';
import { ENDPOINT_NAME, resolveAutoScaling, resolveLayout, timeoutSeconds } from './private/endpoint-validation';
import {
  annotatePools, DEFAULT_PROVISION_TIMEOUT, poolKeyProblem, deployedPools, hostImageForPools, instancePoolsProperty, localStoragePool, poolCheck,
  poolsWidget, provisionTimeoutSeconds,
} from './private/instance-pools';
import { grantHostingStatements, immutableRoleNote } from './private/execution-role-grants';
import { storageKey, storageKeyChoice } from './private/endpoint-storage';
import { chooseHostImage } from './private/neuron-host';
import { bindPoolParts, endpointModel, poolModelData, poolPlanProblems } from './private/pool-models';
import { NeuronSageMakerExecutionRole } from './sagemaker-execution-role';
import { constructError, singleCallPlanOf, throwIfProblems, within } from '../private/construct-errors';
import { markOwned } from '../private/ownership';
import type { RollbackAlarms } from '../private/rollback-alarms';

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
 *   // A Neuron DLC's stock toolkit runs host work and device call one after the other: plan for it.
 *   plan: plan(requireProfile('bert-base-uncased'), { throughputRps: 2000, p99Ms: 10 }, { region, hosting: 'sagemaker', server: 'neuron-dlc' }),
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
  /** The instance type deployed: the chosen type, priority 1 of `instancePools` when the plan has pools. */
  readonly instanceType: NeuronInstanceType;
  /** The variant's instance types in priority order: the chosen type, then the plan's fallback pools. */
  readonly instancePools: readonly NeuronInstanceType[];
  /** The role SageMaker runs the model as. */
  readonly role: iam.IRole;
  /** The key encrypting the storage volume; undefined on instance types with only local NVMe storage (Trainium). */
  readonly encryptionKey?: kms.IKey;
  /** The endpoint's log group, `/aws/sagemaker/Endpoints/<endpointName>`. */
  readonly logGroup: logs.ILogGroup;
  /**
   * Alarms that roll a deployment back: a 5XX rate above 1 % of requests, and p99 model latency above the plan's
   * target x 1.5 (or `latencyAlarmThreshold`), each in 2 of 3 minutes.
   */
  get rollbackAlarms(): readonly cloudwatch.AlarmBase[] {
    return this.alarms.list;
  }
  private readonly alarms: RollbackAlarms;
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
    markOwned(this);
    // A plan of the wrong shape, kind or version is refused before anything reads it.
    if (props.plan !== undefined) {
      singleCallPlanOf(this, props.plan);
    }
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
    problems.push(...networkProblems(props));
    const layout = resolveLayout(this, props, problems);
    if (layout === undefined) {
      // Without an instance type nothing else can be checked.
      throwIfProblems(this, problems);
      throw constructError(this, 'no instance type');
    }
    this.plan = props.plan;
    this.instanceType = layout.instanceType;
    const type = layout.instanceType;
    // The chosen type and the plan's fallback pools; one entry (the chosen type) without pools.
    const pools = props.plan ? deployedPools(props.plan, type, problems) : [];
    this.instancePools = pools.map((pool) => pool.instanceType);
    for (const pool of pools.slice(1)) {
      problems.push(...poolPlanProblems(pool, props.image.modelServer === true));
    }
    // Volume size and KMS key are per variant: one pool on local NVMe storage rules both out for every pool.
    const storagePool = localStoragePool(pools);
    const storageType = storagePool?.instanceType ?? type;
    const localStorageOnly = hasLocalStorageOnly(storageType);
    this.endpointName = props.endpointName ?? generatedEndpointName(this);
    const sdk = props.neuronSdkVersion ?? props.image.neuronSdkVersion;
    const host = pools.length > 1 ? hostImageForPools(pools, sdk, props.inferenceAmiVersion) : chooseHostImage(type, sdk, props.inferenceAmiVersion);
    if (host.problem !== undefined) {
      problems.push(host.problem);
    }
    if (props.neuronSdkVersion !== undefined && props.image.neuronSdkVersion !== undefined
      && props.neuronSdkVersion !== props.image.neuronSdkVersion) {
      problems.push(`neuronSdkVersion=${JSON.stringify(props.neuronSdkVersion)} but the image's Neuron DLC tag says `
        + `${props.image.neuronSdkVersion}; remove neuronSdkVersion (the tag already tells)`);
    }

    // Storage and timeouts.
    const onStorage = storageType === type ? storageType.sageMakerName : `the instance pool ${storageType.sageMakerName}`;
    // A key is refused (or, opted out, not applied) wherever one pool is on local NVMe: KmsKeyId is per configuration.
    const keyChoice = storageKeyChoice(storageType, props);
    if (keyChoice.use === 'refused') {
      problems.push(poolKeyProblem(storagePool, keyChoice.problem));
    }
    if (localStorageOnly && props.volumeSize !== undefined) {
      problems.push(`volumeSize=${props.volumeSize.toGibibytes({ rounding: SizeRoundingBehavior.NONE })} GiB is set `
        + `but ${onStorage} has only local NVMe storage and SageMaker rejects VolumeSizeInGB there; `
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
    const downloadSeconds = timeoutSeconds('modelDataDownloadTimeout', props.modelDataDownloadTimeout,
      defaultDownloadTimeoutSeconds(layout), problems);
    const startupSeconds = timeoutSeconds('containerStartupHealthCheckTimeout',
      props.containerStartupHealthCheckTimeout, defaultStartupTimeoutSeconds(layout), problems);

    const provisionSeconds = pools.length > 1 ? provisionTimeoutSeconds(props.instanceProvisionTimeout, problems) : undefined;

    // Deployment policy: SageMaker ignores guardrails on Inf1, so none is written where any pool is Inf1.
    const guardrails = pools.every((pool) => pool.instanceType.spec.family !== 'inf1') && type.spec.family !== 'inf1';
    const deployment = props.deployment
      ?? (layout.instanceCount >= 2 ? EndpointDeployment.canary() : EndpointDeployment.allAtOnce());
    const renderDeployment = (alarmNames: string[]) => deployment._render({
      instanceCount: layout.instanceCount,
      alarmNames,
      // A provisioning timeout above the default lengthens the fleet's launch beyond what the policies budget.
      containerSeconds: downloadSeconds + startupSeconds
        + Math.max(0, (provisionSeconds ?? 0) - DEFAULT_PROVISION_TIMEOUT.toSeconds()),
    });
    if (guardrails) {
      problems.push(...renderDeployment([]).problems);
    }

    // Auto scaling bounds, checked before any resource exists.
    const scaling = resolveAutoScaling(props, layout, problems);
    // A compiled artifact runs only on the chip, core group and batch it was compiled for.
    if (props.plan && props.modelData?.compiledArtifact) {
      problems.push(...compiledArtifactProblems(props.modelData.compiledArtifact, props.plan, 'modelData'));
    }
    const poolData = pools.length > 1 ? poolModelData(pools, props.modelData, props.poolModelData ?? [], problems) : undefined;
    if (pools.length <= 1 && props.poolModelData !== undefined && props.poolModelData.length > 0) {
      problems.push('poolModelData is set but the plan has no fallback pools; remove it, or plan with fallbacks (--fallbacks)');
    }
    throwIfProblems(this, problems);

    // Role and the grants the model needs: a role passed in gets what the default one has.
    this.role = props.role ?? new NeuronSageMakerExecutionRole(this, 'Role');
    if (grantHostingStatements(this, this.role, []) === 'immutable') {
      Annotations.of(this).addWarningV2('@cdk-inferentia/sagemaker:immutableRole', immutableRoleNote(this.role));
    }
    this.alarms = rollbackAlarmsReadBy(this.role);
    const image = within(this, () => props.image.bind(this, this.role, type));
    const modelData = within(this, () => props.modelData?.bind(this, this.role));
    const poolParts = within(this, () => bindPoolParts(this, this.role, pools, props.image, poolData,
      props.modelData && modelData && [props.modelData, modelData]));

    this.encryptionKey = storageKey(this, keyChoice, props, this.endpointName);

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
    const { vpcConfig, connections } = endpointNetwork(this, this.role, props);
    this.connections = connections;

    // Model: the plan-derived environment, with the pool's priority when the plan has pools (the proof reads it back).
    const environmentOf = (plan: Plan | undefined, poolLayout: EndpointLayout, priority: number | undefined) => within(this, () => endpointEnvironment(
      poolLayout, plan, { modelServer: props.image.modelServer === true, metricsService: this.endpointName, priority, user: props.environment }));
    this.environment = environmentOf(props.plan, layout, pools.length > 1 ? 1 : undefined);
    const newModel = (id: string, imageUri: string, data: ModelDataConfig | undefined, environment: Record<string, string>) =>
      endpointModel(this, id, { role: this.role, imageUri, data, environment, networkIsolation: props.networkIsolation ?? false, vpcConfig });
    this.cfnModel = newModel('Model', image.imageUri, modelData, this.environment);
    this.modelName = this.cfnModel.attrModelName;
    // One model per fallback pool, even one sharing the chosen model's artifact: its layout and priority are its own.
    const poolModels = new Map(pools.slice(1).map((pool) => {
      const parts = poolParts.get(pool.priority)!;
      return [pool.priority, newModel(`Pool${pool.priority}Model`, parts.imageUri, parts.modelData,
        environmentOf(pool.plan, layoutFromPlan(pool.plan, pool.instanceType), pool.priority))] as const;
    }));

    // Endpoint configuration.
    const productionVariant: sagemaker.CfnEndpointConfig.ProductionVariantProperty = {
      variantName: this.variantName,
      modelName: this.modelName,
      // With pools the variant names its types in InstancePools only, the chosen type at priority 1.
      ...(pools.length > 1
        ? {
          instancePools: instancePoolsProperty(pools, (priority) => poolModels.get(priority)?.attrModelName),
          variantInstanceProvisionTimeoutInSeconds: provisionSeconds,
        }
        : { instanceType: type.sageMakerName }),
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
    if (pools.length > 1) {
      // SageMaker's acceptance of Neuron types as instance pools is unverified: a configuration like this one, on a
      // model that needs no artifact, is created first, and every compile and upload waits for it, so a refusal
      // fails the deploy before anything costly starts and rolls back cleanly.
      const check = poolCheck(this, { image: image.imageUri, role: this.role, productionVariant, kmsKeyId: this.encryptionKey?.keyArn });
      for (const data of [modelData, ...[...poolParts.values()].map((parts) => parts.modelData)]) {
        if (data?.dependable !== undefined && Construct.isConstruct(data.dependable)) {
          data.dependable.node.addDependency(check);
        }
      }
      annotatePools(this, pools, 'SageMaker model (ModelNameOverride)', '@cdk-inferentia/neuron-sagemaker-endpoint:poolWithoutKmsKey');
    }

    // Rollback alarms, on the endpoint's own metrics.
    this.alarms.add(...endpointRollbackAlarms(this, layout, props.latencyAlarmThreshold));

    let deploymentConfig: sagemaker.CfnEndpoint.DeploymentConfigProperty | IResolvable | undefined;
    if (guardrails) {
      // Lazy: an alarm added with addRollbackAlarm after construction joins the set.
      deploymentConfig = this.alarms.render((alarms) => renderDeployment(alarms.map((a) => a.alarmName)).config);
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
      this.scalableTarget = sageMakerScalableTarget(this, `endpoint/${this.endpointName}/variant/${this.variantName}`,
        'sagemaker:variant:DesiredInstanceCount', scaling, this.cfnEndpoint);
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
    if (props.plan?.server === 'neuron-dlc' && props.image.modelServer) {
      Annotations.of(this).addInfo(neuronDlcPlanNote(props.plan.instanceCount));
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
      this.dashboard = endpointDashboard(this, this.serverMetrics, pools.length > 1 ? poolsWidget(pools) : undefined);
    }

    const stack = Stack.of(this);
    this.deploymentFingerprint = sha256Hex(canonicalJson({
      plan: props.plan,
      layout: { ...layout, instanceType: type.name },
      imageUri: stack.resolve(image.imageUri),
      modelData: modelData?.fingerprint ?? (modelData ? stack.resolve(modelData.s3Uri) : undefined),
      // Resolved: the environment holds the endpoint name, a token whose number shifts with any construct created
      // before it, which would change the fingerprint (and re-run the smoke benchmark) for no change of the endpoint.
      environment: stack.resolve(this.environment),
      networkIsolation: props.networkIsolation ?? false,
      vpcConfig: stack.resolve(vpcConfig),
      productionVariant: { ...productionVariant, modelName: undefined, instancePools: pools.length > 1 ? instancePoolsProperty(pools, () => undefined) : undefined },
      pools: pools.slice(1).map((pool) => ({
        plan: pool.plan,
        imageUri: stack.resolve(poolParts.get(pool.priority)!.imageUri),
        modelData: poolParts.get(pool.priority)!.modelData?.fingerprint ?? stack.resolve(poolParts.get(pool.priority)!.modelData?.s3Uri),
        environment: stack.resolve(poolModels.get(pool.priority)!.primaryContainer),
      })),
      kmsKeyId: stack.resolve(this.encryptionKey?.keyArn),
      role: stack.resolve(this.role.roleArn),
    }));

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
   * Adds an alarm of yours to the set that rolls a deployment back.
   *
   * SageMaker watches every rollback alarm during a deployment's baking period and rolls back when one fires; the
   * execution role may read it (`cloudwatch:DescribeAlarms` on its ARN). Has no effect on Inf1, where SageMaker
   * applies no deployment guardrails.
   *
   * @param alarm an alarm on any metric, e.g. your own latency or business metric
   */
  addRollbackAlarm(alarm: cloudwatch.AlarmBase): void {
    this.alarms.add(alarm);
  }
}
