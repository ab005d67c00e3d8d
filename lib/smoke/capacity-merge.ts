/**
 * How the capacity proof's load-worker results merge: HDR histograms added exactly, never percentiles of
 * percentiles. Apart from the contract in `./capacity` because it loads the histogram library, which the constructs
 * that read the contract's limits at synth do not need.
 */
import { addTallies } from '../bench/error-kind';
import { LatencyRecorder } from '../bench/latency';
import { PoolRecorder } from '../bench/pools';
import { ServerTimingRecorder } from '../bench/server-timing';
import type { LoadWorkerResult } from './capacity';
import type { CapacityMeasurement } from './capacity-verdict';

/**
 * Merges the workers' results: counts add, the histograms are added exactly, and the achieved rate is all
 * successes over the longest measured phase (the workers run side by side, not one after another).
 *
 * @param failedWorkers workers that returned no result (their invocation failed): their share of the load was not
 *   applied, which the rate check then shows.
 */
export function mergeWorkerResults(results: readonly LoadWorkerResult[], failedWorkers: Readonly<Record<string, string>> = {}): CapacityMeasurement {
  const latency = new LatencyRecorder();
  const server = new ServerTimingRecorder();
  const pools = new PoolRecorder();
  const { requests, errors, errorsByKind, errorSamples } = addTallies(results, failedWorkers);
  let durationMs = 0;
  for (const result of results) {
    durationMs = Math.max(durationMs, result.durationMs);
    latency.addEncoded(result.encoded.latency);
    if (result.encoded.server !== undefined) {
      server.add(result.encoded.server);
    }
    pools.add(result.encoded.pools ?? []);
  }
  const serverReport = server.report();
  const poolsReport = pools.report();
  return {
    workersAnswered: results.length,
    requests,
    errors,
    errorRate: requests > 0 ? errors / requests : 0,
    errorsByKind,
    errorSamples,
    achievedRps: durationMs > 0 ? Math.round(((requests - errors) * 1000 * 100) / durationMs) / 100 : 0,
    latencyMs: latency.percentiles(),
    ...(serverReport !== undefined ? { server: serverReport } : {}),
    ...(poolsReport !== undefined ? { pools: poolsReport } : {}),
  };
}
