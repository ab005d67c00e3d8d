import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { GenerativePlan } from '../../../lib/generative';
import type { GenerativeEngineMetrics } from '../../monitoring/generative-engine-metrics';
import { P99_ALARM_FACTOR } from '../../sagemaker/endpoint-props';

/*
 * The engine alarms and the dashboard of NeuronGenerativeEcsService: the thresholds and widgets of the SageMaker
 * NeuronGenerativeEndpoint, read from the load balancer instead of the inference component, so a deployment either
 * hosting keeps would be kept by the other.
 */

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
