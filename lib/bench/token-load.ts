/**
 * Open-loop token load, the pure half: seeded Poisson arrival times, and the recorder that turns each streamed
 * request's result into HDR histograms of TTFT, TPOT and end-to-end latency (encoded as the single-call capacity
 * proof encodes latency, so load workers' histograms merge exactly) and a report.
 */
import type { ErrorKind } from './error-kind';
import type { RequestTally } from './types';
import { LatencyRecorder } from './latency';
import { random } from '../planner/simulate';
import { shareGaps, type ArrivalShare } from '../traffic/arrivals';
import type { TokenStreamResult } from './token-stream';
import { TokenPoolRecorder, type EncodedTokenPool, type TokenPercentiles, type TokenPoolMeasurement } from './token-pools';

/**
 * Arrival times of a Poisson process at `ratePerSecond` over `durationMs`, in ms from the start: exponential gaps
 * drawn from a seeded generator, so a run is repeatable.
 */
export function poissonArrivals(ratePerSecond: number, durationMs: number, seed = 1): number[] {
  if (!(ratePerSecond > 0) || !(durationMs > 0)) {
    return [];
  }
  const next = random(seed);
  const arrivals: number[] = [];
  for (let t = -Math.log(1 - next()) * (1000 / ratePerSecond); t < durationMs; t += -Math.log(1 - next()) * (1000 / ratePerSecond)) {
    arrivals.push(t);
  }
  return arrivals;
}

/**
 * Arrival times, in ms from the start, of one sender's share of an arrival process (`ArrivalShare`) at the sender's
 * `ratePerSecond` over `durationMs`: every sender draws the whole process from `seed` and keeps its own arrivals, so
 * the senders together send the plan's bursty process, not a merge of independent ones.
 */
export function shareArrivals(share: ArrivalShare, ratePerSecond: number, durationMs: number, seed = 1): number[] {
  if (!(ratePerSecond > 0) || !(durationMs > 0)) {
    return [];
  }
  const gap = shareGaps(share, random(seed));
  const meanMs = 1000 / ratePerSecond;
  const arrivals: number[] = [];
  for (let t = gap() * meanMs; t < durationMs; t += gap() * meanMs) {
    arrivals.push(t);
  }
  return arrivals;
}

/**
 * The limits a request must meet, all together, to count toward goodput: vLLM's `bench serve --goodput` (a request
 * is good when its TTFT, its TPOT and its end-to-end latency are each within the limit given for it; goodput is the
 * good requests per second of the run). The proof passes its p99 limits, so goodput is the rate of requests that
 * each met what the p99 judges.
 *
 * @see https://github.com/vllm-project/vllm/blob/v0.16.0/vllm/benchmarks/serve.py (`--goodput`, `check_goodput_args`)
 */
export interface GoodputLimits {
  readonly ttftMs: number;
  readonly tpotMs: number;
  /** @default - no end-to-end limit */
  readonly e2eMs?: number;
}

/** True when one streamed request met every limit (a request of one token has no TPOT, which vLLM counts as 0). */
export function meetsGoodput(result: Pick<TokenStreamResult, 'ok' | 'ttftMs' | 'tpotMs' | 'e2eMs'>, limits: GoodputLimits): boolean {
  return result.ok && result.ttftMs <= limits.ttftMs && (result.tpotMs ?? 0) <= limits.tpotMs && (limits.e2eMs === undefined || result.e2eMs <= limits.e2eMs);
}

/** What an open-loop token run measured. */
export interface TokenLoadReport extends RequestTally {
  /** Requests due in the sending window (sent, or refused for backpressure). */
  readonly requests: number;
  /** Requests that streamed to the end. */
  readonly completed: number;
  /** The rate asked for, requests per second. */
  readonly offeredRps: number;
  /** Completed requests per second of the sending window (a request sent in the window counts when it completes). */
  readonly achievedRps: number;
  /** Output tokens of completed requests per second, from the first send to the last answer. */
  readonly outputTokensPerSecond: number;
  readonly outputTokens: number;
  /** Completed requests that met every goodput limit. @default - no limits given */
  readonly goodRequests?: number;
  readonly ttftMs: TokenPercentiles;
  readonly tpotMs: TokenPercentiles;
  readonly e2eMs: TokenPercentiles;
  /** The sending window, ms. */
  readonly durationMs: number;
  /** From the first send to the last answer, ms. */
  readonly elapsedMs: number;
  /** Completed requests by the instance pool whose copy answered, when answers named one. @default - none did */
  readonly pools?: readonly TokenPoolMeasurement[];
  /** The histograms in HdrHistogram's compressed base64 form (µs), to merge with others exactly. */
  readonly encoded: { readonly ttft: string; readonly tpot: string; readonly e2e: string; readonly pools?: readonly EncodedTokenPool[] };
}

/**
 * Collects streamed results into histograms. TTFT and end-to-end latency are recorded for every completed request,
 * TPOT for those with two tokens or more (one token has no time per output token).
 */
export class TokenLoadRecorder {
  readonly ttft = new LatencyRecorder();
  readonly tpot = new LatencyRecorder();
  readonly e2e = new LatencyRecorder();
  completed = 0;
  errors = 0;
  outputTokens = 0;
  readonly errorsByKind: Record<string, number> = {};
  readonly errorSamples: Record<string, string> = {};
  /** Completed requests within every goodput limit. */
  good = 0;
  /** Completed requests by the instance pool that answered. */
  readonly pools = new TokenPoolRecorder();

  /** @param goodput the limits a request meets to count toward goodput. @default - goodput not counted */
  constructor(readonly goodput?: GoodputLimits) {}

  /** Records one request's result; a failure is counted under its `errorKind`. */
  record(result: TokenStreamResult): void {
    if (!result.ok) {
      this.fail(result.errorKind ?? 'other', result.error ?? 'failed');
      return;
    }
    this.completed++;
    if (this.goodput !== undefined && meetsGoodput(result, this.goodput)) {
      this.good++;
    }
    this.outputTokens += result.outputTokens;
    this.ttft.record(result.ttftMs);
    this.e2e.record(result.e2eMs);
    if (result.tpotMs !== undefined) {
      this.tpot.record(result.tpotMs);
    }
    this.pools.record(result.pool, result.ttftMs, result.tpotMs);
  }

  /** Counts one failed request. */
  fail(kind: ErrorKind, sample: string): void {
    this.errors++;
    this.errorsByKind[kind] = (this.errorsByKind[kind] ?? 0) + 1;
    this.errorSamples[kind] ??= sample;
  }

  /** Adds another recorder's counts and histograms (a second worker's share). */
  add(other: TokenLoadReport): void {
    this.completed += other.completed;
    this.good += other.goodRequests ?? 0;
    this.errors += other.errors;
    this.outputTokens += other.outputTokens;
    for (const [kind, n] of Object.entries(other.errorsByKind)) {
      this.errorsByKind[kind] = (this.errorsByKind[kind] ?? 0) + n;
    }
    for (const [kind, sample] of Object.entries(other.errorSamples)) {
      this.errorSamples[kind] ??= sample;
    }
    this.ttft.addEncoded(other.encoded.ttft);
    this.tpot.addEncoded(other.encoded.tpot);
    this.e2e.addEncoded(other.encoded.e2e);
    this.pools.add(other.encoded.pools ?? []);
  }

  /** The report of a run that offered `offeredRps` for `durationMs` and was answered within `elapsedMs`. */
  report(run: { readonly requests: number; readonly offeredRps: number; readonly durationMs: number; readonly elapsedMs: number }): TokenLoadReport {
    const pools = this.pools.report();
    const encodedPools = this.pools.encode();
    const pct = (r: LatencyRecorder): TokenPercentiles => {
      const { p50, p90, p99, max } = r.percentiles();
      return { p50, p90, p99, max };
    };
    return {
      requests: run.requests,
      completed: this.completed,
      errors: this.errors,
      errorsByKind: { ...this.errorsByKind },
      errorSamples: { ...this.errorSamples },
      offeredRps: run.offeredRps,
      achievedRps: run.durationMs > 0 ? (this.completed * 1000) / run.durationMs : 0,
      outputTokensPerSecond: run.elapsedMs > 0 ? (this.outputTokens * 1000) / run.elapsedMs : 0,
      outputTokens: this.outputTokens,
      ...(this.goodput !== undefined ? { goodRequests: this.good } : {}),
      ttftMs: pct(this.ttft),
      tpotMs: pct(this.tpot),
      e2eMs: pct(this.e2e),
      durationMs: run.durationMs,
      elapsedMs: run.elapsedMs,
      ...(pools !== undefined ? { pools } : {}),
      encoded: { ttft: this.ttft.encode(), tpot: this.tpot.encode(), e2e: this.e2e.encode(), ...(encodedPools !== undefined ? { pools: encodedPools } : {}) },
    };
  }
}
