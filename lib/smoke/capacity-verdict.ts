/**
 * How the capacity proof's merged run is judged: achieved rate, p99, server p99 and error rate against the limits of
 * its config. The hook's alone: apart from the contract in `./capacity`, which the construct reads at synth, so the
 * construct does not load the wording of a breached threshold (`lib/bench/errors`) nor what it imports.
 */
import { describeThreshold } from '../bench/errors';
import { poolFailures, type PoolAnswers, type PoolLimits } from '../bench/pools';
import type { BenchReport, RequestTally, ServerTimingReport, ThresholdResult } from '../bench/types';
import type { CapacityConfig } from './capacity';

/** The workers' results merged into one run. */
export interface CapacityMeasurement extends RequestTally {
  readonly workersAnswered: number;
  readonly errorRate: number;
  /** Successful requests per second over all workers: the capacity actually held. */
  readonly achievedRps: number;
  readonly latencyMs: BenchReport['latencyMs'];
  readonly server?: ServerTimingReport;
  /** The answers by instance pool, when they named their pool. @default - none did */
  readonly pools?: readonly PoolAnswers[];
}

/** A merged run judged against its limits. */
export interface CapacityVerdict {
  readonly thresholds: readonly ThresholdResult[];
  /** One sentence per reason the proof failed; empty when it passed. */
  readonly failures: readonly string[];
}

/**
 * Judges the merged run: achieved rate, p99, server p99 (when asked), error rate; with instance pools, each pool's
 * answers against the proof's p99 limit too (every pool's plan meets the same targets), so a slow pool cannot hide
 * behind a fast one in the merged p99.
 *
 * @param pools the endpoint's instance pools @default - no pools
 */
export function judgeCapacity(measured: CapacityMeasurement, config: CapacityConfig, pools: readonly PoolLimits[] = []): CapacityVerdict {
  const t = config.thresholds;
  const hasSuccess = measured.requests > measured.errors;
  const results: ThresholdResult[] = [
    { name: 'throughput', limit: t.minRateRps, measured: measured.achievedRps, passed: measured.achievedRps >= t.minRateRps },
    { name: 'p99', limit: t.p99MaxMs, measured: measured.latencyMs.p99, passed: hasSuccess && measured.latencyMs.p99 <= t.p99MaxMs },
  ];
  if (t.serverP99MaxMs !== undefined) {
    const p99 = measured.server?.latencyMs.p99;
    results.push({ name: 'serverP99', limit: t.serverP99MaxMs, measured: p99 ?? 0, passed: p99 !== undefined && p99 <= t.serverP99MaxMs });
  }
  results.push({
    name: 'errorRate',
    limit: t.maxErrorRate,
    measured: measured.errorRate,
    passed: measured.requests > 0 && measured.errorRate <= t.maxErrorRate,
  });
  const failures = results
    .filter((r) => !r.passed)
    .map((r) => `capacity proof at ${round(config.rateRps)} requests/s: ${describeThreshold(r, measured)}`);
  if (measured.workersAnswered < config.workers) {
    failures.push(
      `capacity proof: ${config.workers - measured.workersAnswered} of ${config.workers} load workers returned no ` +
        `result (${measured.errorSamples['worker-failed'] ?? 'unknown cause'}), so only part of the planned rate was applied`,
    );
  }
  failures.push(...poolFailures(measured.pools, pools.map((pool) => ({ pool: pool.pool, instanceType: pool.instanceType, p99MaxMs: t.p99MaxMs })))
    .map((f) => `capacity proof at ${round(config.rateRps)} requests/s: ${f}`));
  return { thresholds: results, failures };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
