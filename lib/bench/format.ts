/**
 * The terminal rendering of a report: summary and threshold tables, then a latency histogram chart.
 */
import Table from 'cli-table3';
import { describeThreshold } from './errors';
import type { BenchReport } from './types';

/** Width in characters of the longest histogram bar. */
const BAR_WIDTH = 40;

// Plain borders and no colours: the output is read in CI logs and piped to files as often as in a terminal.
const TABLE_STYLE = { head: [], border: [] };

/**
 * Renders a report for the terminal.
 *
 * @returns the summary table, the thresholds table when any threshold was set, and a latency histogram chart.
 */
export function formatReport(report: BenchReport): string {
  const hasSuccess = report.requests > report.errors;
  const summary = new Table({ style: TABLE_STYLE });
  summary.push(
    { requests: String(report.requests) },
    { errors: `${report.errors} (${percent(report.errorRate)})` },
    ...Object.entries(report.errorsByKind)
      .sort(([, a], [, b]) => b - a)
      .map(([kind, count]) => ({ [`  ${kind}`]: String(count) })),
    { throughput: `${report.throughputRps.toFixed(2)} req/s` },
    ...(['p50', 'p90', 'p99', 'max'] as const).map((p) => ({
      [`latency ${p}`]: hasSuccess ? `${ms(report.latencyMs[p])} ms` : 'n/a (no successful request)',
    })),
    { duration: `${(report.durationMs / 1000).toFixed(1)} s from ${report.startedAt}` },
  );

  const parts = [summary.toString()];
  if (report.thresholds.length > 0) {
    const thresholds = new Table({ head: ['threshold', 'result', ''], style: TABLE_STYLE });
    for (const t of report.thresholds) {
      thresholds.push([t.name, t.passed ? 'PASS' : 'FAIL', describeThreshold(t, report)]);
    }
    parts.push(thresholds.toString());
  }
  parts.push(formatHistogram(report.histogram));
  const breached = report.thresholds.filter((t) => !t.passed).length;
  parts.push(
    report.thresholds.length === 0
      ? 'No thresholds set.'
      : breached === 0
        ? 'All thresholds hold.'
        : `Thresholds breached: ${breached} of ${report.thresholds.length}.`,
  );
  if (!hasSuccess) {
    // The reasons (error kinds, the first error of each, what they mean) go to stderr with the exit code; the report
    // says plainly that the numbers above measure nothing.
    parts.push('No request succeeded: the run failed, whatever the thresholds say.');
  }
  return parts.join('\n\n') + '\n';
}

/** A text bar chart of latency buckets, one line per bucket: `<= 12.5 ms │██████ 123`. */
export function formatHistogram(histogram: BenchReport['histogram']): string {
  if (histogram.length === 0) {
    return 'Latency histogram: no successful request.';
  }
  const labels = histogram.map((b) => `<= ${ms(b.upToMs)} ms`);
  const labelWidth = Math.max(...labels.map((l) => l.length));
  const top = Math.max(...histogram.map((b) => b.count));
  const lines = histogram.map((bucket, i) => {
    const length = bucket.count === 0 ? 0 : Math.max(1, Math.round((bucket.count / top) * BAR_WIDTH));
    return `${labels[i].padStart(labelWidth)} │${'█'.repeat(length)}${' '.repeat(BAR_WIDTH - length)} ${bucket.count}`;
  });
  return ['Latency histogram (successful requests):', ...lines].join('\n');
}

function ms(value: number): string {
  if (value >= 100) {
    return value.toFixed(0);
  }
  return value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

function percent(rate: number): string {
  return `${(rate * 100).toFixed(2)} %`;
}

/** A report as `bench --json` prints it: the report, with `latencyMs` in {@link JsonBenchReport}'s form. */
export type JsonBenchReport = Omit<BenchReport, 'latencyMs' | 'thresholds'> & {
  /** Successful requests only: every field `null` when no request succeeded (there is no latency to report). */
  readonly latencyMs: { readonly p50: number | null; readonly p90: number | null; readonly p99: number | null; readonly max: number | null };
  /** A latency threshold's `measured` is `null` when no request succeeded. */
  readonly thresholds: readonly (Omit<BenchReport['thresholds'][number], 'measured'> & { readonly measured: number | null })[];
};

/**
 * The report as JSON readers should see it: a latency of 0 would read as "instant" where nothing was measured, so
 * with no successful request the latency fields and latency thresholds' `measured` are `null`.
 */
export function reportForJson(report: BenchReport): JsonBenchReport {
  if (report.requests > report.errors) {
    return report;
  }
  return {
    ...report,
    latencyMs: { p50: null, p90: null, p99: null, max: null },
    thresholds: report.thresholds.map((t) => (t.name === 'p50' || t.name === 'p99' || t.name === 'serverP99' ? { ...t, measured: null } : t)),
  };
}
