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
  if (thresholds.p50MaxMs !== undefined) {
    results.push({
      name: 'p50',
      limit: thresholds.p50MaxMs,
      measured: stats.latencyMs.p50,
      passed: hasSuccess && stats.latencyMs.p50 <= thresholds.p50MaxMs,
    });
  }
  if (thresholds.p99MaxMs !== undefined) {
    results.push({
      name: 'p99',
      limit: thresholds.p99MaxMs,
      measured: stats.latencyMs.p99,
      passed: hasSuccess && stats.latencyMs.p99 <= thresholds.p99MaxMs,
    });
  }
  if (thresholds.minThroughputRps !== undefined) {
    results.push({
      name: 'throughput',
      limit: thresholds.minThroughputRps,
      measured: stats.throughputRps,
      passed: stats.throughputRps >= thresholds.minThroughputRps,
    });
  }
  if (thresholds.maxErrorRate !== undefined) {
    results.push({
      name: 'errorRate',
      limit: thresholds.maxErrorRate,
      measured: stats.errorRate,
      passed: stats.requests > 0 && stats.errorRate <= thresholds.maxErrorRate,
    });
  }
  if (thresholds.serverP99MaxMs !== undefined) {
    // No header, no proof: a server that does not report its timing cannot pass a server-side limit.
    const measured = stats.server?.latencyMs.p99;
    results.push({
      name: 'serverP99',
      limit: thresholds.serverP99MaxMs,
      measured: measured ?? 0,
      passed: measured !== undefined && measured <= thresholds.serverP99MaxMs,
    });
  }
  return results;
}
