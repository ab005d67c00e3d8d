import { Duration } from 'aws-cdk-lib';
import type * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { Construct } from 'constructs';
import type { GenerativePlan } from '../../../lib/generative';
import type { Plan } from '../../../lib/planner';
import type { GenerativeEngineMetrics } from '../../monitoring/generative-engine-metrics';
import type { ModelServerMetrics } from '../../monitoring/model-server-metrics';
import { RollbackAlarms } from '../../private/rollback-alarms';
import { ERROR_RATE_ALARM_PERCENT, P99_ALARM_FACTOR } from '../../sagemaker/endpoint-props';
import type { EcsHostingOptions } from '../ecs-service-props';
import { neuronCapacity, type NeuronCapacityOptions } from './ecs-capacity';
import { modelLoadBalancer, serviceEntrance, type ModelLoadBalancerOptions } from './ecs-load-balancer';
import { serviceNetwork, type ServiceNetwork } from './ecs-network';

/*
 * The base every ECS hosting extends (its fleet, its entrance and the load balancer's metrics), and the rollback
 * alarms and dashboards of the ECS hostings, from the load balancer's metrics and the server's own (the model
 * server's for NeuronEcsService, the engine's for NeuronGenerativeEcsService). The thresholds are the SageMaker
 * endpoints', so a deployment either hosting keeps would be kept by the other. A third engine's service reuses the
 * 5XX alarm, the rollback wiring and the load balancer graphs, and adds its own latency alarms and widgets.
 */

/** What the alarms and the dashboard read from the service. */
export interface ServiceMetrics extends Construct {
  metricRequestCount(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  metricTargetResponseTime(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  metricTarget5xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  metricLoadBalancer5xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  metricHealthyTaskCount(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  metricRequestCountPerTask(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
}

/** What the fleet and the entrance are built from: the hosting options, and whether a proof runs (its VPC endpoints). */
type FleetProps = EcsHostingOptions & { readonly smokeBenchmark?: { readonly capacityProof?: unknown } };

/**
 * What every ECS hosting is, whatever serves behind it: Neuron instances in a cluster, an Application Load Balancer in
 * front of the tasks, its metrics and the rollback alarm set. The single-call and generative services differ in their
 * tasks, not in these (as aws-cdk's `BaseService` holds what every ECS service shares); a third engine's service
 * builds its tasks between {@link buildFleet} and {@link buildEntrance} and reuses the rest.
 */
export abstract class LoadBalancedEcsService extends Construct implements ServiceMetrics {
  // Set once by buildFleet and buildEntrance, at the points of the constructor where the subclass builds them, so each
  // resource keeps its place in the template; readonly to everyone else.
  /** The VPC, given or defined here. */
  declare readonly vpc: ec2.IVpc;
  /** The cluster. */
  declare readonly cluster: ecs.Cluster;
  /** The container instances. */
  declare readonly autoScalingGroup: autoscaling.AutoScalingGroup;
  /** The capacity provider that scales the instances for the tasks. */
  declare readonly capacityProvider: ecs.AsgCapacityProvider;
  /** The launch template of the instances. */
  declare readonly launchTemplate: ec2.LaunchTemplate;
  /** The Application Load Balancer in front of the tasks. */
  declare readonly loadBalancer: elbv2.ApplicationLoadBalancer;
  /** The listener clients call. */
  declare readonly listener: elbv2.ApplicationListener;
  /** The target group of the tasks. */
  declare readonly targetGroup: elbv2.ApplicationTargetGroup;
  /** The load balancer's security group: admit clients with `connections.allowDefaultPortFrom(...)`. */
  declare readonly connections: ec2.Connections;
  /** @internal */
  protected readonly alarms = new RollbackAlarms();

  /**
   * The network, the cluster and its Neuron instances (first in the template of either service), kept in
   * {@link vpc}, {@link cluster}, {@link autoScalingGroup}, {@link capacityProvider} and {@link launchTemplate}.
   *
   * @internal
   */
  protected buildFleet(props: FleetProps, capacity: Pick<NeuronCapacityOptions, 'layout' | 'rootVolumeGiB' | 'maxInstances'>): ServiceNetwork {
    const network = serviceNetwork(this, props);
    const cluster = new ecs.Cluster(this, 'Cluster', { vpc: network.vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    const instances = neuronCapacity(this, { cluster, vpc: network.vpc, vpcSubnets: network.privateSubnets, ...capacity });
    const { autoScalingGroup, capacityProvider, launchTemplate } = instances;
    Object.assign(this, { vpc: network.vpc, cluster, autoScalingGroup, capacityProvider, launchTemplate });
    return network;
  }

  /**
   * The load balancer in front of `services` and the clients' way in, kept in {@link loadBalancer}, {@link listener},
   * {@link targetGroup} and {@link connections}; returns the URL clients call.
   *
   * @internal
   */
  protected buildEntrance(
    props: FleetProps,
    network: ServiceNetwork,
    services: readonly ecs.BaseService[],
    target: Omit<ModelLoadBalancerOptions, 'vpc' | 'vpcSubnets' | 'internetFacing' | 'certificate' | 'domainName' | 'accessLogBucket'>,
  ): string {
    const lbOptions = {
      vpc: network.vpc,
      internetFacing: props.internetFacing ?? false,
      certificate: props.certificate,
      domainName: props.domainName,
      listenerPort: target.listenerPort,
    };
    const lb = modelLoadBalancer(this, {
      ...lbOptions,
      ...target,
      vpcSubnets: network.loadBalancerSubnets,
      accessLogBucket: props.accessLogBucket,
    });
    const { connections, url } = serviceEntrance(lb, services, lbOptions);
    Object.assign(this, { loadBalancer: lb.loadBalancer, listener: lb.listener, targetGroup: lb.targetGroup, connections });
    return url;
  }

  /** Requests the load balancer received (`RequestCount`, sum per 5 minutes unless overridden). */
  metricRequestCount(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.loadBalancer.metrics.requestCount(options);
  }

  /** Seconds from the load balancer sending a request to a task until the answer (`TargetResponseTime`, p99 unless overridden). */
  metricTargetResponseTime(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.targetGroup.metrics.targetResponseTime({ statistic: cloudwatch.Stats.p(99), ...options });
  }

  /** 5XX answers of the tasks' servers (`HTTPCode_Target_5XX_Count`, sum unless overridden). */
  metricTarget5xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.targetGroup.metrics.httpCodeTarget(elbv2.HttpCodeTarget.TARGET_5XX_COUNT, options);
  }

  /** 5XX answers of the load balancer itself, e.g. no healthy task (`HTTPCode_ELB_5XX_Count`, sum unless overridden). */
  metricLoadBalancer5xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.loadBalancer.metrics.httpCodeElb(elbv2.HttpCodeElb.ELB_5XX_COUNT, options);
  }

  /**
   * Tasks passing the health check (`HealthyHostCount`, average unless overridden): the model server's `/ping`, the
   * engine's `/health`.
   */
  metricHealthyTaskCount(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.targetGroup.metrics.healthyHostCount(options);
  }

  /** Requests per task per minute: what target tracking follows (`RequestCountPerTarget`, sum per minute unless overridden). */
  metricRequestCountPerTask(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.targetGroup.metrics.requestCountPerTarget({ period: Duration.minutes(1), ...options });
  }

  /**
   * Adds an alarm of yours (e.g. your own latency or business metric, or the engine's TTFT or TPOT) to the set that
   * rolls a deployment back.
   *
   * ECS watches the service's deployment alarms during a deployment's bake time and rolls back when one fires, on
   * top of the circuit breaker.
   *
   * @param alarm an alarm on any metric
   */
  addRollbackAlarm(alarm: cloudwatch.AlarmBase): void {
    this.alarms.add(alarm);
  }
}

/**
 * The 5XX alarm every ECS hosting rolls back on: the targets' 5XX above 1 % of requests in 2 of 3 minutes.
 *
 * @param server what answers behind the load balancer, in the description and label, e.g. `model server`, `engine`
 */
export function errorRateAlarm(service: Pick<ServiceMetrics, 'node' | 'metricTarget5xxErrors' | 'metricRequestCount'> & Construct,
  server: string): cloudwatch.Alarm {
  const minute = Duration.minutes(1);
  return new cloudwatch.Alarm(service, 'Errors5xxAlarm', {
    alarmDescription: `More than ${ERROR_RATE_ALARM_PERCENT} % of the requests to ${service.node.path} answered with `
      + `5XX by the ${server}s in 2 of 3 minutes; rolls an ECS deployment back.`,
    metric: new cloudwatch.MathExpression({
      expression: '100 * FILL(errors, 0) / requests',
      usingMetrics: {
        errors: service.metricTarget5xxErrors({ period: minute }),
        requests: service.metricRequestCount({ period: minute }),
      },
      label: `${server} 5XX rate (%)`,
      period: minute,
    }),
    threshold: ERROR_RATE_ALARM_PERCENT,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
    // No traffic is not an error: a quiet deployment is not rolled back.
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}

/**
 * Alarms that roll a deployment back: model server 5XX above 1 % of requests, and p99 target response time above the
 * plan's p99 target x 1.5, each in 2 of 3 minutes.
 */
export function rollbackAlarms(service: ServiceMetrics, plan: Plan): cloudwatch.Alarm[] {
  const minute = Duration.minutes(1);
  const p99TargetMs = plan.targets.p99Ms;
  return [
    errorRateAlarm(service, 'model server'),
    new cloudwatch.Alarm(service, 'LatencyP99Alarm', {
      alarmDescription: `p99 target response time of ${service.node.path} above ${p99TargetMs * P99_ALARM_FACTOR} ms (the `
        + `plan's p99 target ${p99TargetMs} ms plus ${Math.round((P99_ALARM_FACTOR - 1) * 100)} % for the HTTP `
        + 'front end) in 2 of 3 minutes; rolls an ECS deployment back.',
      metric: service.metricTargetResponseTime({ period: minute }),
      // TargetResponseTime is in seconds.
      threshold: (p99TargetMs * P99_ALARM_FACTOR) / 1000,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
  ];
}

/**
 * During a deployment's bake time ECS watches the set and rolls back when one fires, on top of the circuit breaker,
 * which only sees tasks failing to start or to pass their health check. The names are lazy: `addRollbackAlarm` may
 * add more after construction.
 */
export function rollBackOnAlarms(services: readonly ecs.BaseService[], alarms: RollbackAlarms): void {
  for (const service of services) {
    service.enableDeploymentAlarms(alarms.names(), { behavior: ecs.AlarmBehavior.ROLLBACK_ON_ALARM });
  }
}

/** Load balancer graphs (traffic, latency against the plan, errors, the scaling metric) and the model server's. */
export function serviceDashboard(service: ServiceMetrics, plan: Plan, serverMetrics: ModelServerMetrics): cloudwatch.Dashboard {
  const minute = { period: Duration.minutes(1) };
  const dashboard = new cloudwatch.Dashboard(service, 'Dashboard', {
    defaultInterval: Duration.hours(3),
  });
  dashboard.addWidgets(
    new cloudwatch.GraphWidget({
      title: 'Requests',
      left: [service.metricRequestCount({ ...minute, label: 'requests/min' })],
      right: [service.metricHealthyTaskCount({ ...minute, label: 'healthy tasks' })],
    }),
    new cloudwatch.GraphWidget({
      title: 'Latency at the load balancer (s)',
      left: [
        service.metricTargetResponseTime({ ...minute, statistic: cloudwatch.Stats.p(50), label: 'p50' }),
        service.metricTargetResponseTime({ ...minute, label: 'p99' }),
      ],
      leftAnnotations: [{ value: plan.targets.p99Ms / 1000, label: 'plan p99 target' }],
    }),
    new cloudwatch.GraphWidget({
      title: 'Errors',
      left: [
        service.metricTarget5xxErrors({ ...minute, label: 'model server 5XX' }),
        service.metricLoadBalancer5xxErrors({ ...minute, label: 'load balancer 5XX' }),
      ],
    }),
    new cloudwatch.GraphWidget({
      title: 'Requests per task (scaling metric)',
      left: [service.metricRequestCountPerTask({ label: 'requests/min per task' })],
    }),
  );
  dashboard.addWidgets(...serverMetrics.widgets());
  return dashboard;
}

/** What the dashboard reads from the service. */
export interface GenerativeServiceMetrics extends Construct {
  readonly engineMetrics: GenerativeEngineMetrics;
  metricRequestCount(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  metricTarget5xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  metricHealthyTaskCount(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  metricRequestCountPerTask(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
}

/**
 * TTFT and TPOT p99 alarms at the plan's targets x 1.5 (`P99_ALARM_FACTOR`), 2 of 3 minutes, as on SageMaker: the
 * metric is the worst 10-second interval p99 of any replica in the minute, noisier than a true p99, so the margin
 * keeps a healthy deployment while a replica off its compiled graphs or short of devices still rolls back.
 */
export function engineLatencyAlarms(scope: Construct, engine: GenerativeEngineMetrics, plan: GenerativePlan): cloudwatch.Alarm[] {
  return engine.latencyAlarms(scope, { plan, factor: P99_ALARM_FACTOR, subject: scope.node.path, onAlarm: 'rolls an ECS deployment back' });
}

/** Load balancer graphs (traffic and healthy tasks, engine errors, the scaling metric against its target), then the engine's. */
export function generativeServiceDashboard(service: GenerativeServiceMetrics, requestsPerTaskTarget?: number): cloudwatch.Dashboard {
  const minute = { period: Duration.minutes(1) };
  const dashboard = new cloudwatch.Dashboard(service, 'Dashboard', { defaultInterval: Duration.hours(3) });
  dashboard.addWidgets(
    new cloudwatch.GraphWidget({
      title: 'Load balancer: requests per minute and healthy tasks',
      left: [service.metricRequestCount({ ...minute, label: 'requests/min' })],
      right: [service.metricHealthyTaskCount({ ...minute, label: 'healthy tasks' })],
      width: 8, height: 6, leftYAxis: { min: 0 },
    }),
    new cloudwatch.GraphWidget({
      title: 'Load balancer: engine 5XX per minute',
      left: [service.metricTarget5xxErrors({ ...minute, label: 'target 5XX' })],
      width: 8, height: 6, leftYAxis: { min: 0 },
    }),
    new cloudwatch.GraphWidget({
      title: 'Load balancer: requests per task per minute',
      left: [service.metricRequestCountPerTask({ label: 'requests/task/min' })],
      leftAnnotations: requestsPerTaskTarget === undefined ? [] : [{ label: 'scaling target', value: requestsPerTaskTarget }],
      width: 8, height: 6, leftYAxis: { min: 0 },
    }),
  );
  dashboard.addWidgets(...service.engineMetrics.widgets());
  return dashboard;
}
