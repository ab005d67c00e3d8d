/**
 * What a proof in tokens records so that `cdk-inferentia calibrate` can turn it into a measured row of a generative
 * profile: the configuration deployed (instance, tensor-parallel degree, sequences, lengths) and what its capacity
 * proof measured at the plan's rate (TTFT and TPOT percentiles, rates, errors).
 *
 * Written by the gate as `capacity.calibration` of its S3 report when its settings carry the plan's basis (`plan` of
 * the token proof's settings). Versioned as the single-call record is; told apart by `kind: 'generative'`.
 */
import { lazySchema } from '../lazy-schema';
import type { GenerativePlan } from '../generative/types';

/** p50, p90, p99 and max in milliseconds. */
interface Percentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** What the capacity proof measured, as calibration reads it (a subset of the report's `TokenMeasurement`). */
export interface GenerativeCalibrationMeasurement {
  readonly requests: number;
  readonly errors: number;
  readonly offeredRps: number;
  readonly achievedRps: number;
  readonly ttftMs: Percentiles;
  readonly tpotMs: Percentiles;
  readonly e2eMs: Percentiles;
  readonly goodputRps?: number;
}

/** The configuration a generative plan deployed, as calibration needs it. */
export interface GenerativePlanBasis {
  readonly profileId: string;
  /** EC2 name of the instance type, e.g. `inf2.48xlarge`. */
  readonly instanceType: string;
  readonly instanceCount: number;
  readonly replicasPerInstance: number;
  readonly tensorParallelDegree: number;
  /** `max_num_seqs`. */
  readonly maxConcurrentSequences: number;
  /** `max_model_len`. */
  readonly maxModelLength: number;
  /** Mean prompt and output tokens of the planned workload. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /**
   * Neuron SDK of the row the plan was timed from; for a plan the performance model timed (no row), the SDK of the
   * image that serves it, so the row calibration writes says which SDK measured it.
   */
  readonly neuronSdkVersion: string;
}

/**
 * The basis of a generative plan, for the token proof's settings.
 *
 * @param servingNeuronSdkVersion the Neuron SDK of the image that serves the plan: what an ESTIMATE plan (timed from no
 *   row) records. @default - 'unknown', which `calibrate` replaces with the pinned image's SDK and says so
 */
export function generativePlanBasis(plan: GenerativePlan, servingNeuronSdkVersion?: string): GenerativePlanBasis {
  const g = plan.generative;
  return {
    profileId: plan.profileId,
    instanceType: plan.instanceType.replace(/^ml\./, ''),
    instanceCount: plan.instanceCount,
    replicasPerInstance: g.replicasPerInstance,
    tensorParallelDegree: g.tensorParallelDegree,
    maxConcurrentSequences: g.maxConcurrentSequences,
    maxModelLength: g.maxModelLength,
    inputTokens: plan.targets.inputTokens.mean,
    outputTokens: plan.targets.outputTokens.mean,
    neuronSdkVersion: g.measurement[0]?.neuronSdkVersion ?? servingNeuronSdkVersion ?? UNKNOWN_SDK,
  };
}

/** What a basis says when it does not know the serving image's Neuron SDK (reports written before it was recorded). */
export const UNKNOWN_SDK = 'unknown';

/** The version of {@link GenerativeCalibrationRecord} this code writes and reads. */
export const GENERATIVE_CALIBRATION_VERSION = 1;

/** What calibration needs of one capacity proof in tokens. */
export interface GenerativeCalibrationRecord {
  readonly schemaVersion: typeof GENERATIVE_CALIBRATION_VERSION;
  readonly kind: 'generative';
  readonly writer: 'token-proof';
  /** When the proof ran (ISO 8601). */
  readonly measuredAt: string;
  readonly plan: GenerativePlanBasis;
  readonly measured: GenerativeCalibrationMeasurement;
  /** False when a load worker returned nothing: the rate was not all applied. */
  readonly loadApplied: boolean;
}

/** Builds the record the gate puts in its report. */
export function generativeCalibrationRecord(plan: GenerativePlanBasis, measured: GenerativeCalibrationMeasurement, measuredAt: string, loadApplied: boolean): GenerativeCalibrationRecord {
  const { requests, errors, offeredRps, achievedRps, ttftMs, tpotMs, e2eMs, goodputRps } = measured;
  return {
    schemaVersion: GENERATIVE_CALIBRATION_VERSION,
    kind: 'generative',
    writer: 'token-proof',
    measuredAt,
    plan,
    measured: { requests, errors, offeredRps, achievedRps, ttftMs, tpotMs, e2eMs, ...(goodputRps !== undefined ? { goodputRps } : {}) },
    loadApplied,
  };
}

const positive = lazySchema((z) => z.number().positive());
const positiveInt = lazySchema((z) => z.number().int().positive());
const nonNegative = lazySchema((z) => z.number().min(0));
const percentiles = lazySchema((z) => z.object({ p50: nonNegative(), p90: nonNegative(), p99: nonNegative(), max: nonNegative() }));

/**
 * Schema of {@link GenerativePlanBasis}, as the token proof's settings carry it.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const generativePlanBasisSchema = lazySchema((z) => z
  .object({
    profileId: z.string().min(1),
    instanceType: z.string().min(1),
    instanceCount: positiveInt(),
    replicasPerInstance: positiveInt(),
    tensorParallelDegree: positiveInt(),
    maxConcurrentSequences: positiveInt(),
    maxModelLength: positiveInt(),
    inputTokens: positive(),
    outputTokens: positive(),
    neuronSdkVersion: z.string().min(1),
  })
  .strict());

/**
 * Schema of {@link GenerativeCalibrationRecord}; unknown fields pass (a newer writer may add some within a version).
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const generativeCalibrationRecordSchema = lazySchema((z) => z.object({
  schemaVersion: z.literal(GENERATIVE_CALIBRATION_VERSION),
  kind: z.literal('generative'),
  writer: z.literal('token-proof'),
  measuredAt: z.string().min(1),
  plan: generativePlanBasisSchema(),
  measured: z.object({
    requests: z.number().int().min(0),
    errors: z.number().int().min(0),
    offeredRps: nonNegative(),
    achievedRps: nonNegative(),
    ttftMs: percentiles(),
    tpotMs: percentiles(),
    e2eMs: percentiles(),
    goodputRps: nonNegative().optional(),
  }),
  loadApplied: z.boolean(),
}));
