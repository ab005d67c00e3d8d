/** What a {@link SmokeBenchmark} takes: the request and its expected answer, the load, the capacity proof. */
import { Duration } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { type IConstruct } from 'constructs';
import type { AnswerCheck, Thresholds } from '../../lib/bench/types';
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
}

/** Everything a {@link SmokeBenchmark} takes besides its target and plan (e.g. an endpoint's `smokeBenchmark` prop). */
export interface SmokeBenchmarkOptions {
  /** The golden request. */
  readonly request: SmokeRequest;

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
   * The plan the target was deployed from; the default thresholds and concurrency come from it.
   *
   * @default - no plan: give `thresholds`, or only the error rate and the answers are checked
   */
  readonly plan?: Plan;
}
