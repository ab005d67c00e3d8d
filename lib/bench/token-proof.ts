/**
 * The proof of a generative deployment in tokens: the contract between the SmokeBenchmark construct, its gate
 * handler and its load workers when the plan is a `GenerativePlan`.
 *
 * The gate sends a golden prompt with greedy decoding and checks the answer, then measures time to first token
 * (TTFT), time per output token (TPOT) and output tokens per second over a short streamed run; the optional capacity
 * proof drives the plan's request rate open-loop from load workers (LLMPerf's method: streamed responses, TTFT at
 * the first token, TPOT over the rest) and merges their HDR histograms exactly.
 *
 * @see https://github.com/ray-project/llmperf (TTFT, inter-token latency, output throughput)
 */
import type { TokenPoolLimits, TokenPoolMeasurement } from './token-pools';
import { lazySchema } from '../lazy-schema';
import { generativePlanBasisSchema, type GenerativePlanBasis } from './token-calibration';
import type { RequestTally } from './types';
import type { WorkloadLengths } from '../generative/lengths';
import type { ArrivalProcess } from '../traffic/types';
import { arrivalProcessSchema, quantileTableSchema } from '../traffic/schema';
import { loadWindowShape, WORKER_RETURN_RESERVE_MS, WORKER_START_ALLOWANCE_MS } from '../smoke/capacity';

/** How a request is sent to vLLM's OpenAI-compatible server: `/v1/completions` or `/v1/chat/completions`. */
export type TokenApi = 'completions' | 'chat';

/** What a correct golden answer looks like: the exact generated text (trimmed), or a regular expression. */
export type GoldenAnswer =
  | { readonly kind: 'exact'; readonly text: string }
  | { readonly kind: 'regex'; readonly pattern: string; readonly flags?: string };

/** The golden prompt: sent once, streamed, with greedy decoding (temperature 0), and its answer checked. */
export interface GoldenPrompt {
  readonly prompt: string;
  /** Most tokens the answer may have (`max_tokens`). */
  readonly maxTokens: number;
  readonly expect: GoldenAnswer;
}

/** Latency and throughput figures in tokens: what the plan predicts, or what a run measured. */
export interface TokenFigures {
  readonly ttftP99Ms: number;
  readonly tpotP99Ms: number;
  readonly e2eP99Ms: number;
  readonly outputTokensPerSecond: number;
}

/** The limits a streamed run must meet. */
export interface TokenThresholds {
  readonly ttftP99MaxMs: number;
  readonly tpotP99MaxMs: number;
  /** Output tokens per second over the whole run. @default - not judged (the capacity proof judges the rate) */
  readonly minOutputTokensPerSecond?: number;
  /**
   * Share (0-1] of the requests the run offered that must complete: achieved requests/s >= `rateShare` x offered
   * requests/s. Judged against the arrivals actually offered, not the plan's mean rate: Poisson arrivals at 2/s
   * over 60 s vary by about 9 % (sqrt(120) / 120), so a perfect endpoint would miss 95 % of the mean a third of the
   * time. The plan's rate is reported beside it.
   *
   * @default - not judged (the smoke run is too short to hold a rate)
   */
  readonly rateShare?: number;
  /** 0..1 */
  readonly maxErrorRate: number;
}

/** The short streamed run of the smoke gate: a closed loop, so a short run always sends its full count. */
export interface TokenSmokeRun {
  /** Requests measured. */
  readonly requests: number;
  /** Streams kept in flight. */
  readonly concurrency: number;
  /**
   * Requests per second `concurrency` streams complete at the predicted e2e p99 (`concurrency x 1000 / e2e`): the
   * run's expected pace, from which its length and predicted output tokens/s follow.
   */
  readonly rateRps: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Longest a streamed request may take. */
  readonly timeoutMs: number;
  readonly predicted: TokenFigures;
  readonly thresholds: TokenThresholds;
}

/** The capacity proof in tokens, fanned out over load workers. */
export interface TokenCapacityConfig {
  /** Total open-loop arrival rate over all workers. */
  readonly rateRps: number;
  readonly workers: number;
  /** Streams one worker is expected to hold at once: `rateRps / workers` x the predicted e2e latency. */
  readonly streamsPerWorker: number;
  readonly durationMs: number;
  readonly warmupMs: number;
  readonly timeoutMs: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /**
   * The plan's length distributions: each request's prompt and output drawn from them (seeded by `lengthSeed` plus
   * the worker's index), `inputTokens` and `outputTokens` then their means. @default - every request at the means
   */
  readonly lengths?: WorkloadLengths;
  /** Seed of the first worker's drawn lengths. @default 1 */
  readonly lengthSeed?: number;
  /**
   * The plan's arrival process (`targets.arrivals`, a log's burstiness): every worker draws it from one seed and sends
   * its share, so the workers together send it. @default - Poisson arrivals at `rateRps`
   */
  readonly arrivals?: ArrivalProcess;
  readonly predicted: TokenFigures & { readonly rateRps: number };
  readonly thresholds: TokenThresholds & { readonly rateShare: number };
}

/** The literal settings of a proof in tokens (the `SMOKE_CONFIG` variable, told apart by `kind: 'tokens'`). */
export interface TokenProofConfig {
  readonly schemaVersion: 1;
  readonly kind: 'tokens';
  /** The target's kind and literal options; its endpoint name or base URL is in `SMOKE_TARGET`. */
  readonly target:
    | { readonly kind: 'sagemaker'; readonly inferenceComponentName?: string }
    | { readonly kind: 'http'; readonly headers?: Readonly<Record<string, string>> };
  readonly fingerprint?: string;
  readonly api: TokenApi;
  /** The model name the engine serves (`--served-model-name`), sent as `model`. */
  readonly model: string;
  readonly golden: GoldenPrompt;
  readonly smoke: TokenSmokeRun;
  readonly capacity?: TokenCapacityConfig;
  /**
   * The configuration the plan deployed: with it the capacity proof's report carries a calibration record
   * (`capacity.calibration`) that `cdk-inferentia calibrate` turns into a measured row. @default - no record
   */
  readonly plan?: GenerativePlanBasis;
  /**
   * The endpoint's instance pools, each with the TTFT and TPOT limits its own plan sets: the smoke run and the
   * capacity proof hold each pool's answers (named by `pool=<priority>` in `CustomAttributes`) to them.
   *
   * @default - no pools: runs are judged as a whole only
   */
  readonly pools?: readonly TokenPoolLimits[];
  readonly metricNamespace: string;
  readonly reportPrefix: string;
  readonly failOnReportError?: boolean;
}

/**
 * Streams one load worker holds at most.
 *
 * A streamed request lasts seconds, so a worker's load is the streams it holds open, not requests per second: at
 * 64 streams and a 20 ms TPOT a worker parses about 3,200 server-sent events per second, each a few hundred bytes
 * of JSON (no SigV4 signing per event, unlike the 400 signed requests per second `PER_WORKER_RPS` sizes a single-call
 * worker at), which leaves its one vCPU mostly idle, so its event loop adds well under a millisecond to the TPOT it
 * measures. Not measured on Lambda yet: `npm run bench:generative` drives the stand-in from one process.
 */
export const STREAMS_PER_WORKER = 64;

const positive = lazySchema((z) => z.number().positive());
const lengthDistribution = lazySchema((z) => z
  .object({
    spread: z.enum(['stated', 'default', 'fixed', 'empirical']),
    mean: positive(),
    p99: positive(),
    mu: z.number(),
    sigma: z.number().min(0),
    scv: z.number().min(0),
    max: positive().optional(),
    quantiles: quantileTableSchema().optional(),
    source: z.string(),
  })
  .strict());

const figures = lazySchema((z) => z.object({ ttftP99Ms: positive(), tpotP99Ms: positive(), e2eP99Ms: positive(), outputTokensPerSecond: positive() }).strict());
const thresholds = lazySchema((z) => z
  .object({
    ttftP99MaxMs: positive(),
    tpotP99MaxMs: positive(),
    minOutputTokensPerSecond: z.number().min(0).optional(),
    rateShare: z.number().positive().max(1).optional(),
    maxErrorRate: z.number().min(0).max(1),
  })
  .strict());

/**
 * Schema of {@link TokenProofConfig}: the construct checks what it writes with it, the handlers what they read.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const tokenProofConfigSchema = lazySchema((z) => z
  .object({
    schemaVersion: z.literal(1),
    kind: z.literal('tokens'),
    target: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('sagemaker'), inferenceComponentName: z.string().min(1).optional() }).strict(),
      z.object({ kind: z.literal('http'), headers: z.record(z.string(), z.string()).optional() }).strict(),
    ]),
    fingerprint: z.string().min(1).optional(),
    api: z.enum(['completions', 'chat']),
    model: z.string().min(1),
    golden: z
      .object({
        prompt: z.string().min(1),
        maxTokens: z.number().int().positive(),
        expect: z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('exact'), text: z.string() }).strict(),
          z.object({ kind: z.literal('regex'), pattern: z.string().min(1), flags: z.string().optional() }).strict(),
        ]),
      })
      .strict(),
    smoke: z
      .object({
        requests: z.number().int().positive(),
        concurrency: z.number().int().positive(),
        rateRps: positive(),
        inputTokens: z.number().int().positive(),
        outputTokens: z.number().int().positive(),
        timeoutMs: positive(),
        predicted: figures(),
        thresholds: thresholds(),
      })
      .strict(),
    capacity: z
      .object({
        rateRps: positive(),
        workers: z.number().int().min(1),
        streamsPerWorker: positive(),
        ...loadWindowShape(),
        inputTokens: z.number().int().positive(),
        outputTokens: z.number().int().positive(),
        lengths: z.object({
          input: lengthDistribution(),
          output: lengthDistribution(),
          correlation: z.number().min(-1).max(1).optional(),
          totalP99: positive().optional(),
        }).strict().optional(),
        lengthSeed: z.number().int().min(0).optional(),
        arrivals: arrivalProcessSchema().optional(),
        predicted: figures().extend({ rateRps: positive() }).strict(),
        thresholds: thresholds().extend({ rateShare: z.number().positive().max(1) }).strict(),
      })
      .strict()
      .optional(),
    plan: generativePlanBasisSchema().optional(),
    pools: z.array(z.object({
      pool: z.number().int().min(1).max(5),
      instanceType: z.string().min(1),
      ttftP99MaxMs: positive(),
      tpotP99MaxMs: positive(),
    }).strict()).min(1).optional(),
    metricNamespace: z.string().min(1),
    reportPrefix: z.string().min(1),
    failOnReportError: z.boolean().optional(),
  })
  .strict());

/** True when a `SMOKE_CONFIG` document is a proof in tokens (it says `"kind":"tokens"`). */
export function isTokenProofConfig(text: string | undefined): boolean {
  if (text === undefined) {
    return false;
  }
  try {
    const parsed = JSON.parse(text) as { kind?: unknown } | null;
    return typeof parsed === 'object' && parsed !== null && parsed.kind === 'tokens';
  } catch {
    return false;
  }
}

/** The outcome of the golden-prompt check. */
export interface GoldenVerdict {
  readonly passed: boolean;
  /** `expected "Paris" (exact), got "London"`, for the failure message and the report. */
  readonly message: string;
}

/**
 * Checks the golden answer: `exact` compares the text with leading and trailing white space removed (a tokenizer
 * may emit a leading space), `regex` searches the whole text.
 *
 * @throws Error when the regular expression does not compile (the construct checks it at synth)
 */
export function checkGoldenAnswer(expect: GoldenAnswer, text: string): GoldenVerdict {
  const got = JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}...` : text);
  if (expect.kind === 'exact') {
    const passed = text.trim() === expect.text.trim();
    return { passed, message: `expected ${JSON.stringify(expect.text)} (exact text), got ${got}` };
  }
  const passed = new RegExp(expect.pattern, expect.flags).test(text);
  return { passed, message: `expected text matching /${expect.pattern}/${expect.flags ?? ''}, got ${got}` };
}

/** What a streamed run measured, merged over its workers. */
export interface TokenMeasurement extends RequestTally {
  readonly errorRate: number;
  /** Successful requests per second of the sending window. */
  readonly achievedRps: number;
  /** Requests the run offered (its arrivals) per second of the sending window. */
  readonly offeredRps: number;
  readonly outputTokensPerSecond: number;
  /**
   * Requests that met the TTFT, TPOT (and end-to-end, where limited) limits together, and their rate over the sending
   * window: goodput as vLLM's `bench serve --goodput` defines it, with the run's p99 limits as the per-request limits.
   * @default - not counted (an older load worker)
   */
  readonly goodRequests?: number;
  readonly goodputRps?: number;
  readonly ttftMs: Percentiles;
  readonly tpotMs: Percentiles;
  readonly e2eMs: Percentiles;
  readonly durationMs: number;
  /** Completed requests by the instance pool that answered, when answers named one. @default - none did */
  readonly pools?: readonly TokenPoolMeasurement[];
}

/** p50, p90, p99 and max in milliseconds. */
export interface Percentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** One limit checked against a run in tokens. */
export interface TokenThresholdResult {
  readonly name: 'ttftP99' | 'tpotP99' | 'outputTokensPerSecond' | 'rate' | 'errorRate';
  readonly limit: number;
  readonly measured: number;
  readonly passed: boolean;
  /** The plan's figure, beside the measured one. @default - the plan predicts none */
  readonly predicted?: number;
}

/**
 * Judges a streamed run. A run that measured nothing proves nothing: latency limits fail when no request
 * succeeded, the error rate when none was sent.
 *
 * @param label what the failure sentences start with, e.g. `smoke run` or `capacity proof at 2 requests/s`.
 */
export function judgeTokenRun(
  measured: TokenMeasurement,
  limits: TokenThresholds,
  predicted: Partial<TokenFigures & { rateRps: number }>,
  label: string,
): { readonly thresholds: TokenThresholdResult[]; readonly failures: string[] } {
  const ok = measured.requests > measured.errors;
  const results: TokenThresholdResult[] = [];
  const add = (result: TokenThresholdResult): void => {
    results.push(result.predicted === undefined ? (({ predicted: _, ...rest }) => rest)(result) : result);
  };
  if (limits.rateShare !== undefined) {
    const limit = round2(limits.rateShare * measured.offeredRps);
    add({ name: 'rate', limit, measured: measured.achievedRps, passed: measured.achievedRps > 0 && measured.achievedRps >= limit, predicted: predicted.rateRps });
  }
  add({ name: 'ttftP99', limit: limits.ttftP99MaxMs, measured: measured.ttftMs.p99, passed: ok && measured.ttftMs.p99 <= limits.ttftP99MaxMs, predicted: predicted.ttftP99Ms });
  add({ name: 'tpotP99', limit: limits.tpotP99MaxMs, measured: measured.tpotMs.p99, passed: ok && measured.tpotMs.p99 <= limits.tpotP99MaxMs, predicted: predicted.tpotP99Ms });
  if (limits.minOutputTokensPerSecond !== undefined) {
    add({
      name: 'outputTokensPerSecond',
      limit: limits.minOutputTokensPerSecond,
      measured: measured.outputTokensPerSecond,
      passed: measured.outputTokensPerSecond >= limits.minOutputTokensPerSecond,
      predicted: predicted.outputTokensPerSecond,
    });
  }
  add({ name: 'errorRate', limit: limits.maxErrorRate, measured: measured.errorRate, passed: measured.requests > 0 && measured.errorRate <= limits.maxErrorRate });
  const failures = results.filter((r) => !r.passed).map((r) => `${label}: ${describeTokenThreshold(r, measured)}`);
  return { thresholds: results, failures };
}

/** One limit in words, with the prediction beside the measurement. */
export function describeTokenThreshold(result: TokenThresholdResult, counts: Pick<TokenMeasurement, 'requests' | 'errors'>): string {
  const predicted = result.predicted !== undefined ? `, plan predicted ${fmt(result.predicted)}` : '';
  switch (result.name) {
    case 'ttftP99':
    case 'tpotP99': {
      const what = result.name === 'ttftP99' ? 'p99 time to first token' : 'p99 time per output token';
      if (counts.requests <= counts.errors) {
        return `${what}: no successful request to measure (max ${fmt(result.limit)} ms)`;
      }
      return `${what} ${fmt(result.measured)} ms ${result.passed ? '<=' : '>'} max ${fmt(result.limit)} ms${predicted}`;
    }
    case 'outputTokensPerSecond':
      return `output ${fmt(result.measured)} tokens/s ${result.passed ? '>=' : '<'} min ${fmt(result.limit)} tokens/s${predicted}`;
    case 'rate':
      return `achieved ${fmt(result.measured)} requests/s ${result.passed ? '>=' : '<'} min ${fmt(result.limit)} requests/s (the share of the arrivals offered that must complete)${predicted}`;
    case 'errorRate':
      if (counts.requests === 0) {
        return `error rate: no request measured (max ${pct(result.limit)})`;
      }
      return `error rate ${pct(result.measured)} (${counts.errors} of ${counts.requests}) ${result.passed ? '<=' : '>'} max ${pct(result.limit)}`;
  }
}

/**
 * How many load workers a capacity proof in tokens needs: the streams in flight at the rate (Little's law, at the
 * predicted p99 end-to-end latency so the count errs high) divided by the streams one worker holds.
 */
export function tokenFanOut(rateRps: number, predictedE2eMs: number, streamsPerWorker: number = STREAMS_PER_WORKER): {
  readonly streams: number;
  readonly workers: number;
  readonly streamsPerWorker: number;
} {
  const streams = (rateRps * predictedE2eMs) / 1000;
  const workers = Math.max(1, Math.ceil(streams / streamsPerWorker));
  return { streams: round2(streams), workers, streamsPerWorker: round2(streams / workers) };
}

/** The longest one load worker runs: warm-up, duration and the streams still open (one request timeout). */
export function tokenWorkerRunMs(config: Pick<TokenCapacityConfig, 'warmupMs' | 'durationMs' | 'timeoutMs'>): number {
  return config.warmupMs + config.durationMs + config.timeoutMs;
}

/** The longest the capacity stage takes from the gate's side: the workers' start, their run, their return. */
export function tokenCapacityStageMs(config: Pick<TokenCapacityConfig, 'warmupMs' | 'durationMs' | 'timeoutMs'>): number {
  return WORKER_START_ALLOWANCE_MS + tokenWorkerRunMs(config) + WORKER_RETURN_RESERVE_MS;
}

/**
 * The longest the smoke gate's own stage takes: the golden prompt (one request timeout), the short run at its rate,
 * and its last streams (one request timeout).
 */
export function tokenSmokeStageMs(smoke: Pick<TokenSmokeRun, 'requests' | 'rateRps' | 'timeoutMs'>): number {
  return smoke.timeoutMs + Math.ceil((smoke.requests / smoke.rateRps) * 1000) + smoke.timeoutMs;
}

function fmt(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 2 : 1);
}

function pct(value: number): string {
  return `${(value * 100).toFixed(2)} %`;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
