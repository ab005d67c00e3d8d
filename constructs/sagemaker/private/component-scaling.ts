/**
 * How an inference component's copies scale: target tracking on concurrent requests per copy, and, for an endpoint
 * that scales to zero, the step policy that brings copies back when a request finds none.
 */
import { Annotations, Duration } from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as CloudWatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Construct } from 'constructs';
import type { GenerativeScaleToZeroOptions } from '../generative-endpoint-props';
import { sageMakerScalableTarget } from './endpoint-base';
import type { ColdStartEstimate, ComponentSizing } from './generative-sizing';

/** What the copies of one inference component scale by. */
export interface ComponentScalingOptions {
  /** The inference component's name. */
  readonly componentName: string;
  /** The inference component the scalable target waits for. */
  readonly component: Construct;
  /** Its copies per instance, limits, scaling target and predicted cold start. */
  readonly sizing: ComponentSizing;
  /** Set when idle copies go to zero. */
  readonly scaleToZero?: GenerativeScaleToZeroOptions;
  /** The component's `NoCapacityInvocationFailures` (sum); read only with `scaleToZero`. */
  readonly noCapacityFailures: cloudwatch.IMetric;
}

/**
 * Registers the component's copy count with Application Auto Scaling and tracks concurrent requests per copy at the
 * plan's load; managed instance scaling adds and removes instances to hold the copies. With `scaleToZero`, adds the
 * step policy from zero and says, as an info annotation on `scope`, how long the first request after idling waits.
 */
export function scaleComponentCopies(scope: Construct, options: ComponentScalingOptions): appscaling.ScalableTarget {
  const { sizing, scaleToZero } = options;
  const target = sageMakerScalableTarget(scope, `inference-component/${options.componentName}`,
    'sagemaker:inference-component:DesiredCopyCount', { min: sizing.minCopies, max: sizing.maxCopies }, options.component);
  target.scaleToTrackMetric('ConcurrentRequestsPerCopy', {
    // High resolution: published every 10 s, so scale-out reacts within a minute (SageMaker Developer Guide,
    // "Define a scaling policy", https://docs.aws.amazon.com/sagemaker/latest/dg/endpoint-auto-scaling-add-code-define.html).
    predefinedMetric: appscaling.PredefinedMetric.SAGEMAKER_INFERENCE_COMPONENT_CONCURRENT_REQUESTS_PER_COPY_HIGH_RESOLUTION,
    targetValue: sizing.targetConcurrentRequestsPerCopy,
    scaleInCooldown: scaleToZero ? Duration.minutes(scaleToZero.idleMinutes) : Duration.minutes(10),
    scaleOutCooldown: Duration.minutes(5),
  });
  if (scaleToZero) {
    scaleFromZero(scope, target, options);
    Annotations.of(scope).addInfo(`${scope.node.path} scales to zero after ${scaleToZero.idleMinutes} idle minutes; the first `
      + `request afterwards fails while a copy starts, predicted ${describeColdStart(sizing.coldStart)}.`);
  }
  return target;
}

/**
 * Scale from zero: target tracking cannot leave zero copies (it divides by them), so a step policy adds copies when
 * SageMaker reports a request it had no capacity for (SageMaker Developer Guide, "Scale an endpoint to zero
 * instances", https://docs.aws.amazon.com/sagemaker/latest/dg/endpoint-auto-scaling-zero-instances.html). It adds
 * one instance's worth of copies (the instance is paid for whole); target tracking takes it from there. The
 * guide's alarm uses `GreaterThanThreshold 1`, which needs two failed requests in a minute; `>= 1` wakes on the first.
 */
function scaleFromZero(scope: Construct, target: appscaling.ScalableTarget, options: ComponentScalingOptions): void {
  const action = new appscaling.StepScalingAction(scope, 'ScaleFromZero', {
    scalingTarget: target,
    adjustmentType: appscaling.AdjustmentType.CHANGE_IN_CAPACITY,
    metricAggregationType: appscaling.MetricAggregationType.MAXIMUM,
    cooldown: Duration.minutes(1),
  });
  action.addAdjustment({ adjustment: options.sizing.copiesPerInstance, lowerBound: 0 });
  const alarm = new cloudwatch.Alarm(scope, 'NoCapacityAlarm', {
    alarmDescription: `A request reached ${options.componentName} with no copy to serve it; adds copies from zero.`,
    metric: options.noCapacityFailures,
    threshold: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  // Loaded here, not on import: only an endpoint that opts into scaling to zero needs it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const cwactions = require('aws-cdk-lib/aws-cloudwatch-actions') as typeof CloudWatchActions;
  alarm.addAlarmAction(new cwactions.ApplicationScalingAction(action));
}

function describeColdStart(c: ColdStartEstimate): string {
  return `~${Math.round(c.totalSeconds / 60)} min (ESTIMATE: ${c.alarmSeconds} s alarm + ${c.instanceLaunchSeconds} s instance and image `
    + `+ ${c.weightsDownloadSeconds} s download + ${c.loadSeconds} s load and engine start`
    + (c.compilesAtStart ? ', plus compilation: no compiled artifacts given)' : ')');
}
