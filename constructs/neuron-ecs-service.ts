import { Annotations, Duration, Names, RemovalPolicy, Size, Stack, Token, Validations } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { InputError } from '../lib/errors';
import type { Plan } from '../lib/planner';
import { DEFAULT_METRICS_NAMESPACE, DEFAULT_REQUEST_TIMEOUT_MS, modelServerEnvironment } from '../lib/serving';
import { ModelImage } from './model-image';
import { ModelServerMetrics } from './model-server-metrics';
import { neuronCapacity, ROOT_VOLUME_MAX_GIB, ROOT_VOLUME_MIN_GIB, rootVolumeGiB } from './private/ecs-capacity';
import { EcsLayout, ecsLayoutFromPlan } from './private/ecs-layout';
import { modelLoadBalancer } from './private/ecs-load-balancer';
import { rollbackAlarms, serviceDashboard } from './private/ecs-monitoring';
import { privateServiceVpc, VPC_CIDR_INGRESS } from './private/ecs-network';
import { stableHash } from './private/endpoint-fingerprint';
import { defaultStartupTimeoutSeconds } from './private/endpoint-sizing';
import { SmokeBenchmark, SmokeBenchmarkOptions, SmokeTarget } from './smoke-benchmark';

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

/** Props of {@link NeuronEcsService}. */
export interface NeuronEcsServiceProps {
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
   * The VPC to run in. Its private subnets need routes or VPC endpoints to ECS, ECR, S3 and CloudWatch Logs.
   *
   * @default - a new VPC: isolated subnets in two Availability Zones and VPC endpoints for every service the
   * instances and the smoke benchmark call; no NAT gateway, no internet route
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
   * The host name clients use, covered by `certificate` and pointing at the load balancer: the URL the smoke
   * benchmark calls, which verifies TLS.
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
   * Port the model server listens on in the container (passed as `SAGEMAKER_BIND_TO_PORT` when not 8080).
   *
   * @default 8080
   */
  readonly containerPort?: number;

  /**
   * Where the load balancer's access logs go (SSE-S3 encrypted, as ELB log delivery requires).
   *
   * @default - a bucket this construct defines, retained on delete, logs kept a year
   */
  readonly accessLogBucket?: s3.IBucket;

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

  /** Retention of the container logs (which carry the server's metrics). @default logs.RetentionDays.THREE_MONTHS */
  readonly logRetention?: logs.RetentionDays;

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
export class NeuronEcsService extends Construct implements ec2.IConnectable {
  /** The plan deployed. */
  readonly plan: Plan;
  /** The ECS service. */
  readonly service: ecs.Ec2Service;
  /** The cluster. */
  readonly cluster: ecs.Cluster;
  /** The task definition. */
  readonly taskDefinition: ecs.Ec2TaskDefinition;
  /** The model server container. */
  readonly container: ecs.ContainerDefinition;
  /** The container instances. */
  readonly autoScalingGroup: autoscaling.AutoScalingGroup;
  /** The capacity provider that scales the instances for the tasks. */
  readonly capacityProvider: ecs.AsgCapacityProvider;
  /** The launch template of the instances. */
  readonly launchTemplate: ec2.LaunchTemplate;
  /** The VPC, given or defined here. */
  readonly vpc: ec2.IVpc;
  /** The load balancer. */
  readonly loadBalancer: elbv2.ApplicationLoadBalancer;
  /** The listener clients call. */
  readonly listener: elbv2.ApplicationListener;
  /** The target group of the tasks. */
  readonly targetGroup: elbv2.ApplicationTargetGroup;
  /** The container logs. */
  readonly logGroup: logs.LogGroup;
  /** `http(s)://host[:port]` of the load balancer; POST to `${url}/invocations`. */
  readonly url: string;
  /** The load balancer's security group: admit clients with `connections.allowDefaultPortFrom(...)`. */
  readonly connections: ec2.Connections;
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
  readonly rollbackAlarms: cloudwatch.Alarm[];
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
    const problems: string[] = [];
    const stack = Stack.of(this);
    const layout = ecsLayoutFromPlan(props.plan, Token.isUnresolved(stack.region) ? undefined : stack.region, problems);
    const ports = this.resolvePorts(props, problems);
    if (props.vpc === undefined && props.vpcSubnets !== undefined) {
      problems.push('vpcSubnets is set without vpc; pass the vpc the subnets belong to, or remove vpcSubnets');
    }
    if (props.vpc !== undefined && props.availabilityZones !== undefined) {
      problems.push('availabilityZones is set with vpc; it only shapes the VPC this construct defines: choose '
        + 'zones with vpcSubnets instead');
    }
    if (props.availabilityZones !== undefined && props.availabilityZones.length < 2) {
      problems.push(`availabilityZones=${JSON.stringify(props.availabilityZones)} names fewer than two zones; pass at `
        + 'least two, so an Availability Zone outage leaves instances serving');
    }
    if (props.image.needsModelData) {
      problems.push('image is ModelImage.fromServer(...), the model server without a model, and this service does not '
        + 'download one: build an image FROM it with the compiled model and its code/ in /opt/ml/model (docs/ecs.md), '
        + 'push it, and pass ModelImage.fromRepository(repository, digest, { modelServer: true })');
    } else if (!props.image.modelServer) {
      problems.push('image does not run the cdk-inferentia model server, which this service configures from the plan '
        + '(workers, core groups, batching): build an image FROM ModelImage.fromServer\'s with the compiled model and '
        + 'its code/ in /opt/ml/model (docs/ecs.md), push it, and pass ModelImage.fromRepository(repository, digest, '
        + '{ modelServer: true })');
    }
    const scaling = layout ? this.resolveScaling(props, layout, problems) : undefined;
    const volumeGiB = layout ? rootVolumeGiB(props.rootVolumeSize, layout) : 0;
    if (props.rootVolumeSize !== undefined && !Token.isUnresolved(volumeGiB)
      && (!Number.isInteger(volumeGiB) || volumeGiB < ROOT_VOLUME_MIN_GIB || volumeGiB > ROOT_VOLUME_MAX_GIB)) {
      problems.push(`rootVolumeSize=${volumeGiB} GiB must be a whole number from ${ROOT_VOLUME_MIN_GIB} to `
        + `${ROOT_VOLUME_MAX_GIB} GiB: the Neuron image, the model and the next deploy's image share it; pass e.g. `
        + 'Size.gibibytes(200)');
    }
    const graceSeconds = props.healthCheckGracePeriod?.toSeconds()
      ?? (layout ? defaultStartupTimeoutSeconds({ ...layout, batchSize: 1, deviceMemoryGiB: layout.modelGiB }) : 0);
    if (props.healthCheckGracePeriod !== undefined && !Token.isUnresolved(graceSeconds) && graceSeconds < 60) {
      problems.push(`healthCheckGracePeriod=${props.healthCheckGracePeriod.toHumanString()} is shorter than a minute; `
        + 'a Neuron worker loads its compiled model before /ping answers 200: pass at least Duration.minutes(5)');
    }
    const requestTimeoutMs = props.requestTimeout?.toMilliseconds() ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.metricsNamespace = props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;
    // A synth-time value, so dashboards and ModelServerMetrics can name the dimension.
    this.metricsService = Names.uniqueResourceName(this, { maxLength: 128, separator: '-' });
    let serverEnvironment: Record<string, string> = {};
    try {
      serverEnvironment = modelServerEnvironment(props.plan, {
        requestTimeoutMs,
        metricsNamespace: this.metricsNamespace,
        metricsService: this.metricsService,
      });
    } catch (e) {
      if (!(e instanceof InputError)) {
        throw e;
      }
      problems.push(...e.problems.map((p) => `plan or model server options: ${p}`));
    }
    InputError.throwIfAny(problems);
    if (layout === undefined || ports === undefined) {
      throw new InputError('NeuronEcsService: no layout');
    }
    this.plan = props.plan;
    const type = layout.instanceType;

    // Network.
    const ownVpc = props.vpc === undefined;
    this.vpc = props.vpc ?? privateServiceVpc(this, 'Vpc', {
      availabilityZones: props.availabilityZones,
      publicSubnets: props.internetFacing ?? false,
      cloudFormationEndpoint: props.smokeBenchmark !== undefined,
      lambdaEndpoint: props.smokeBenchmark?.capacityProof !== undefined,
      flowLogRetention: props.logRetention ?? logs.RetentionDays.THREE_MONTHS,
    });
    const privateSubnets = props.vpcSubnets
      ?? (ownVpc ? { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } : { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS });
    const lbSubnets = props.internetFacing ? { subnetType: ec2.SubnetType.PUBLIC } : privateSubnets;

    // Cluster and capacity.
    this.cluster = new ecs.Cluster(this, 'Cluster', {
      vpc: this.vpc,
      containerInsightsV2: ecs.ContainerInsights.ENABLED,
    });
    const capacity = neuronCapacity(this, {
      cluster: this.cluster,
      vpc: this.vpc,
      vpcSubnets: privateSubnets,
      layout,
      rootVolumeGiB: volumeGiB,
      // A rolling deployment at the peak starts a new task, on a new instance, next to every old one.
      maxInstances: 2 * layout.maxInstanceCount,
    });
    this.autoScalingGroup = capacity.autoScalingGroup;
    this.capacityProvider = capacity.capacityProvider;
    this.launchTemplate = capacity.launchTemplate;

    // Task.
    this.taskDefinition = new ecs.Ec2TaskDefinition(this, 'TaskDefinition', { networkMode: ecs.NetworkMode.AWS_VPC });
    const executionRole = this.taskDefinition.obtainExecutionRole();
    const image = props.image.bind(this, executionRole, type);
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
      environment: this.environment,
      linuxParameters,
      portMappings: [{ containerPort: ports.container, protocol: ecs.Protocol.TCP, name: 'http' }],
      logging: ecs.LogDrivers.awsLogs({ logGroup: this.logGroup, streamPrefix: 'model-server' }),
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
    const lb = modelLoadBalancer(this, {
      vpc: this.vpc,
      vpcSubnets: lbSubnets,
      internetFacing: props.internetFacing ?? false,
      certificate: props.certificate,
      listenerPort: ports.listener,
      containerPort: ports.container,
      // Longer than a request's deadline, so a task leaving the target group finishes what it is serving, and no
      // longer: every rolling deploy waits this long per batch of replaced tasks.
      deregistrationDelay: Duration.seconds(Math.ceil(requestTimeoutMs / 1000) + 5),
      accessLogBucket: props.accessLogBucket,
    });
    this.loadBalancer = lb.loadBalancer;
    this.listener = lb.listener;
    this.targetGroup = lb.targetGroup;
    this.service.attachToApplicationTargetGroup(this.targetGroup);
    this.connections = new ec2.Connections({
      securityGroups: this.loadBalancer.connections.securityGroups,
      defaultPort: ec2.Port.tcp(ports.listener),
    });
    if (!props.internetFacing) {
      // An internal load balancer serves the VPC; callers elsewhere are admitted through `connections`.
      this.connections.allowDefaultPortFrom(ec2.Peer.ipv4(this.vpc.vpcCidrBlock), 'Clients in the VPC');
      if (Token.isUnresolved(this.vpc.vpcCidrBlock)) {
        Validations.of(this.loadBalancer.connections.securityGroups[0]).acknowledge(VPC_CIDR_INGRESS);
      }
    }
    this.rollbackAlarms = rollbackAlarms(this, this.plan);
    // During a deployment's bake time ECS watches these too and rolls back when one fires, on top of the circuit
    // breaker, which only sees tasks failing to start or to pass /ping.
    this.service.enableDeploymentAlarms(this.rollbackAlarms.map((a) => a.alarmName), {
      behavior: ecs.AlarmBehavior.ROLLBACK_ON_ALARM,
    });
    const scheme = props.certificate ? 'https' : 'http';
    const host = props.domainName ?? this.loadBalancer.loadBalancerDnsName;
    const defaultPort = props.certificate ? 443 : 80;
    this.url = `${scheme}://${host}${ports.listener === defaultPort ? '' : `:${ports.listener}`}`;

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

    this.deploymentFingerprint = stableHash({
      plan: props.plan,
      imageUri: stack.resolve(image.imageUri),
      environment: stack.resolve(this.environment),
      ports,
    });

    this.acknowledgeFindings();
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
      const smokeSecurityGroup = new ec2.SecurityGroup(this, 'SmokeSecurityGroup', {
        vpc: this.vpc,
        description: `Smoke benchmark of ${this.node.path}: calls the load balancer, S3 and CloudFormation`,
        allowAllOutbound: true,
      });
      this.connections.allowDefaultPortFrom(smokeSecurityGroup, 'The smoke benchmark');
      const dependsOn: Construct[] = [this.service, this.listener];
      if (this.scalableTaskCount) {
        dependsOn.push(this.scalableTaskCount);
      }
      this.smokeBenchmark = new SmokeBenchmark(this, 'SmokeBenchmark', {
        ...props.smokeBenchmark,
        plan: this.plan,
        target: SmokeTarget.url(`${this.url}/invocations`, {
          vpc: this.vpc,
          vpcSubnets: privateSubnets,
          securityGroups: [smokeSecurityGroup],
          fingerprint: this.deploymentFingerprint,
          dependsOn,
        }),
      });
    }
  }

  /** Requests the load balancer received (`RequestCount`, sum per 5 minutes unless overridden). */
  metricRequestCount(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.loadBalancer.metrics.requestCount(options);
  }

  /** Seconds from the load balancer sending a request to a task until the answer (`TargetResponseTime`, p99 unless overridden). */
  metricTargetResponseTime(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.targetGroup.metrics.targetResponseTime({ statistic: cloudwatch.Stats.p(99), ...options });
  }

  /** 5XX answers of the model servers (`HTTPCode_Target_5XX_Count`, sum unless overridden). */
  metricTarget5xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.targetGroup.metrics.httpCodeTarget(elbv2.HttpCodeTarget.TARGET_5XX_COUNT, options);
  }

  /** 5XX answers of the load balancer itself, e.g. no healthy task (`HTTPCode_ELB_5XX_Count`, sum unless overridden). */
  metricLoadBalancer5xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.loadBalancer.metrics.httpCodeElb(elbv2.HttpCodeElb.ELB_5XX_COUNT, options);
  }

  /** Tasks passing the `/ping` check (`HealthyHostCount`, average unless overridden). */
  metricHealthyTaskCount(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.targetGroup.metrics.healthyHostCount(options);
  }

  /** Requests per task per minute: what target tracking follows (`RequestCountPerTarget`, sum per minute unless overridden). */
  metricRequestCountPerTask(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.targetGroup.metrics.requestCountPerTarget({ period: Duration.minutes(1), ...options });
  }

  private resolvePorts(props: NeuronEcsServiceProps, problems: string[]): { listener: number; container: number } | undefined {
    const before = problems.length;
    if (props.internetFacing && props.certificate === undefined) {
      problems.push('internetFacing=true without certificate: a public load balancer must not serve plain HTTP; pass '
        + 'certificate (an ACM certificate for domainName), or leave internetFacing unset for an internal one');
    }
    if (props.domainName !== undefined && props.certificate === undefined) {
      problems.push(`domainName=${JSON.stringify(props.domainName)} is set without certificate; it names the host the `
        + 'certificate covers: pass certificate too, or remove domainName');
    }
    if (props.certificate !== undefined && props.smokeBenchmark !== undefined && props.domainName === undefined) {
      problems.push('certificate and smokeBenchmark are set without domainName: the benchmark verifies TLS, and the '
        + 'certificate does not cover the load balancer\'s own DNS name; pass domainName (the host the certificate '
        + 'covers, pointing at the load balancer)');
    }
    const listener = props.listenerPort ?? (props.certificate ? 443 : 80);
    const container = props.containerPort ?? MODEL_SERVER_PORT;
    for (const [name, value] of [['listenerPort', listener], ['containerPort', container]] as const) {
      if (!Number.isInteger(value) || value < 1 || value > 65535) {
        problems.push(`${name}=${value} is not a TCP port; pass a whole number from 1 to 65535`);
      }
    }
    if (props.certificate !== undefined && listener === 80) {
      problems.push('listenerPort=80 with certificate: port 80 carries the HTTP-to-HTTPS redirect; use 443 or '
        + 'another port for HTTPS');
    }
    return problems.length > before ? undefined : { listener, container };
  }

  private resolveScaling(props: NeuronEcsServiceProps, layout: EcsLayout, problems: string[]):
  { requestsPerMinute: number; scaleInCooldown: Duration; scaleOutCooldown: Duration } | undefined {
    const o = props.autoScaling ?? {};
    if (o.enabled === false || layout.maxInstanceCount === layout.instanceCount) {
      return undefined;
    }
    let rps = layout.plannedRpsPerInstance;
    if (o.targetUtilization !== undefined) {
      if (!(o.targetUtilization > 0 && o.targetUtilization <= 1)) {
        problems.push(`autoScaling.targetUtilization=${o.targetUtilization} must be in (0, 1], e.g. 0.7 for 70 % of `
          + 'one instance\'s capacity');
        return undefined;
      }
      rps = props.plan.capacityPerInstanceRps * o.targetUtilization;
    }
    // ALBRequestCountPerTarget is a sum per minute.
    return {
      requestsPerMinute: Math.max(1, Math.floor(rps * 60)),
      scaleInCooldown: o.scaleInCooldown ?? Duration.minutes(10),
      scaleOutCooldown: o.scaleOutCooldown ?? Duration.minutes(5),
    };
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
