/**
 * The physics of one decode step and one prefill on Neuron: the seconds each hardware resource would need if it alone
 * bounded the work, from the model's config.json facts and the chip's datasheet. These are the features the fitted
 * coefficients multiply (`fit.ts`); nothing here is fitted.
 *
 * - **Weights read**: a decode step reads every weight of its rank once (for a mixture of experts, the shared weights
 *   and the experts the step's tokens are routed to); so does a prefill. Bytes over the HBM bandwidth of the cores the
 *   replica spans.
 * - **KV cache**: a decode step reads the KV cache of every sequence of the compiled batch; a prefill writes its
 *   prompt's. Bytes over the same bandwidth, a term of its own: attention kernels do not stream as weights do.
 * - **Matmul**: 2 x active parameters FLOPs per token over the dense BF16 (or FP8) rate.
 * - **Attention**: 4 x layers x heads x head dim FLOPs per token per position attended (causal prefill attends half
 *   the square), over the same rate, a term of its own for the same reason as the KV cache.
 * - **Unrouted experts** (a mixture of experts; 0 for a dense model): what the pass would add if every expert ran for
 *   every token, its weights read and its FLOPs computed. Its coefficient says how much of that a stack's kernels pay
 *   (0 when they run only the routed experts).
 * - **Collective bandwidth**: tensor parallelism all-reduces each layer's attention and MLP outputs (2 per layer) of
 *   `tokens x hidden x 2` bytes. A ring all-reduce moves `2 (n - 1) / n` of the message over each link: over the
 *   NeuronLink of the chips the group spans, and over the chip's DMA between the ranks on one chip.
 * - **Collective hops**: each all-reduce step between chips pays a latency; a ring over `k` chips takes `2 (k - 1)`
 *   steps (reduce-scatter, then all-gather); a 2D torus of `a x b` chips `2 (a - 1 + b - 1)`; the ranks of one chip
 *   add 2. Counted in microseconds, with the cost of one fitted.
 * - **Per token**: the elementwise work (norms, residual adds) every rank repeats on the whole hidden state of every
 *   token, every layer: `tokens x layers x hidden x 2` bytes over one core's share of the HBM bandwidth. Tensor
 *   parallelism does not divide it, which is why a wide group prefills less than its FLOPs promise.
 * - **Per layer** (10 us a layer) and **per step** (1 ms): kernel launches, sampling and the host's scheduling.
 *
 * Chip figures (AWS Neuron docs, aws-neuron/aws-neuron-sdk): Inferentia2 (about-neuron/arch/neuron-hardware/
 * inferentia2.rst; general/arch/neuron-hardware/inf2-arch.rst @ 36f05bac): 2 NeuronCore-v2, 190 FP16/BF16/cFP8 TFLOPS,
 * 32 GiB HBM at 820 GiB/s, 1 TB/s DMA, NeuronLink-v2 192 GiB/s per device, chips in a ring. Trainium (trainium.rst;
 * trn1-arch.rst @ 60224f42): the same core and HBM, NeuronLink-v2 384 GiB/s per device (768 on trn1n), a 2D torus.
 * Trainium2 (trainium2.rst @ 7c165a3e; trn2-arch.rst @ 2086a70a): 8 NeuronCore-v3 (4 logical at LNC=2), 667 BF16 and
 * 1,299 FP8 TFLOPS, 96 GiB at 2.9 TB/s, 3.5 TB/s DMA, intra-instance NeuronLink-v3 1,024 GB/s per device, a 4 x 4 2D
 * torus. Trainium3 (trainium3.rst @ db1586c3): 671 BF16 and 2,517 MXFP8 TFLOPS, 144 GiB at 4.9 TB/s, 4.9 TB/s DMA,
 * NeuronLink-v4 2.56 TB/s per device.
 */
import { DTYPE_BYTES } from '../memory';
import type { GenerativeArchitectureFacts, GenerativeDtype, GenerativeExperts } from '../types';

/** How the chips of an instance are linked: the shape a tensor-parallel group's all-reduce runs over. */
export type ChipTopology = 'ring' | 'torus-2d';

/** One chip's published figures. */
export interface ChipFigures {
  /** `chipOf` name: inf2, trn1, trn2, trn3. */
  readonly chip: string;
  /** HBM bandwidth of the chip, bytes/s. */
  readonly hbmBytesPerSecond: number;
  /** Dense BF16 FLOP/s of the chip. */
  readonly bf16Flops: number;
  /** Dense FP8 FLOP/s of the chip (BF16's where the chip has no faster FP8 path). */
  readonly fp8Flops: number;
  /** NeuronCores per chip as the catalog and the rows count them (logical cores at LNC=2 on Trn2 and Trn3). */
  readonly coresPerChip: number;
  /** NeuronLink bandwidth of one chip to the others, bytes/s. */
  readonly linkBytesPerSecond: number;
  /** DMA bandwidth within the chip (what an all-reduce between its own cores moves over), bytes/s. */
  readonly onChipBytesPerSecond: number;
  /** How the instance's chips are linked. */
  readonly topology: ChipTopology;
  readonly source: string;
}

const ARCH = 'AWS Neuron docs, aws-neuron/aws-neuron-sdk';
const GIB = 1024 ** 3;

/** Published figures per chip (`chipOf` names: inf2, trn1, trn2, trn3). */
export const CHIP_FIGURES: Readonly<Record<string, ChipFigures>> = {
  inf2: {
    chip: 'inf2', hbmBytesPerSecond: 820 * GIB, bf16Flops: 190e12, fp8Flops: 190e12, coresPerChip: 2,
    linkBytesPerSecond: 192 * GIB, onChipBytesPerSecond: 1e12, topology: 'ring',
    source: `${ARCH} about-neuron/arch/neuron-hardware/inferentia2.rst: 190 FP16/BF16/cFP8 TFLOPS, 32 GiB HBM at 820 GiB/s, ` +
      '1 TB/s DMA per chip; general/arch/neuron-hardware/inf2-arch.rst @ 36f05bac: NeuronLink-v2 192 GiB/s per device, chips in a ring',
  },
  trn1: {
    chip: 'trn1', hbmBytesPerSecond: 820 * GIB, bf16Flops: 190e12, fp8Flops: 190e12, coresPerChip: 2,
    linkBytesPerSecond: 384 * GIB, onChipBytesPerSecond: 1e12, topology: 'torus-2d',
    source: `${ARCH} about-neuron/arch/neuron-hardware/trainium.rst: 190 FP16/BF16/cFP8 TFLOPS, 32 GiB at 820 GiB/s, 1 TB/s DMA ` +
      'per chip; general/arch/neuron-hardware/trn1-arch.rst @ 60224f42: NeuronLink-v2 384 GiB/s per device (trn1.32xlarge), 2D torus',
  },
  trn2: {
    chip: 'trn2', hbmBytesPerSecond: 2.9e12, bf16Flops: 667e12, fp8Flops: 1299e12, coresPerChip: 4,
    linkBytesPerSecond: 1024e9, onChipBytesPerSecond: 3.5e12, topology: 'torus-2d',
    source: `${ARCH} about-neuron/arch/neuron-hardware/trainium2.rst @ 7c165a3e: 667 BF16 and 1,299 FP8 TFLOPS, 96 GiB at 2.9 TB/s, ` +
      '3.5 TB/s DMA per chip; general/arch/neuron-hardware/trn2-arch.rst @ 2086a70a: intra-instance NeuronLink-v3 1,024 GB/s per device, 4 x 4 2D torus',
  },
  trn3: {
    chip: 'trn3', hbmBytesPerSecond: 4.9e12, bf16Flops: 671e12, fp8Flops: 2517e12, coresPerChip: 4,
    linkBytesPerSecond: 2.56e12, onChipBytesPerSecond: 4.9e12, topology: 'torus-2d',
    source: `${ARCH} about-neuron/arch/neuron-hardware/trainium3.rst @ db1586c3: 671 BF16 and 2,517 MXFP8 TFLOPS, 144 GiB at 4.9 TB/s, ` +
      '4.9 TB/s DMA, NeuronLink-v4 2.56 TB/s per device',
  },
};

/** What the physics reads of a model: its config.json facts, with the hidden size and experts where known. */
export type ModelFacts = GenerativeArchitectureFacts;

/** A mixture-of-experts layer's facts. */
export type ExpertFacts = GenerativeExperts;

/** What one configuration runs: the model, its chip, and how it is compiled. */
export interface ModelConfiguration {
  readonly model: ModelFacts;
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

/** Names of the terms, in the order of a feature vector. */
export const FEATURE_NAMES = [
  'weights read', 'KV cache', 'matmul', 'attention', 'unrouted experts', 'collective bytes', 'collective hops', 'per layer', 'per token', 'per step',
] as const;

/** The seconds each term would take alone (hops, layers and steps at 1 us, 10 us and 1 ms): what coefficients multiply. */
export type Features = readonly number[];

/** Activations travel in BF16 whatever the weights' dtype. */
const ACTIVATION_BYTES = 2;
const HOP_SECONDS = 1e-6;
const LAYER_SECONDS = 1e-5;
const STEP_SECONDS = 1e-3;

/** The bandwidth and FLOP/s of the cores a replica spans. */
function perReplica(cfg: ModelConfiguration): { bandwidth: number; flops: number } {
  const share = cfg.tensorParallelDegree / cfg.coresPerChip;
  const fp8 = (cfg.weightDtype ?? cfg.model.dtype) === 'fp8';
  return { bandwidth: cfg.chip.hbmBytesPerSecond * share, flops: (fp8 ? cfg.chip.fp8Flops : cfg.chip.bf16Flops) * share };
}

/** `hidden_size`, or heads x head dim where the facts do not state it. */
export function hiddenSize(model: ModelFacts): number {
  return model.hiddenSize ?? model.attentionHeads * model.headDim;
}

/** Parameters one token computes with, billions: all of a dense model; the shared weights and its experts of a MoE. */
export function activeParametersBillions(model: ModelFacts): number {
  const e = model.experts;
  return e ? model.parametersBillions - e.parametersBillions + (e.parametersBillions * e.perToken) / e.count : model.parametersBillions;
}

/**
 * Parameters a step of `tokens` tokens reads, billions: a dense model's all; a MoE's shared weights and the expected
 * share of experts at least one token is routed to (uniform routing: `1 - (1 - k / E)^tokens`).
 */
export function touchedParametersBillions(model: ModelFacts, tokens: number): number {
  const e = model.experts;
  if (!e) {
    return model.parametersBillions;
  }
  const touched = 1 - (1 - e.perToken / e.count) ** Math.max(1, tokens);
  return model.parametersBillions - e.parametersBillions + e.parametersBillions * touched;
}

/** KV-cache bytes one token of one sequence holds over the whole replica (KV heads replicated per rank as NxDI does). */
export function kvBytesPerToken(cfg: ModelConfiguration): number {
  const tp = cfg.tensorParallelDegree;
  const m = cfg.model;
  const perRankHeads = tp <= m.kvHeads ? Math.ceil(m.kvHeads / tp) : 1;
  return 2 * m.layers * perRankHeads * tp * m.headDim * DTYPE_BYTES[cfg.kvDtype ?? m.dtype];
}

/** The chips a tensor-parallel group spans and the ranks it has on each. */
export function groupSpan(cfg: Pick<ModelConfiguration, 'tensorParallelDegree' | 'coresPerChip'>): { readonly chips: number; readonly ranksPerChip: number } {
  const chips = Math.max(1, Math.ceil(cfg.tensorParallelDegree / cfg.coresPerChip));
  return { chips, ranksPerChip: Math.min(cfg.tensorParallelDegree, cfg.coresPerChip) };
}

/**
 * Latency-bound steps of one all-reduce: between chips, a ring of `k` takes `2 (k - 1)`, a 2D torus laid out as
 * square as `k` allows (`a x b`) `2 (a - 1 + b - 1)`; the ranks of one chip add a reduce and a broadcast (2).
 */
export function allReduceHops(cfg: Pick<ModelConfiguration, 'tensorParallelDegree' | 'coresPerChip' | 'chip'>): number {
  const { chips, ranksPerChip } = groupSpan(cfg);
  let across = chips - 1;
  if (cfg.chip.topology === 'torus-2d' && chips > 2) {
    const a = largestDivisorAtMostRoot(chips);
    across = a - 1 + chips / a - 1;
  }
  return 2 * across + (ranksPerChip > 1 ? 2 : 0);
}

function largestDivisorAtMostRoot(n: number): number {
  for (let a = Math.floor(Math.sqrt(n)); a > 1; a--) {
    if (n % a === 0) {
      return a;
    }
  }
  return 1;
}

/** Seconds one all-reduce of `bytes` spends moving data: a ring's `2 (n - 1) / n` over the links and over the chip's DMA. */
export function allReduceTransferSeconds(cfg: Pick<ModelConfiguration, 'tensorParallelDegree' | 'coresPerChip' | 'chip'>, bytes: number): number {
  const { chips, ranksPerChip } = groupSpan(cfg);
  const across = chips > 1 ? ((2 * (chips - 1)) / chips) * bytes / cfg.chip.linkBytesPerSecond : 0;
  const within = ranksPerChip > 1 ? ((2 * (ranksPerChip - 1)) / ranksPerChip) * bytes / cfg.chip.onChipBytesPerSecond : 0;
  return across + within;
}

/** The two collective features of a forward pass over `tokens` tokens: bytes moved and latency-bound hops, seconds. */
function collectives(cfg: ModelConfiguration, tokens: number): [number, number] {
  if (cfg.tensorParallelDegree <= 1) {
    return [0, 0];
  }
  const allReduces = 2 * cfg.model.layers;
  const bytes = tokens * hiddenSize(cfg.model) * ACTIVATION_BYTES;
  return [allReduces * allReduceTransferSeconds(cfg, bytes), allReduces * allReduceHops(cfg) * HOP_SECONDS];
}

/** Seconds the experts a pass of `tokens` tokens does not route to would cost if run: their bytes and their FLOPs. */
function unroutedExpertSeconds(cfg: ModelConfiguration, tokens: number): number {
  const m = cfg.model;
  if (!m.experts) {
    return 0;
  }
  const { bandwidth, flops } = perReplica(cfg);
  const untouched = m.parametersBillions - touchedParametersBillions(m, tokens);
  const unrouted = m.parametersBillions - activeParametersBillions(m);
  return (untouched * 1e9 * DTYPE_BYTES[cfg.weightDtype ?? m.dtype]) / bandwidth + (2 * unrouted * 1e9 * tokens) / flops;
}

/**
 * Seconds one core spends streaming a pass's activations (`tokens x hidden`, BF16, every layer): the elementwise work
 * (norms, residual adds) every rank repeats on the whole hidden state, which tensor parallelism does not divide.
 */
function replicatedActivationSeconds(cfg: ModelConfiguration, tokens: number): number {
  return (tokens * cfg.model.layers * hiddenSize(cfg.model) * ACTIVATION_BYTES) / (cfg.chip.hbmBytesPerSecond / cfg.coresPerChip);
}

/**
 * Features of one decode step with `batch` sequences each holding `contextTokens` in the KV cache and scoring
 * `tokensPerSequence` positions (1, or the draft's proposals + 1 when a target verifies speculation).
 */
export function decodeFeatures(cfg: ModelConfiguration, contextTokens: number, tokensPerSequence = 1): Features {
  const { bandwidth, flops } = perReplica(cfg);
  const m = cfg.model;
  const tokens = cfg.batch * tokensPerSequence;
  const weightBytes = touchedParametersBillions(m, tokens) * 1e9 * DTYPE_BYTES[cfg.weightDtype ?? m.dtype];
  const kvBytes = cfg.batch * contextTokens * kvBytesPerToken(cfg);
  const linear = 2 * activeParametersBillions(m) * 1e9 * tokens;
  const attention = 4 * m.layers * tokens * contextTokens * m.attentionHeads * m.headDim;
  return [weightBytes / bandwidth, kvBytes / bandwidth, linear / flops, attention / flops, unroutedExpertSeconds(cfg, tokens), ...collectives(cfg, tokens),
    m.layers * LAYER_SECONDS, replicatedActivationSeconds(cfg, tokens), STEP_SECONDS];
}

/**
 * Features of the prefill of `prompts` prompts of `tokens` tokens each, run together (1 for vLLM, which prefills one
 * prompt at a time on Neuron; the batch for a static-batch `generate`).
 */
export function prefillFeatures(cfg: ModelConfiguration, tokens: number, prompts = 1): Features {
  const { bandwidth, flops } = perReplica(cfg);
  const m = cfg.model;
  const all = tokens * prompts;
  const linear = 2 * activeParametersBillions(m) * 1e9 * all;
  const attention = 2 * m.layers * tokens * tokens * m.attentionHeads * m.headDim * prompts;
  const weightBytes = touchedParametersBillions(m, all) * 1e9 * DTYPE_BYTES[cfg.weightDtype ?? m.dtype];
  const kvBytes = all * kvBytesPerToken(cfg);
  return [weightBytes / bandwidth, kvBytes / bandwidth, linear / flops, attention / flops, unroutedExpertSeconds(cfg, all), ...collectives(cfg, all),
    m.layers * LAYER_SECONDS, replicatedActivationSeconds(cfg, all), STEP_SECONDS];
}

/** Coefficients times features, seconds. */
export function dot(c: Features, f: Features): number {
  let s = 0;
  for (let k = 0; k < f.length; k++) {
    s += (c[k] ?? 0) * f[k];
  }
  return s;
}

/** Fitted coefficients of the decode and prefill feature vectors. */
export interface PerformanceCoefficients {
  readonly decode: Features;
  readonly prefill: Features;
}

/** Decode step time, seconds. */
export function decodeStepSeconds(c: PerformanceCoefficients, cfg: ModelConfiguration, contextTokens: number, tokensPerSequence = 1): number {
  return dot(c.decode, decodeFeatures(cfg, contextTokens, tokensPerSequence));
}

/** Prefill time of one prompt, seconds. */
export function prefillSeconds(c: PerformanceCoefficients, cfg: ModelConfiguration, tokens: number): number {
  return dot(c.prefill, prefillFeatures(cfg, tokens));
}
