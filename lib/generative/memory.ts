/**
 * Device memory of one generative replica: weights split over the tensor-parallel ranks, the KV cache as NxD
 * Inference shards it, and a runtime reserve, against the HBM of the cores the replica spans.
 *
 * Fit rule (AWS Neuron docs, libraries/nxd-inference/api-guides/api-guide.rst and
 * about-neuron/transformers/generative-llm-inference-with-neuron.rst): weights + KV cache must fit the tensor-parallel
 * degree x HBM per NeuronCore (16 GiB per core on Inf2 and Trn1, 24 GiB per logical core on Trn2 at LNC=2).
 * KV heads (AWS Neuron docs, libraries/nxd-inference/developer_guides/feature-guide.rst, "GQA"): NxD Inference's
 * default `REPLICATE_TO_TP_DEGREE` replicates the KV heads up to the tensor-parallel degree when it exceeds them (each
 * rank then holds one), and converts to multi-head attention (every query head gets its KV head) when the degree is not
 * a multiple of the KV heads.
 */
import type { Hosting } from '../catalog/types';
import type { GenerativeArchitectureFacts, GenerativeDtype, GenerativeMemory } from './types';

/** Host memory the engine needs besides the weights (Python, tokenizer, HTTP server), GiB. ESTIMATE (UNVERIFIED). */
export const ENGINE_HOST_MEMORY_GIB = 4;

/** Host memory of the weights download container beside each replica's engine on ECS (EC2 hosting), GiB. */
export const DOWNLOAD_HOST_MEMORY_GIB = 1;

/**
 * Host memory one replica needs while it loads, GiB: the weights it reads on the host to shard (`hostWeightsGiB`),
 * the engine, and on EC2 (ECS) the download container. The planner refuses what the ECS service would refuse.
 */
export function replicaHostMemoryGiB(hostWeightsGiB: number, hosting: Hosting): number {
  return hostWeightsGiB + ENGINE_HOST_MEMORY_GIB + (hosting === 'ec2' ? DOWNLOAD_HOST_MEMORY_GIB : 0);
}

/** Bytes one parameter or one cached value takes at each precision. */
export const DTYPE_BYTES: Readonly<Record<GenerativeDtype, number>> = { fp32: 4, bf16: 2, fp16: 2, fp8: 1, int8: 1 };

const GIB = 1024 ** 3;

/**
 * Share of the replica's HBM held back for the Neuron runtime, compiled graphs, the shared scratchpad and prefill
 * activations. ESTIMATE (UNVERIFIED): no AWS source states the usable share; neuron-monitor reports these
 * (`runtime_memory`, `model_code`, `model_shared_scratchpad`) separately, so a measurement can replace it.
 */
export const RUNTIME_RESERVE_FRACTION = 0.1;

/** How NxD Inference holds the KV heads at a tensor-parallel degree, and how many each rank holds. */
export function kvSharding(model: Pick<GenerativeArchitectureFacts, 'kvHeads' | 'attentionHeads'>, tp: number): {
  readonly kvSharding: GenerativeMemory['kvSharding'];
  readonly kvHeadsPerRank: number;
} {
  if (tp <= model.kvHeads) {
    return model.kvHeads % tp === 0
      ? { kvSharding: 'shard', kvHeadsPerRank: model.kvHeads / tp }
      : { kvSharding: 'convert-to-mha', kvHeadsPerRank: Math.ceil(model.attentionHeads / tp) };
  }
  return tp % model.kvHeads === 0
    ? { kvSharding: 'replicate', kvHeadsPerRank: 1 }
    : { kvSharding: 'convert-to-mha', kvHeadsPerRank: Math.ceil(model.attentionHeads / tp) };
}

/** Weights of the whole model, in GiB: parameters x bytes per parameter. */
export function weightsGiB(model: Pick<GenerativeArchitectureFacts, 'parametersBillions' | 'dtype'>): number {
  return (model.parametersBillions * 1e9 * DTYPE_BYTES[model.dtype]) / GIB;
}

/**
 * KV cache of one sequence of `tokens` over all ranks of a replica, in GiB:
 * 2 (K and V) x layers x KV heads per rank x ranks x head dim x bytes x tokens.
 */
export function kvCachePerSequenceGiB(model: GenerativeArchitectureFacts, tp: number, tokens: number): number {
  const { kvHeadsPerRank } = kvSharding(model, tp);
  return (2 * model.layers * kvHeadsPerRank * tp * model.headDim * DTYPE_BYTES[model.dtype] * tokens) / GIB;
}

/**
 * The memory breakdown of one replica: `tp` cores of `hbmPerCoreGiB` each, `sequences` concurrent sequences of up to
 * `maxModelLength` tokens.
 */
export function replicaMemory(
  model: GenerativeArchitectureFacts,
  tp: number,
  hbmPerCoreGiB: number,
  sequences: number,
  maxModelLength: number,
): GenerativeMemory {
  const available = tp * hbmPerCoreGiB;
  const weights = weightsGiB(model);
  const perSequence = kvCachePerSequenceGiB(model, tp, maxModelLength);
  const reserve = RUNTIME_RESERVE_FRACTION * available;
  const spare = available - weights - reserve;
  return {
    weights: round(weights),
    kvCache: round(perSequence * sequences),
    reserve: round(reserve),
    available: round(available),
    ...kvSharding(model, tp),
    maxConcurrencyThatFits: spare > 0 ? Math.floor(spare / perSequence) : 0,
  };
}

/** True when weights + KV cache + reserve fit the available HBM. */
export function fits(memory: GenerativeMemory): boolean {
  return memory.weights + memory.kvCache + memory.reserve <= memory.available;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/*
 * A copy's predicted start, from its plan: what the health-check grace of ECS and the startup timeouts of SageMaker
 * are derived from (constructs/ecs/private/generative-ecs-layout.ts, constructs/sagemaker/private/generative-sizing.ts).
 * A copy downloads its weights and compiled artifacts from S3, loads the checkpoint onto its NeuronCores and the
 * compiled graphs with it, then starts the engine. The figures:
 * - Load: "Llama3.1 405B (~750 GB) currently take around 15-20 minutes to load from disk to device in the existing
 *   single-process NxDI" (vLLM Neuron docs, design/framework/checkpoint_loading.md, 2026-06-23): at the slow end,
 *   750 GB in 1,200 s, 0.58 GiB/s. The plugin's multi-process loader is faster, so this is an upper bound there.
 * - Download: 200 MiB/s from S3 to one instance. ESTIMATE (UNVERIFIED): S3 publishes no per-instance figure.
 * - Engine start: 120 s for imports, tokenizer, the HTTP server and the first pass over each bucket. ESTIMATE.
 * - Compile at start, when no compiled artifacts are given: 1,800 s. ESTIMATE for models up to ~10B; larger models
 *   take longer, which is why the hostings warn.
 * The vLLM Neuron plugin reports what a start really took (`vllm_neuron:model_load_time_seconds`,
 * `startup_time_seconds`, lib/generative/plugin-metrics.ts), in the token proof's report.
 */

/** The figures {@link predictedStartup} rests on. */
export const STARTUP_FIGURES = {
  /** Checkpoint load from disk to the devices, GiB/s: 750 GB in 20 minutes (vLLM Neuron docs, checkpoint loading). */
  loadGiBPerSecond: 750e9 / GIB / 1200,
  /** S3 to instance, MiB/s. ESTIMATE. */
  downloadMiBPerSecond: 200,
  /** Engine start besides the weights, seconds. ESTIMATE. */
  engineStartSeconds: 120,
  /** Compiling at start without compiled artifacts, seconds. ESTIMATE. */
  compileSeconds: 1800,
} as const;

/**
 * Compiled artifacts of a replica as a share of its weights: an ESTIMATE (an upper bound when NxD Inference saves the
 * sharded weights beside the NEFFs, `save_sharded_checkpoint`; far less when only NEFFs are saved, as the plugin does).
 */
export const ARTIFACTS_PER_WEIGHT_ESTIMATE = 1;

/** How much longer than predicted a start may take before a health check gives up on it. */
export const STARTUP_BUDGET_FACTOR = 2;

/** One copy's predicted start, seconds. */
export interface PredictedStartup {
  /** Weights and compiled artifacts from S3. */
  readonly downloadSeconds: number;
  /** Checkpoint onto the NeuronCores. */
  readonly loadSeconds: number;
  readonly engineStartSeconds: number;
  /** Compiling at start: 0 with compiled artifacts. */
  readonly compileSeconds: number;
  readonly totalSeconds: number;
}

/**
 * The predicted start of one copy of a replica holding `weightsGiB` of weights, with `artifactsGiB` of compiled
 * artifacts to download beside them, or none (`compiled: false`: the engine compiles at start).
 */
export function predictedStartup(weightsGiB: number, artifacts: { readonly compiled: boolean; readonly artifactsGiB: number }): PredictedStartup {
  const f = STARTUP_FIGURES;
  const downloaded = weightsGiB + (artifacts.compiled ? artifacts.artifactsGiB : 0);
  const downloadSeconds = Math.ceil((downloaded * 1024) / f.downloadMiBPerSecond);
  const loadSeconds = Math.ceil(weightsGiB / f.loadGiBPerSecond);
  const compileSeconds = artifacts.compiled ? 0 : f.compileSeconds;
  return {
    downloadSeconds, loadSeconds, engineStartSeconds: f.engineStartSeconds, compileSeconds,
    totalSeconds: downloadSeconds + loadSeconds + f.engineStartSeconds + compileSeconds,
  };
}
