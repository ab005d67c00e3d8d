/**
 * The load engine: drives a target in a closed or open loop and measures what it answers.
 */
import type { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { compileAnswerCheck } from './answer';
import { classifyError, errorKindForStatus, RequestTimeoutError, type ErrorKind } from './errors';
import { LatencyRecorder } from './latency';
import { openSender, type Sender } from './targets';
import { evaluateThresholds } from './thresholds';
import type { BenchOptions, BenchProgress, BenchReport } from './types';
import { validateBenchOptions } from './validate';

/** What a run may be given instead of creating it. */
export interface BenchDeps {
  /**
   * The client for a SageMaker target.
   *
   * @default - one client per run, with no retries, from the SDK's standard configuration (region from the target
   *   or the default chain; endpoint overrides such as `AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME` apply). An injected
   *   client keeps its own retry settings: set `maxAttempts: 1` so retries do not hide errors.
   */
  readonly sageMakerClient?: SageMakerRuntimeClient;
}

/** @see BenchOptions.timeoutMs */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Sockets a default open-loop in-flight cap may hold at most. */
const MAX_DEFAULT_IN_FLIGHT = 1000;

/**
 * The open-loop in-flight cap used when none is given.
 *
 * In-flight requests never exceed rate x timeout (each ends by its timeout), so the cap only bites when a slow
 * server would hold more than 10 s of arrivals, or more than 1000 sockets.
 */
export function defaultMaxInFlight(rateRps: number, timeoutMs: number): number {
  const worstCase = Math.ceil(Math.min(10 * rateRps, (rateRps * timeoutMs) / 1000));
  return Math.min(MAX_DEFAULT_IN_FLIGHT, Math.max(1, worstCase));
}

/** The reason in-flight requests are aborted when the caller aborts the run: their outcome is not measured. */
class RunAbortedError extends Error {
  constructor() {
    super('benchmark run aborted');
    this.name = 'RunAbortedError';
  }
}

function abortForTimeout(controller: AbortController, timeoutMs: number): void {
  controller.abort(new RequestTimeoutError(timeoutMs));
}

/**
 * Runs a benchmark and reports what the measured phase saw.
 *
 * - Closed loop: `concurrency` requests in flight at all times; latency from each send.
 * - Open loop: requests at a fixed rate; latency from each request's intended send time, so a stalled server shows
 *   in the percentiles (coordinated omission corrected). A request due while `maxInFlight` are already out is not
 *   sent and counts as a `backpressure` error.
 * - Warm-up requests (sent, or due, before `warmupMs`) are left out. The measured phase stops sending after the
 *   duration or request count, then waits for the requests still in flight (each bounded by `timeoutMs`).
 * - Latency is recorded for successful requests only; failures are counted by kind (see `ErrorKind`).
 * - Throughput is successful requests per second of the measured phase, waiting included.
 * - Aborting `options.signal` stops sending and aborts in-flight requests; the report covers what completed.
 *
 * Thresholds are evaluated into the report; this function does not throw when they are breached
 * (see `ThresholdsBreachedError` for callers that should).
 *
 * @throws InputError when the options are invalid, before any request is sent.
 */
export async function runBenchmark(options: BenchOptions, deps: BenchDeps = {}): Promise<BenchReport> {
  validateBenchOptions(options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const warmupMs = options.warmupMs ?? 0;
  const expectStatus = options.expectStatus ?? 200;
  const matcher = options.expect ? compileAnswerCheck(options.expect) : undefined;
  const mode = options.mode;
  const maxInFlight =
    mode.kind === 'closed' ? mode.concurrency : (mode.maxInFlight ?? defaultMaxInFlight(mode.rateRps, timeoutMs));
  const durationMs = 'durationMs' in options.stop ? options.stop.durationMs : undefined;
  const requestLimit = 'requests' in options.stop ? options.stop.requests : undefined;

  const sender: Sender = openSender(options.target, {
    body: options.body,
    contentType: options.contentType ?? 'application/json',
    connections: maxInFlight,
    readBody: matcher !== undefined,
    sageMakerClient: deps.sageMakerClient,
  });

  const recorder = new LatencyRecorder();
  const errorsByKind: Record<string, number> = {};
  let requests = 0;
  let errors = 0;
  let warmupRequests = 0;
  let issued = 0;
  let inFlight = 0;
  let stopped = false;
  let onIdle: (() => void) | undefined;
  let wake: (() => void) | undefined;
  const controllers = new Set<AbortController>();

  const wallStart = Date.now();
  const t0 = performance.now();
  const measureStart = t0 + warmupMs;
  const measureEnd = durationMs === undefined ? Infinity : measureStart + durationMs;

  function countError(kind: ErrorKind): void {
    errors++;
    errorsByKind[kind] = (errorsByKind[kind] ?? 0) + 1;
  }

  async function exchange(startedAt: number, measured: boolean): Promise<void> {
    const controller = new AbortController();
    const timer = setTimeout(abortForTimeout, timeoutMs, controller, timeoutMs);
    controllers.add(controller);
    inFlight++;
    let kind: ErrorKind | undefined;
    try {
      const answer = await sender.send(controller.signal);
      if (answer.status !== expectStatus) {
        kind = errorKindForStatus(answer.status);
      } else if (matcher !== undefined && !matcher(answer.body)) {
        kind = 'wrong-answer';
      }
    } catch (err) {
      // Decide from our own signal first: clients wrap an abort in errors of their own shape.
      const reason: unknown = controller.signal.aborted ? controller.signal.reason : undefined;
      kind = reason instanceof RequestTimeoutError ? 'timeout' : classifyError(err);
    } finally {
      clearTimeout(timer);
      controllers.delete(controller);
      inFlight--;
    }
    if (!(controller.signal.reason instanceof RunAbortedError)) {
      if (measured) {
        requests++;
        if (kind === undefined) {
          recorder.record(performance.now() - startedAt);
        } else {
          countError(kind);
        }
      } else {
        warmupRequests++;
      }
    }
    if (inFlight === 0 && onIdle) {
      onIdle();
    }
  }

  async function closedLoopWorker(): Promise<void> {
    while (!stopped) {
      const now = performance.now();
      const measured = now >= measureStart;
      if (measured) {
        if (now >= measureEnd || (requestLimit !== undefined && issued >= requestLimit)) {
          return;
        }
        issued++;
      }
      await exchange(now, measured);
    }
  }

  function openLoop(rateRps: number): Promise<void> {
    const intervalMs = 1000 / rateRps;
    let next = 0;
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const tick = (): void => {
        const now = performance.now();
        // Send everything due by now, each stamped with its own intended time: a late tick sends a burst and the
        // lateness counts in the latency, as it would for real users arriving on schedule.
        for (let due = t0 + next * intervalMs; due <= now && !stopped; due = t0 + next * intervalMs) {
          const measured = due >= measureStart;
          if (measured) {
            if (due >= measureEnd || (requestLimit !== undefined && issued >= requestLimit)) {
              resolve();
              return;
            }
            issued++;
          }
          next++;
          if (inFlight >= maxInFlight) {
            if (measured) {
              requests++;
              countError('backpressure');
            }
          } else {
            void exchange(due, measured);
          }
        }
        if (stopped) {
          resolve();
          return;
        }
        timer = setTimeout(tick, Math.max(0, t0 + next * intervalMs - performance.now()));
      };
      tick();
    });
  }

  function idle(): Promise<void> {
    return inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => (onIdle = resolve));
  }

  function progress(): BenchProgress {
    const now = performance.now();
    return now < measureStart
      ? { phase: 'warmup', elapsedMs: now - t0, totalMs: warmupMs, requests: warmupRequests, errors: 0 }
      : { phase: 'measure', elapsedMs: now - measureStart, totalMs: durationMs, requests, errors };
  }

  let progressError: unknown;
  const progressTimer = options.onProgress
    ? setInterval(() => {
        try {
          options.onProgress?.(progress());
        } catch (err) {
          progressError ??= err;
        }
      }, 1000)
    : undefined;

  const abortRun = (): void => {
    stopped = true;
    wake?.();
    for (const controller of controllers) {
      controller.abort(new RunAbortedError());
    }
  };
  if (options.signal?.aborted) {
    abortRun();
  }
  options.signal?.addEventListener('abort', abortRun);

  let end: number;
  try {
    if (mode.kind === 'closed') {
      await Promise.all(Array.from({ length: mode.concurrency }, () => closedLoopWorker()));
    } else {
      await openLoop(mode.rateRps);
      stopped = true;
      await idle();
    }
    end = performance.now();
  } finally {
    clearInterval(progressTimer);
    options.signal?.removeEventListener('abort', abortRun);
    await sender.close();
  }
  if (progressError !== undefined) {
    throw progressError;
  }

  const measuredMs = Math.max(0, end - measureStart);
  const successes = requests - errors;
  const stats = {
    requests,
    errors,
    errorRate: requests > 0 ? errors / requests : 0,
    throughputRps: measuredMs > 0 ? round((successes * 1000) / measuredMs, 2) : 0,
    latencyMs: recorder.percentiles(),
  };
  const thresholds = evaluateThresholds(stats, options.thresholds);
  const report: BenchReport = {
    ...stats,
    errorsByKind,
    thresholds,
    passed: thresholds.every((t) => t.passed),
    durationMs: Math.round(measuredMs),
    startedAt: new Date(wallStart + warmupMs).toISOString(),
    histogram: recorder.buckets(),
  };
  options.onProgress?.({
    phase: 'measure',
    elapsedMs: measuredMs,
    totalMs: durationMs,
    requests,
    errors,
  });
  return report;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
