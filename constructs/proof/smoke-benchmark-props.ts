/** What a {@link SmokeBenchmark} takes: the request and its expected answer, the load, the capacity proof. */
import { Duration } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { type IConstruct } from 'constructs';
import type { GoldenAnswer, TokenApi } from '../../lib/bench/token-proof';
import type { AnswerCheck, Thresholds } from '../../lib/bench/types';
import type { GenerativePlan } from '../../lib/generative/types';
import type { Plan } from '../../lib/planner/types';
import type { SmokeTarget } from './smoke-target';

/** The request every benchmark call sends. */
export interface SmokeRequest {
  /** The body, sent as is: a golden input whose answer `expect` knows. */
  readonly body: string;
  /** @default 'application/json' */
  readonly contentType?: string;
}

/** How much load the smoke run applies, and for how long. */
export interface SmokeLoad {
  /**
   * Requests kept in flight (closed loop). Give this or `rateRps`, not both.
   *
   * @default - one per planned model process (instances x processes per instance, at most 32); 4 without a plan
   */
  readonly concurrency?: number;
  /**
   * A fixed arrival rate in requests per second (open loop: latency counts from each request's intended send time,
   * so a stalling endpoint cannot hide). Give this or `concurrency`, not both.
   *
   * @default - closed loop at `concurrency`
   */
  readonly rateRps?: number;
  /** How long to measure. Give this or `requests`, not both. @default Duration.seconds(30) */
  readonly duration?: Duration;
  /**
   * Stop after this many measured requests instead of after a duration. Its length depends on the endpoint's
   * latency, so it cannot be checked at synth; the run is cut (and fails) at the Lambda's time budget.
   *
   * @default - stop after `duration`
   */
  readonly requests?: number;
  /** Requests sent before measuring, to warm connections and the model; not in the report. @default Duration.seconds(5) */
  readonly warmup?: Duration;
  /** Longest wait for one answer; a later answer counts as a `timeout` error. @default Duration.seconds(10) */
  readonly requestTimeout?: Duration;
}

/**
 * The capacity proof: after the smoke run passes, drive the target open-loop at the planned rate for a while, fanned
 * out over load-worker Lambda invocations, and fail the deployment when the achieved rate or the p99 misses the plan.
 *
 * It costs Lambda time (workers x (warm-up + duration) at 1769 MB) and the endpoint's invocations at the full rate:
 * turn it on where a deployment is promoted from (staging), not on every deploy. See docs/smoke-benchmark.md.
 */
export interface CapacityProofOptions {
  /**
   * Total requests per second to drive.
   *
   * @default - `fraction` x the plan's `capacityRps` (a plan is then required)
   */
  readonly rateRps?: number;
  /** Share of the plan's capacity to drive when `rateRps` is not given, above 0 and at most 2. @default 1 */
  readonly fraction?: number;
  /** How long to measure. @default Duration.seconds(60) */
  readonly duration?: Duration;
  /** Load before measuring (the workers' connections, the endpoint's queues settling). @default Duration.seconds(10) */
  readonly warmup?: Duration;
  /** Share (0-1] of `rateRps` the successful requests per second must reach. @default 0.95 */
  readonly rateShare?: number;
  /**
   * Highest client-side p99.
   *
   * @default - the plan's p99 at this rate (its `predictedP99Ms` up to the target rate, the target p99 above it) plus
   *   `latencyAllowance`
   */
  readonly p99Max?: Duration;
  /**
   * Highest p99 of the model server's own timing (its `X-Amzn-SageMaker-Custom-Attributes` header).
   *
   * @default - the plan's p99 at this rate for a `batching` plan (served by this project's model server, which sends
   *   the header); not judged for a `stock` plan, whose server does not send it
   */
  readonly serverP99Max?: Duration;
  /** Highest error rate, 0-1. @default 0.01 */
  readonly maxErrorRate?: number;
  /**
   * Requests per second one worker invocation drives; the fan-out is `ceil(rateRps / perWorkerRps)` workers.
   *
   * @default PER_WORKER_RPS (400, half of what `npm run bench:smoke-fanout` measured one invocation to hold)
   */
  readonly perWorkerRps?: number;
  /**
   * For a generative plan: streams one worker holds at once. A streamed request lasts seconds, so the fan-out is
   * `ceil(rate x predicted e2e p99 / streamsPerWorker)` workers (single-call plans use `perWorkerRps`).
   *
   * @default STREAMS_PER_WORKER (64)
   */
  readonly streamsPerWorker?: number;
}

/** The golden prompt of a proof in tokens: sent once, streamed, with greedy decoding (temperature 0). */
export interface GoldenPromptOptions {
  /**
   * The prompt: the user message with `api: 'chat'`, the text to continue with `api: 'completions'`.
   *
   * @default - 'What is the capital of France? Answer with one word.' (chat) or 'The capital of France is'
   *   (completions), expecting /\bParis\b/
   */
  readonly prompt?: string;
  /** `max_tokens` of the answer. @default 16 */
  readonly maxTokens?: number;
  /**
   * The answer greedy decoding gives: `{ kind: 'exact', text }` (compared with surrounding white space trimmed) or
   * `{ kind: 'regex', pattern, flags? }` (searched in the text). A wrong answer fails the deployment with the
   * expected and the received text.
   *
   * @default - { kind: 'regex', pattern: '\\bParis\\b' } for the default prompt; required with your own prompt
   */
  readonly expect?: GoldenAnswer;
}

/**
 * How a generative deployment is proven in tokens: the golden prompt, the request shape, the short streamed run
 * and limits over the plan's. Required when `plan` is a `GenerativePlan`.
 */
export interface TokenProofOptions {
  /** The model name the engine serves (vLLM's `--served-model-name`), sent as the request's `model`. */
  readonly servedModelName: string;
  /** `chat` (`/v1/chat/completions`) or `completions` (`/v1/completions`). @default 'chat' */
  readonly api?: TokenApi;
  /** The golden prompt and its answer. @default - see {@link GoldenPromptOptions} */
  readonly golden?: GoldenPromptOptions;
  /** Requests of the short streamed run, at the plan's input and output lengths. @default 20 */
  readonly requests?: number;
  /**
   * Streams the short run keeps in flight (an open-loop rate of `concurrency / predicted e2e p99`).
   *
   * @default - 4, or the sequences the plan runs at once when fewer
   */
  readonly concurrency?: number;
  /** Longest one streamed request may take. @default - 3 x the plan's predicted e2e p99, at least 30 s */
  readonly requestTimeout?: Duration;
  /** Highest p99 time to first token. @default - the plan's TTFT target plus `latencyAllowance` */
  readonly ttftP99Max?: Duration;
  /** Highest p99 time per output token. @default - the plan's TPOT target */
  readonly tpotP99Max?: Duration;
}

/** Everything a {@link SmokeBenchmark} takes besides its target and plan (e.g. an endpoint's `smokeBenchmark` prop). */
export interface SmokeBenchmarkOptions {
  /**
   * The golden request of a single-call plan. Not used with a generative plan (see `tokens`).
   *
   * @default - none: required unless the plan is generative
   */
  readonly request?: SmokeRequest;

  /**
   * The proof in tokens, for a generative plan: golden prompt, request shape, short streamed run, limits.
   *
   * @default - none: required when `plan` is a `GenerativePlan`
   */
  readonly tokens?: TokenProofOptions;

  /**
   * What a correct answer looks like: exact JSON, a JSON path with a value, or a regex. A wrong answer counts as an
   * error of kind `wrong-answer`: an endpoint that answers 200 after its model failed to load
   * (deep-learning-containers#2917) does not pass.
   *
   * @default - any body is accepted; only the status is checked
   */
  readonly expect?: AnswerCheck;

  /** The status a correct answer has. @default 200 */
  readonly expectStatus?: number;

  /** Load shape and length. @default - see {@link SmokeLoad} */
  readonly load?: SmokeLoad;

  /**
   * Limits the run must meet, over the defaults derived from the plan (a key set to `undefined` drops that default).
   *
   * @default - from the plan: p99 <= plan.targets.p99Ms + latencyAllowance; throughput >= throughputShare x what
   *   the run's load can drive at the plan's p50 (concurrency x 1000 / (plan.p50Ms + latencyAllowance), or
   *   rateRps), capped by the plan's capacity; error rate <= 1 %. Without a plan only the error rate.
   */
  readonly thresholds?: Thresholds;

  /**
   * What the client side adds to the model latency the plan describes: the SageMaker Runtime API round trip, or the
   * hop to a load balancer. Added to the plan's p99 target and p50 for the default thresholds.
   *
   * @default - 20 ms for a SageMaker endpoint, 5 ms for a URL
   */
  readonly latencyAllowance?: Duration;

  /**
   * Share (0-1] of what the run's load can drive that the measured throughput must reach. Below 1 so client-side
   * jitter and a short run do not fail a healthy endpoint, yet a model that fell back to CPU (aws-neuron-sdk#361),
   * many times slower, fails.
   *
   * @default 0.5
   */
  readonly throughputShare?: number;

  /**
   * Timeout of the benchmark Lambda, at most `MAX_SMOKE_TIMEOUT` (13 minutes). The Trigger waits 30 s longer.
   *
   * @default - startup (15 s) + warm-up + duration + one request timeout + the report (7 s), plus one minute,
   *   at least 2 minutes; 5 minutes for a run that stops after `load.requests`
   */
  readonly timeout?: Duration;

  /**
   * Where the JSON reports go, under `<reportPrefix>/<name>/`. The function may only put objects there.
   *
   * @default - a bucket this construct defines: SSE-S3 encrypted, SSL only, public access blocked, access logs to
   *   a second bucket, retained on delete
   */
  readonly reportBucket?: s3.IBucket;

  /** Key prefix of the reports, without leading or trailing `/`. @default 'smoke-benchmarks' */
  readonly reportPrefix?: string;

  /**
   * Fail the deployment when the report cannot be written to S3, even though the endpoint passed.
   *
   * @default false - a healthy endpoint is kept; the failed write is logged naming its bucket and key
   */
  readonly failOnReportError?: boolean;

  /** CloudWatch namespace of the metrics. @default 'CdkInferentia/SmokeBenchmark' */
  readonly metricNamespace?: string;

  /** The `Environment` dimension of the metrics and the report, e.g. `prod`. @default - the stack name */
  readonly environmentName?: string;

  /** Retention of the function's log group (which also carries the EMF metrics). @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;

  /** More constructs the benchmark must run after. @default - only the target's */
  readonly executeAfter?: IConstruct[];

  /**
   * Prove the planned capacity after the smoke run: see {@link CapacityProofOptions}.
   *
   * @default - no capacity proof
   */
  readonly capacityProof?: CapacityProofOptions;
}

/** Props of {@link SmokeBenchmark}. */
export interface SmokeBenchmarkProps extends SmokeBenchmarkOptions {
  /** What to measure. */
  readonly target: SmokeTarget;

  /**
   * The plan the target was deployed from; the default thresholds and concurrency come from it. A
   * `GenerativePlan` makes the benchmark a proof in tokens (TTFT, TPOT, output tokens/s; see `tokens`).
   *
   * @default - no plan: give `thresholds`, or only the error rate and the answers are checked
   */
  readonly plan?: Plan | GenerativePlan;
}

/**
 * The proof of a generative hosting, in tokens: every option but the single-call request and expectation, and the
 * served model name, which the hosting knows.
 */
export type GenerativeSmokeBenchmarkOptions = Omit<SmokeBenchmarkOptions, 'request' | 'expect' | 'tokens'>
& { readonly tokens?: Omit<TokenProofOptions, 'servedModelName'> };
