/**
 * The load workers' side of the proof in tokens: what the gate sends one worker, what a worker returns, and how the
 * results merge (HDR histograms of TTFT, TPOT and end-to-end latency added exactly, never percentiles of
 * percentiles). Apart from `./token-proof` because it loads the histogram library, which the construct does not need.
 */
import { lazySchema } from '../lazy-schema';
import { addTallies } from './error-kind';
import { LatencyRecorder } from './latency';
import type { RequestTally } from './types';
import type { TokenCapacityConfig, TokenMeasurement } from './token-proof';
import { TokenPoolRecorder, type EncodedTokenPool } from './token-pools';

/** What the gate sends one load worker (the Invoke payload of a proof in tokens). */
export interface TokenWorkerRequest {
  readonly kind: 'tokens';
  /** Which worker this is, 0-based, for the logs. */
  readonly worker: number;
  readonly rateRps: number;
  readonly durationMs: number;
  readonly warmupMs: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/**
 * Schema of {@link TokenWorkerRequest}: the worker checks its payload with it.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const tokenWorkerRequestSchema = lazySchema((z) => z
  .object({
    kind: z.literal('tokens'),
    worker: z.number().int().min(0),
    rateRps: z.number().positive(),
    durationMs: z.number().positive(),
    warmupMs: z.number().min(0),
    inputTokens: z.number().int().positive(),
    outputTokens: z.number().int().positive(),
  })
  .strict());

/** A streamed run's counts and its distributions as HdrHistogram compressed base64 (microseconds). */
export interface TokenRunResult extends RequestTally {
  /** The sending window: achieved requests/s count over it. */
  readonly durationMs: number;
  /**
   * From the first send to the last answer: output tokens/s count over it (the streams still open after the window
   * keep producing tokens). @default - durationMs
   */
  readonly elapsedMs?: number;
  /** Output tokens of the successful requests. */
  readonly outputTokens: number;
  /** Successful requests within every goodput limit (`GoodputLimits`). @default - goodput not counted */
  readonly goodRequests?: number;
  readonly encoded: { readonly ttft: string; readonly tpot: string; readonly e2e: string; readonly pools?: readonly EncodedTokenPool[] };
}

/** What one load worker returns. */
export interface TokenWorkerResult extends TokenRunResult {
  readonly worker: number;
}

/** The worker requests of a capacity proof: the rate split evenly. */
export function tokenWorkerRequests(config: TokenCapacityConfig): TokenWorkerRequest[] {
  return Array.from({ length: config.workers }, (_, worker) => ({
    kind: 'tokens' as const,
    worker,
    rateRps: config.rateRps / config.workers,
    durationMs: config.durationMs,
    warmupMs: config.warmupMs,
    inputTokens: config.inputTokens,
    outputTokens: config.outputTokens,
  }));
}

/**
 * Merges streamed runs that ran side by side (the load workers): counts add, histograms add exactly, and rates are
 * over the longest measured phase.
 *
 * @param failedWorkers workers that returned no result: their share of the load was not applied, which the rate
 *   check then shows; they are counted under the error kind `worker-failed`.
 */
export function mergeTokenRuns(results: readonly TokenRunResult[], failedWorkers: Readonly<Record<string, string>> = {}): TokenMeasurement {
  const ttft = new LatencyRecorder();
  const tpot = new LatencyRecorder();
  const e2e = new LatencyRecorder();
  const pools = new TokenPoolRecorder();
  const { requests, errors, errorsByKind, errorSamples } = addTallies(results, failedWorkers);
  let outputTokens = 0;
  // Goodput only when every run counted it: a run that did not would read as none good.
  let good: number | undefined = results.length > 0 && results.every((r) => r.goodRequests !== undefined) ? 0 : undefined;
  let durationMs = 0;
  let elapsedMs = 0;
  for (const result of results) {
    outputTokens += result.outputTokens;
    good = good === undefined ? undefined : good + (result.goodRequests ?? 0);
    durationMs = Math.max(durationMs, result.durationMs);
    elapsedMs = Math.max(elapsedMs, result.elapsedMs ?? result.durationMs);
    ttft.addEncoded(result.encoded.ttft);
    tpot.addEncoded(result.encoded.tpot);
    e2e.addEncoded(result.encoded.e2e);
    pools.add(result.encoded.pools ?? []);
  }
  const byPool = pools.report();
  const perSecond = (count: number, overMs: number): number => (overMs > 0 ? Math.round((count * 1000 * 100) / overMs) / 100 : 0);
  return {
    requests,
    errors,
    errorRate: requests > 0 ? errors / requests : 0,
    errorsByKind,
    errorSamples,
    achievedRps: perSecond(requests - errors, durationMs),
    offeredRps: perSecond(requests, durationMs),
    outputTokensPerSecond: perSecond(outputTokens, elapsedMs),
    ...(good !== undefined ? { goodRequests: good, goodputRps: perSecond(good, durationMs) } : {}),
    ttftMs: ttft.percentiles(),
    tpotMs: tpot.percentiles(),
    e2eMs: e2e.percentiles(),
    durationMs,
    ...(byPool !== undefined ? { pools: byPool } : {}),
  };
}
