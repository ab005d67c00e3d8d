/**
 * Published rows (`lib/generative/published/`) as the fit reads them (`FitRow`): each figure used only as what it
 * measured.
 *
 * - **Left out**: encoder-decoder models; speculative decoding (its figures time the lever, `lever-evidence`);
 *   sampling on the host (plans sample on the device); weights the physics has no bytes for (MXFP4).
 * - **Load**: static batches and closed loops of at most the compiled batch per replica. An open loop or a saturated
 *   server is left out: its times add queueing and prefills in proportions the source does not state.
 * - **TPOT**: the stated inter-token latency (p50, else the mean, else the p99), never a derived one, of a step of the
 *   compiled batch.
 * - **Prefill length**: the prompt padded to the bucket its graph was compiled for: optimum-neuron's static
 *   `generate` compiles one context-encoding graph of the sequence length (its published TTFTs do not move from 256
 *   to 1,792 prompt tokens); the others bucket prompts by powers of two from 128 (NxD Inference and
 *   transformers-neuronx default buckets; the vLLM Neuron plugin's `num_batched_tokens_buckets`), up to the sequence
 *   length.
 * - **TTFT**: a prefill alone: a static batch's prompts together (`ttftCovers: 'batch'`), or one request of a closed
 *   loop of at most 2 per replica; not with chunked prefill or a prefix cache.
 * - **End-to-end** (derived: constrains a prefill and `output - 1` steps together): where no TPOT is stated, the stated
 *   end-to-end time; else a "latency per token" times the tokens it counts; else the requests in flight x output
 *   tokens / output tokens per second of the run (Little's law).
 */
import { describeSource } from '../published/measurements';
import type { LatencyStatistics, PublishedModel, PublishedRow } from '../published/types';
import type { GenerativeDtype } from '../types';
import { DTYPES, publishedModelFacts } from './facts';
import type { FitRow } from './rows';
import { architectureKey } from './rows';


/** The median a statistic stands for: the p50, else the mean, else the p99 (the only figure some sources state). */
function central(s: LatencyStatistics | undefined): number | undefined {
  return s?.p50 ?? s?.mean ?? s?.p99;
}

/** The fit's view of a published row; undefined where the model cannot use it (module comment). */
export function publishedFitRow(row: PublishedRow, models: Readonly<Record<string, PublishedModel>>): FitRow | undefined {
  const model = models[row.model];
  const facts = model && model.architecture === 'decoder-only' ? publishedModelFacts(model) : undefined;
  const weightDtype = row.weightDtype as GenerativeDtype;
  if (!facts || row.levers.speculation || row.levers.onDeviceSampling === false || !DTYPES.includes(row.weightDtype)
    || (row.kvDtype !== undefined && !DTYPES.includes(row.kvDtype))) {
    return undefined;
  }
  const replicas = row.dataParallel ?? 1;
  const staticBatch = row.load === 'static-batch';
  // The decode step is a closed loop's or a static batch's; an open loop or a saturated server adds queueing and
  // prefills in proportions the published figures do not state.
  const concurrency = staticBatch ? row.batchSize
    : row.load === 'concurrency' && row.concurrency !== undefined && row.concurrency <= row.batchSize * replicas
      ? Math.max(1, Math.round(row.concurrency / replicas)) : undefined;
  if (concurrency === undefined) {
    return undefined;
  }
  const tpot = central(row.tpot);
  const prefillAlone = (staticBatch || (row.load === 'concurrency' && concurrency <= 2))
    && !row.levers.chunkedPrefill && !(row.levers.prefixCaching && (row.levers.prefixCaching.hitRate ?? 1) > 0);
  const ttft = prefillAlone ? central(row.ttft) : undefined;
  const e2e = tpot !== undefined ? undefined : endToEndMs(row, concurrency * replicas);
  if (tpot === undefined && ttft === undefined && e2e === undefined) {
    return undefined;
  }
  return {
    model: row.model,
    architecture: architectureKey(facts),
    facts,
    instanceType: row.instanceType,
    chip: row.chip,
    stack: row.stack,
    neuronSdkVersion: row.neuronSdkVersion,
    tensorParallelDegree: row.tensorParallelDegree,
    batchSize: row.batchSize,
    concurrency,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    prefillTokens: prefillBucket(row),
    decodeContextTokens: decodeBucket(row),
    ...(weightDtype !== facts.dtype ? { weightDtype } : {}),
    ...(row.kvDtype !== undefined ? { kvDtype: row.kvDtype as GenerativeDtype } : {}),
    ...(tpot !== undefined ? { tpotSeconds: tpot / 1000 } : {}),
    ...(ttft !== undefined ? { ttftSeconds: ttft / 1000 } : {}),
    ...(e2e !== undefined ? { e2eSeconds: e2e / 1000 } : {}),
    ...(staticBatch ? { staticBatch: true } : {}),
    source: describeSource(row),
  };
}

/** Smallest prompt bucket a stack compiles by default. */
const SMALLEST_BUCKET = 128;

/** The prompt length the row's prefill computed (module comment). */
export function prefillBucket(row: Pick<PublishedRow, 'stack' | 'inputTokens' | 'sequenceLength'>): number {
  const cap = row.sequenceLength ?? Infinity;
  if (row.stack === 'optimum-neuron') {
    return Math.max(row.inputTokens, row.sequenceLength ?? row.inputTokens);
  }
  const bucket = 2 ** Math.ceil(Math.log2(Math.max(SMALLEST_BUCKET, row.inputTokens)));
  return Math.max(row.inputTokens, Math.min(bucket, cap));
}

/** The KV cache a decode step attends over: mid-answer context padded as the prompt is (module comment). */
export function decodeBucket(row: Pick<PublishedRow, 'stack' | 'inputTokens' | 'outputTokens' | 'sequenceLength'>): number {
  return prefillBucket({ ...row, inputTokens: Math.round(row.inputTokens + row.outputTokens / 2) });
}

/** One request's end-to-end time, ms, from what the row states (module comment); undefined when it states none. */
function endToEndMs(row: PublishedRow, inFlight: number): number | undefined {
  const stated = central(row.e2e);
  if (stated !== undefined) {
    return stated;
  }
  const perToken = central(row.latencyPerToken);
  if (perToken !== undefined && row.latencyPerToken) {
    return perToken * (row.latencyPerToken.counts === 'input-and-output' ? row.inputTokens + row.outputTokens : row.outputTokens);
  }
  const perRequest = row.throughputPer === 'request';
  if (row.outputTokensPerSecond !== undefined) {
    return (1000 * row.outputTokens * (perRequest ? 1 : inFlight)) / row.outputTokensPerSecond;
  }
  if (row.totalTokensPerSecond !== undefined) {
    return (1000 * (row.inputTokens + row.outputTokens) * (perRequest ? 1 : inFlight)) / row.totalTokensPerSecond;
  }
  return undefined;
}

/** Every published row the fit can use. */
export function publishedFitRows(rows: readonly PublishedRow[], models: Readonly<Record<string, PublishedModel>>): FitRow[] {
  return rows.map((r) => publishedFitRow(r, models)).filter((r): r is FitRow => r !== undefined);
}
