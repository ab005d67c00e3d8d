/**
 * How long a continuous-batching engine's steps take, read from measured rows of one compiled configuration
 * (chip, tensor-parallel degree, Neuron SDK, chunked prefill or not).
 *
 * - A decode step gives every running sequence one token (its time per output token: `perOutputTokenMs`). On Neuron the decode graph is compiled for a fixed batch
 *   (`max_num_seqs`) and runs padded to it whatever the number of running sequences (static shapes: AWS Neuron docs,
 *   NxD Inference feature guide, "bucketing" covers sequence lengths), so a step takes the TPOT p50 measured at the
 *   compiled batch size: a row measured with one request in flight on a batch-32 artifact gives the batch-32 step.
 * - A prefill (context encoding) of `L` prompt tokens takes the TTFT p50 of the configuration's smallest-batch row,
 *   scaled by `L / row input tokens` when `L` is longer (prefill is compute-bound, linear in tokens) and never below
 *   the measured value (its fixed costs). A row with no TTFT (the Neuron encoder-decoder rows state per-token latency
 *   only) is charged one decode step per 128 prompt tokens, an ESTIMATE the plan warns about.
 */
import type { EngineTiming, GenerativeMeasurement } from './types';

/** Prompt tokens one decode step's time is charged per, where a row states no TTFT (ESTIMATE). */
export const PREFILL_TOKENS_PER_STEP_ESTIMATE = 128;

/**
 * The timings of a configuration compiled for `maxSequences`, from rows of the same chip, tensor-parallel degree, SDK
 * and prefill mode: the decode step from the rows at `maxSequences` (the slowest, when several), the prefill from the
 * smallest batch at or below it.
 *
 * @throws Error when no row has a batch size of `maxSequences` (the planner only asks for measured batch sizes)
 */
export function engineTiming(rows: readonly GenerativeMeasurement[], maxSequences: number): EngineTiming {
  const atBatch = rows.filter((r) => r.batchSize === maxSequences);
  if (atBatch.length === 0) {
    throw new Error(`no measured row at batch ${maxSequences}`);
  }
  const slowest = atBatch.reduce((a, b) => (perOutputTokenMs(b) > perOutputTokenMs(a) ? b : a));
  const prefillRow = rows.filter((r) => r.batchSize <= maxSequences).sort((a, b) => a.batchSize - b.batchSize)[0];
  const stepSeconds = perOutputTokenMs(slowest) / 1000;
  const measuredTtft = prefillRow.ttftP50Ms;
  const prefillEstimated = measuredTtft === undefined;
  return {
    maxSequences,
    stepSeconds,
    prefillSeconds: measuredTtft === undefined
      ? (tokens: number) => Math.max(1, Math.ceil(tokens / PREFILL_TOKENS_PER_STEP_ESTIMATE)) * stepSeconds
      : (tokens: number) => (measuredTtft / 1000) * Math.max(1, tokens / prefillRow.inputTokens),
    tpotTail: (slowest.tpotP99Ms ?? slowest.tpotP50Ms) / slowest.tpotP50Ms,
    ttftTail: measuredTtft === undefined ? 1 : (prefillRow.ttftP99Ms ?? measuredTtft) / measuredTtft,
    chunkedPrefill: rows.every((r) => r.chunkedPrefill === true),
    prefillEstimated,
  };
}

/**
 * A row's TPOT p50 per output token: as stated, or, where the source divides by input and output tokens together,
 * the request's whole time (`tpot x (input + output)`) spread over its output tokens.
 */
export function perOutputTokenMs(row: GenerativeMeasurement): number {
  return row.latencyCounts === 'input-and-output'
    ? (row.tpotP50Ms * (row.inputTokens + row.outputTokens)) / row.outputTokens
    : row.tpotP50Ms;
}
