import { Annotations, Duration, RemovalPolicy, Size, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { Plan } from '../../lib/planner';
import { ModelServerMetrics } from '../monitoring/model-server-metrics';
import { canonicalJson, sha256Hex } from '../../lib/compile/hash';
import type { SmokeBenchmark } from '../proof/smoke-benchmark';
import { DEFAULT_NEURON_MONITOR_NAMESPACE, MODEL_SERVER_PORT, NeuronEcsServiceProps } from './ecs-service-props';
import { serviceProof } from './private/ecs-load-balancer';
import { LoadBalancedEcsService, rollBackOnAlarms, rollbackAlarms as serviceRollbackAlarms, serviceDashboard } from './private/ecs-monitoring';
import { resolveService } from './private/ecs-validation';
import { within } from '../private/construct-errors';
import { markOwned } from '../private/ownership';
import { neuronDlcPlanNote } from '../private/endpoint-layout';

/**
 * A model on Inferentia2 or Trainium EC2 instances, run by Amazon ECS as the plan sized it.
 *
 * - Capacity: an Auto Scaling group on the ECS-optimized Amazon Linux 2023 Neuron AMI with the plan's instance type,
 *   IMDSv2, encrypted gp3, no public IP, Session Manager instead of SSH; an ECS capacity provider with managed
 *   scaling and termination protection. Inf1 is refused at synth (no ECS AMI supports it any more).
 * - Task: one per instance (`distinctInstance`), every `/dev/neuronN` mapped, the model server's environment from
 *   the plan (one worker per NeuronCore group with its `NEURON_RT_VISIBLE_CORES`, batching), memory reservation from
 *   the plan, `awslogs` with retention.
 * - Service: the planned task count, the peak as scaling maximum, target tracking on `ALBRequestCountPerTarget`,
 *   the deployment circuit breaker with rollback, rolling deploys that start new tasks before stopping old ones.
 * - An Application Load Balancer (internal by default) with `/ping` health checks; only its security group reaches
 *   the container port.
 *
 * @example
 * const service = new NeuronEcsService(this, 'Service', {
 *   plan: plan(requireProfile('bert-base-uncased'), { throughputRps: 2000, p99Ms: 10 }, { region, hosting: 'ec2' }),
 *   image: ModelImage.fromRepository(repository, 'sha256:...', { modelServer: true }),
 * });
 * service.connections.allowDefaultPortFrom(clients);
 */
export class NeuronEcsService extends LoadBalancedEcsService implements ec2.IConnectable {
  /** The plan deployed. */
  readonly plan: Plan;
  /** The ECS service. */
  readonly service: ecs.Ec2Service;
  /** The task definition. */
  readonly taskDefinition: ecs.Ec2TaskDefinition;
  /** The model server container. */
  readonly container: ecs.ContainerDefinition;
  /** The container logs. */
  readonly logGroup: logs.LogGroup;
  /** `http(s)://host[:port]` of the load balancer; POST to `${url}/invocations`. */
  readonly url: string;
  /** The container environment: the plan-derived variables merged with `environment`. */
  readonly environment: Readonly<Record<string, string>>;
  /** Value of the model server metrics' `Service` dimension. */
  readonly metricsService: string;
  /** Namespace of the model server metrics. */
  readonly metricsNamespace: string;
  /** A synth-time hash of what the service serves: plan, image and environment. */
  readonly deploymentFingerprint: string;
  /**
   * Alarms that roll a deployment back: model server 5XX above 1 % of requests, and p99 target response time above
   * the plan's p99 target x 1.5, each in 2 of 3 minutes.
   */
  get rollbackAlarms(): readonly cloudwatch.AlarmBase[] {
    return this.alarms.list;
  }
  /** Task count scaling, when enabled. */
  readonly scalableTaskCount?: ecs.ScalableTaskCount;
  /** The smoke benchmark, when `smokeBenchmark` is set. */
  readonly smokeBenchmark?: SmokeBenchmark;
  /** The model server's own metrics (batch size, queue wait, device time, refusals), for alarms and dashboards. */
  readonly serverMetrics: ModelServerMetrics;
  /** The dashboard, unless disabled. */
  readonly dashboard?: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: NeuronEcsServiceProps) {
    super(scope, id);
    markOwned(this);
    const stack = Stack.of(this);
    const { layout, ports, scaling, volumeGiB, graceSeconds, requestTimeoutMs, serverEnvironment, ...names } =
      resolveService(this, props);
    this.metricsNamespace = names.metricsNamespace;
    this.metricsService = names.metricsService;
    this.plan = props.plan;
    const type = layout.instanceType;

    // Network, cluster and capacity.
    const network = this.buildFleet(props, {
      layout,
      rootVolumeGiB: volumeGiB,
      // A rolling deployment at the peak starts a new task, on a new instance, next to every old one.
      maxInstances: 2 * layout.maxInstanceCount,
    });
    const privateSubnets = network.privateSubnets;

    // Task.
    this.taskDefinition = new ecs.Ec2TaskDefinition(this, 'TaskDefinition', { networkMode: ecs.NetworkMode.AWS_VPC });
    // Task-level CPU (optional on EC2, up to 192 vCPUs; AWS::ECS::TaskDefinition Cpu): the workers' vCPUs and one per
    // front end, so ECS places the task only where they are free. Ec2TaskDefinitionProps has no cpu: the L1 carries it.
    (this.taskDefinition.node.defaultChild as ecs.CfnTaskDefinition).cpu = `${layout.cpuUnits}`;
    const executionRole = this.taskDefinition.obtainExecutionRole();
    const image = within(this, () => props.image.bind(this, executionRole, type));
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const neuronMonitorNamespace = props.neuronMonitorNamespace ?? DEFAULT_NEURON_MONITOR_NAMESPACE;
    this.environment = {
      ...serverEnvironment,
      ...(ports.container === MODEL_SERVER_PORT ? {} : { SAGEMAKER_BIND_TO_PORT: `${ports.container}` }),
      // The image's entrypoint starts neuron-monitor and sends its NeuronCore metrics to CloudWatch when these are set
      // (aws-neuron/deep-learning-containers, neuron-monitor.sh).
      NEURON_MONITOR_CW_REGION: stack.region,
      NEURON_MONITOR_CW_NAMESPACE: neuronMonitorNamespace,
      ...props.environment,
    };
    const linuxParameters = new ecs.LinuxParameters(this, 'LinuxParameters');
    // Every device of the instance, so the plan's global core numbers (NEURON_RT_VISIBLE_CORES) mean the same cores
    // inside the container; one task per instance owns them all.
    linuxParameters.addDevices(...layout.devices.map((path) => ({
      hostPath: path,
      containerPath: path,
      permissions: [ecs.DevicePermission.READ, ecs.DevicePermission.WRITE],
    })));
    this.container = this.taskDefinition.addContainer('ModelServer', {
      image: ecs.ContainerImage.fromRegistry(image.imageUri),
      essential: true,
      memoryReservationMiB: layout.memoryReservationMiB,
      cpu: layout.cpuUnits,
      environment: this.environment,
      linuxParameters,
      portMappings: [{ containerPort: ports.container, protocol: ecs.Protocol.TCP, name: 'http' }],
      // non-blocking: in the default blocking mode the container's stdout/stderr writes block while the awslogs driver
      // cannot deliver (CloudWatch Logs throttling), and a server whose writes block stops answering. Non-blocking
      // buffers up to maxBufferSize and then drops lines instead (Amazon ECS developer guide, "Using the awslogs log
      // driver", mode and max-buffer-size: https://docs.aws.amazon.com/AmazonECS/latest/developerguide/using_awslogs.html).
      // The server itself never blocks on its output either (serving/linewriter.py); 25 MiB holds about an hour of its
      // lines at 24 workers (~3 KB per worker per 10 s).
      logging: ecs.LogDrivers.awsLogs({
        logGroup: this.logGroup,
        streamPrefix: 'model-server',
        mode: ecs.AwsLogDriverMode.NON_BLOCKING,
        maxBufferSize: Size.mebibytes(25),
      }),
    });
    this.taskDefinition.addToTaskRolePolicy(new iam.PolicyStatement({
      actions: ['cloudwatch:PutMetricData'],
      resources: ['*'],
      conditions: { StringEquals: { 'cloudwatch:namespace': neuronMonitorNamespace } },
    }));

    // Service.
    const taskSecurityGroup = new ec2.SecurityGroup(this, 'TaskSecurityGroup', {
      vpc: this.vpc,
      description: `Model server tasks of ${this.node.path}: only the load balancer reaches the container port`,
      allowAllOutbound: true,
    });
    this.service = new ecs.Ec2Service(this, 'Resource', {
      cluster: this.cluster,
      taskDefinition: this.taskDefinition,
      desiredCount: layout.instanceCount,
      capacityProviderStrategies: [{ capacityProvider: this.capacityProvider.capacityProviderName, weight: 1 }],
      placementConstraints: [ecs.PlacementConstraint.distinctInstances()],
      placementStrategies: [ecs.PlacementStrategy.spreadAcross(ecs.BuiltInAttributes.AVAILABILITY_ZONE)],
      vpcSubnets: privateSubnets,
      securityGroups: [taskSecurityGroup],
      // A new task starts before an old one stops (100 % stay healthy, up to 200 % run): on a cluster with no spare
      // instance the new tasks wait in PROVISIONING until managed scaling has launched instances for them, so a
      // deploy costs minutes, never capacity. A deploy that keeps failing its checks stops and rolls back.
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { enable: true, rollback: true },
      healthCheckGracePeriod: Duration.seconds(graceSeconds),
      enableECSManagedTags: true,
      propagateTags: ecs.PropagatedTagSource.SERVICE,
    });
    // The capacity provider must be attached to the cluster before the service names it.
    this.service.node.addDependency(this.cluster);

    // Load balancer.
    this.url = this.buildEntrance(props, network, [this.service], {
      listenerPort: ports.listener,
      containerPort: ports.container,
      // Longer than a request's deadline, so a task leaving the target group finishes what it is serving, and no
      // longer: every rolling deploy waits this long per batch of replaced tasks.
      deregistrationDelay: Duration.seconds(Math.ceil(requestTimeoutMs / 1000) + 5),
    });
    this.alarms.add(...serviceRollbackAlarms(this, this.plan));
    rollBackOnAlarms([this.service], this.alarms);

    // Scaling.
    if (scaling) {
      this.scalableTaskCount = this.service.autoScaleTaskCount({
        minCapacity: layout.instanceCount,
        maxCapacity: layout.maxInstanceCount,
      });
      this.scalableTaskCount.scaleOnRequestCount('RequestsPerTask', {
        requestsPerTarget: scaling.requestsPerMinute,
        targetGroup: this.targetGroup,
        scaleInCooldown: scaling.scaleInCooldown,
        scaleOutCooldown: scaling.scaleOutCooldown,
      });
    }

    this.deploymentFingerprint = sha256Hex(canonicalJson({
      plan: props.plan,
      imageUri: stack.resolve(image.imageUri),
      environment: stack.resolve(this.environment),
      ports,
    }));

    this.acknowledgeFindings();
    if (props.plan.server === 'neuron-dlc') {
      Annotations.of(this).addInfo(neuronDlcPlanNote(props.plan.instanceCount));
    }
    if (layout.instanceCount === 1) {
      Annotations.of(this).addWarningV2('@cdk-inferentia/neuron-ecs-service:singleInstance',
        `${type.name}: the service runs one task on one instance, so an instance failure or an Availability Zone `
        + 'outage stops it. For production, plan with minInstances of 2 or more (tasks spread across zones).');
    }
    this.serverMetrics = new ModelServerMetrics({
      namespace: this.metricsNamespace,
      service: this.metricsService,
      workers: layout.processesPerInstance,
    });
    if (props.dashboard ?? true) {
      this.dashboard = serviceDashboard(this, this.plan, this.serverMetrics);
    }

    if (props.smokeBenchmark) {
      this.smokeBenchmark = serviceProof(this, { ...props.smokeBenchmark, plan: this.plan }, {
        what: 'Smoke benchmark',
        network,
        connections: this.connections,
        url: `${this.url}/invocations`,
        fingerprint: this.deploymentFingerprint,
        dependsOn: [this.service, this.listener, ...(this.scalableTaskCount ? [this.scalableTaskCount] : [])],
      });
    }
  }

  private acknowledgeFindings(): void {
    Validations.of(this.taskDefinition).acknowledge({
      id: 'AwsSolutions-ECS2',
      reason: 'The environment carries the plan\'s sizing (worker core groups, batching, queue bound) and metric names, '
        + 'no secret; it must be visible in the template for review.',
    }, {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'cloudwatch:PutMetricData supports no resource-level permission; the statement is limited to the '
        + 'neuron-monitor namespace by a cloudwatch:namespace condition. ecr:GetAuthorizationToken grants no image.',
    });
  }
}
