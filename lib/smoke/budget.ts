/**
 * How long a smoke run may take, so the Lambda always answers before its own timeout.
 *
 * A handler that dies on its timeout still answers the Trigger (Lambda reports the timeout), but with no report,
 * no metrics and a message that says nothing about the endpoint. The handler therefore sizes the run from the time
 * it has left and stops it itself; the construct uses the same numbers to reject, at synth, a run that cannot fit.
 */
import type { LoadMode, StopCondition } from '../bench/types';

/** Kept back after the run for the report: two S3 PutObject calls (with SDK retries) and the EMF metrics line. */
export const REPORT_RESERVE_MS = 5_000;

/**
 * How long the two report writes may take in all, retries included: inside {@link REPORT_RESERVE_MS}, so a stalled
 * S3 leaves the handler time to give its verdict.
 */
export const REPORT_WRITE_DEADLINE_MS = 4_000;

/** How long the engine gets to wind down after its run is aborted before the handler gives up on it. */
export const STOP_GRACE_MS = 2_000;

/**
 * What runs before the benchmark starts: a cold start of the bundled handler, reading the settings and the
 * CloudFormation `DescribeStacks` call (with retries). Only the construct adds it: the handler measures what is
 * actually left when it gets there.
 */
export const STARTUP_ALLOWANCE_MS = 15_000;

/** The parts of a run that decide how long it takes. */
export interface RunShape {
  readonly mode: LoadMode;
  readonly stop: StopCondition;
  readonly warmupMs: number;
  readonly timeoutMs: number;
}

/**
 * The longest a run of this shape takes: warm-up, the measured duration, then the requests still in flight, each
 * bounded by the request timeout.
 *
 * @returns `undefined` for a run that stops after a request count: its length depends on the target's latency, so
 *   only the time budget bounds it.
 */
export function longestRunMs(shape: RunShape): number | undefined {
  if (!('durationMs' in shape.stop)) {
    return undefined;
  }
  return shape.warmupMs + shape.stop.durationMs + shape.timeoutMs;
}

/**
 * The function timeout a run of this shape needs: startup, the longest run, the stop grace and the report.
 *
 * @returns `undefined` for a request-count run (see {@link longestRunMs}).
 */
export function requiredFunctionTimeoutMs(shape: RunShape): number | undefined {
  const run = longestRunMs(shape);
  return run === undefined ? undefined : STARTUP_ALLOWANCE_MS + run + STOP_GRACE_MS + REPORT_RESERVE_MS;
}

/** How long the run may take, or why it cannot start. */
export type RunBudget =
  | {
      readonly fits: true;
      /** Abort the run after this many milliseconds from now. */
      readonly runMs: number;
    }
  | { readonly fits: false; readonly reason: string };

/**
 * Sizes the run from the time the invocation has left.
 *
 * @param remainingMs `context.getRemainingTimeInMillis()` just before the run starts.
 */
export function planRunBudget(remainingMs: number, shape: RunShape): RunBudget {
  const runMs = Math.floor(remainingMs - REPORT_RESERVE_MS - STOP_GRACE_MS);
  const longest = longestRunMs(shape);
  if (longest !== undefined && longest > runMs) {
    return {
      fits: false,
      reason:
        `the smoke benchmark needs up to ${seconds(longest)} (warm-up ${seconds(shape.warmupMs)} + duration ` +
        `${seconds(longest - shape.warmupMs - shape.timeoutMs)} + one request timeout ${seconds(shape.timeoutMs)}) ` +
        `but the Lambda has ${seconds(Math.max(0, runMs))} left for it after keeping ` +
        `${seconds(REPORT_RESERVE_MS + STOP_GRACE_MS)} to stop and write the report; raise the SmokeBenchmark ` +
        `\`timeout\` or shorten \`load.duration\`/\`load.warmup\``,
    };
  }
  if (runMs <= 0) {
    return {
      fits: false,
      reason:
        `the Lambda has ${seconds(Math.max(0, remainingMs))} left, less than the ` +
        `${seconds(REPORT_RESERVE_MS + STOP_GRACE_MS)} it keeps to stop and write the report; raise the ` +
        `SmokeBenchmark \`timeout\``,
    };
  }
  return { fits: true, runMs };
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
