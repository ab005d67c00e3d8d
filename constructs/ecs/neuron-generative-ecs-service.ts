import { Annotations, Duration, Names, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { GenerativePlan, VllmReplicaConfig } from '../../lib/generative';
import { DEFAULT_ENGINE_METRICS_NAMESPACE } from '../../lib/generative/engine-image';
import { GenerativeEngineMetrics } from '../monitoring/generative-engine-metrics';
import { canonicalJson, sha256Hex } from '../../lib/compile/hash';
import { within } from '../private/construct-errors';
import { markOwned } from '../private/ownership';
import { mentionsPlaceholderDigest, placeholderDigestMessage } from '../image/private/image-digest';
import { acknowledgeWildcards } from '../private/wildcard-acknowledgement';
import { DeployRefusal } from '../proof/deploy-refusal';
import type { SmokeBenchmark } from '../proof/smoke-benchmark';
import type { NeuronGenerativeEcsServiceProps } from './generative-ecs-service-props';
import { serviceProof } from './private/ecs-load-balancer';
import { engineLatencyAlarms, errorRateAlarm, generativeServiceDashboard, LoadBalancedEcsService, rollBackOnAlarms } from './private/ecs-monitoring';
import { GenerativeEcsReplica, GenerativeModelSource } from './private/generative-ecs-replica';
import { resolveGenerativeService } from './private/ecs-validation';

/**
 * A generative model served by vLLM on Neuron from EC2 instances run by Amazon ECS, as the token planner sized it.
 *
 * - Capacity: as {@link NeuronEcsService}: an Auto Scaling group on the ECS-optimized Amazon Linux 2023 Neuron AMI
 *   (its SSM public parameter, resolved at deploy time), IMDSv2 with one hop, encrypted gp3, no public IP, and a
 *   capacity provider with managed scaling, so instances follow the tasks.
 * - One ECS task per replica: a service per replica slot of the plan (`inf2.48xlarge` with TP 8 has three: devices
 *   0-3, 4-7, 8-11), each task mapping exactly its slot's `/dev/neuronN` devices with its cores pinned, reserving the
 *   instance's CPU and memory over the replicas, at most one task of a slot per instance. A download container copies
 *   the weights and compiled artifacts from S3 (read-only on those prefixes) before `vllm serve` starts.
 * - An Application Load Balancer (internal by default), one target group of every task routed by least outstanding
 *   requests (a long generation holds a replica's sequence slots; round robin would pile onto a busy one), an idle
 *   timeout and deregistration delay covering a streamed request, health checks on vLLM's `/health`.
 * - Scaling on `ALBRequestCountPerTarget` at the plan's rate per replica, from the planned instances to the peak.
 * - Rollback of a deployment on the engines' 5XX rate and on the engine's TTFT and TPOT p99 above the plan's targets
 *   x 1.5; a dashboard of the load balancer's metrics and the engine's beside the plan ({@link GenerativeEngineMetrics}).
 *
 * A separate construct from NeuronEcsService, not a mode of it: that one runs one task per instance with the
 * cdk-inferentia model server configured by a single-call `Plan`; this one runs several services from a
 * `GenerativePlan` and configures vLLM. They share the capacity, network and load balancer helpers.
 *
 * @example
 * new NeuronGenerativeEcsService(this, 'Llama', {
 *   plan: planGenerative(findGenerativeProfile('llama-3.1-8b-instruct')!, targets, { region, hosting: 'ec2' }),
 *   image: ModelImage.fromRepository(repository, 'sha256:...'),
 *   model: { bucket, weightsPrefix: 'models/llama-3.1-8b-instruct', compiledArtifactsPrefix: 'compiled/abc123' },
 *   servedModelName: 'llama-3.1-8b-instruct',
 * });
 */
export class NeuronGenerativeEcsService extends LoadBalancedEcsService implements ec2.IConnectable {
  /** The plan deployed. */
  readonly plan: GenerativePlan;
  /** The engine of each replica slot, as rendered from the plan. */
  readonly engines: readonly VllmReplicaConfig[];
  /** One service per replica slot, in slot order. */
  readonly services: readonly ecs.Ec2Service[];
  /** One task definition per replica slot, in slot order. */
  readonly taskDefinitions: readonly ecs.Ec2TaskDefinition[];
  /** The container logs. */
  readonly logGroup: logs.LogGroup;
  /** `http(s)://host[:port]` of the load balancer: POST to `${url}/v1/chat/completions` or `${url}/v1/completions`. */
  readonly url: string;
  /** The proof in tokens, when `smokeBenchmark` is set. */
  readonly smokeBenchmark?: SmokeBenchmark;
  /** Longest a request may take: the load balancer's idle timeout and the deregistration delay. */
  readonly requestTimeout: Duration;
  /** Time a new task has to download and load the model before failed health checks count. */
  readonly healthCheckGracePeriod: Duration;
  /** Namespace of the engine's metrics (GenerativeEngineMetrics reads them). */
  readonly metricsNamespace: string;
  /** Value of the engine metrics' `Service` dimension; `Replica` is the slot index. */
  readonly metricsService: string;
  /** Task count scaling of each slot, when enabled. */
  readonly scalableTaskCounts: readonly ecs.ScalableTaskCount[];
  /** The engine's metrics (TTFT, TPOT, queue, KV cache, tokens, NeuronCore utilization) with the plan's predictions. */
  readonly engineMetrics: GenerativeEngineMetrics;
  /** The service's dashboard: the load balancer's metrics, then the engine's; unless `dashboard` is false. */
  readonly dashboard?: cloudwatch.Dashboard;
  /**
   * A synth-time hash of what the service serves (plan, image, each slot's engine environment and command, model
   * location): the proof in tokens runs again whenever it changes.
   */
  readonly deploymentFingerprint: string;
  /**
   * Alarms that roll a deployment back: 5XX answers of the engines above 1 % of requests, and the engine's TTFT and
   * TPOT p99 above the plan's targets x 1.5, each in 2 of 3 minutes.
   */
  get rollbackAlarms(): readonly cloudwatch.AlarmBase[] {
    return this.alarms.list;
  }

  constructor(scope: Construct, id: string, props: NeuronGenerativeEcsServiceProps) {
    super(scope, id);
    markOwned(this);
    const stack = Stack.of(this);
    const { layout, ports, engines, scaling, volumeGiB, graceSeconds, timeoutSeconds, compiled } = resolveGenerativeService(this, props);
    const model = modelSource(props);
    if (mentionsPlaceholderDigest(props.image)) {
      // As the SageMaker endpoint does: synth works offline, CloudFormation refuses the deploy before any resource exists.
      new DeployRefusal(this, 'PlaceholderImage', { message: placeholderDigestMessage(this.node.path) });
    }
    this.plan = props.plan;
    this.engines = engines;
    this.requestTimeout = Duration.seconds(timeoutSeconds);
    this.healthCheckGracePeriod = Duration.seconds(graceSeconds);

    // Network, cluster and capacity.
    const network = this.buildFleet(props, {
      layout: { instanceType: layout.instanceType, instanceCount: layout.instanceCount },
      rootVolumeGiB: volumeGiB,
      // A rolling deployment at the peak starts every slot's new task on new instances next to the old ones.
      maxInstances: 2 * layout.maxInstanceCount,
    });
    const privateSubnets = network.privateSubnets;

    // Tasks: one service per replica slot.
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const taskSecurityGroup = new ec2.SecurityGroup(this, 'TaskSecurityGroup', {
      vpc: this.vpc,
      description: `vLLM tasks of ${this.node.path}: only the load balancer reaches the engine port`,
      allowAllOutbound: true,
    });
    this.metricsNamespace = props.metricsNamespace ?? DEFAULT_ENGINE_METRICS_NAMESPACE;
    // A synth-time value, so dashboards (GenerativeEngineMetrics) can name the dimension.
    this.metricsService = Names.uniqueResourceName(this, { maxLength: 128, separator: '-' });
    const replicas = engines.map((engine) => {
      const replica = new GenerativeEcsReplica(this, `Replica${engine.index}`, {
        engine,
        layout,
        cluster: this.cluster,
        capacityProviderName: this.capacityProvider.capacityProviderName,
        // Bound in this construct for every task's execution role: one image asset, pulled by each.
        bindImage: (grantee) => within(this, () => props.image.bind(this, grantee, layout.instanceType)),
        metrics: { namespace: this.metricsNamespace, service: this.metricsService, replica: String(engine.index) },
        downloadImage: props.downloadImage,
        model,
        environment: {
          // The weights are in the task: vLLM must not reach for the Hugging Face Hub (no route to it anyway).
          HF_HUB_OFFLINE: '1',
          ...props.environment,
        },
        region: stack.region,
        containerPort: ports.container,
        logGroup: this.logGroup,
        vpcSubnets: privateSubnets,
        securityGroup: taskSecurityGroup,
        graceSeconds,
      });
      replica.service.node.addDependency(this.cluster);
      if (props.compiledArtifacts !== undefined) {
        // Tasks start once the compile has put the artifacts (and staged weights) in S3.
        replica.service.node.addDependency(props.compiledArtifacts.resource);
      }
      this.grantModelRead(replica.taskDefinition, props);
      return replica;
    });
    if (!replicas[0].vllmImage) {
      Annotations.of(this).addWarningV2('@cdk-inferentia/neuron-generative-ecs-service:noEngineMetrics',
        'image is not ModelImage.fromNeuronVllm: the tasks run `vllm serve` as their command, and nothing exports the '
        + 'engine\'s metrics (TTFT, TPOT, KV cache) or NeuronCore utilization to CloudWatch.');
    }
    this.services = replicas.map((r) => r.service);
    this.taskDefinitions = replicas.map((r) => r.taskDefinition);

    // Load balancer.
    this.url = this.buildEntrance(props, network, this.services, {
      listenerPort: ports.listener,
      containerPort: ports.container,
      deregistrationDelay: this.requestTimeout,
      idleTimeout: this.requestTimeout,
      healthCheckPath: replicas[0].healthCheckPath,
      loadBalancingAlgorithm: elbv2.TargetGroupLoadBalancingAlgorithmType.LEAST_OUTSTANDING_REQUESTS,
    });

    this.alarms.add(errorRateAlarm(this, 'engine'));
    this.engineMetrics = new GenerativeEngineMetrics({ namespace: this.metricsNamespace, service: this.metricsService, plan: this.plan });
    this.alarms.add(...engineLatencyAlarms(this, this.engineMetrics, this.plan));
    rollBackOnAlarms(this.services, this.alarms);

    // Scaling: every slot tracks the same per-target metric of the shared target group, so the slots grow together.
    this.scalableTaskCounts = scaling === undefined ? [] : this.services.map((service) => {
      const count = service.autoScaleTaskCount({ minCapacity: layout.instanceCount, maxCapacity: layout.maxInstanceCount });
      count.scaleOnRequestCount('RequestsPerTask', {
        requestsPerTarget: scaling.requestsPerMinute,
        targetGroup: this.targetGroup,
        scaleInCooldown: scaling.scaleInCooldown,
        scaleOutCooldown: scaling.scaleOutCooldown,
      });
      return count;
    });
    if (props.dashboard ?? true) {
      this.dashboard = generativeServiceDashboard(this, scaling?.requestsPerMinute);
    }

    this.deploymentFingerprint = sha256Hex(canonicalJson({
      plan: this.plan,
      engines: replicas.map((r) => stack.resolve(r.engineRun)),
      model: stack.resolve(model),
      ports,
    }));

    if (props.smokeBenchmark) {
      this.smokeBenchmark = serviceProof(this, {
        ...props.smokeBenchmark,
        plan: this.plan,
        tokens: { ...props.smokeBenchmark.tokens, servedModelName: props.servedModelName },
      }, {
        what: 'Proof in tokens',
        network,
        connections: this.connections,
        // The engine's base URL: the token client adds /v1/chat/completions (or /v1/completions) itself.
        url: this.url,
        fingerprint: this.deploymentFingerprint,
        dependsOn: [...this.services, this.listener, ...this.scalableTaskCounts],
      });
    }

    if (!compiled) {
      Annotations.of(this).addWarningV2('@cdk-inferentia/neuron-generative-ecs-service:compilesAtStart',
        'no compiled artifacts (compiledArtifacts, or model.compiledArtifactsPrefix): vLLM compiles the model at every '
        + 'task start (minutes to an hour), and every scale-out waits for it; compile once for the plan '
        + '(NeuronGenerativeCompileJob) and pass compiledArtifacts.');
    }
    if (layout.instanceCount === 1) {
      Annotations.of(this).addWarningV2('@cdk-inferentia/neuron-generative-ecs-service:singleInstance',
        `${layout.instanceType.name}: every replica runs on one instance, so an instance failure or an Availability `
        + 'Zone outage stops the service. For production, plan with minInstances of 2 or more.');
    }
    this.acknowledgeFindings();
  }

  /** Read-only access to the weights and artifacts prefixes, nothing else of the bucket. */
  private grantModelRead(taskDefinition: ecs.TaskDefinition, props: NeuronGenerativeEcsServiceProps): void {
    const role = taskDefinition.taskRole;
    if (props.compiledArtifacts !== undefined) {
      props.compiledArtifacts.grantRead(role);
    } else if (props.model !== undefined) {
      const { bucket, weightsPrefix, compiledArtifactsPrefix } = props.model;
      const prefixes = [weightsPrefix, ...(compiledArtifactsPrefix === undefined ? [] : [compiledArtifactsPrefix])];
      role.addToPrincipalPolicy(new iam.PolicyStatement({
        actions: ['s3:GetObject'],
        resources: prefixes.map((p) => bucket.arnForObjects(`${p}/*`)),
      }));
      // `aws s3 sync` lists what it copies; the condition keeps the listing to the prefixes.
      role.addToPrincipalPolicy(new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': prefixes.flatMap((p) => [p, `${p}/*`]) } },
      }));
      bucket.encryptionKey?.grantDecrypt(role);
    }
    // The task role holds these reads and nothing else.
    acknowledgeWildcards(role, 'Read-only access to the objects under the model\'s weights and compiled-artifacts '
      + 'prefixes, which every task downloads whole when it starts (s3:GetObject*, s3:List* scoped to those prefixes); '
      + 'nothing else of the bucket, no write.');
  }

  private acknowledgeFindings(): void {
    for (const taskDefinition of this.taskDefinitions) {
      Validations.of(taskDefinition).acknowledge({
        id: 'AwsSolutions-ECS2',
        reason: 'The environment carries the engine settings rendered from the plan, the bucket and prefixes of the '
          + 'weights and the metric names, no secret; it must be visible in the template for review.',
      }, {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'ecr:GetAuthorizationToken, which every image pull needs, supports no resource-level permission and '
          + 'grants no image by itself; pulls are granted on the image\'s repository only.',
      });
    }
  }
}

/** The `s3://` URIs tasks download from. */
function modelSource(props: NeuronGenerativeEcsServiceProps): GenerativeModelSource {
  if (props.compiledArtifacts !== undefined) {
    return { weightsUri: props.compiledArtifacts.modelS3Uri, artifactsUri: props.compiledArtifacts.s3Uri };
  }
  const { bucket, weightsPrefix, compiledArtifactsPrefix } = props.model as NonNullable<typeof props.model>;
  const uri = (prefix: string): string => `s3://${bucket.bucketName}/${prefix}/`;
  return {
    weightsUri: uri(weightsPrefix),
    artifactsUri: compiledArtifactsPrefix === undefined ? undefined : uri(compiledArtifactsPrefix),
  };
}
