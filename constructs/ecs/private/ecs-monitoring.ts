import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { Plan } from '../../../lib/planner';
import type { ModelServerMetrics } from '../../monitoring/model-server-metrics';
import { ERROR_RATE_ALARM_PERCENT, P99_ALARM_FACTOR } from '../../sagemaker/endpoint-props';

/*
 * Rollback alarms and the dashboard of NeuronEcsService, from its load balancer metrics and the model server's own.
 * The thresholds are the SageMaker endpoint's, so a deployment either hosting keeps would be kept by the other.
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
 * Alarms that roll a deployment back: model server 5XX above 1 % of requests, and p99 target response time above the
 * plan's p99 target x 1.5, each in 2 of 3 minutes.
 */
export function rollbackAlarms(service: ServiceMetrics, plan: Plan): cloudwatch.Alarm[] {
  const minute = Duration.minutes(1);
  const p99TargetMs = plan.targets.p99Ms;
  return [
    new cloudwatch.Alarm(service, 'Errors5xxAlarm', {
      alarmDescription: `More than ${ERROR_RATE_ALARM_PERCENT} % of the requests to ${service.node.path} answered with `
        + '5XX by the model servers in 2 of 3 minutes; rolls an ECS deployment back.',
      metric: new cloudwatch.MathExpression({
        expression: '100 * FILL(errors, 0) / requests',
        usingMetrics: {
          errors: service.metricTarget5xxErrors({ period: minute }),
          requests: service.metricRequestCount({ period: minute }),
        },
        label: 'model server 5XX rate (%)',
        period: minute,
      }),
      threshold: ERROR_RATE_ALARM_PERCENT,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      // No traffic is not an error: a quiet deployment is not rolled back.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
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

/** Findings this construct cannot fix, each with the reason a reviewer needs. */
