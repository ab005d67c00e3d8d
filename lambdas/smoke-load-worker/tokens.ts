/**
 * A load worker of the capacity proof in tokens: drives its share of the plan's request rate open-loop with the
 * plan's input and output lengths, streamed, and returns its TTFT, TPOT and end-to-end histograms encoded so the
 * gate merges every worker's exactly.
 */
import type { TokenProofClient } from '../../io/bench/token-proof-client';
import { tokenWorkerRequestSchema, type TokenWorkerResult } from '../../lib/bench/token-merge';
import { tokenWorkerRunMs } from '../../lib/bench/token-proof';
import { WORKER_RETURN_RESERVE_MS } from '../../lib/smoke/capacity';
import { readTokenSettings } from '../../lib/smoke/token-settings';

/**
 * Runs one worker's share: a warm-up (not returned), then the measured run.
 *
 * @throws Error when the payload or the environment is invalid, or the run cannot finish in the time left; the
 *   gate reports the worker as failed and its share of the rate as missing.
 */
export async function runTokenWorker(
  event: unknown,
  env: Readonly<Record<string, string | undefined>>,
  remainingMs: () => number,
  client: TokenProofClient,
): Promise<TokenWorkerResult> {
  const parsed = tokenWorkerRequestSchema().safeParse(event);
  if (!parsed.success) {
    throw new Error(
      `load worker payload is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'payload'}: ${i.message}`).join('; ')}`,
    );
  }
  const request = parsed.data;
  const { config, target } = readTokenSettings(env, true);
  const timeoutMs = config.capacity?.timeoutMs ?? config.smoke.timeoutMs;
  const needsMs = tokenWorkerRunMs({ warmupMs: request.warmupMs, durationMs: request.durationMs, timeoutMs }) + WORKER_RETURN_RESERVE_MS;
  if (remainingMs() < needsMs) {
    throw new Error(
      `load worker ${request.worker} needs ${needsMs} ms but has ${remainingMs()} ms left; the SmokeBenchmark ` +
        'construct sizes the worker timeout from the capacity proof, redeploy it',
    );
  }
  const endpoint = { target, config: config.target, api: config.api, model: config.model };
  // Goodput counts the requests within the limits the proof judges the p99 of.
  const limits = config.capacity?.thresholds ?? config.smoke.thresholds;
  const goodput = { ttftMs: limits.ttftP99MaxMs, tpotMs: limits.tpotP99MaxMs };
  // The plan's length distributions, each worker its own seeded draws (warm-up and measured runs apart).
  const capacity = config.capacity;
  const lengths = capacity?.lengths;
  const drawn = (offset: number) =>
    lengths !== undefined ? { lengths, lengthSeed: (capacity?.lengthSeed ?? 1) + offset + request.worker, ...(config.plan !== undefined ? { maxModelLength: config.plan.maxModelLength } : {}) } : {};
  const shape = { rateRps: request.rateRps, inputTokens: request.inputTokens, outputTokens: request.outputTokens, timeoutMs, goodput };
  // Bursty arrivals: every worker draws the plan's one process from the same seed and sends its share (a merge of
  // independent bursty senders would be nearly Poisson). Poisson ones: each worker its own seed, as independent
  // Poisson senders merge into Poisson.
  const planned = capacity?.arrivals;
  const timed = (seed: number) => planned !== undefined
    ? { arrivals: { process: planned, index: request.worker, of: capacity?.workers ?? 1 }, seed }
    : { seed: seed + request.worker };
  if (request.warmupMs > 0) {
    // Fills the engine's running batch to its steady state before measuring; its numbers are dropped.
    await client.runStreamed(endpoint, { ...shape, ...drawn(1_000), ...timed(1_000), durationMs: request.warmupMs, signal: AbortSignal.timeout(request.warmupMs + timeoutMs) });
  }
  const result = await client.runStreamed(endpoint, {
    ...shape,
    ...drawn(0),
    ...timed(1),
    durationMs: request.durationMs,
    signal: AbortSignal.timeout(request.durationMs + timeoutMs),
  });
  return { worker: request.worker, ...result };
}
