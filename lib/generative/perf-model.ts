/**
 * A performance model of LLM serving on Neuron: decode step and prefill times of any (chip, tensor-parallel degree,
 * sequences decoding, context held, prompt length, weight and KV dtypes), from the chip's published figures with
 * coefficients fitted to the published rows (`perf-model.ts`).
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
import type { GenerativeArchitectureFacts, GenerativeDtype, GenerativeMeasurement, GenerativeProfile } from './types';

import { chipOf } from '../planner/planner';
import { ec2Name } from '../catalog/catalog';
import { perOutputTokenMs } from './continuous-batching';

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

/*

 * The performance model's coefficients, fitted to the published rows, and its measured error.
 *
 * Every decoder row of the built-in profiles with a TPOT is a decode point (its compiled batch, the context held at
 * mid-answer: input + output / 2); every row with a TTFT measured one prompt at a time (batch 1, or a vLLM engine
 * serving one request) is a prefill point. Encoder-decoder rows (T5, beam search, per-token latency over input and
 * output) and chunked-prefill TTFTs are left out: they time something else. The coefficients minimise the squared
 * relative error under non-negativity (every subset of the four terms solved by least squares, the best feasible
 * kept). A prediction for a model is then scaled by its anchor: the geometric mean of measured / predicted over the
 * model's own rows on the same chip, so the model's kernels and serving stack there carry over. Anchoring on other
 * chips' rows was tried and measured worse (TTFT leave-one-out worst 172 % against 62 %): stacks differ by chip.
 *
 * `leaveOneOut` predicts each row from a fit and anchors without it: the model's measured error (`bench:llm-model`).
 */

/** One published row as the fit sees it. */
export interface FitPoint {
  readonly profileId: string;
  readonly chip: string;
  readonly kind: 'tpot' | 'ttft';
  readonly features: Features;
  /** Measured seconds. */
  readonly seconds: number;
  readonly row: GenerativeMeasurement;
}

/** The configuration a row was measured in. */
export function rowConfiguration(profile: GenerativeProfile, row: GenerativeMeasurement): ModelConfiguration | undefined {
  const chip = CHIP_FIGURES[chipOf(ec2Name(row.instanceType).split('.')[0])];
  if (!chip) {
    return undefined;
  }
  return { model: profile.model, chip, coresPerChip: chip.coresPerChip, tensorParallelDegree: row.tensorParallelDegree, batch: row.batchSize };
}

/** The decode and prefill points of a profile's rows. */
export function fitPoints(profiles: readonly GenerativeProfile[]): FitPoint[] {
  const points: FitPoint[] = [];
  for (const profile of profiles.filter((p) => p.model.architecture === 'decoder-only')) {
    for (const row of profile.measurements) {
      const cfg = rowConfiguration(profile, row);
      if (!cfg) {
        continue;
      }
      const base = { profileId: profile.id, chip: cfg.chip.chip, row };
      points.push({ ...base, kind: 'tpot', features: decodeFeatures(cfg, row.inputTokens + row.outputTokens / 2), seconds: perOutputTokenMs(row) / 1000 });
      if (row.ttftP50Ms !== undefined && row.chunkedPrefill !== true) {
        points.push({ ...base, kind: 'ttft', features: prefillFeatures({ ...cfg, batch: 1 }, row.inputTokens), seconds: row.ttftP50Ms / 1000 });
      }
    }
  }
  return points;
}

/** Non-negative least squares of relative error over 4 terms: every subset solved, the best feasible kept. */
export function fitRelative(points: readonly { features: Features; seconds: number }[]): Features {
  let best: { c: number[]; sse: number } = { c: [0, 0, 0, 0], sse: Infinity };
  for (let mask = 1; mask < 16; mask++) {
    const terms = [0, 1, 2, 3].filter((i) => mask & (1 << i));
    const rows = points.map((p) => terms.map((i) => p.features[i] / p.seconds));
    const c = leastSquares(rows, points.map(() => 1));
    if (!c || c.some((v) => !(v >= 0))) {
      continue;
    }
    const full = [0, 0, 0, 0];
    terms.forEach((t, k) => (full[t] = c[k]));
    const sse = points.reduce((s, p) => s + (dot(full as unknown as Features, p.features) / p.seconds - 1) ** 2, 0);
    if (sse < best.sse - 1e-12) {
      best = { c: full, sse };
    }
  }
  return best.c as unknown as Features;
}

/** Least squares of A x = b by the normal equations; undefined when singular. */
function leastSquares(a: number[][], b: number[]): number[] | undefined {
  const n = a[0]?.length ?? 0;
  if (n === 0 || a.length < n) {
    return undefined;
  }
  const m = Array.from({ length: n }, (_, i) => [
    ...Array.from({ length: n }, (__, j) => a.reduce((s, r) => s + r[i] * r[j], 0)),
    a.reduce((s, r, k) => s + r[i] * b[k], 0),
  ]);
  for (let col = 0; col < n; col++) {
    const pivot = m.slice(col).reduce((bi, r, k) => (Math.abs(r[col]) > Math.abs(m[bi][col]) ? col + k : bi), col);
    if (Math.abs(m[pivot][col]) < 1e-300) {
      return undefined;
    }
    [m[col], m[pivot]] = [m[pivot], m[col]];
    for (let r = 0; r < n; r++) {
      if (r !== col) {
        const f = m[r][col] / m[col][col];
        for (let k = col; k <= n; k++) {
          m[r][k] -= f * m[col][k];
        }
      }
    }
  }
  return m.map((r, i) => r[n] / r[i]);
}

/** Both fits over the points. */
export function fitCoefficients(points: readonly FitPoint[]): PerformanceCoefficients {
  return {
    decode: fitRelative(points.filter((p) => p.kind === 'tpot')),
    prefill: fitRelative(points.filter((p) => p.kind === 'ttft')),
  };
}

/** A model's anchor for a kind of time on a chip: the geometric mean of measured / predicted over its points there, else 1. */
export function anchor(points: readonly FitPoint[], c: PerformanceCoefficients, profileId: string, chip: string, kind: FitPoint['kind']): number {
  const use = points.filter((p) => p.profileId === profileId && p.kind === kind && p.chip === chip);
  if (use.length === 0) {
    return 1;
  }
  const coeff = kind === 'tpot' ? c.decode : c.prefill;
  return Math.exp(use.reduce((s, p) => s + Math.log(p.seconds / dot(coeff, p.features)), 0) / use.length);
}

/** One row predicted from the others. */
export interface LeaveOneOutResult {
  readonly point: FitPoint;
  readonly predictedSeconds: number;
  /** |predicted / measured - 1|. */
  readonly error: number;
}

/** Each point predicted by the fit and anchors of all the others. */
export function leaveOneOut(points: readonly FitPoint[]): LeaveOneOutResult[] {
  return points.map((point, i) => {
    const others = points.filter((_, k) => k !== i);
    const c = fitCoefficients(others);
    const coeff = point.kind === 'tpot' ? c.decode : c.prefill;
    const predicted = dot(coeff, point.features) * anchor(others, c, point.profileId, point.chip, point.kind);
    return { point, predictedSeconds: predicted, error: Math.abs(predicted / point.seconds - 1) };
  });
}

/** Median, 75th and 90th percentiles and worst of the errors. */
export function errorSummary(errors: readonly number[]): { readonly median: number; readonly p75: number; readonly p90: number; readonly worst: number; readonly count: number } {
  const sorted = [...errors].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
  return { median: at(0.5), p75: at(0.75), p90: at(0.9), worst: sorted[sorted.length - 1] ?? 0, count: sorted.length };
}
