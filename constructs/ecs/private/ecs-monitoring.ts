import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { Construct } from 'constructs';
import type { GenerativePlan } from '../../../lib/generative';
import type { Plan } from '../../../lib/planner';
import type { GenerativeEngineMetrics } from '../../monitoring/generative-engine-metrics';
import type { ModelServerMetrics } from '../../monitoring/model-server-metrics';
import { RollbackAlarms } from '../../private/rollback-alarms';
import { ERROR_RATE_ALARM_PERCENT, P99_ALARM_FACTOR } from '../../sagemaker/endpoint-props';

/*
 * Rollback alarms and dashboards of the ECS hostings, from the load balancer's metrics and the server's own (the model
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
