/**
 * The proof in tokens' view of the streaming token client (`./token-stream`): one golden request, and a streamed
 * open-loop run returned as counts and encoded histograms the gate can merge with its workers'.
 */
import type { GoldenPrompt, TokenApi, TokenProofConfig } from '../../lib/bench/token-proof';
import type { TokenRunResult } from '../../lib/bench/token-merge';
import { TokenLoadRecorder, type GoodputLimits } from '../../lib/bench/token-load';
import type { WorkloadLengths } from '../../lib/generative/lengths';
import type { ArrivalShare } from '../../lib/traffic/arrivals';
import { syntheticPrompt } from '../../lib/bench/token-stream';
import { request as httpRequest } from 'undici';
import { runTokenLoad, streamCompletion, type TokenTarget } from './token-stream';

/** Where and how requests are sent. */
export interface TokenEndpoint {
  /** The SageMaker endpoint name, or the engine's base URL. */
  readonly target: string;
  readonly config: TokenProofConfig['target'];
  readonly api: TokenApi;
  /** The served model name, sent as `model`. */
  readonly model: string;
}

/** What the golden request returned. */
export interface GoldenResult {
  readonly ok: boolean;
  readonly status?: number;
  readonly error?: string;
  readonly text: string;
  readonly outputTokens: number;
  readonly ttftMs: number;
  readonly tpotMs?: number;
  readonly e2eMs: number;
}

/** A streamed open-loop run. */
export interface StreamedRunOptions {
  readonly rateRps: number;
  readonly durationMs: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /**
   * Seed of the Poisson arrivals: each load worker needs its own, or every worker would send at the same instants
   * and the total load would be burstier than Poisson at the total rate. @default 1
   */
  readonly seed?: number;
  /** Longest one streamed request may take. @default - the client's */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Limits a request meets to count toward goodput. @default - goodput not counted */
  readonly goodput?: GoodputLimits;
  /** The plan's arrival process and this worker's share of it (see `runTokenLoad`). @default - Poisson at `rateRps` */
  readonly arrivals?: ArrivalShare;
  /** Lengths drawn per request (see `runTokenLoad`). @default - every request at `inputTokens` and `outputTokens` */
  readonly lengths?: WorkloadLengths;
  readonly lengthSeed?: number;
  readonly maxModelLength?: number;
}

/** A closed-loop streamed run: exactly `requests`, `concurrency` at a time. */
export interface ClosedRunOptions {
  readonly requests: number;
  readonly concurrency: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Limits a request meets to count toward goodput. @default - goodput not counted */
  readonly goodput?: GoodputLimits;
}

/** The calls the gate and the workers make; tests may pass their own. */
export interface TokenProofClient {
  sendGolden(endpoint: TokenEndpoint, golden: GoldenPrompt, signal?: AbortSignal): Promise<GoldenResult>;
  /** Open loop (the capacity proof): Poisson arrivals at a rate. */
  runStreamed(endpoint: TokenEndpoint, options: StreamedRunOptions): Promise<TokenRunResult>;
  /** Closed loop (the smoke gate's short run): a fixed count at a fixed concurrency, so short runs do not vary. */
  runClosed(endpoint: TokenEndpoint, options: ClosedRunOptions): Promise<TokenRunResult>;
  /**
   * The engine's Prometheus `/metrics` text, where the target exposes it (an HTTP engine URL); undefined for a
   * SageMaker endpoint, whose container serves only `/ping` and `/invocations`.
   */
  engineMetrics?(endpoint: TokenEndpoint, signal?: AbortSignal): Promise<string | undefined>;
}

function streamTarget(endpoint: TokenEndpoint): TokenTarget {
  return endpoint.config.kind === 'sagemaker'
    ? { kind: 'sagemaker', endpointName: endpoint.target, inferenceComponentName: endpoint.config.inferenceComponentName }
    : { kind: 'http', url: endpoint.target, headers: endpoint.config.headers };
}

/** The client over `./token-stream`. */
export const tokenProofClient: TokenProofClient = {
  async sendGolden(endpoint, golden, signal) {
    const result = await streamCompletion(
      streamTarget(endpoint),
      { api: endpoint.api, model: endpoint.model, prompt: golden.prompt, maxTokens: golden.maxTokens, temperature: 0 },
      { signal },
    );
    return {
      ok: result.ok,
      ...(result.status !== undefined ? { status: result.status } : {}),
      ...(result.error !== undefined ? { error: result.error } : {}),
      text: result.text,
      outputTokens: result.outputTokens,
      ttftMs: result.ttftMs,
      ...(result.tpotMs !== undefined ? { tpotMs: result.tpotMs } : {}),
      e2eMs: result.e2eMs,
    };
  },
  async engineMetrics(endpoint, signal) {
    if (endpoint.config.kind !== 'http') return undefined;
    const url = new URL('/metrics', endpoint.target.endsWith('/') ? endpoint.target : `${endpoint.target}/`);
    const response = await httpRequest(url, { method: 'GET', headers: { ...endpoint.config.headers }, ...(signal !== undefined ? { signal } : {}) });
    const text = await response.body.text();
    return response.statusCode === 200 ? text : undefined;
  },
  async runStreamed(endpoint, options) {
    const report = await runTokenLoad(streamTarget(endpoint), {
      ratePerSecond: options.rateRps,
      durationSeconds: options.durationMs / 1000,
      inputTokens: options.inputTokens,
      outputTokens: options.outputTokens,
      api: endpoint.api,
      model: endpoint.model,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.arrivals !== undefined ? { arrivals: options.arrivals } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      ...(options.goodput !== undefined ? { goodput: options.goodput } : {}),
      ...(options.lengths !== undefined ? { lengths: options.lengths, lengthSeed: options.lengthSeed, maxModelLength: options.maxModelLength } : {}),
    });
    return {
      requests: report.requests,
      // A request due in the window that neither completed nor failed (cut by the signal) is not a success either.
      errors: Math.max(report.errors, report.requests - report.completed),
      errorsByKind: report.errorsByKind,
      errorSamples: report.errorSamples,
      durationMs: report.durationMs,
      elapsedMs: report.elapsedMs,
      outputTokens: report.outputTokens,
      ...(report.goodRequests !== undefined ? { goodRequests: report.goodRequests } : {}),
      encoded: report.encoded,
    };
  },
  async runClosed(endpoint, options) {
    const target = streamTarget(endpoint);
    const recorder = new TokenLoadRecorder(options.goodput);
    const prompt = syntheticPrompt(options.inputTokens);
    let next = 0;
    const started = performance.now();
    const lane = async (): Promise<void> => {
      while (next < options.requests && options.signal?.aborted !== true) {
        next++;
        recorder.record(
          await streamCompletion(
            target,
            { api: endpoint.api, model: endpoint.model, prompt, maxTokens: options.outputTokens, exactTokens: true },
            { timeoutMs: options.timeoutMs, ...(options.signal !== undefined ? { signal: options.signal } : {}) },
          ),
        );
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency, options.requests) }, lane));
    const elapsedMs = performance.now() - started;
    const report = recorder.report({ requests: next, offeredRps: 0, durationMs: elapsedMs, elapsedMs });
    return {
      requests: next,
      errors: report.errors,
      errorsByKind: report.errorsByKind,
      errorSamples: report.errorSamples,
      durationMs: elapsedMs,
      elapsedMs,
      outputTokens: report.outputTokens,
      ...(report.goodRequests !== undefined ? { goodRequests: report.goodRequests } : {}),
      encoded: report.encoded,
    };
  },
};
