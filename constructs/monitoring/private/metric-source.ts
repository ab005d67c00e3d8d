import { Duration, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { InputError } from '../../../lib/errors';
import { MODEL_SERVER_DIMENSION } from '../../../lib/serving/metrics';
import type { ModelServerMetricName } from '../../../lib/serving/metrics';

/** The period of every metric unless the caller sets one: the servers write a line every 10 s or so. */
export const DEFAULT_PERIOD = Duration.minutes(1);

/**
 * Where a serving process writes its embedded-metric-format lines, and the one factory of its metrics.
 *
 * `ModelServerMetrics` and `GenerativeEngineMetrics` (and any later engine's metrics) differ only in their metric
 * contract and their second dimension (worker, core, replica); the namespace and service rules, the default period,
 * the unit and the way a caller's options win are this one piece.
 */
export class MetricSource {
  /**
   * Every serving process writes the same `Service` dimension (`MODEL_SERVER_DIMENSION.service`, which the engine
   * contract repeats as `ENGINE_METRICS_DIMENSION.service`).
   *
   * @param owner the public class named in errors, e.g. `ModelServerMetrics`
   * @param namespace CloudWatch namespace (may be a token)
   * @param service value of the `Service` dimension (may be a token)
   * @param problems more problems the owner found in its props, thrown together with these
   */
  constructor(
    readonly owner: string,
    readonly namespace: string,
    readonly service: string,
    problems: readonly string[] = [],
  ) {
    const found: string[] = [];
    // Names may be tokens (a generated endpoint name): CloudWatch checks those at deploy time.
    if (!Token.isUnresolved(namespace) && (namespace.trim() === '' || namespace.length > 255)) {
      found.push(`namespace=${JSON.stringify(namespace)} must be 1 to 255 characters (a CloudWatch namespace)`);
    }
    if (!Token.isUnresolved(service) && (service.trim() === '' || service.length > 1024)) {
      found.push(`service=${JSON.stringify(service)} must be 1 to 1024 characters (a CloudWatch dimension value)`);
    }
    InputError.throwIfAny([...found, ...problems].map((problem) => `${owner}: ${problem}`));
  }

  /**
   * A metric on the `Service` dimension, narrowed to one value of a second dimension when `index` is given.
   *
   * @param index the second dimension (`Worker`, `NeuronCore`, `Replica`) and its value, or undefined for the whole
   * @param options the caller's options, spread last so they win over the defaults
   */
  metric(
    metric: ModelServerMetricName,
    statistic: string,
    options: cloudwatch.MetricOptions = {},
    index?: { readonly dimension: string; readonly value: string },
  ): cloudwatch.Metric {
    const dimensionsMap: Record<string, string> = { [MODEL_SERVER_DIMENSION.service]: this.service };
    if (index !== undefined) {
      dimensionsMap[index.dimension] = index.value;
    }
    return new cloudwatch.Metric({
      namespace: this.namespace,
      metricName: metric.name,
      dimensionsMap,
      statistic,
      unit: cloudWatchUnit(metric.unit),
      period: DEFAULT_PERIOD,
      ...options,
    });
  }

  /**
   * The second dimension of a numbered part (a worker, a NeuronCore), refusing a value that is not an index.
   *
   * @param field the option's name in the error, e.g. `worker`
   * @param what what the number counts, e.g. `worker index`
   */
  numbered(field: string, what: string, dimension: string, value: number | undefined): { dimension: string; value: string } | undefined {
    if (value === undefined) {
      return undefined;
    }
    if (!(Number.isInteger(value) && value >= 0)) {
      throw new InputError(`${this.owner}: ${field}=${value} must be a ${what}, 0 or more`);
    }
    return { dimension, value: `${value}` };
  }

  /** A ratio or rate of this source's metrics over each period, with the caller's label, colour and period. */
  expression(
    expression: string,
    usingMetrics: Record<string, cloudwatch.IMetric>,
    defaultLabel: string,
    options: { readonly label?: string; readonly color?: string; readonly period?: Duration },
  ): cloudwatch.MathExpression {
    return new cloudwatch.MathExpression({
      expression,
      usingMetrics,
      label: options.label ?? defaultLabel,
      color: options.color,
      period: options.period ?? DEFAULT_PERIOD,
    });
  }
}

/** The units the model server's and the vLLM exporter's embedded-metric-format lines declare. */
export type EmfUnit = 'Count' | 'Milliseconds' | 'Percent';

/**
 * The CloudWatch unit of a metric by the name its EMF line declares it with; every metric of {@link MetricSource}.
 *
 * A function, not a module-level table: reading `cloudwatch.Unit` loads aws-cloudwatch's implementation, which
 * importing the package should not cost an app that reads no metric.
 */
export function cloudWatchUnit(unit: EmfUnit): cloudwatch.Unit {
  switch (unit) {
    case 'Count':
      return cloudwatch.Unit.COUNT;
    case 'Milliseconds':
      return cloudwatch.Unit.MILLISECONDS;
    case 'Percent':
      return cloudwatch.Unit.PERCENT;
  }
}
