/**
 * A performance model of LLM serving on Neuron: decode step and prefill times of any (chip, tensor-parallel degree,
 * sequences decoding, context held, prompt length, weight and KV dtypes), from the chip's published figures with
 * coefficients fitted to the published rows (`perf-fit.ts`).
 *
 * - A decode step reads every weight of its rank once and the KV cache of every sequence of the compiled batch (the
 *   graph runs padded to it), computes 2 x parameters FLOPs per token, and all-reduces twice per layer over the
 *   tensor-parallel ranks (attention and MLP outputs). Its time is
 *   `c_mem x bytes / HBM bandwidth + c_cmp x FLOPs / compute + c_coll x 2 layers x ceil(log2 tp) x 1 us + c_0 x 1 ms`.
 * - A prefill of L tokens computes 2 x parameters x L FLOPs plus the attention term 2 x layers x L^2 x heads x head dim
 *   (causal: half of Q.K^T and of A.V), reads the weights once and all-reduces per layer:
 *   `d_cmp x FLOPs / compute + d_mem x weights / bandwidth + d_coll x ... + d_0 x 1 ms`.
 *
 * Chip figures (AWS Neuron docs, about-neuron/arch/neuron-hardware/): Inferentia2 (inferentia2.rst) and Trainium
 * (trainium.rst): 2 NeuronCore-v2 per chip, 190 FP16/BF16/cFP8 TFLOPS, 32 GiB HBM at 820 GiB/s. Trainium2
 * (trainium2.rst; NKI Trainium2 architecture guide): 8 NeuronCore-v3, 667 BF16 and 1,299 FP8 TFLOPS, 96 GiB at 2.9 TB/s,
 * 4 logical cores at the default LNC=2. Trainium3 (trainium3.rst): 671 BF16 and 2,517 MXFP8 TFLOPS, 144 GiB at
 * 4.9 TB/s. The collective term is a count of latency-bound all-reduce steps (decode messages are a few KiB, so link
 * bandwidth does not bound them); its cost per step is fitted.
 */
import type { GenerativeArchitectureFacts, GenerativeDtype } from './types';

/** One chip's published figures. */
export interface ChipFigures {
  readonly chip: string;
  /** HBM bandwidth of the chip, bytes/s. */
  readonly hbmBytesPerSecond: number;
  /** Dense BF16 FLOP/s of the chip. */
  readonly bf16Flops: number;
  /** Dense FP8 FLOP/s of the chip (BF16's where the chip has no faster FP8 path). */
  readonly fp8Flops: number;
  /** NeuronCores per chip as the catalog and the rows count them (logical cores at LNC=2 on Trn2 and Trn3). */
  readonly coresPerChip: number;
  readonly source: string;
}

const ARCH = 'AWS Neuron docs, aws-neuron/aws-neuron-sdk about-neuron/arch/neuron-hardware/';
const GIB = 1024 ** 3;

/** Published figures per chip (`chipOf` names: inf2, trn1, trn2, trn3). */
export const CHIP_FIGURES: Readonly<Record<string, ChipFigures>> = {
  inf2: { chip: 'inf2', hbmBytesPerSecond: 820 * GIB, bf16Flops: 190e12, fp8Flops: 190e12, coresPerChip: 2, source: `${ARCH}inferentia2.rst: 190 FP16/BF16/cFP8 TFLOPS, 32 GiB HBM at 820 GiB/s per chip` },
  trn1: { chip: 'trn1', hbmBytesPerSecond: 820 * GIB, bf16Flops: 190e12, fp8Flops: 190e12, coresPerChip: 2, source: `${ARCH}trainium.rst: 190 FP16/BF16/cFP8 TFLOPS, 32 GiB at 820 GiB/s per chip` },
  trn2: { chip: 'trn2', hbmBytesPerSecond: 2.9e12, bf16Flops: 667e12, fp8Flops: 1299e12, coresPerChip: 4, source: `${ARCH}trainium2.rst: 667 BF16 and 1,299 FP8 TFLOPS, 96 GiB at 2.9 TB/s per chip` },
  trn3: { chip: 'trn3', hbmBytesPerSecond: 4.9e12, bf16Flops: 671e12, fp8Flops: 2517e12, coresPerChip: 4, source: `${ARCH}trainium3.rst: 671 BF16 and 2,517 MXFP8 TFLOPS, 144 GiB at 4.9 TB/s per chip` },
};

const BYTES: Readonly<Record<GenerativeDtype, number>> = { fp32: 4, bf16: 2, fp16: 2, fp8: 1, int8: 1 };

/** What one configuration runs: the model, its chip, and how it is compiled. */
export interface ModelConfiguration {
  readonly model: GenerativeArchitectureFacts;
  readonly chip: ChipFigures;
  /** NeuronCores per chip as the catalog counts them (logical on Trn2: 4). */
  readonly coresPerChip: number;
  readonly tensorParallelDegree: number;
  /** Sequences the decode graph runs (the compiled batch). */
  readonly batch: number;
  /** @default - the model's dtype */
  readonly weightDtype?: GenerativeDtype;
  /** @default - the model's dtype */
  readonly kvDtype?: GenerativeDtype;
}

/** Feature vectors the coefficients multiply: [memory s, compute s, collective steps x 1 us, 1 ms]. */
export type Features = readonly [number, number, number, number];

/** Fitted coefficients of the decode and prefill feature vectors. */
export interface PerformanceCoefficients {
  readonly decode: Features;
  readonly prefill: Features;
}

function perRank(cfg: ModelConfiguration): { bandwidth: number; flops: number } {
  const share = cfg.tensorParallelDegree / cfg.coresPerChip;
  const fp8 = (cfg.weightDtype ?? cfg.model.dtype) === 'fp8';
  return {
    bandwidth: cfg.chip.hbmBytesPerSecond * share,
    flops: (fp8 ? cfg.chip.fp8Flops : cfg.chip.bf16Flops) * share,
  };
}

/** Latency-bound all-reduce steps per forward pass: two per layer, each ceil(log2 tp) hops. */
function collectiveSteps(cfg: ModelConfiguration): number {
  return cfg.tensorParallelDegree > 1 ? 2 * cfg.model.layers * Math.ceil(Math.log2(cfg.tensorParallelDegree)) : 0;
}

/** KV-cache bytes one token of one sequence holds over the whole replica (KV heads replicated per rank as NxDI does). */
export function kvBytesPerToken(cfg: ModelConfiguration): number {
  const tp = cfg.tensorParallelDegree;
  const m = cfg.model;
  const perRankHeads = tp <= m.kvHeads ? Math.ceil(m.kvHeads / tp) : 1;
  return 2 * m.layers * perRankHeads * tp * m.headDim * BYTES[cfg.kvDtype ?? m.dtype];
}

/**
 * Features of one decode step with `batch` sequences each holding `contextTokens` in the KV cache and scoring
 * `tokensPerSequence` positions (1, or the draft's proposals + 1 when a target verifies speculation).
 */
export function decodeFeatures(cfg: ModelConfiguration, contextTokens: number, tokensPerSequence = 1): Features {
  const { bandwidth, flops } = perRank(cfg);
  const weightBytes = cfg.model.parametersBillions * 1e9 * BYTES[cfg.weightDtype ?? cfg.model.dtype];
  const kvBytes = cfg.batch * contextTokens * kvBytesPerToken(cfg);
  const compute = (2 * cfg.model.parametersBillions * 1e9 * cfg.batch * tokensPerSequence) / flops;
  return [(weightBytes + kvBytes) / bandwidth, compute, collectiveSteps(cfg) * 1e-6, 1e-3];
}

/** Features of the prefill of one prompt of `tokens` tokens (the context-encoding graph at batch 1). */
export function prefillFeatures(cfg: ModelConfiguration, tokens: number): Features {
  const { bandwidth, flops } = perRank(cfg);
  const m = cfg.model;
  const linear = 2 * m.parametersBillions * 1e9 * tokens;
  const attention = 2 * m.layers * tokens * tokens * m.attentionHeads * m.headDim;
  const weightBytes = m.parametersBillions * 1e9 * BYTES[cfg.weightDtype ?? m.dtype];
  return [weightBytes / bandwidth, (linear + attention) / flops, collectiveSteps(cfg) * 1e-6, 1e-3];
}

/** Coefficients times features, seconds. */
export function dot(c: Features, f: Features): number {
  return c[0] * f[0] + c[1] * f[1] + c[2] * f[2] + c[3] * f[3];
}

/** Decode step time, seconds. */
export function decodeStepSeconds(c: PerformanceCoefficients, cfg: ModelConfiguration, contextTokens: number, tokensPerSequence = 1): number {
  return dot(c.decode, decodeFeatures(cfg, contextTokens, tokensPerSequence));
}

/** Prefill time of one prompt, seconds. */
export function prefillSeconds(c: PerformanceCoefficients, cfg: ModelConfiguration, tokens: number): number {
  return dot(c.prefill, prefillFeatures(cfg, tokens));
}
