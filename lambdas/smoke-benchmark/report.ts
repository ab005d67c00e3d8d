/**
 * Where a smoke run's results go: S3 keys and the JSON document CI reads, the CloudWatch metrics (EMF through
 * Powertools), and the message that fails the deployment.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { describeThreshold } from '../../lib/bench/errors';
import { poolFailures } from '../../lib/bench/pools';
import type { BenchReport } from '../../lib/bench/types';
import { REPORT_WRITE_DEADLINE_MS } from '../../lib/smoke/budget';
import type { SmokeSettings } from '../../lib/smoke/config';
import { SMOKE_DIMENSION, SMOKE_METRIC } from '../../lib/smoke/metrics';
import type { CapacityReport } from './capacity';

/** The S3 keys of one run's report. */
export interface ReportKeys {
  /** `<prefix>/<name>/<timestamp>-<fingerprint>.json`: one object per run, sorted by time. */
  readonly run: string;
  /** `<prefix>/<name>/latest.json`: overwritten by every run, for CI to poll. */
  readonly latest: string;
}

/**
 * The keys a run's report is written under.
 *
 * The timestamp uses `-` for `:` so keys stay URL- and shell-friendly and still sort by time. The fingerprint is
 * reduced to key-safe characters; the name is used as is: the construct grants PutObject on `<prefix>/<name>/*`
 * with the same name, so it must not be rewritten here.
 */
export function reportKeys(prefix: string, name: string, startedAt: Date, fingerprint?: string): ReportKeys {
  const stamp = startedAt.toISOString().replace(/:/g, '-');
  const suffix = fingerprint ? `-${fingerprint.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64)}` : '';
  return {
    run: `${prefix}/${name}/${stamp}${suffix}.json`,
    latest: `${prefix}/${name}/latest.json`,
  };
}

/** What happened in one invocation, beside the engine's report. */
export interface RunContext {
  /** When the invocation began. */
  readonly invokedAt: Date;
  /** The Lambda version that ran: each deployment's settings are one version. */
  readonly functionVersion?: string;
  readonly requestId?: string;
  /** False when the run was cut at the time budget before its duration or request count. */
  readonly complete: boolean;
  /** The capacity proof's result, or why it did not run. @default - no capacity proof configured */
  readonly capacity?: CapacityReport | { readonly skipped: string };
}

/** The JSON document written to S3 for CI. */
export interface SmokeReportDocument {
  readonly schemaVersion: 1;
  readonly name: string;
  readonly environment: string;
  readonly target: { readonly kind: 'sagemaker'; readonly endpointName: string } | { readonly kind: 'http'; readonly url: string };
  readonly fingerprint?: string;
  readonly stackId: string;
  readonly functionVersion?: string;
  readonly requestId?: string;
  readonly invokedAt: string;
  /** False when the run was cut short; such a run never passes. */
  readonly complete: boolean;
  /** Every threshold held and the run was complete. */
  readonly passed: boolean;
  /** One sentence per reason the run failed; empty when it passed. */
  readonly failures: readonly string[];
  /** The load and limits the run used. */
  readonly settings: {
    readonly mode: SmokeSettings['config']['mode'];
    readonly stop: SmokeSettings['config']['stop'];
    readonly warmupMs: number;
    readonly timeoutMs: number;
    readonly thresholds: SmokeSettings['config']['thresholds'];
    readonly expectStatus?: number;
    readonly expect?: SmokeSettings['config']['expect'];
  };
  readonly report: BenchReport;
  /**
   * The capacity proof: predicted beside measured (rate, p50/p99, server p99 and mean batch size, errors), or why
   * it was skipped. @default - no capacity proof configured
   */
  readonly capacity?: CapacityReport | { readonly skipped: string };
}

/**
 * Why a run failed, one sentence per reason: each breached threshold with its limit and measured value, and a run
 * cut short by its time budget.
 */
export function failureReasons(report: BenchReport, complete: boolean, shape: SmokeSettings['config']): string[] {
  const reasons = report.thresholds.filter((t) => !t.passed).map((t) => describeThreshold(t, report));
  if (!complete) {
    const planned = 'requests' in shape.stop ? `${shape.stop.requests} requests` : `${shape.stop.durationMs / 1000} s`;
    reasons.push(
      `the run was stopped at the Lambda's time budget after ${report.requests} measured requests ` +
        `(planned ${planned}); raise the SmokeBenchmark \`timeout\` or shorten \`load\``,
    );
  }
  return reasons;
}

/** Builds the document written to S3. */
export function reportDocument(settings: SmokeSettings, report: BenchReport, run: RunContext): SmokeReportDocument {
  const { config } = settings;
  const failures = [...failureReasons(report, run.complete, config), ...poolFailures(report.pools, config.pools ?? [])];
  if (run.capacity !== undefined && 'failures' in run.capacity) {
    failures.push(...run.capacity.failures);
  }
  return {
    schemaVersion: 1,
    name: settings.name,
    environment: settings.environment,
    target:
      config.target.kind === 'sagemaker'
        ? { kind: 'sagemaker', endpointName: settings.target }
        : { kind: 'http', url: settings.target },
    fingerprint: config.fingerprint,
    stackId: settings.stackId,
    functionVersion: run.functionVersion,
    requestId: run.requestId,
    invokedAt: run.invokedAt.toISOString(),
    complete: run.complete,
    passed: failures.length === 0,
    failures,
    settings: {
      mode: config.mode,
      stop: config.stop,
      warmupMs: config.warmupMs,
      timeoutMs: config.timeoutMs,
      thresholds: config.thresholds,
      expectStatus: config.expectStatus,
      expect: config.expect,
    },
    report,
    ...(run.capacity !== undefined ? { capacity: run.capacity } : {}),
  };
}

/**
 * Writes the run's metrics as one CloudWatch embedded-metric-format line on stdout.
 *
 * EMF goes through the function's own log group, so the function needs no `cloudwatch:PutMetricData` permission.
 * Latency metrics are left out when no request succeeded: a 0 ms p99 would read as a fast endpoint on a dashboard.
 * The `service` dimension Powertools adds by default is cleared so the metrics carry exactly `EndpointName` and
 * `Environment`, the dimensions the construct's metric helpers ask for.
 */
export function publishMetrics(document: SmokeReportDocument, namespace: string): void {
  const metrics = new Metrics({ namespace });
  metrics.clearDefaultDimensions();
  metrics.addDimensions({
    [SMOKE_DIMENSION.endpoint]: document.name,
    [SMOKE_DIMENSION.environment]: document.environment,
  });
  const { report } = document;
  if (report.requests > report.errors) {
    metrics.addMetric(SMOKE_METRIC.p50, MetricUnit.Milliseconds, report.latencyMs.p50);
    metrics.addMetric(SMOKE_METRIC.p90, MetricUnit.Milliseconds, report.latencyMs.p90);
    metrics.addMetric(SMOKE_METRIC.p99, MetricUnit.Milliseconds, report.latencyMs.p99);
    metrics.addMetric(SMOKE_METRIC.max, MetricUnit.Milliseconds, report.latencyMs.max);
  }
  metrics.addMetric(SMOKE_METRIC.throughput, MetricUnit.CountPerSecond, report.throughputRps);
  metrics.addMetric(SMOKE_METRIC.errorRate, MetricUnit.Percent, report.errorRate * 100);
  metrics.addMetric(SMOKE_METRIC.requests, MetricUnit.Count, report.requests);
  metrics.addMetric(SMOKE_METRIC.errors, MetricUnit.Count, report.errors);
  metrics.addMetric(SMOKE_METRIC.passed, MetricUnit.Count, document.passed ? 1 : 0);
  const capacity = document.capacity;
  if (capacity !== undefined && 'measured' in capacity) {
    metrics.addMetric(SMOKE_METRIC.capacityRate, MetricUnit.CountPerSecond, capacity.measured.achievedRps);
    if (capacity.measured.requests > capacity.measured.errors) {
      metrics.addMetric(SMOKE_METRIC.capacityP99, MetricUnit.Milliseconds, capacity.measured.latencyMs.p99);
    }
  }
  metrics.publishStoredMetrics();
}

/** The error message that fails the deployment. */
export function failureMessage(document: SmokeReportDocument, reportUri: string): string {
  const kinds = Object.entries(document.report.errorsByKind)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${kind} ${count}`);
  const errors = kinds.length > 0 ? ` (errors by kind: ${kinds.join(', ')})` : '';
  return (
    `smoke benchmark of ${document.name} in ${document.environment} failed: ${document.failures.join('; ')}` +
    `${errors}; report ${reportUri}`
  );
}

/**
 * Writes the report under each key in turn, within {@link REPORT_WRITE_DEADLINE_MS} in all.
 *
 * The timestamped object goes first: `latest.json` never points at a run whose own object is missing.
 *
 * @returns why a write failed, naming the bucket and key, or `undefined` when both were written.
 */
export async function writeReport(s3: S3Client, bucket: string, keys: readonly string[], body: string): Promise<string | undefined> {
  const deadline = AbortSignal.timeout(REPORT_WRITE_DEADLINE_MS);
  for (const key of keys) {
    try {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'application/json' }), {
        abortSignal: deadline,
      });
    } catch (err) {
      const e = err as Error;
      const cause = deadline.aborted ? `no answer within ${REPORT_WRITE_DEADLINE_MS} ms` : `${e.name}: ${e.message}`;
      return `the report could not be written to s3://${bucket}/${key}: ${cause}`;
    }
  }
  return undefined;
}
