/**
 * Memory estimates for the built-in profiles.
 *
 * The Neuron performance tables give throughput and latency but no memory figures, so the built-in profiles estimate
 * what one model process needs from the model's parameter count. Every number here is an estimate, not a
 * measurement: measure your own model with `neuron-top` / `neuron-monitor` (`memory_used`) and pass a profile file
 * when it matters.
 */

/** Bytes in one GiB. */
const GIB = 1024 ** 3;

/** Bytes in one MiB. */
const MIB = 1024 ** 2;

/**
 * Headroom multiplied onto weights + activations on the device.
 *
 * The facts file (§9) suggests 10-20 % for activation and IO buffers and says no official factor exists; we take the
 * top of that range. UNVERIFIED.
 */
export const DEVICE_MARGIN = 1.2;

/**
 * Device memory the Neuron runtime keeps per loaded model beyond weights and tensors (model code, runtime memory,
 * shared scratchpad; `neuron-monitor` reports them separately). UNVERIFIED allowance.
 */
export const DEVICE_RUNTIME_RESERVE_GIB = 0.25;

/**
 * Host memory of one model worker before it loads weights: CPython, the PyTorch CPU libraries, torch-neuronx (or
 * torch-neuron on Inf1), the Neuron runtime's host buffers and a small HTTP server. UNVERIFIED allowance; such workers
 * typically show 0.8-1.2 GiB resident, and we round up.
 */
export const HOST_PROCESS_BASELINE_GIB = 1.25;

/**
 * Activation and IO allowance per sample of a batch, by kind of input, in MiB. UNVERIFIED allowances, sized so that
 * a batch's intermediate tensors fit even when the compiler does not reuse buffers across layers.
 */
export const ACTIVATION_MIB_PER_SAMPLE = {
  /** Text encoders at sequence length 128 (BERT-large: 24 layers x 128 tokens x 1024 hidden x 4 B = 12 MiB of hidden states alone). */
  textSeq128: 48,
  /** 224x224 image models (ResNet-50 keeps about 25 M fp32 activation values over all its layers, about 100 MiB). */
  image224: 128,
  /** Larger single images or video clips (YOLOv4 at 608x608, OpenPose, the 16-frame multimodal Perceiver). */
  imageLarge: 512,
  /** Diffusion pipelines: latents, text embeddings and attention maps at up to 1024x1024. */
  diffusion: 1024,
} as const;

/** Kind of input a model takes, selecting its activation allowance. */
export type ActivationKind = keyof typeof ACTIVATION_MIB_PER_SAMPLE;

/** What the memory estimate needs to know about one model. */
export interface MemoryEstimateInput {
  /** Parameter count of the whole model (every part a process loads). */
  readonly params: number;
  /**
   * Bytes per stored parameter.
   *
   * @default 4 - an fp32 model; `--auto-cast matmult` casts matmul operands to bf16 at run time but we assume the
   * NEFF keeps fp32 weights, which over-estimates rather than under-estimates.
   */
  readonly bytesPerParam?: number;
  /** Largest batch size measured for the model; the allowance covers it. */
  readonly maxBatchSize: number;
  /** Kind of input, selecting the per-sample activation allowance. */
  readonly activation: ActivationKind;
}

/** Estimated memory of one model process. */
export interface MemoryEstimate {
  readonly deviceMemoryGiB: number;
  readonly hostMemoryGiB: number;
  /** The formula and its inputs, for `ModelProfile.memorySource`. */
  readonly memorySource: string;
}

/** Rounds up to 0.01 GiB so the estimate never shrinks by rounding. */
function ceilHundredths(gib: number): number {
  return Math.ceil(gib * 100 - 1e-9) / 100;
}

/**
 * Estimates the device and host memory of one model process from its parameter count.
 *
 * - device = (weights + maxBatchSize x activation per sample) x DEVICE_MARGIN + DEVICE_RUNTIME_RESERVE_GIB
 * - host = HOST_PROCESS_BASELINE_GIB + weights (the process loads the compiled model on the host once)
 *
 * with weights = params x bytesPerParam. Both are rounded up to 0.01 GiB.
 */
export function estimateMemory(input: MemoryEstimateInput): MemoryEstimate {
  const bytesPerParam = input.bytesPerParam ?? 4;
  const weightsGiB = (input.params * bytesPerParam) / GIB;
  const activationMiB = ACTIVATION_MIB_PER_SAMPLE[input.activation];
  const activationsGiB = (input.maxBatchSize * activationMiB * MIB) / GIB;
  const deviceMemoryGiB = ceilHundredths((weightsGiB + activationsGiB) * DEVICE_MARGIN + DEVICE_RUNTIME_RESERVE_GIB);
  const hostMemoryGiB = ceilHundredths(HOST_PROCESS_BASELINE_GIB + weightsGiB);
  const memorySource =
    `estimated: device = (weights ${weightsGiB.toFixed(3)} GiB [${formatParams(input.params)} params x ${bytesPerParam} B]` +
    ` + batch ${input.maxBatchSize} x ${activationMiB} MiB activations) x ${DEVICE_MARGIN} + ${DEVICE_RUNTIME_RESERVE_GIB} GiB runtime;` +
    ` host = ${HOST_PROCESS_BASELINE_GIB} GiB worker baseline + weights. Not measured: pass your own profile when it matters.`;
  return { deviceMemoryGiB, hostMemoryGiB, memorySource };
}

/** `110000000` -> `110M`, `3500000000` -> `3.5B`. */
function formatParams(params: number): string {
  return params >= 1e9 ? `${+(params / 1e9).toFixed(3)}B` : `${+(params / 1e6).toFixed(1)}M`;
}
