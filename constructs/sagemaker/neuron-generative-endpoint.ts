import { Annotations, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import { Construct } from 'constructs';
import { NeuronInstanceType } from '../../lib/catalog/instance-type';
import { InputError } from '../../lib/errors';
import { COMPILED_ARTIFACTS_DIR, STAGED_MODEL_DIR } from '../../lib/compile/generative-spec';
import { vllmReplicaConfigs } from '../../lib/generative/engine-config';
import { DEFAULT_ENGINE_METRICS_NAMESPACE, VLLM_IMAGE_ENV } from '../../lib/generative/engine-image';
import type { GenerativePlan } from '../../lib/generative/types';
import { GenerativeEngineMetrics } from '../monitoring/generative-engine-metrics';
import { assertGenerativeArtifactsMatchPlan, type ICompiledGenerativeArtifacts } from '../compile/neuron-generative-compile-job';
import { poolEnvironment } from '../../lib/serving/pool';
import { ModelData } from '../model/model-data';
import { canonicalJson, sha256Hex } from '../../lib/compile/hash';
import { hasLocalStorageOnly } from '../private/endpoint-layout';
import { constructError, generativePlanOf, throwIfProblems, within } from '../private/construct-errors';
import { markOwned } from '../private/ownership';
import type { RollbackAlarms } from '../private/rollback-alarms';
import { mentionsPlaceholderDigest, placeholderDigestMessage } from '../image/private/image-digest';
import { DeployRefusal } from '../proof/deploy-refusal';
import { SmokeBenchmark } from '../proof/smoke-benchmark';
import { DEFAULT_VARIANT_NAME, P99_ALARM_FACTOR } from './endpoint-props';
import type { NeuronGenerativeEndpointProps } from './generative-endpoint-props';
import { EndpointBase } from './private/endpoint-base';
import { scaleComponentCopies } from './private/component-scaling';
import {
  endpointNetwork, errorRateAlarm, inferenceComponentProof, networkProblems, rollbackAlarmsReadBy,
} from './private/endpoint-monitoring';
import { generatedEndpointName } from './private/endpoint-naming';
import { ENDPOINT_NAME } from './private/endpoint-validation';
import { generativeProblems, renderRollingUpdate } from './private/generative-validation';
import { ColdStartEstimate, ComponentSizing, sizeComponent } from './private/generative-sizing';
import {
  bindGenerativePoolParts, componentSpecification, generativeModel, mixedComponentSizing, poolCompiledArtifacts,
} from './private/generative-pools';
import {
  annotatePools, deployedPools, poolKeyProblem, instancePoolsProperty, localStoragePool, poolsWidget, provisionTimeoutSeconds,
} from './private/instance-pools';
import { engineMetricsRoleProblem, grantHostingStatements, immutableRoleNote } from './private/execution-role-grants';
import { storageKey, storageKeyChoice } from './private/endpoint-storage';
import { NeuronSageMakerExecutionRole } from './sagemaker-execution-role';

/** Where SageMaker copies the weights in the container. */
const MODEL_DIRECTORY = '/opt/ml/model';

/**
 * A SageMaker endpoint serving a generative plan with vLLM on Neuron, on inference components.
 *
 * One endpoint per model: its configuration has the execution role, one production variant of the plan's instance
 * type with managed instance scaling (the plan's instance count to its peak count, or from zero) and least
 * outstanding requests routing, and no model. One inference component holds the plan's replicas: each copy is one
 * replica, asking for the Neuron devices its tensor-parallel group spans and its share of the host's memory and
 * vCPUs; copies = replicas per instance x instances. Application Auto Scaling tracks concurrent requests per copy
 * at the plan's load; with `scaleToZero`, a step policy on `NoCapacityInvocationFailures` brings copies back from
 * zero. Changes roll out copy by copy, rolled back by the 5XX alarm.
 *
 * Invoke with `InvokeEndpoint`, or `InvokeEndpointWithResponseStream` for tokens as they come, with
 * `InferenceComponentName` set to `inferenceComponentName`. SageMaker forwards the body to the engine's `POST
 * /invocations`, which vLLM's SageMaker router (vllm/entrypoints/sagemaker/api_router.py, vLLM main of 2026; not
 * checked against the pinned 0.16) dispatches by shape: a chat completion body (`messages`) or a completion body
 * (`prompt`), with `"stream": true` for server-sent events ending `data: [DONE]`; `GET /ping` answers as `/health`.
 *
 * @see https://docs.aws.amazon.com/sagemaker/latest/dg/realtime-endpoints-deploy-models.html
 */
export class NeuronGenerativeEndpoint extends EndpointBase {
  readonly endpointName: string;
  readonly endpointArn: string;
  readonly variantName: string = DEFAULT_VARIANT_NAME;
  /** Name of the inference component; requests name it (`InferenceComponentName`). */
  readonly inferenceComponentName: string;
  readonly plan: GenerativePlan;
  /** The variant's instance types in priority order: the plan's, then its fallback pools'. */
  readonly instancePools: readonly NeuronInstanceType[];
  /**
   * Devices, memory, CPU, copies, scaling target and timeouts derived from the plan; with fallback pools, the copies,
   * instance bounds and scaling target of the mixed fleet (each pool's devices, memory and CPU are in its own
   * specification).
   */
  readonly sizing: ComponentSizing;
  /**
   * The predicted time from a request at zero copies to an answering copy: an ESTIMATE from the scale-out alarm, an
   * assumed instance launch and the copy's predicted start (`predictedStartup`: S3 download, the documented checkpoint
   * load rate, engine start); meaningful with `scaleToZero`.
   */
  readonly coldStart: ColdStartEstimate;
  readonly role: iam.IRole;
  /** The key encrypting the storage volume; undefined on instance types with only local NVMe storage (Trainium). */
  readonly encryptionKey?: kms.IKey;
  /** `/aws/sagemaker/InferenceComponents/<name>`: the containers' logs. */
  readonly logGroup: logs.ILogGroup;
  /**
   * The container environment: the engine's variables, its `vllm serve` arguments as JSON
   * (`CDK_INFERENTIA_VLLM_ARGS`) and where its metrics go, merged with `environment`.
   */
  readonly environment: Readonly<Record<string, string>>;
  /** The auto scaling target of the copy count. */
  readonly scalableTarget: appscaling.ScalableTarget;
  /** A hash of everything that changes what the endpoint serves. */
  readonly deploymentFingerprint: string;
  readonly cfnModel: sagemaker.CfnModel;
  readonly cfnEndpointConfig: sagemaker.CfnEndpointConfig;
  readonly cfnEndpoint: sagemaker.CfnEndpoint;
  readonly cfnInferenceComponent: sagemaker.CfnInferenceComponent;
  /** The engine's CloudWatch namespace; its `Service` dimension is the endpoint name. */
  readonly engineMetricsNamespace: string = DEFAULT_ENGINE_METRICS_NAMESPACE;
  /**
   * The engine's metrics (TTFT, TPOT, queue, KV cache, tokens) with the plan's predictions; undefined with
   * `engineMetrics: false`.
   */
  readonly engineMetrics?: GenerativeEngineMetrics;
  /**
   * The containers' security groups when `vpc` is set (none otherwise): admit what the engine must reach, e.g. a
   * database, with `connections.allowTo(...)`.
   */
  readonly connections: ec2.Connections;
  /** The proof in tokens that gates each deployment, when `smokeBenchmark` is set. */
  readonly smokeBenchmark?: SmokeBenchmark;
  /** The endpoint's dashboard: the component's SageMaker metrics, then the engine's; unless `dashboard` is false. */
  readonly dashboard?: cloudwatch.Dashboard;
  /**
   * Alarms that roll an update of the component back: 5XX above 1 % of requests, and (unless `engineMetrics: false`)
   * the engine's TTFT and TPOT p99 above the plan's targets x 1.5, each in 2 of 3 minutes.
   */
  get rollbackAlarms(): readonly cloudwatch.AlarmBase[] {
    return this.alarms.list;
  }
  private readonly alarms: RollbackAlarms;

  constructor(scope: Construct, id: string, props: NeuronGenerativeEndpointProps) {
    super(scope, id);
    markOwned(this);
    // A plan of the wrong shape, kind or version is refused before anything reads it.
    const plan = generativePlanOf(this, props.plan);
    const type = within(this, () => NeuronInstanceType.of(plan.instance.name, plan.instance));
    const engineMetrics = props.engineMetrics ?? true;
    // Every problem is collected before any resource exists, then reported in one InputError.
    const problems = generativeProblems(props);
    // The chosen type and the plan's fallback pools, each with its own artifacts, specification and engine settings.
    const pools = deployedPools(plan, type, problems);
    // Volume size and KMS key are per variant: one pool on local NVMe storage rules both out for every pool.
    const storagePool = localStoragePool(pools);
    const storageType = storagePool?.instanceType ?? type;
    if (props.endpointName !== undefined && !Token.isUnresolved(props.endpointName) && !ENDPOINT_NAME.test(props.endpointName)) {
      problems.push(`endpointName=${JSON.stringify(props.endpointName)} is not a valid SageMaker endpoint name; use up to 63 `
        + 'letters, digits and hyphens, starting and ending with a letter or digit, or leave it unset');
    }
    const job = props.compiledArtifacts;
    if ((job === undefined) === (props.weights === undefined)) {
      problems.push('give either weights (an S3 prefix of the checkpoint) or compiledArtifacts (a NeuronGenerativeCompileJob for '
        + 'this plan), not ' + (job === undefined ? 'neither' : 'both'));
    }
    if (job !== undefined && (props.weightsPath !== undefined || props.compiledArtifactsPath !== undefined)) {
      problems.push('weightsPath and compiledArtifactsPath come from compiledArtifacts (its model/ and compiled/ directories); leave them unset');
    }
    problems.push(...networkProblems(props));
    const keyChoice = storageKeyChoice(storageType, props);
    if (keyChoice.use === 'refused') {
      problems.push(poolKeyProblem(storagePool, keyChoice.problem));
    }
    // A role passed in gets what the default one has; an immutable one takes nothing, which the engine alarms cannot do without.
    const metricNamespaces = engineMetrics ? [this.engineMetricsNamespace] : [];
    const roleGrant = props.role === undefined ? undefined : grantHostingStatements(this, props.role, metricNamespaces);
    if (roleGrant === 'immutable' && engineMetrics) {
      problems.push(engineMetricsRoleProblem(props.role!, this.engineMetricsNamespace));
    }
    throwIfProblems(this, problems);
    if (job !== undefined) {
      within(this, () => assertGenerativeArtifactsMatchPlan(this, job, plan, props.image.neuronSdkVersion ?? ''));
    }
    const weightsPath = job !== undefined ? STAGED_MODEL_DIR : props.weightsPath;
    const compiledArtifactsPath = job !== undefined ? COMPILED_ARTIFACTS_DIR : props.compiledArtifactsPath;
    const poolArtifacts = pools.length > 1
      ? poolCompiledArtifacts(pools, job, props.poolCompiledArtifacts ?? [], props.image.neuronSdkVersion ?? '', problems) : undefined;
    if (pools.length <= 1 && (props.poolCompiledArtifacts ?? []).length > 0) {
      problems.push('poolCompiledArtifacts is set but the plan has no fallback pools; remove it, or plan with fallbacks (--fallbacks)');
    }
    const sizingOptions = { scaleToZero: props.scaleToZero !== undefined, compiledArtifacts: compiledArtifactsPath !== undefined };
    const poolSizings = pools.map((pool) => sizeComponent(pool.plan, sizingOptions, problems));
    const sizing = poolSizings.every((s) => s !== undefined)
      ? mixedComponentSizing(plan, poolSizings as ComponentSizing[], props.scaleToZero !== undefined) : undefined;
    const engines = pools.map((pool) => {
      try {
        return vllmReplicaConfigs(pool.plan, {
          model: inModelDirectory(weightsPath) ?? MODEL_DIRECTORY,
          servedModelName: props.servedModelName,
          compiledArtifacts: inModelDirectory(compiledArtifactsPath),
        })[0];
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        problems.push(pool.priority === 1 ? e.message : `instance pool ${pool.priority} (${pool.instanceType.sageMakerName}): ${e.message}`);
        return undefined;
      }
    });
    const engine = engines[0];
    const provisionSeconds = pools.length > 1 ? provisionTimeoutSeconds(props.instanceProvisionTimeout, problems) : undefined;
    const deployment = sizing && renderRollingUpdate(props.deployment, sizing, problems);
    throwIfProblems(this, problems);
    if (!sizing || !engine || !deployment) {
      throw constructError(this, 'the plan could not be sized');
    }
    if (mentionsPlaceholderDigest(props.image)) {
      // As the examples do: synth works offline, CloudFormation refuses the deploy before any resource exists.
      new DeployRefusal(this, 'PlaceholderImage', { message: placeholderDigestMessage(this.node.path) });
    }
    this.plan = plan;
    this.sizing = sizing;
    this.coldStart = sizing.coldStart;
    this.instancePools = pools.map((pool) => pool.instanceType);
    this.endpointName = props.endpointName ?? generatedEndpointName(this);
    const component = new Construct(this, 'InferenceComponent');
    this.inferenceComponentName = generatedEndpointName(component);

    // Role and grants.
    this.role = props.role ?? new NeuronSageMakerExecutionRole(this, 'Role');
    if (props.role === undefined) {
      grantHostingStatements(this, this.role, metricNamespaces);
    } else if (roleGrant === 'immutable') {
      Annotations.of(this).addWarningV2('@cdk-inferentia/sagemaker:immutableRole', immutableRoleNote(this.role));
    }
    this.alarms = rollbackAlarmsReadBy(this.role);
    const image = within(this, () => props.image.bind(this, this.role, type));
    if (image.vllm === undefined) {
      throw constructError(this, 'image binds no vLLM engine; pass ModelImage.fromNeuronVllm(...)');
    }
    const weights = within(this, () => (job !== undefined ? ModelData.fromBucket(job.bucket, job.artifactPrefix) : props.weights!)
      .bind(this, this.role));
    const poolParts = within(this, () => bindGenerativePoolParts(this, this.role, pools, props.image, { artifacts: poolArtifacts, primary: job, weights }));
    const localStorageOnly = hasLocalStorageOnly(storageType);
    this.encryptionKey = storageKey(this, keyChoice, props, this.endpointName);
    const retention = props.logRetention ?? logs.RetentionDays.THREE_MONTHS;
    // The endpoint's own group, and the component's, where its containers write (SageMaker names it after the component).
    const endpointLogs = new logs.LogGroup(this, 'LogGroup', {
      logGroupName: `/aws/sagemaker/Endpoints/${this.endpointName}`, retention, removalPolicy: RemovalPolicy.DESTROY,
    });
    this.logGroup = new logs.LogGroup(component, 'LogGroup', {
      logGroupName: `/aws/sagemaker/InferenceComponents/${this.inferenceComponentName}`, retention, removalPolicy: RemovalPolicy.DESTROY,
    });
    for (const group of [endpointLogs, this.logGroup]) {
      group.grantWrite(this.role);
      group.grant(this.role, 'logs:CreateLogGroup', 'logs:DescribeLogStreams');
    }

    // Network: SageMaker's managed network unless a VPC is given, as on the single-call endpoint.
    const { vpcConfig, connections } = endpointNetwork(this, this.role, props);
    this.connections = connections;

    // Model: the image, the weights and the engine's settings; the component runs it.
    // Every copy runs the same replica; copies share the Replica dimension value of replica 0.
    const vllm = image.vllm;
    const environmentOf = (replica: NonNullable<typeof engine>, priority: number | undefined) => ({
      ...within(this, () => vllm.environment(replica, { namespace: this.engineMetricsNamespace, service: this.endpointName })),
      // The image's entrypoint starts no metrics exporter (nor neuron-monitor) when this is off.
      ...(engineMetrics ? {} : { [VLLM_IMAGE_ENV.metrics]: 'off' }),
      ...(priority !== undefined ? poolEnvironment(priority) : {}),
      ...props.environment,
    });
    this.environment = environmentOf(engine, pools.length > 1 ? 1 : undefined);
    const newModel = (id: string, imageUri: string, data: typeof weights, environment: Record<string, string>,
      compiled: ICompiledGenerativeArtifacts | undefined) => generativeModel(this, id, { role: this.role, imageUri, data, environment, compiled, vpcConfig });
    this.cfnModel = newModel('Model', image.imageUri, weights, this.environment, job);
    // One model per fallback pool, even one sharing the chosen plan's artifacts: its engine settings and priority are its own.
    const poolModels = new Map(pools.slice(1).map((pool) => {
      const parts = poolParts.get(pool.priority)!;
      return [pool.priority, newModel(`Pool${pool.priority}Model`, parts.imageUri, parts.data,
        environmentOf(engines[pool.priority - 1]!, pool.priority), poolArtifacts?.get(pool.priority))] as const;
    }));

    // Endpoint configuration: no model on the variant, which makes it an inference component endpoint.
    const productionVariant: sagemaker.CfnEndpointConfig.ProductionVariantProperty = {
      variantName: this.variantName,
      // With pools the variant names its types in InstancePools only; each pool's model is in the component's specifications.
      ...(pools.length > 1
        ? { instancePools: instancePoolsProperty(pools, () => undefined), variantInstanceProvisionTimeoutInSeconds: provisionSeconds }
        : { instanceType: plan.instanceType }),
      initialInstanceCount: plan.mixedFleet?.instanceCount ?? plan.instanceCount,
      // ProductionVariantManagedInstanceScaling: MinInstanceCount may be 0 for scale to zero
      // (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ProductionVariantManagedInstanceScaling.html).
      managedInstanceScaling: { status: 'ENABLED', minInstanceCount: sizing.minInstances, maxInstanceCount: sizing.maxInstances },
      // ProductionVariantRoutingConfig: LEAST_OUTSTANDING_REQUESTS | RANDOM; a long stream keeps its copy busy, so
      // least outstanding requests keeps new prompts off the copies still decoding
      // (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ProductionVariantRoutingConfig.html).
      routingConfig: { routingStrategy: 'LEAST_OUTSTANDING_REQUESTS' },
      volumeSizeInGb: localStorageOnly ? undefined : Math.min(512, Math.max(30, Math.ceil(plan.generative.memoryGiB.weights * 2.5))),
    };
    this.cfnEndpointConfig = new sagemaker.CfnEndpointConfig(this, 'EndpointConfig', {
      executionRoleArn: this.role.roleArn,
      productionVariants: [productionVariant],
      kmsKeyId: this.encryptionKey?.keyArn,
    });
    this.cfnEndpointConfig.node.addDependency(this.role);
    if (pools.length > 1) {
      // SageMaker's acceptance of Neuron types as instance pools is unverified: the configuration (no model in it) is
      // created before any compile starts, so a refusal fails the deploy before anything costly runs.
      for (const artifacts of new Set([job, ...(poolArtifacts?.values() ?? [])])) {
        if (artifacts !== undefined && Construct.isConstruct(artifacts.resource)) {
          artifacts.resource.node.addDependency(this.cfnEndpointConfig);
        }
      }
      annotatePools(this, pools, 'SageMaker model and inference component specification',
        '@cdk-inferentia/neuron-generative-endpoint:poolWithoutKmsKey');
    }
    this.cfnEndpoint = new sagemaker.CfnEndpoint(this, 'Resource', {
      endpointName: this.endpointName,
      endpointConfigName: this.cfnEndpointConfig.attrEndpointConfigName,
    });
    this.cfnEndpoint.node.addDependency(endpointLogs);
    this.endpointArn = this.cfnEndpoint.ref;

    // The 5XX alarm on the component's own metrics, and the engine's latency, roll an update back.
    this.engineMetrics = engineMetrics
      ? new GenerativeEngineMetrics({ namespace: this.engineMetricsNamespace, service: this.endpointName, plan }) : undefined;
    this.alarms.add(errorRateAlarm(this, {
      subject: this.inferenceComponentName,
      errors: this.metricComponent('Invocation5XXErrors', { statistic: cloudwatch.Stats.SUM }),
      invocations: this.metricComponent('Invocations', { statistic: cloudwatch.Stats.SUM }),
      onAlarm: 'rolls an update of the inference component back',
    }), ...(this.engineMetrics ? engineAlarms(this, this.engineMetrics, plan) : []));

    this.cfnInferenceComponent = new sagemaker.CfnInferenceComponent(component, 'Resource', {
      inferenceComponentName: this.inferenceComponentName,
      endpointName: this.cfnEndpoint.attrEndpointName,
      variantName: this.variantName,
      // One specification per pool: its model, and the devices, memory and CPU a copy of its replica needs there.
      ...(pools.length > 1
        ? {
          specifications: pools.map((pool, i) => ({
            instanceType: pool.instanceType.sageMakerName,
            ...componentSpecification(i === 0 ? this.cfnModel : poolModels.get(pool.priority)!, poolSizings[i]!),
          })),
        }
        : { specification: componentSpecification(this.cfnModel, sizing) }),
      runtimeConfig: { copyCount: sizing.initialCopies },
      deploymentConfig: {
        rollingUpdatePolicy: deployment,
        // Lazy: an alarm added with addRollbackAlarm after construction joins the set.
        autoRollbackConfiguration: { alarms: this.alarms.render((alarms) => alarms.map((a) => ({ alarmName: a.alarmName }))) },
      },
    });
    this.cfnInferenceComponent.node.addDependency(this.logGroup, this.role);

    this.scalableTarget = scaleComponentCopies(this, {
      componentName: this.inferenceComponentName, component: this.cfnInferenceComponent, sizing, scaleToZero: props.scaleToZero,
      noCapacityFailures: this.metricComponent('NoCapacityInvocationFailures', { statistic: cloudwatch.Stats.SUM }),
    });
    if (compiledArtifactsPath === undefined) {
      Annotations.of(this).addWarningV2('@cdk-inferentia/neuron-generative-endpoint:compilesAtStart',
        'No compiledArtifactsPath: vLLM compiles the model for the plan at every copy start, which can outlast the '
        + `${sizing.startupTimeoutSeconds} s startup limit of SageMaker; compile once and pass the artifacts with the weights.`);
    }
    if (sizing.timeoutCapped) {
      Annotations.of(this).addWarningV2('@cdk-inferentia/neuron-generative-endpoint:timeoutCapped',
        `The weights (${plan.generative.memoryGiB.weights} GiB) want more than the 3600 s SageMaker allows to download or start; `
        + 'the timeouts are 3600 s. Watch the first deployment.');
    }

    if (props.dashboard ?? true) {
      this.dashboard = this.createDashboard();
      if (pools.length > 1) {
        this.dashboard.addWidgets(poolsWidget(pools));
      }
    }

    const stack = Stack.of(this);
    this.deploymentFingerprint = sha256Hex(canonicalJson({
      plan,
      imageUri: stack.resolve(image.imageUri),
      weights: weights.fingerprint ?? stack.resolve(weights.s3Uri),
      environment: stack.resolve(this.environment),
      productionVariant,
      sizing,
      pools: pools.slice(1).map((pool) => ({
        plan: pool.plan,
        imageUri: stack.resolve(poolParts.get(pool.priority)!.imageUri),
        artifacts: poolArtifacts?.get(pool.priority)?.hash,
        environment: stack.resolve(poolModels.get(pool.priority)!.primaryContainer),
      })),
      role: stack.resolve(this.role.roleArn),
      vpcConfig: stack.resolve(vpcConfig),
    }));

    // Last: the proof reads the name and fingerprint set above, and runs after everything in this construct.
    if (props.smokeBenchmark) {
      this.smokeBenchmark = new SmokeBenchmark(this, 'SmokeBenchmark',
        inferenceComponentProof(this, plan, props.servedModelName, props.smokeBenchmark));
    }
  }

  /** Any `AWS/SageMaker` metric of the inference component (dimension `InferenceComponentName`), per minute. */
  metricComponent(metricName: string, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'AWS/SageMaker',
      metricName,
      dimensionsMap: { InferenceComponentName: this.inferenceComponentName },
      period: Duration.minutes(1),
      ...options,
    });
  }


  /** Lets `grantee` invoke this endpoint (and so its inference component), streamed or not. */
  grantInvoke(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['sagemaker:InvokeEndpoint', 'sagemaker:InvokeEndpointWithResponseStream'],
      resourceArns: [this.endpointArn],
    });
  }

  /**
   * Adds an alarm of yours to the set that rolls an update of the inference component back, e.g. the engine's
   * TTFT or TPOT p99; the execution role may read it (`cloudwatch:DescribeAlarms` on its ARN). Works at any time
   * before synth: the component's rollback configuration is rendered then.
   */
  addRollbackAlarm(alarm: cloudwatch.AlarmBase): void {
    this.alarms.add(alarm);
  }

  /** The component's invocations, errors, latency and copies, then the engine's widgets. */
  private createDashboard(): cloudwatch.Dashboard {
    const graph = (title: string, left: cloudwatch.IMetric[]) =>
      new cloudwatch.GraphWidget({ title, left, width: 6, height: 6, leftYAxis: { min: 0 } });
    const sum = { statistic: cloudwatch.Stats.SUM };
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    dashboard.addWidgets(
      graph('SageMaker: invocations per minute', [this.metricComponent('Invocations', { ...sum, label: 'Invocations' })]),
      graph('SageMaker: errors', [
        this.metricComponent('Invocation5XXErrors', { ...sum, label: '5XX' }),
        this.metricComponent('Invocation4XXErrors', { ...sum, label: '4XX' }),
        this.metricComponent('NoCapacityInvocationFailures', { ...sum, label: 'No capacity' }),
      ]),
      graph('SageMaker: model latency p99 (microseconds, whole stream)', [
        this.metricComponent('ModelLatency', { statistic: cloudwatch.Stats.p(99), label: 'ModelLatency p99' }),
      ]),
      // The metric the copies scale on ("Define a scaling policy", SageMaker Developer Guide), with its target.
      new cloudwatch.GraphWidget({
        title: 'SageMaker: concurrent requests per copy',
        left: [this.metricComponent('ConcurrentRequestsPerCopy', { statistic: cloudwatch.Stats.AVERAGE, label: 'Average' })],
        leftAnnotations: [{ label: 'scaling target', value: this.sizing.targetConcurrentRequestsPerCopy }],
        width: 6, height: 6, leftYAxis: { min: 0 },
      }),
    );
    if (this.engineMetrics) {
      dashboard.addWidgets(...this.engineMetrics.widgets());
    }
    return dashboard;
  }
}

/**
 * TTFT and TPOT p99 alarms at the plan's targets x 1.5 (`P99_ALARM_FACTOR`), 2 of 3 minutes: the metric is the
 * worst 10-second interval p99 of any copy in the minute, noisier than a true p99, so the margin keeps a healthy
 * deployment from rolling back while a model that fell off its compiled graphs or a replica short of devices, each
 * of which multiplies the latencies, still does.
 */
function engineAlarms(endpoint: NeuronGenerativeEndpoint, metrics: GenerativeEngineMetrics, plan: GenerativePlan): cloudwatch.Alarm[] {
  return metrics.latencyAlarms(endpoint, {
    plan, factor: P99_ALARM_FACTOR, subject: endpoint.endpointName, onAlarm: 'rolls an update of the inference component back',
  });
}

/** `/opt/ml/model/<path>` for a relative directory of the model data, without its trailing slash. */
function inModelDirectory(path: string | undefined): string | undefined {
  return path === undefined ? undefined : `${MODEL_DIRECTORY}/${path.replace(/\/+$/, '')}`;
}
