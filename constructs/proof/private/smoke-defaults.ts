/** The smoke benchmark's defaults and limits, shared by the construct and its prop checks. */
import { Duration } from 'aws-cdk-lib';


/**
 * The longest function timeout a smoke run may have.
 *
 * The Trigger provider Lambda (aws-cdk-lib `TriggerProvider`, a CustomResourceProvider) has a fixed 15-minute
 * timeout, retries the invoke on AccessDeniedException for up to 60 s while IAM propagates (12 x 5 s), and must
 * answer CloudFormation after our function returns. If the provider itself times out, CloudFormation waits an hour
 * for an answer (aws-cdk#2126). 13 minutes for our function plus a 30 s invoke margin leaves it that time.
 */
export const MAX_SMOKE_TIMEOUT = Duration.minutes(13);

/** How much longer the Trigger waits on the invoke than the function may run, so the function's own answer wins. */
export const INVOKE_MARGIN = Duration.seconds(30);

/**
 * What the Trigger provider adds to the invoke: up to 60 s of AccessDeniedException retries while IAM propagates,
 * then answering CloudFormation.
 */
export const PROVIDER_OVERHEAD = Duration.seconds(90);

/** How much longer a load worker may run than its run and return need: a cold start of the bundled handler. */
export const WORKER_TIMEOUT_MARGIN = Duration.seconds(30);

export const DEFAULT_CAPACITY_DURATION = Duration.seconds(60);
export const DEFAULT_CAPACITY_WARMUP = Duration.seconds(10);
export const DEFAULT_CAPACITY_RATE_SHARE = 0.95;

/** Lambda's limit on the total size of a function's environment variables (keys and values). */
export const LAMBDA_ENVIRONMENT_BYTES = 4096;

/** What a value known only at deploy time (endpoint name, bucket, stack ARN, URL) may add to the environment. */
export const TOKEN_VALUE_BYTES = 256;

export const DEFAULT_METRIC_NAMESPACE = 'CdkInferentia/SmokeBenchmark';
export const DEFAULT_REPORT_PREFIX = 'smoke-benchmarks';
export const DEFAULT_ERROR_RATE = 0.01;
export const DEFAULT_THROUGHPUT_SHARE = 0.5;
export const DEFAULT_DURATION = Duration.seconds(30);
export const DEFAULT_WARMUP = Duration.seconds(5);
export const DEFAULT_REQUEST_TIMEOUT = Duration.seconds(10);
export const DEFAULT_CONCURRENCY_WITHOUT_PLAN = 4;
export const MAX_DEFAULT_CONCURRENCY = 32;
export const REPORT_PREFIX = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;
export const TARGET_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/** The pass rules and timing every capacity proof takes, whatever its units (requests or tokens). */
export interface CapacityGates {
  readonly rateShare: number;
  readonly maxErrorRate: number;
  readonly durationMs: number;
  readonly warmupMs: number;
}

/**
 * `capacityProof`'s share of the rate to reach, error rate, duration and warmup with their defaults, each problem
 * pushed onto `problems`: the single-call and token proofs differ in how they size the load, not in these.
 */
export function capacityGates(
  options: { readonly rateShare?: number; readonly maxErrorRate?: number; readonly duration?: Duration; readonly warmup?: Duration },
  problems: string[],
): CapacityGates {
  const rateShare = options.rateShare ?? DEFAULT_CAPACITY_RATE_SHARE;
  if (!(rateShare > 0 && rateShare <= 1)) {
    problems.push(`capacityProof.rateShare=${rateShare} must be above 0 and at most 1, e.g. 0.95`);
  }
  const maxErrorRate = options.maxErrorRate ?? DEFAULT_ERROR_RATE;
  if (!(maxErrorRate >= 0 && maxErrorRate <= 1)) {
    problems.push(`capacityProof.maxErrorRate=${maxErrorRate} must be between 0 and 1, e.g. 0.01 for 1 %`);
  }
  const durationMs = (options.duration ?? DEFAULT_CAPACITY_DURATION).toMilliseconds();
  const warmupMs = (options.warmup ?? DEFAULT_CAPACITY_WARMUP).toMilliseconds();
  if (!(durationMs > 0)) {
    problems.push(`capacityProof.duration=${durationMs} ms must be positive, e.g. Duration.seconds(60)`);
  }
  return { rateShare, maxErrorRate, durationMs, warmupMs };
}

/**
 * The rate `capacityProof` drives: `rateRps`, or the plan's rate (its capacity, or its target rate for a generative
 * plan) x `fraction`, each problem pushed onto `problems`; NaN with a problem when there is no plan to take it from.
 * `what` names the plan's rate in the messages and `example` is a sensible rate for the workload.
 */
export function proofRate(
  options: { readonly rateRps?: number; readonly fraction?: number },
  planRps: number | undefined,
  hint: { readonly what: string; readonly example: number },
  problems: string[],
): number {
  const fraction = options.fraction ?? 1;
  if (!(fraction > 0 && fraction <= 2)) {
    problems.push(`capacityProof.fraction=${fraction} must be above 0 and at most 2, e.g. 1 for the ${hint.what}`);
  }
  if (options.rateRps !== undefined && options.fraction !== undefined) {
    problems.push(`capacityProof.rateRps=${options.rateRps} and capacityProof.fraction=${fraction} are both set; give one`);
  }
  const rateRps = options.rateRps ?? (planRps !== undefined ? Math.round(planRps * fraction * 100) / 100 : NaN);
  if (options.rateRps === undefined && planRps === undefined) {
    problems.push(`capacityProof needs a plan to take its rate from, or capacityProof.rateRps, e.g. ${hint.example}`);
  } else if (!(rateRps > 0) || !Number.isFinite(rateRps)) {
    problems.push(`capacityProof.rateRps=${rateRps} must be a positive number of requests per second, e.g. ${hint.example}`);
  }
  return rateRps;
}
