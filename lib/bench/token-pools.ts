/**
 * A streamed run's answers split by the SageMaker instance pool whose copy gave them, and each pool held to its own
 * limits in tokens: the proof in tokens' side of `./pools` (the single-call one).
 *
 * A copy names its pool in the custom-attributes header (`pool=<priority>`, `lib/serving/pool.ts`; the vLLM image's
 * `serving/vllm/pool_header.py`), which `InvokeEndpointWithResponseStream` returns as `CustomAttributes`.
 */
import { LatencyRecorder } from './latency';

/** p50, p90, p99 and max, ms. */
export interface TokenPercentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** The limits one pool's streamed answers are held to, from the pool's own plan. */
export interface TokenPoolLimits {
  readonly pool: number;
  readonly instanceType: string;
  readonly ttftP99MaxMs: number;
  readonly tpotP99MaxMs: number;
}

/** What one pool's streamed answers measured. */
export interface TokenPoolMeasurement {
  readonly pool: number;
  /** Requests that streamed to the end from the pool's copies. */
  readonly completed: number;
  readonly ttftMs: TokenPercentiles;
  readonly tpotMs: TokenPercentiles;
}

/** One pool's histograms (HdrHistogram compressed base64, µs), to merge a worker's into the gate's. */
export interface EncodedTokenPool {
  readonly pool: number;
  readonly ttft: string;
  readonly tpot: string;
}

/** Collects completed streamed requests by pool. */
export class TokenPoolRecorder {
  private readonly pools = new Map<number, { readonly ttft: LatencyRecorder; readonly tpot: LatencyRecorder }>();

  /** Records one completed request of `pool` (undefined: it named none, and is not counted here). */
  record(pool: number | undefined, ttftMs: number, tpotMs: number | undefined): void {
    if (pool === undefined) {
      return;
    }
    const entry = this.entry(pool);
    entry.ttft.record(ttftMs);
    if (tpotMs !== undefined) {
      entry.tpot.record(tpotMs);
    }
  }

  /** Adds other runs' pools (load workers', decoded). */
  add(encoded: readonly EncodedTokenPool[]): void {
    for (const pool of encoded) {
      const entry = this.entry(pool.pool);
      entry.ttft.addEncoded(pool.ttft);
      entry.tpot.addEncoded(pool.tpot);
    }
  }

  /** Each pool's figures, by priority; undefined when no answer named a pool. */
  report(): TokenPoolMeasurement[] | undefined {
    return this.pools.size === 0 ? undefined : [...this.pools.entries()].sort(([a], [b]) => a - b)
      .map(([pool, { ttft, tpot }]) => ({ pool, completed: ttft.count, ttftMs: ttft.percentiles(), tpotMs: tpot.percentiles() }));
  }

  /** The histograms {@link add} merges; undefined when no answer named a pool. */
  encode(): EncodedTokenPool[] | undefined {
    return this.pools.size === 0 ? undefined : [...this.pools.entries()].map(([pool, { ttft, tpot }]) => ({ pool, ttft: ttft.encode(), tpot: tpot.encode() }));
  }

  private entry(pool: number) {
    let entry = this.pools.get(pool);
    if (entry === undefined) {
      entry = { ttft: new LatencyRecorder(), tpot: new LatencyRecorder() };
      this.pools.set(pool, entry);
    }
    return entry;
  }
}

/**
 * Why the pools' streamed answers fail their own limits, one sentence each starting with `label`: a pool over its
 * TTFT or TPOT p99, or answers from a pool the plan does not have. A pool that gave no answer (no copy of it in
 * service) is not judged.
 */
export function judgeTokenPools(measured: readonly TokenPoolMeasurement[] | undefined, limits: readonly TokenPoolLimits[], label: string): string[] {
  const failures: string[] = [];
  for (const pool of measured ?? []) {
    const limit = limits.find((l) => l.pool === pool.pool);
    if (limit === undefined) {
      failures.push(`${label}: ${pool.completed} answer(s) came from instance pool ${pool.pool}, which the plan does not have`);
      continue;
    }
    const name = `${label}: instance pool ${limit.pool} (${limit.instanceType})`;
    if (pool.ttftMs.p99 > limit.ttftP99MaxMs) {
      failures.push(`${name}: p99 time to first token ${pool.ttftMs.p99} ms over ${pool.completed} answers > max ${limit.ttftP99MaxMs} ms`);
    }
    if (pool.tpotMs.p99 > limit.tpotP99MaxMs) {
      failures.push(`${name}: p99 time per output token ${pool.tpotMs.p99} ms over ${pool.completed} answers > max ${limit.tpotP99MaxMs} ms`);
    }
  }
  return failures;
}
