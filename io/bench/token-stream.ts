/**
 * Streamed generations measured in tokens: one request (`streamCompletion`) and open-loop load (`runTokenLoad`)
 * against an OpenAI-compatible engine (vLLM) over HTTP, or behind SageMaker's `InvokeEndpointWithResponseStream`,
 * whose PayloadPart events carry the container's server-sent-event bytes cut wherever they fall.
 *
 * TTFT is taken when the first text arrives, TPOT over the rest (LLMPerf's method, which the Neuron benchmarking
 * guide uses); parsing and arithmetic are `lib/bench/sse.ts` and `lib/bench/token-stream.ts`.
 *
 * @see https://awsdocs-neuron.readthedocs-hosted.com/en/latest/libraries/nxd-inference/developer_guides/llm-inference-benchmarking-guide.html
 * @see https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpointWithResponseStream.html
 */
import { InvokeEndpointWithResponseStreamCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { Agent, request as httpRequest, type Dispatcher } from 'undici';
import { classifyError } from '../../lib/bench/errors';
import { errorKindForStatus, type ErrorKind } from '../../lib/bench/error-kind';
import { SseDecoder } from '../../lib/bench/sse';
import { CUSTOM_ATTRIBUTES_HEADER } from '../../lib/serving/pool';
import { poissonArrivals, shareArrivals, TokenLoadRecorder, type GoodputLimits, type TokenLoadReport } from '../../lib/bench/token-load';
import type { ArrivalShare } from '../../lib/traffic/arrivals';
import { sampleWorkload, type WorkloadLengths } from '../../lib/generative/lengths';
import { syntheticPrompt, tokenRequestBody, TokenStreamTracker, type TokenApi, type TokenRequest, type TokenStreamResult } from '../../lib/bench/token-stream';

export type { TokenRequest, TokenStreamResult, TokenApi } from '../../lib/bench/token-stream';
export type { TokenLoadReport } from '../../lib/bench/token-load';

/** Where streamed requests go. */
export type TokenTarget =
  | {
      readonly kind: 'http';
      /** Base URL of the engine or its load balancer, e.g. `http://127.0.0.1:8080`. */
      readonly url: string;
      /**
       * Route to post to.
       *
       * @default - `/v1/completions`, or `/v1/chat/completions` for chat requests
       */
      readonly path?: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: 'sagemaker';
      readonly endpointName: string;
      /** The inference component to invoke (`InferenceComponentName`), on an endpoint hosting components. */
      readonly inferenceComponentName?: string;
      /** @default - the SDK's region chain */
      readonly region?: string;
    };

/** How one streamed request is sent. */
export interface StreamOptions {
  /** undici dispatcher for HTTP targets. @default - undici's global dispatcher */
  readonly dispatcher?: Dispatcher;
  /** Client for SageMaker targets. @default - a client made for this request, with no retries */
  readonly sageMakerClient?: SageMakerRuntimeClient;
  /**
   * When the request counts from (`performance.now()`): an open-loop arrival's due time, so a late send shows in
   * its latency. @default - when this function is called
   */
  readonly startedAt?: number;
  /** Whole-request limit, ms. @default 300000 */
  readonly timeoutMs?: number;
  /** Aborts the request. */
  readonly signal?: AbortSignal;
}

/** Longest a streamed generation may take before it counts as a timeout. */
export const DEFAULT_STREAM_TIMEOUT_MS = 300_000;

/** How much of an error answer's body is quoted. */
const MAX_ERROR_BODY_CHARS = 500;

/**
 * Sends one streamed request and measures it. Never throws for a failed request: the result says how it failed.
 */
export async function streamCompletion(target: TokenTarget, request: TokenRequest, options: StreamOptions = {}): Promise<TokenStreamResult> {
  const startedAt = options.startedAt ?? performance.now();
  const tracker = new TokenStreamTracker(startedAt);
  const decoder = new SseDecoder();
  const timeoutMs = options.timeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const body = JSON.stringify(tokenRequestBody(request));
  const take = (piece: Uint8Array | string): void => {
    const now = performance.now();
    for (const data of decoder.push(piece)) {
      tracker.event(data, now);
    }
  };
  let status: number | undefined;
  try {
    if (target.kind === 'http') {
      status = await streamHttp(target, request.api ?? 'completions', body, options.dispatcher, signal, take, tracker);
    } else {
      status = await streamSageMaker(target, body, options.sageMakerClient, signal, take, tracker);
    }
    const now = performance.now();
    for (const data of decoder.end()) {
      tracker.event(data, now);
    }
  } catch (err) {
    const kind: ErrorKind = timeout.aborted ? 'timeout' : classifyError(err);
    tracker.fail(timeout.aborted ? `no complete answer within ${timeoutMs} ms` : errorText(err), kind);
  }
  return tracker.finish(performance.now(), status);
}

async function streamHttp(
  target: Extract<TokenTarget, { kind: 'http' }>,
  api: TokenApi,
  body: string,
  dispatcher: Dispatcher | undefined,
  signal: AbortSignal,
  take: (piece: Uint8Array) => void,
  tracker: TokenStreamTracker,
): Promise<number> {
  const path = target.path ?? (api === 'chat' ? '/v1/chat/completions' : '/v1/completions');
  const response = await httpRequest(`${target.url.replace(/\/+$/, '')}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...target.headers },
    body,
    signal,
    ...(dispatcher !== undefined ? { dispatcher } : {}),
  });
  const attributes = response.headers[CUSTOM_ATTRIBUTES_HEADER];
  tracker.answeredBy(Array.isArray(attributes) ? attributes.join(',') : attributes);
  if (response.statusCode !== 200) {
    const text = await response.body.text();
    tracker.fail(`HTTP ${response.statusCode} ${text.slice(0, MAX_ERROR_BODY_CHARS)}`.trim(), errorKindForStatus(response.statusCode));
    return response.statusCode;
  }
  for await (const piece of response.body) {
    take(piece as Buffer);
  }
  return response.statusCode;
}

async function streamSageMaker(
  target: Extract<TokenTarget, { kind: 'sagemaker' }>,
  body: string,
  injected: SageMakerRuntimeClient | undefined,
  signal: AbortSignal,
  take: (piece: Uint8Array) => void,
  tracker: TokenStreamTracker,
): Promise<number> {
  // A retry would hide throttling and model errors and stretch TTFT.
  const client = injected ?? new SageMakerRuntimeClient({ region: target.region, maxAttempts: 1 });
  try {
    const output = await client.send(
      new InvokeEndpointWithResponseStreamCommand({
        EndpointName: target.endpointName,
        ...(target.inferenceComponentName !== undefined ? { InferenceComponentName: target.inferenceComponentName } : {}),
        Body: new TextEncoder().encode(body),
        ContentType: 'application/json',
        Accept: 'text/event-stream',
      }),
      { abortSignal: signal },
    );
    const status = output.$metadata.httpStatusCode ?? 200;
    tracker.answeredBy(output.CustomAttributes);
    for await (const event of output.Body ?? []) {
      if (event.PayloadPart?.Bytes !== undefined) {
        take(event.PayloadPart.Bytes);
      } else if (event.ModelStreamError !== undefined) {
        const e = event.ModelStreamError;
        tracker.fail(`ModelStreamError ${e.ErrorCode ?? ''}: ${e.message ?? ''}`.trim(), 'model-error');
      } else if (event.InternalStreamFailure !== undefined) {
        tracker.fail(`InternalStreamFailure: ${event.InternalStreamFailure.message ?? ''}`.trim(), 'other');
      }
    }
    return status;
  } finally {
    if (injected === undefined) {
      client.destroy();
    }
  }
}

/** How hard and how long an open-loop token run drives its target. */
export interface TokenLoadOptions {
  /** Mean arrival rate, requests per second (Poisson arrivals). */
  readonly ratePerSecond: number;
  /** Measured sending window, seconds (after the warm-up); the run then waits for the requests in flight. */
  readonly durationSeconds: number;
  /**
   * Sending before the measured window, seconds: those requests load the engine to its steady state but are not
   * recorded. @default 0
   */
  readonly warmupSeconds?: number;
  /** Prompt length in tokens (a synthetic prompt of that many words, unless `prompt` is given). */
  readonly inputTokens: number;
  /** Tokens each request generates, exactly (`ignore_eos`, `min_tokens`). */
  readonly outputTokens: number;
  /** @default - `inputTokens` words */
  readonly prompt?: string;
  /** @default 'completions' */
  readonly api?: TokenApi;
  /** Served model name. @default - omitted */
  readonly model?: string;
  /** Seed of the arrival times. @default 1 */
  readonly seed?: number;
  /**
   * The plan's arrival process and this sender's share of it (every sender given the same `seed`): its gaps instead
   * of Poisson ones. @default - Poisson arrivals at `ratePerSecond`
   */
  readonly arrivals?: ArrivalShare;
  /** @default 300000 */
  readonly timeoutMs?: number;
  /** Most requests in flight; an arrival beyond it is not sent and counts as `backpressure`. @default 2000 */
  readonly maxInFlight?: number;
  /** Stops sending and aborts the requests in flight; the report covers what completed before. */
  readonly signal?: AbortSignal;
  /** Limits a request meets to count toward goodput. @default - goodput not counted */
  readonly goodput?: GoodputLimits;
  /**
   * Prompt and output lengths drawn per request from these distributions (the plan's `generative.lengths`), seeded
   * by `lengthSeed`: each request a synthetic prompt of its drawn length and exactly its drawn output. Replaces
   * `inputTokens` and `outputTokens`, which then only state the means. @default - every request at those lengths
   */
  readonly lengths?: WorkloadLengths;
  /** Seed of the drawn lengths. @default - `seed` */
  readonly lengthSeed?: number;
  /**
   * The engine's `max_model_len`: a drawn pair longer than it is cut to it as the planner's replay cuts it (prompt
   * first kept, output to what is left), rather than refused by the engine. @default - no cap
   */
  readonly maxModelLength?: number;
}

/** What a run may be given instead of creating it. */
export interface TokenLoadDeps {
  readonly dispatcher?: Dispatcher;
  readonly sageMakerClient?: SageMakerRuntimeClient;
}

/** Arrivals above this many in flight are refused by default. */
const DEFAULT_MAX_IN_FLIGHT = 2000;

/**
 * Drives `target` open-loop: Poisson arrivals (or `arrivals`'s) at `ratePerSecond` for `warmupSeconds + durationSeconds`, each a
 * streamed request of `inputTokens` in and exactly `outputTokens` out; each request's latency counts from its due
 * time. Returns, for the requests due in the measured window: achieved requests/s, errors by kind, TTFT/TPOT/e2e
 * percentiles and their encoded HDR histograms, and output tokens/s.
 */
export async function runTokenLoad(target: TokenTarget, options: TokenLoadOptions, deps: TokenLoadDeps = {}): Promise<TokenLoadReport> {
  const durationMs = options.durationSeconds * 1000;
  const warmupMs = (options.warmupSeconds ?? 0) * 1000;
  if (!(options.ratePerSecond > 0) || !(durationMs > 0) || !(warmupMs >= 0) || !(options.outputTokens >= 1) || !(options.inputTokens >= 0)) {
    throw new Error(
      `runTokenLoad needs ratePerSecond > 0, durationSeconds > 0, outputTokens >= 1 and inputTokens >= 0; got ${JSON.stringify({
        ratePerSecond: options.ratePerSecond,
        durationSeconds: options.durationSeconds,
        warmupSeconds: options.warmupSeconds,
        inputTokens: options.inputTokens,
        outputTokens: options.outputTokens,
      })}`,
    );
  }
  const arrivals = options.arrivals !== undefined
    ? shareArrivals(options.arrivals, options.ratePerSecond, warmupMs + durationMs, options.seed ?? 1)
    : poissonArrivals(options.ratePerSecond, warmupMs + durationMs, options.seed ?? 1);
  const measured = arrivals.filter((t) => t >= warmupMs).length;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const timeoutMs = options.timeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;
  const fixed: TokenRequest = {
    api: options.api,
    prompt: options.prompt ?? syntheticPrompt(options.inputTokens),
    maxTokens: options.outputTokens,
    exactTokens: true,
    model: options.model,
  };
  // One drawn (prompt, output) pair per arrival, warm-up included, so a seed gives the same requests in the same order.
  const drawn = options.lengths === undefined ? undefined : sampleWorkload(options.lengths, arrivals.length, options.lengthSeed ?? options.seed ?? 1);
  const requestAt = (i: number): TokenRequest => {
    if (drawn === undefined) {
      return fixed;
    }
    let { input, output } = drawn[i];
    const max = options.maxModelLength;
    if (max !== undefined && input + output > max) {
      input = Math.min(input, max - 1);
      output = Math.max(1, max - input);
    }
    return { ...fixed, prompt: syntheticPrompt(input), maxTokens: output };
  };
  const ownDispatcher = target.kind === 'http' && deps.dispatcher === undefined
    ? new Agent({ connections: maxInFlight, keepAliveTimeout: 30_000, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
    : undefined;
  const ownClient = target.kind === 'sagemaker' && deps.sageMakerClient === undefined
    ? new SageMakerRuntimeClient({ region: target.region, maxAttempts: 1 })
    : undefined;
  const dispatcher = deps.dispatcher ?? ownDispatcher;
  const sageMakerClient = deps.sageMakerClient ?? ownClient;

  const recorder = new TokenLoadRecorder(options.goodput);
  const running = new Set<Promise<void>>();
  const aborter = new AbortController();
  const stop = (): void => aborter.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', stop);
  let inFlight = 0;
  let lastEnd = 0;
  const t0 = performance.now();

  try {
    await new Promise<void>((resolve) => {
      let next = 0;
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        clearTimeout(timer);
        resolve();
      };
      aborter.signal.addEventListener('abort', onAbort);
      const tick = (): void => {
        const now = performance.now();
        // Everything due by now goes out, each stamped with its own due time.
        for (; next < arrivals.length && t0 + arrivals[next] <= now && !aborter.signal.aborted; next++) {
          const due = t0 + arrivals[next];
          const recorded = arrivals[next] >= warmupMs;
          if (inFlight >= maxInFlight) {
            if (recorded) {
              recorder.fail('backpressure', `${maxInFlight} requests already in flight`);
            }
            continue;
          }
          inFlight++;
          const done = streamCompletion(target, requestAt(next), { dispatcher, sageMakerClient, startedAt: due, timeoutMs, signal: aborter.signal }).then(
            (result) => {
              inFlight--;
              lastEnd = Math.max(lastEnd, performance.now());
              if (recorded && !aborter.signal.aborted) {
                recorder.record(result);
              }
              running.delete(done);
            },
          );
          running.add(done);
        }
        if (next >= arrivals.length || aborter.signal.aborted) {
          aborter.signal.removeEventListener('abort', onAbort);
          resolve();
          return;
        }
        timer = setTimeout(tick, Math.max(0, t0 + arrivals[next] - performance.now()));
      };
      tick();
    });
    while (running.size > 0) {
      await Promise.all([...running]);
    }
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await ownDispatcher?.close();
    ownClient?.destroy();
  }
  return recorder.report({
    requests: measured,
    offeredRps: options.ratePerSecond,
    durationMs,
    elapsedMs: Math.max(0, (lastEnd || performance.now()) - t0 - warmupMs),
  });
}

/** `name: message` of a thrown error. */
function errorText(error: unknown): string {
  const e = error as { name?: unknown; message?: unknown } | null;
  const name = typeof e?.name === 'string' && e.name !== 'Error' ? `${e.name}: ` : '';
  return `${name}${typeof e?.message === 'string' ? e.message : String(error)}`;
}
