/**
 * The load engine: drives a target in a closed or open loop and measures what it answers.
 */
import type { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { compileAnswerCheck } from '../../lib/bench/answer';
import { AwsCallError } from '../../lib/aws-errors';
import { classifyError, RequestTimeoutError, runFailures } from '../../lib/bench/errors';
import { errorKindForStatus, type ErrorKind } from '../../lib/bench/error-kind';
import { LatencyRecorder } from '../../lib/bench/latency';
import { PoolRecorder } from '../../lib/bench/pools';
import { parseServerTiming, ServerTimingRecorder } from '../../lib/bench/server-timing';
import { openSender, type Sender } from './targets';
import { evaluateThresholds } from '../../lib/bench/thresholds';
import type { BenchOptions, BenchProgress, BenchReport } from '../../lib/bench/types';
import { validateBenchOptions } from '../../lib/bench/validate';
import { DEFAULT_TIMEOUT_MS, defaultMaxInFlight } from '../../lib/bench/in-flight';
import { random } from '../../lib/planner/simulate';
import { shareGaps, type ArrivalShare } from '../../lib/traffic/arrivals';

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

/** The reason in-flight requests are aborted when the caller aborts the run: their outcome is not measured. */
class RunAbortedError extends Error {
  constructor() {
    super('benchmark run aborted');
    this.name = 'RunAbortedError';
  }
}

function noop(): void {}

/** One request in flight. */
class InFlight {
  abort: (reason: Error) => void = noop;
  done = false;

  constructor(
    /** Send time (closed loop) or intended send time (open loop), from `performance.now()`. */
    readonly startedAt: number,
    readonly measured: boolean,
    /** When it times out: actual send time plus the timeout. */
    readonly deadline: number,
  ) {}
}

/**
 * A first-in first-out queue that lets go of each item as it leaves, so finished requests die young and cheap
 * instead of being promoted by the garbage collector while a slower request holds the head.
 */
class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  shift(): T | undefined {
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return item;
  }

  /** Empties the queue, returning what it held. */
  drain(): T[] {
    const rest = this.items.slice(this.head) as T[];
    this.items = [];
    this.head = 0;
    return rest;
  }
}

/**
 * Runs a benchmark and reports what the measured phase saw.
 *
 * - Closed loop: `concurrency` requests in flight at all times; latency from each send.
 * - Open loop: requests at a fixed rate, evenly spaced or as Poisson arrivals (`mode.arrivals`); latency from each request's intended send time, so a stalled server shows
 *   in the percentiles (coordinated omission corrected). A request due while `maxInFlight` are already out is not
 *   sent and counts as a `backpressure` error.
 * - Warm-up requests (sent, or due, before `warmupMs`) are left out. The measured phase stops sending after the
 *   duration or request count, then waits for the requests still in flight (each bounded by `timeoutMs`).
 * - Latency is recorded for successful requests only; failures are counted by kind (see `ErrorKind`). A request
 *   that outlives `timeoutMs` counts as a `timeout` at its deadline and is aborted.
 * - Throughput is successful requests per second of the measured phase, waiting included.
 * - Aborting `options.signal` stops sending and aborts in-flight requests; the report covers what completed.
 *
 * Thresholds are evaluated into the report, and a run where no request succeeded fails whatever they say; this
 * function does not throw when a run fails (see `BenchFailedError` for callers that should).
 *
 * @throws InputError when the options are invalid, before any request is sent.
 * @throws AwsCallError when a SageMaker target's own client has no usable credentials or region, before any request
 *   is sent (an injected client is not checked: its owner configured it).
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
  const serverTiming = options.serverTiming === true || options.thresholds?.serverP99MaxMs !== undefined;

  const sender: Sender = openSender(options.target, {
    body: options.body,
    contentType: options.contentType ?? 'application/json',
    connections: maxInFlight,
    readBody: matcher !== undefined,
    expectStatus,
    sageMakerClient: deps.sageMakerClient,
    serverTiming,
  });

  try {
    await sender.ready();
  } catch (e) {
    await sender.close();
    throw options.target.kind === 'sagemaker'
      ? new AwsCallError(`SageMaker InvokeEndpoint ${options.target.endpointName}`, e)
      : e;
  }

  const recorder = new LatencyRecorder();
  const serverRecorder = serverTiming ? new ServerTimingRecorder() : undefined;
  // The same header names the instance pool of an endpoint with pools: each answer is also counted under its pool.
  const poolRecorder = serverTiming ? new PoolRecorder() : undefined;
  const errorsByKind: Record<string, number> = {};
  const errorSamples: Record<string, string> = {};
  // Requests in send order. Every request has the same timeout, so deadlines are in the same order and one timer
  // on the oldest deadline bounds them all: cheaper than a timer per request, which showed in the profile.
  const queue = new Fifo<InFlight>();
  let inFlight = 0;
  let deadlineTimer: NodeJS.Timeout | undefined;
  let requests = 0;
  let errors = 0;
  let warmupRequests = 0;
  let issued = 0;
  /** No request will be started any more. */
  let sendingOver = false;
  let openLoopTimer: NodeJS.Timeout | undefined;
  let finish: () => void = noop;
  const finished = new Promise<void>((resolve) => (finish = resolve));

  const wallStart = Date.now();
  const t0 = performance.now();
  const measureStart = t0 + warmupMs;
  const measureEnd = durationMs === undefined ? Infinity : measureStart + durationMs;

  function countError(kind: ErrorKind, sample?: () => string): void {
    errors++;
    errorsByKind[kind] = (errorsByKind[kind] ?? 0) + 1;
    if (sample !== undefined && !(kind in errorSamples)) {
      errorSamples[kind] = sample();
    }
  }

  /** The kind of a failed request and how to describe it (called once per kind), or undefined for a success. */
  function judge(error: unknown, status: number, body: string): Failure | undefined {
    if (error !== undefined) {
      return { kind: classifyError(error), sample: () => errorText(error) };
    }
    if (status !== expectStatus) {
      return { kind: errorKindForStatus(status), sample: () => `HTTP ${status}${body !== '' ? ` ${clip(body)}` : ''}` };
    }
    return matcher !== undefined && !matcher(body) ? { kind: 'wrong-answer', sample: () => `got ${clip(body)}` } : undefined;
  }

  function launch(startedAt: number, measured: boolean, now: number): void {
    const request = new InFlight(startedAt, measured, now + timeoutMs);
    queue.push(request);
    inFlight++;
    deadlineTimer ??= setTimeout(expire, timeoutMs);
    request.abort = sender.start((error, status, body, timing) => settle(request, judge(error, status, body), timing));
  }

  /** Times out every request past its deadline, then waits for the next deadline. */
  function expire(): void {
    const now = performance.now();
    for (let oldest = queue.peek(); oldest !== undefined && (oldest.done || oldest.deadline <= now); oldest = queue.peek()) {
      queue.shift();
      if (!oldest.done) {
        settle(oldest, { kind: 'timeout', sample: () => `no complete answer within ${timeoutMs} ms` });
        oldest.abort(new RequestTimeoutError(timeoutMs));
      }
    }
    const next = queue.peek();
    deadlineTimer = next !== undefined ? setTimeout(expire, Math.max(1, next.deadline - now)) : undefined;
  }

  function dropCompleted(): void {
    while (queue.peek()?.done) {
      queue.shift();
    }
  }

  function settle(request: InFlight, failure: Failure | undefined, timing?: string): void {
    if (request.done) {
      return;
    }
    request.done = true;
    inFlight--;
    dropCompleted();
    const now = performance.now();
    if (!request.measured) {
      warmupRequests++;
    } else {
      requests++;
      if (failure === undefined) {
        recorder.record(now - request.startedAt);
        serverRecorder?.record(timing);
        poolRecorder?.record(timing, now - request.startedAt, parseServerTiming(timing)?.serverMs);
      } else {
        countError(failure.kind, failure.sample);
      }
    }
    if (mode.kind === 'closed' && !sendingOver) {
      sendingOver = !launchClosed(now);
    }
    if (sendingOver && inFlight === 0) {
      finish();
    }
  }

  /** Starts the next closed-loop request at `now`, unless the run is over. */
  function launchClosed(now: number): boolean {
    const measured = now >= measureStart;
    if (measured) {
      if (now >= measureEnd || (requestLimit !== undefined && issued >= requestLimit)) {
        return false;
      }
      issued++;
    }
    launch(now, measured, now);
    return true;
  }

  function startOpenLoop(rateRps: number, arrivals: 'uniform' | 'poisson' | ArrivalShare, seed: number): void {
    const intervalMs = 1000 / rateRps;
    const draw = random(seed);
    const share = typeof arrivals === 'object' ? shareGaps(arrivals, draw) : undefined;
    const gapMs = share !== undefined
      ? () => share() * intervalMs
      : arrivals === 'poisson' ? () => -Math.log(1 - draw()) * intervalMs : () => intervalMs;
    // Intended send times accumulate from t0, where the first is due.
    let dueAt = t0;
    const tick = (): void => {
      const now = performance.now();
      // Send everything due by now, each stamped with its own intended time: a late tick sends a burst and the
      // lateness counts in the latency, as it would for real users arriving on schedule.
      for (let due = dueAt; due <= now && !sendingOver; due = dueAt) {
        const measured = due >= measureStart;
        if (measured) {
          if (due >= measureEnd || (requestLimit !== undefined && issued >= requestLimit)) {
            sendingOver = true;
            break;
          }
          issued++;
        }
        dueAt += gapMs();
        if (inFlight < maxInFlight) {
          launch(due, measured, now);
        } else if (measured) {
          requests++;
          countError('backpressure', () => `${maxInFlight} requests already in flight`);
        }
      }
      // The measured phase ends at its end, not at the first arrival drawn after it: a Poisson gap past the end
      // (its mean is a whole interval) would otherwise stretch the phase and understate the rate achieved.
      if (!sendingOver && dueAt >= measureEnd && now >= measureEnd) {
        sendingOver = true;
      }
      if (sendingOver) {
        if (inFlight === 0) {
          finish();
        }
        return;
      }
      openLoopTimer = setTimeout(tick, Math.max(0, Math.min(dueAt, measureEnd) - performance.now()));
    };
    tick();
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
    sendingOver = true;
    clearTimeout(openLoopTimer);
    const reason = new RunAbortedError();
    for (const request of queue.drain()) {
      if (!request.done) {
        // Dropped unmeasured: a request cut short says nothing about the target.
        request.done = true;
        request.abort(reason);
      }
    }
    inFlight = 0;
    finish();
  };

  let end: number;
  try {
    if (options.signal?.aborted) {
      abortRun();
    } else {
      options.signal?.addEventListener('abort', abortRun);
      if (mode.kind === 'closed') {
        for (let i = 0; i < mode.concurrency && !sendingOver; i++) {
          sendingOver = !launchClosed(performance.now());
        }
        if (sendingOver && inFlight === 0) {
          finish();
        }
      } else {
        startOpenLoop(mode.rateRps, mode.arrivals ?? 'uniform', mode.seed ?? 1);
      }
    }
    await finished;
    end = performance.now();
  } finally {
    clearTimeout(deadlineTimer);
    clearInterval(progressTimer);
    options.signal?.removeEventListener('abort', abortRun);
    await sender.close();
  }
  if (progressError !== undefined) {
    throw progressError;
  }

  const measuredMs = Math.max(0, end - measureStart);
  const successes = requests - errors;
  const server = serverRecorder?.report();
  const pools = poolRecorder?.report();
  const stats = {
    ...(server !== undefined ? { server } : {}),
    ...(pools !== undefined ? { pools } : {}),
    requests,
    errors,
    errorRate: requests > 0 ? errors / requests : 0,
    throughputRps: measuredMs > 0 ? round((successes * 1000) / measuredMs, 2) : 0,
    latencyMs: recorder.percentiles(),
  };
  const thresholds = evaluateThresholds(stats, options.thresholds);
  const failures = runFailures({ requests, errors, errorsByKind, errorSamples, thresholds, server });
  const report: BenchReport = {
    ...stats,
    errorsByKind,
    errorSamples,
    thresholds,
    passed: failures.length === 0,
    failures,
    durationMs: Math.round(measuredMs),
    startedAt: new Date(wallStart + warmupMs).toISOString(),
    histogram: recorder.buckets(),
    ...(options.encodeHistograms === true
      ? {
          encoded: {
            latency: recorder.encode(),
            server: serverRecorder?.encode(),
            ...(pools !== undefined ? { pools: poolRecorder?.encode() } : {}),
          },
        }
      : {}),
  };
  options.onProgress?.({ phase: 'measure', elapsedMs: measuredMs, totalMs: durationMs, requests, errors });
  return report;
}

/** A failed request: its kind, and its description, built only for the first of each kind. */
interface Failure {
  readonly kind: ErrorKind;
  readonly sample: () => string;
}

/** `name: message` of a thrown error, e.g. `CredentialsProviderError: Could not load credentials from any providers`. */
function errorText(error: unknown): string {
  const e = error as { name?: unknown; message?: unknown; code?: unknown } | null;
  const name = typeof e?.name === 'string' && e.name !== 'Error' ? `${e.name}: ` : '';
  const message = typeof e?.message === 'string' && e.message !== '' ? e.message : typeof e?.code === 'string' ? e.code : String(error);
  return clip(`${name}${message}`);
}

/** At most 200 characters: enough to recognise an answer or an error, short enough for a one-line summary. */
function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
