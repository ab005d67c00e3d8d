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
  /**
   * What a deployment of this row actually held per instance, as a share of what the planner's queueing model
   * predicts for it: the planner multiplies its capacity per instance by it. Set by `cdk-inferentia calibrate` from a
   * capacity proof (see the profile's `calibration`).
   *
   * @default 1 - the model's prediction as is
   */
  readonly capacityFactor?: number;
}

/**
 * Where a calibrated profile's numbers come from: the measured run, the plan it was measured against, and what
 * changed. Written by `cdk-inferentia calibrate`; `plan` names it in its output.
 */
export interface ProfileCalibration {
  /** The report it was calibrated from: an `s3://` URI or a file name. */
  readonly source: string;
  /** When the run was measured (ISO 8601). */
  readonly measuredAt: string;
  /** When the profile was calibrated (ISO 8601). */
  readonly calibratedAt: string;
  /** The plan the run was measured against. */
  readonly plan: {
    readonly instanceType: string;
    readonly instanceCount: number;
    readonly processesPerInstance: number;
    readonly coresPerProcess: number;
    readonly batchSize: number;
    readonly serving: 'stock' | 'batching';
    /** The server the plan was made for. @default 'model-server' (a calibration written before plans named it) */
    readonly server?: 'model-server' | 'neuron-dlc';
    readonly p99TargetMs: number;
    /** The capacity per instance the plan counted on. */
    readonly capacityPerInstanceRps: number;
    /** Requests per second the run offered, over all instances. */
    readonly offeredRps: number;
  };
  /** What the run measured. */
  readonly measured: {
    readonly achievedPerInstanceRps: number;
    /** Client-side p99 at the offered rate. */
    readonly p99Ms: number;
    /** @default - no server timing */
    readonly serverP99Ms?: number;
    /** Median device time of a call. @default - no server timing */
    readonly deviceP50Ms?: number;
    /** Host work per request in the server. @default - not measured */
    readonly hostMsPerRequest?: number;
    /** What the network, router and client add per request, outside the plan's p99. @default - not measured */
    readonly httpOverheadMs?: number;
  };
  /** What the planner now predicts for the measured plan's layout: one instance's capacity within its p99 target. */
  readonly capacityPerInstanceRps: number;
  /** One sentence per change: the field, old and new value, and why. */
  readonly changes: readonly string[];
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
  /** Set when the profile was calibrated from a measured run. @default - not calibrated */
  readonly calibration?: ProfileCalibration;
}

/** A measurement that contradicts itself; shown as a warning, the planner still uses it. */
export interface ProfileWarning {
  readonly profileId: string;
  /** Index into `measurements`. */
  readonly measurementIndex: number;
  readonly message: string;
}
