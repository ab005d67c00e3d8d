/**
 * A load worker of the smoke benchmark's capacity proof: drives its share of the planned rate open-loop, as seeded
 * Poisson arrivals, against the target and returns what it measured, histograms encoded so the hook can merge every worker's exactly.
 *
 * Invoked by the smoke-benchmark hook only (RequestResponse, one invocation per worker, in parallel). The target and
 * the golden request come from this function's environment, the same `SMOKE_CONFIG` the hook has; the payload only
 * says how hard and how long, and is checked before any request is sent.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import type { Context } from 'aws-lambda';
import { runBenchmark } from '../../io/bench/engine';
import type { BenchTarget } from '../../lib/bench/types';
import { loadWorkerRequestSchema, WORKER_RETURN_RESERVE_MS, workerRunMs, type LoadWorkerResult } from '../../lib/smoke/capacity';
import { readWorkerSettings, SMOKE_ENV } from '../../lib/smoke/config';
import { tokenProofClient } from '../../io/bench/token-proof-client';
import type { TokenWorkerResult } from '../../lib/bench/token-merge';
import { isTokenProofConfig } from '../../lib/bench/token-proof';
import { runTokenWorker } from './tokens';

// One attempt per request (a retry would hide throttling and stretch latency), sockets for the largest in-flight
// cap a worker is given.
const sageMaker = new SageMakerRuntimeClient({
  maxAttempts: 1,
  requestHandler: {
    httpAgent: new http.Agent({ keepAlive: true }),
    httpsAgent: new https.Agent({ keepAlive: true }),
  },
});

/**
 * Runs one worker's share of the capacity proof.
 *
 * @throws Error when the payload or the environment is invalid, or the run cannot finish before the function's
 *   timeout; the hook reports the worker as failed.
 */
export async function handler(
  event: unknown,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<LoadWorkerResult | TokenWorkerResult> {
  if (isTokenProofConfig(process.env[SMOKE_ENV.config])) {
    return runTokenWorker(event, process.env, () => context.getRemainingTimeInMillis(), tokenProofClient);
  }
  const parsed = loadWorkerRequestSchema().safeParse(event);
  if (!parsed.success) {
    throw new Error(
      `load worker payload is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'payload'}: ${i.message}`).join('; ')}`,
    );
  }
  const request = parsed.data;
  const { config, target } = readWorkerSettings(process.env);
  const needsMs = workerRunMs(request) + WORKER_RETURN_RESERVE_MS;
  if (context.getRemainingTimeInMillis() < needsMs) {
    throw new Error(
      `load worker ${request.worker} needs ${needsMs} ms but has ${context.getRemainingTimeInMillis()} ms left; ` +
        'the SmokeBenchmark construct sizes the worker timeout from the capacity proof, redeploy it',
    );
  }
  // Its share of the plan's bursty process, or its own Poisson arrivals.
  const planned = config.capacity?.arrivals;
  if (request.arrivals === 'process' && planned === undefined) {
    throw new Error(`load worker ${request.worker} was asked for the plan's arrival process, and SMOKE_CONFIG has none; redeploy the SmokeBenchmark`);
  }
  const arrivals = request.arrivals === 'process' && planned !== undefined
    ? { process: planned, index: request.worker, of: config.capacity?.workers ?? 1 }
    : 'poisson' as const;
  const benchTarget: BenchTarget =
    config.target.kind === 'sagemaker'
      ? { kind: 'sagemaker', endpointName: target, targetVariant: config.target.targetVariant }
      : { kind: 'http', url: target, method: config.target.method, headers: config.target.headers };
  const report = await runBenchmark(
    {
      target: benchTarget,
      body: config.request.body,
      contentType: config.request.contentType,
      mode: { kind: 'open', rateRps: request.rateRps, maxInFlight: request.maxInFlight, arrivals, seed: request.seed },
      stop: { durationMs: request.durationMs },
      warmupMs: request.warmupMs,
      timeoutMs: request.timeoutMs,
      expectStatus: config.expectStatus,
      expect: config.expect,
      serverTiming: true,
      encodeHistograms: true,
    },
    { sageMakerClient: sageMaker },
  );
  if (report.encoded === undefined) {
    throw new Error('the load engine returned no encoded histograms although they were asked for');
  }
  return {
    worker: request.worker,
    requests: report.requests,
    errors: report.errors,
    errorsByKind: report.errorsByKind,
    errorSamples: report.errorSamples,
    durationMs: report.durationMs,
    encoded: report.encoded,
  };
}
