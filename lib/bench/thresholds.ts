/**
 * Checks a run's measurements against its limits.
 */
import type { BenchReport, ThresholdResult, Thresholds } from './types';

/** The measurements thresholds are checked against. */
export type BenchStats = Pick<BenchReport, 'requests' | 'errors' | 'errorRate' | 'throughputRps' | 'latencyMs' | 'server'>;

/**
 * Checks each given limit; omitted limits are not checked.
 *
 * Results come in a fixed order: p50, p99, throughput, error rate, server p99. A run that measured nothing proves nothing, so a
 * latency limit fails when no request succeeded and an error-rate limit fails when no request was measured.
 *
 * @returns one result per given limit; the run passes when every result passed.
 */
export function evaluateThresholds(stats: BenchStats, thresholds: Thresholds = {}): ThresholdResult[] {
  const hasSuccess = stats.requests > stats.errors;
  const results: ThresholdResult[] = [];
  /** Adds the result of one limit when it is given; `holds` says whether the measurement meets it. */
  const check = (name: ThresholdResult['name'], limit: number | undefined, measured: number, holds: (limit: number) => boolean): void => {
    if (limit !== undefined) {
      results.push({ name, limit, measured, passed: holds(limit) });
    }
  };
  const { latencyMs, throughputRps, errorRate } = stats;
  check('p50', thresholds.p50MaxMs, latencyMs.p50, (limit) => hasSuccess && latencyMs.p50 <= limit);
  check('p99', thresholds.p99MaxMs, latencyMs.p99, (limit) => hasSuccess && latencyMs.p99 <= limit);
  check('throughput', thresholds.minThroughputRps, throughputRps, (limit) => throughputRps >= limit);
  check('errorRate', thresholds.maxErrorRate, errorRate, (limit) => stats.requests > 0 && errorRate <= limit);
  // No header, no proof: a server that does not report its timing cannot pass a server-side limit.
  const serverP99 = stats.server?.latencyMs.p99;
  check('serverP99', thresholds.serverP99MaxMs, serverP99 ?? 0, (limit) => serverP99 !== undefined && serverP99 <= limit);
  return results;
}
