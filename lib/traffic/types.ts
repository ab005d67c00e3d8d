/**
 * The user's own traffic as plain data: what a log or a benchmark export says about request lengths and arrivals,
 * compact enough to travel in a plan's JSON and in a proof's environment (Lambda allows 4 KiB for all of it).
 *
 * A distribution travels as a quantile table: its values at {@link QUANTILE_PROBABILITIES}, read between points by
 * linear interpolation (`quantileAt`). The grid is cut finely in both tails: the TTFT p99 falls in the prompts'
 * upper tail and the TPOT p99 in the shortest outputs, and p99 is a point of it, so a table gives its file's p99
 * exactly.
 */

/**
 * The probabilities a quantile table holds its values at, from 0 (the smallest) to 1 (the largest): 60 points, every
 * 0.1 % to 0.5 % in the tails, every 2.5 % between.
 */
export const QUANTILE_PROBABILITIES: readonly number[] = [
  0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05,
  ...Array.from({ length: 35 }, (_, i) => Math.round((0.075 + i * 0.025) * 1000) / 1000),
  0.95, 0.96, 0.97, 0.975, 0.98, 0.985, 0.99, 0.992, 0.994, 0.995, 0.996, 0.997, 0.998, 0.999, 0.9995, 1,
];

/** What summarises one count (prompt or output tokens) over a file's rows. */
export interface CountSummary {
  readonly mean: number;
  readonly p50: number;
  /** 99th percentile: the smallest value at least 99 % of rows are at or below. */
  readonly p99: number;
  readonly max: number;
  /** Squared coefficient of variation (variance / mean^2). */
  readonly scv: number;
  /** Values at {@link QUANTILE_PROBABILITIES}. */
  readonly quantiles: readonly number[];
}

/**
 * How requests arrive: a renewal process, each gap between two requests drawn independently from one distribution.
 * Plain data: it travels in plans (`targets.arrivals`) and in proofs.
 */
export interface ArrivalProcess {
  /**
   * Squared coefficient of variation of the gaps: 1 is Poisson (independent users), above 1 bursty, below 1 more
   * regular than Poisson.
   */
  readonly scv: number;
  /** Where it comes from, in words. */
  readonly source: string;
  /**
   * The gaps relative to their mean, at {@link QUANTILE_PROBABILITIES}: the file's own gaps, when it had timestamps.
   *
   * @default - gamma-distributed gaps of shape 1 / scv (what `vllm bench serve --burstiness 1/scv` sends; exponential,
   * Poisson, at scv 1)
   */
  readonly gapQuantiles?: readonly number[];
}

/** What a file's timestamps say about arrivals. */
export interface ArrivalSummary {
  /** The gaps' squared coefficient of variation, rate drift slower than {@link ARRIVAL_WINDOW_SECONDS} removed. */
  readonly scv: number;
  /** The smallest and largest SCV of ten consecutive tenths of the gaps: how much the estimate moves within the file. */
  readonly scvRange: readonly [number, number];
  /** The gaps relative to their local mean, at {@link QUANTILE_PROBABILITIES}. */
  readonly gapQuantiles: readonly number[];
  /** Requests per second over the file's span. */
  readonly meanRps: number;
  readonly durationSeconds: number;
  /** Requests of the busiest whole minute over the mean minute's. @default - the file spans less than two minutes */
  readonly busiestMinuteOverMean?: number;
  /** Rows with a timestamp (the arrivals are measured over these). */
  readonly timestamps: number;
  /** The field the times came from, and how they were read (`created, epoch seconds`). */
  readonly field: string;
  /** Set when timestamps were whole seconds or milliseconds and arrivals sharing one were spread over it. */
  readonly spreadOver?: string;
}

/** The formats `--lengths-from` reads. */
export type TrafficFormat =
  /** A header row naming a prompt and an output count column, and optionally a time column. */
  | 'csv'
  /** One JSON object a line: OpenAI-style `usage`, AIPerf records or Amazon Bedrock invocation logs. */
  | 'jsonl'
  /** `vllm bench serve --save-result --save-detailed`: one JSON document with `input_lens` and `output_lens`. */
  | 'vllm-bench'
  /** `guidellm benchmark --output-path benchmarks.json`: `benchmarks[].requests.successful[]`. */
  | 'guidellm'
  /** LLMPerf's `*_individual_responses.json`: a JSON array of per-request metrics. */
  | 'llmperf';

/** Everything a traffic file says that planning uses: token counts and arrival times, never any text. */
export interface TrafficSummary {
  /** `rag.csv (csv, 20,000 rows)`. */
  readonly source: string;
  /** The file's name as given. */
  readonly file: string;
  readonly format: TrafficFormat;
  /** Rows planned from. */
  readonly requests: number;
  /** Rows left out, and why: failed requests of a benchmark, log lines without token counts. */
  readonly skipped: { readonly failed: number; readonly withoutCounts: number };
  /** Prompt and output tokens. @default - the file has arrival times only */
  readonly input?: CountSummary;
  readonly output?: CountSummary;
  /** Prompt plus output tokens of each row (their correlation included). */
  readonly total?: CountSummary;
  /**
   * Spearman's rank correlation of prompt and output tokens over the rows (0 when independent).
   *
   * @default - no lengths
   */
  readonly rankCorrelation?: number;
  /** @default - the file has no (or too few) timestamps */
  readonly arrivals?: ArrivalSummary;
}

/**
 * Rate changes slower than this are load changes (what autoscaling and `--peak` size for), not burstiness: gaps are
 * measured against the mean gap of the minute around them. Faster ones are what a replica's queue sees while it
 * serves a few requests.
 */
export const ARRIVAL_WINDOW_SECONDS = 60;

/** Fewest gaps an arrival SCV is measured from: below it the estimate scatters too far to plan with. */
export const MIN_ARRIVAL_GAPS = 100;
