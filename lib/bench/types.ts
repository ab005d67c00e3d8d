/**
 * Shapes of the load engine shared by the `bench` CLI and the post-deploy smoke-benchmark Lambda.
 */
import type { ArrivalShare } from '../traffic/arrivals';

/** What to send requests to. */
export type BenchTarget =
  | {
      readonly kind: 'http';
      /** Full URL, http or https. */
      readonly url: string;
      /** @default 'POST' when a body is given, else 'GET' */
      readonly method?: 'GET' | 'POST' | 'PUT';
      readonly headers?: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: 'sagemaker';
      readonly endpointName: string;
      /** @default - the SDK's default region chain */
      readonly region?: string;
      /** Send to one production variant. @default - SageMaker routes */
      readonly targetVariant?: string;
    };

/** How load is generated. */
export type LoadMode =
  /** N requests in flight at all times. */
  | { readonly kind: 'closed'; readonly concurrency: number }
  /**
   * A fixed arrival rate; latency is measured from each request's intended send time, so a stalled server shows up
   * in the percentiles (no coordinated omission).
   */
  | {
      readonly kind: 'open';
      readonly rateRps: number;
      readonly maxInFlight?: number;
      /**
       * How intended send times are spaced: `uniform`, one every `1 / rateRps`; `poisson`, exponential gaps of that
       * mean drawn from a seeded generator (many independent users, the arrivals the planner sizes for); an
       * `ArrivalShare`, this sender's share of a plan's arrival process (a log's bursty traffic), every sender of the
       * process given the same seed.
       * @default 'uniform'
       */
      readonly arrivals?: 'uniform' | 'poisson' | ArrivalShare;
      /** Seed of the drawn gaps, so a run repeats. @default 1 */
      readonly seed?: number;
    };

/** When to stop the measured phase. */
export type StopCondition = { readonly durationMs: number } | { readonly requests: number };

/** What a correct answer looks like. A wrong answer counts as an error of kind `wrong-answer`. */
export type AnswerCheck =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'json-path'; readonly path: string; readonly value: unknown }
  | { readonly kind: 'regex'; readonly pattern: string };

/** Limits the run must meet. Omitted limits are not checked. */
export interface Thresholds {
  readonly p50MaxMs?: number;
  readonly p99MaxMs?: number;
  readonly minThroughputRps?: number;
  /** 0..1 */
  readonly maxErrorRate?: number;
  /**
   * Highest p99 of the time the model server itself reports (its timing header, see `serverTiming`): judged
   * against the plan directly, without the network and router in between. Fails when no answer carried the header.
   */
  readonly serverP99MaxMs?: number;
}

/** Progress callback payload, about once per second. */
export interface BenchProgress {
  readonly phase: 'warmup' | 'measure';
  readonly elapsedMs: number;
  readonly totalMs?: number;
  readonly requests: number;
  readonly errors: number;
}

export interface BenchOptions {
  readonly target: BenchTarget;
  /** Request body (sent as is). */
  readonly body?: string;
  /** @default 'application/json' */
  readonly contentType?: string;
  readonly mode: LoadMode;
  readonly stop: StopCondition;
  /** Warm-up before measuring; its requests are not in the report. @default 0 */
  readonly warmupMs?: number;
  /** Per-request timeout in milliseconds. @default 10000 */
  readonly timeoutMs?: number;
  /** @default 200 */
  readonly expectStatus?: number;
  readonly expect?: AnswerCheck;
  readonly thresholds?: Thresholds;
  readonly onProgress?: (progress: BenchProgress) => void;
  /** Aborts the run; the report covers what was measured. */
  readonly signal?: AbortSignal;
  /**
   * Read the model server's timing header (`X-Amzn-SageMaker-Custom-Attributes`, returned by InvokeEndpoint as
   * `CustomAttributes`) of every successful answer into `report.server`. Implied by `thresholds.serverP99MaxMs`.
   *
   * @default false
   */
  readonly serverTiming?: boolean;
  /**
   * Put the encoded HDR histograms in `report.encoded`, for a caller that merges several runs (the capacity
   * proof's load workers).
   *
   * @default false
   */
  readonly encodeHistograms?: boolean;
}

/** What the model server said about the run's successful answers (see `BenchOptions.serverTiming`). */
export interface ServerTimingReport {
  /** Successful answers that carried the header. */
  readonly answers: number;
  /** Time in the server, from the arrival of the request to its answer. */
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number };
  /** Mean requests per device call, weighted by request (what a request experienced). @default - not reported */
  readonly meanBatchRequests?: number;
  /** Mean inputs per device call, weighted by request. @default - not reported */
  readonly meanBatchInputs?: number;
  /**
   * Device time of the call that answered each request (`device-ms`), weighted by request: what calibration compares
   * with the profile's measured call latency. @default - not reported (the server sent no `device-ms`)
   */
  readonly deviceMs?: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number };
  /**
   * `server-ms - device-ms` of each request: queue wait, batch formation and host work in the server. Its low end is
   * the host work of a request that did not wait (`p5`). @default - not reported (the server sent no `device-ms`)
   */
  readonly overheadMs?: { readonly p5: number; readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number };
}

/** One threshold checked against the run. */
export interface ThresholdResult {
  readonly name: 'p50' | 'p99' | 'throughput' | 'errorRate' | 'serverP99';
  readonly limit: number;
  readonly measured: number;
  readonly passed: boolean;
}

/**
 * How many requests a run sent and how many failed, by kind: every run counts its requests so, single-call or in
 * tokens, one worker or merged.
 */
export interface RequestCounts {
  readonly requests: number;
  readonly errors: number;
  /** e.g. `{ 'http-503': 3, timeout: 1, connection: 2, 'model-error': 1, throttled: 4, 'wrong-answer': 1 }` */
  readonly errorsByKind: Readonly<Record<string, number>>;
}

/** {@link RequestCounts} with the first error of each kind in words. */
export interface RequestTally extends RequestCounts {
  /**
   * The first error of each kind, in words, e.g. `{ connection: 'connect ECONNREFUSED 127.0.0.1:9',
   * 'wrong-answer': 'got {"label":"dog"}' }`, so a failed run says what went wrong and not only how often.
   */
  readonly errorSamples: Readonly<Record<string, string>>;
}

/** What a run measured. */
export interface BenchReport extends RequestTally {
  readonly errorRate: number;
  readonly throughputRps: number;
  /** Successful requests only. */
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number };
  readonly thresholds: readonly ThresholdResult[];
  /** Every threshold held and at least one request succeeded. */
  readonly passed: boolean;
  /** Why the run failed, one sentence per reason (see `runFailures`); empty when it passed. */
  readonly failures: readonly string[];
  readonly durationMs: number;
  readonly startedAt: string;
  /** Latency distribution for charts: upper bound in ms and count per bucket. */
  readonly histogram: readonly { readonly upToMs: number; readonly count: number }[];
  /** The server's own timing, when asked for and any answer carried it. @default - not measured */
  readonly server?: ServerTimingReport;
  /**
   * The successful answers by SageMaker instance pool, read from the same header as the server's timing, when any
   * answer named its pool (an endpoint with instance pools). @default - no answer named a pool
   */
  readonly pools?: readonly PoolAnswers[];
  /** The encoded HDR histograms (microseconds), when asked for (`encodeHistograms`). @default - not included */
  readonly encoded?: EncodedHistograms;
}

/** A run's distributions in HdrHistogram compressed base64 form, with the counts merging needs. */
export interface EncodedHistograms {
  /** Client-side latency of successful requests. */
  readonly latency: string;
  /** The server's timing, when measured. */
  readonly server?: {
    readonly latency: string;
    readonly batched: number;
    readonly batchRequestsSum: number;
    readonly batchInputsSum: number;
    /** Device time per answer (`device-ms`), when the server sent it. @default - not measured */
    readonly device?: string;
    /** `server-ms - device-ms` per answer, with `device`. @default - not measured */
    readonly overhead?: string;
  };
  /** Each instance pool's histograms, when answers named their pool. @default - none did */
  readonly pools?: readonly EncodedPool[];
}

/** What one pool's answers measured. */
export interface PoolAnswers {
  /** The pool's priority (1: the chosen instance type). */
  readonly pool: number;
  readonly answers: number;
  /** Client-side latency of the pool's successful answers (single-call), ms. */
  readonly latencyMs?: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number };
  /** The servers' own time (`server-ms`) of the pool's answers, when they sent it, ms. */
  readonly serverLatencyMs?: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number };
}

/** The encoded histograms of one pool, to merge a worker's into the gate's. */
export interface EncodedPool {
  readonly pool: number;
  readonly latency: string;
  readonly server?: string;
}
