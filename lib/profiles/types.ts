/**
 * Shapes of model profiles: what a model needs and how fast it ran on measured NeuronCore layouts.
 */
import type { CoreVersion } from '../catalog/types';

/** How the measurement was taken: batched for throughput, or real-time (batch 1 or small) for latency. */
export type MeasurementMode = 'batch' | 'real-time';

/**
 * One measured operating point of a model on one NeuronCore group size.
 *
 * `throughputRps` is per model process: the table's instance throughput divided by the model copies (processes) the
 * row ran, as its columns state them (`measuredProcesses`).
 */
export interface Measurement {
  /** NeuronCore generation the model was compiled for. */
  readonly coreVersion: CoreVersion;
  /** NeuronCores one model process uses (the compiled core count / TP degree). */
  readonly coresPerProcess: number;
  /** Batch size per inference call. */
  readonly batchSize: number;
  /** Inferences per second of one model process. */
  readonly throughputRps: number;
  /** Median latency of one request in milliseconds. */
  readonly p50Ms: number;
  /** 99th percentile latency of one request in milliseconds. */
  readonly p99Ms: number;
  /** Where the row comes from (document, row, date). */
  readonly source: string;
  /** Instance type the measurement ran on, when the source says. */
  readonly instanceType?: string;
  /** Batch or real-time mode, when the source says. */
  readonly mode?: MeasurementMode;
  /**
   * Accelerator memory one process needs for this measurement's compiled model (weights at the compiled dtype plus
   * activations for its batch size), in GiB. Memory belongs to a measurement: a batch-16 artifact needs more than a
   * batch-1 artifact of the same model.
   *
   * @default - the profile's `deviceMemoryGiB`
   */
  readonly deviceMemoryGiB?: number;
  /**
   * Host memory one process needs for this measurement's compiled model, in GiB.
   *
   * @default - the profile's `hostMemoryGiB`
   */
  readonly hostMemoryGiB?: number;
  /** How this measurement's memory figures were obtained (measured, or estimated and how). */
  readonly memorySource?: string;
  /**
   * Model copies (processes) the measurement ran on its instance; `throughputRps` is the instance's throughput divided
   * by it. Informational: the planner sizes from `throughputRps`.
   */
  readonly measuredProcesses?: number;
}

/** What one model needs per process, and its measurements. */
export interface ModelProfile {
  /** Model name as the Neuron tables write it, e.g. `bert-base-uncased`, `google/vit-base-patch16-224`. */
  readonly id: string;
  /** One line about the model. */
  readonly description?: string;
  /**
   * Accelerator memory one model process needs, in GiB: the default for measurements without their own
   * `deviceMemoryGiB`. The built-in profiles set it to the largest of their measurements' figures.
   */
  readonly deviceMemoryGiB: number;
  /** Host memory one model process needs, in GiB; like `deviceMemoryGiB`, the default for its measurements. */
  readonly hostMemoryGiB: number;
  /** vCPUs one model process needs. @default 1 */
  readonly vcpuPerProcess?: number;
  /**
   * Host CPU time one request costs outside the device call, in milliseconds of one vCPU: HTTP, JSON, tokenization
   * or image decoding, and building the response. It caps how many requests a vCPU can feed the NeuronCores.
   *
   * @default - the planner's conservative DEFAULT_HOST_CPU_MS_PER_REQUEST; every built-in profile sets one by kind
   * of input (lib/profiles/host-cpu.ts)
   */
  readonly hostCpuMsPerRequest?: number;
  /** Where `hostCpuMsPerRequest` comes from (measured on which host, or estimated and how). */
  readonly hostCpuSource?: string;
  /** How the memory figures were obtained (measured, or estimated and how). */
  readonly memorySource?: string;
  /** Measured operating points. */
  readonly measurements: readonly Measurement[];
}

/** A measurement that contradicts itself; shown as a warning, the planner still uses it. */
export interface ProfileWarning {
  readonly profileId: string;
  /** Index into `measurements`. */
  readonly measurementIndex: number;
  readonly message: string;
}
