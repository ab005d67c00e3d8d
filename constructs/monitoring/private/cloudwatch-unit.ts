import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

/** The units the model server's and the vLLM exporter's embedded-metric-format lines declare. */
export type EmfUnit = 'Count' | 'Milliseconds' | 'Percent';

/**
 * The CloudWatch unit of a metric by the name its EMF line declares it with; shared by `ModelServerMetrics`
 * and `GenerativeEngineMetrics`.
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
