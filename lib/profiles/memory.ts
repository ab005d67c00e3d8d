/**
 * Memory estimates for the built-in profiles, one per measurement.
 *
 * The Neuron performance tables give throughput and latency but no memory figures, so the built-in profiles estimate
 * what one model process needs from the model's parameter count and the row's compiled precision and batch size.
 * Memory belongs to a measurement: a batch-64 artifact holds 64 samples' activations, a batch-1 artifact of the same
 * model one. Every data-parallel copy (process) loads its own weights and activations, so the figures are per
 * process. Every number here is an estimate, not a measurement: measure your own model with `neuron-top` /
 * `neuron-monitor` (`memory_used`) and pass a profile file when it matters.
 *
 * The formula, per measurement:
 *
 *   weights     = params x bytes per parameter at the compiled precision
 *                 (2 for BF16/FP16: an FP32 model compiled with `--auto-cast matmult` to BF16, the tables' default
 *                 "Compilation Autocast Data Type: Matmult-BF16", or an FP16/BF16 model; 4 for FP32 without autocast)
 *   activations = batch size x (activation allowance per sample + output tensor per sample)
 *   device      = (weights + activations) x DEVICE_MARGIN + DEVICE_RUNTIME_RESERVE_GIB
 *   host        = HOST_PROCESS_BASELINE_GIB + weights + batch size x output tensor per sample
 *
 * Sources: the weights rule (`params x dtype_bytes`, dtype_bytes 2 for BF16/FP16) is the one the Neuron docs give
 * for sizing models on NeuronCores (aws-neuron/aws-neuron-sdk
 * `about-neuron/transformers/generative-llm-inference-with-neuron.rst` and the Neuron calculator
 * `about-neuron/calculator/neuron-calculator.rst`); the precision comes from each table row's columns. The
 * activation allowances, the margin and the runtime reserve have no AWS-published figure: they are UNVERIFIED
 * allowances, stated below with their reasoning.
 */

/** Bytes in one GiB. */
const GIB = 1024 ** 3;

/** Bytes in one MiB. */
const MIB = 1024 ** 2;

/**
 * Headroom multiplied onto weights + activations on the device.
 *
 * The Neuron docs publish no activation or IO-buffer overhead factor for encoder and vision models; 10-20 % is the
 * usual suggestion, and we take the top of that range. UNVERIFIED.
 */
export const DEVICE_MARGIN = 1.2;

/**
 * Device memory the Neuron runtime keeps per loaded model beyond weights and tensors (model code, runtime memory,
 * shared scratchpad; `neuron-monitor` reports them separately as `model_code`, `runtime_memory` and
 * `model_shared_scratchpad`). UNVERIFIED allowance.
 */
export const DEVICE_RUNTIME_RESERVE_GIB = 0.25;

/**
 * Host memory of one model worker before it loads weights: CPython, the PyTorch CPU libraries, torch-neuronx (or
 * torch-neuron on Inf1), the Neuron runtime's host buffers and a small HTTP server. UNVERIFIED allowance; such workers
 * typically show 0.8-1.2 GiB resident, and we round up.
 */
export const HOST_PROCESS_BASELINE_GIB = 1.25;

/**
 * Activation allowance per sample of a batch, by kind of input, in MiB. UNVERIFIED allowances, sized so that a batch's
 * intermediate tensors fit even when the compiler reuses few buffers across layers, so they err high.
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

/**
 * Bytes per stored weight at a compiled precision.
 *
 * - `bf16`: BF16 or FP16 weights, including an FP32 model compiled with Matmult-BF16 autocast (the matmul weights,
 *   nearly all of a model's parameters, are cast to BF16 at compile time);
 * - `fp32`: FP32 without autocast.
 */
export const BYTES_PER_PARAM = { bf16: 2, fp32: 4 } as const;

/** Precision of the compiled weights. */
export type WeightPrecision = keyof typeof BYTES_PER_PARAM;

/** What the memory estimate needs to know about one measurement. */
export interface MemoryEstimateInput {
  /** Parameter count of the whole model (every part a process loads). */
  readonly params: number;
  /** Precision of the compiled weights. */
  readonly precision: WeightPrecision;
  /** Batch size the measurement's artifact was compiled for. */
  readonly batchSize: number;
  /** Kind of input, selecting the per-sample activation allowance. */
  readonly activation: ActivationKind;
  /**
   * Size of one sample's output tensor when it is large enough to matter, in MiB (a masked-LM head's logits over a
   * 250k vocabulary). It is held on the device and copied to the host.
   *
   * @default 0 - the output is small next to the activation allowance
   */
  readonly outputMiBPerSample?: number;
}

/** Estimated memory of one model process for one measurement. */
export interface MemoryEstimate {
  readonly deviceMemoryGiB: number;
  readonly hostMemoryGiB: number;
  /** The formula with its inputs, one line. */
  readonly memorySource: string;
}

/** Rounds up to 0.01 GiB so the estimate never shrinks by rounding. */
function ceilHundredths(gib: number): number {
  return Math.ceil(gib * 100 - 1e-9) / 100;
}

/** `110000000` -> `110M`, `3500000000` -> `3.5B`. */
function formatParams(params: number): string {
  return params >= 1e9 ? `${+(params / 1e9).toFixed(3)}B` : `${+(params / 1e6).toFixed(1)}M`;
}

/**
 * Estimates the device and host memory of one model process for one measurement (see the file comment for the
 * formula and its sources). Both figures are rounded up to 0.01 GiB.
 */
export function estimateMemory(input: MemoryEstimateInput): MemoryEstimate {
  const bytesPerParam = BYTES_PER_PARAM[input.precision];
  const weightsGiB = (input.params * bytesPerParam) / GIB;
  const activationMiB = ACTIVATION_MIB_PER_SAMPLE[input.activation];
  const outputMiB = input.outputMiBPerSample ?? 0;
  const activationsGiB = (input.batchSize * (activationMiB + outputMiB) * MIB) / GIB;
  const outputsGiB = (input.batchSize * outputMiB * MIB) / GIB;
  const deviceMemoryGiB = ceilHundredths((weightsGiB + activationsGiB) * DEVICE_MARGIN + DEVICE_RUNTIME_RESERVE_GIB);
  const hostMemoryGiB = ceilHundredths(HOST_PROCESS_BASELINE_GIB + weightsGiB + outputsGiB);
  const perSample = outputMiB > 0 ? `(${activationMiB} + ${+outputMiB.toFixed(2)} output) MiB` : `${activationMiB} MiB`;
  const memorySource =
    `device = (weights ${weightsGiB.toFixed(3)} GiB [${formatParams(input.params)} params x ${bytesPerParam} B, ${input.precision}]` +
    ` + batch ${input.batchSize} x ${perSample} activations) x ${DEVICE_MARGIN} + ${DEVICE_RUNTIME_RESERVE_GIB} GiB runtime` +
    ` = ${deviceMemoryGiB} GiB; host = ${HOST_PROCESS_BASELINE_GIB} GiB worker baseline + weights` +
    (outputMiB > 0 ? ' + batch outputs' : '') +
    ` = ${hostMemoryGiB} GiB`;
  return { deviceMemoryGiB, hostMemoryGiB, memorySource };
}
