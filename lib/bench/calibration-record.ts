/**
 * What a measured run records so that `cdk-inferentia calibrate` can turn it into a calibrated profile: the plan it
 * was measured against, the rate offered and achieved, the latency at that rate and the server's own timing (device
 * time per call, time in the server besides the call).
 *
 * Written by the capacity proof (`capacity.calibration` of its S3 report) and by `bench --plan FILE --json`
 * (`calibration`). Versioned: a reader refuses a version it does not know rather than misreading it.
 */
import { lazySchema } from '../lazy-schema';
import { planBasisSchema, type PlanBasis } from '../smoke/capacity';
import type { BenchReport, RequestCounts, ServerTimingReport } from './types';

// The plan basis travels in the proof's settings (SMOKE_CONFIG), so it is part of that contract; re-exported here
// for the writers and readers of the record.
export { planBasis, type PlanBasis } from '../smoke/capacity';

/** The version of {@link CalibrationRecord} this code writes and reads. */
export const CALIBRATION_RECORD_VERSION = 1;

/** What calibration needs of one measured run. */
export interface CalibrationRecord extends RequestCounts {
  readonly schemaVersion: typeof CALIBRATION_RECORD_VERSION;
  /** Which writer measured it. */
  readonly writer: 'capacity-proof' | 'bench';
  /** When the measured phase started (ISO 8601). */
  readonly measuredAt: string;
  readonly plan: PlanBasis;
  /** Requests per second the load generator offered (open loop) over all instances. */
  readonly offeredRps: number;
  /** Successful requests per second over all instances. */
  readonly achievedRps: number;
  /** `achievedRps / plan.instanceCount`. */
  readonly achievedPerInstanceRps: number;
  /**
   * False when the load generator itself did not apply the offered rate (a load worker returned nothing): the
   * achieved rate then says nothing about the endpoint. An endpoint that cannot keep up still counts as applied.
   */
  readonly loadApplied: boolean;
  /** Why the load was not applied. @default - it was */
  readonly loadProblem?: string;
  /** Client-side latency of the successful requests at the offered rate. */
  readonly latencyMs: BenchReport['latencyMs'];
  /** The server's timing header, when it sent one. @default - none */
  readonly server?: ServerTimingReport;
  /**
   * Client p50 minus server p50: what the network, the SageMaker router and the client add per request.
   * @default - not measured (no server timing)
   */
  readonly httpOverheadMs?: number;
}

/** What a run measured, in the form both writers have it. */
export interface MeasuredRun extends RequestCounts {
  readonly startedAt: string;
  readonly offeredRps: number;
  readonly achievedRps: number;
  readonly latencyMs: BenchReport['latencyMs'];
  readonly server?: ServerTimingReport;
  /** @default - the load was applied */
  readonly loadProblem?: string;
}

/** Builds the record a writer puts in its report. */
export function calibrationRecord(writer: CalibrationRecord['writer'], plan: PlanBasis, run: MeasuredRun): CalibrationRecord {
  const succeeded = run.requests > run.errors;
  return {
    schemaVersion: CALIBRATION_RECORD_VERSION,
    writer,
    measuredAt: run.startedAt,
    plan,
    offeredRps: run.offeredRps,
    achievedRps: run.achievedRps,
    achievedPerInstanceRps: round(run.achievedRps / plan.instanceCount),
    loadApplied: run.loadProblem === undefined,
    ...(run.loadProblem !== undefined ? { loadProblem: run.loadProblem } : {}),
    requests: run.requests,
    errors: run.errors,
    errorsByKind: run.errorsByKind,
    latencyMs: run.latencyMs,
    ...(run.server !== undefined ? { server: run.server } : {}),
    ...(succeeded && run.server !== undefined
      ? { httpOverheadMs: round(Math.max(0, run.latencyMs.p50 - run.server.latencyMs.p50)) }
      : {}),
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

const positive = lazySchema((z) => z.number().positive());
const nonNegative = lazySchema((z) => z.number().min(0));
const percentiles = lazySchema((z) => z.object({ p50: nonNegative(), p90: nonNegative(), p99: nonNegative(), max: nonNegative() }));

/**
 * Schema of {@link CalibrationRecord}; unknown fields pass (a newer writer may add some within a version).
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const calibrationRecordSchema = lazySchema((z) => z.object({
  schemaVersion: z.literal(CALIBRATION_RECORD_VERSION),
  writer: z.enum(['capacity-proof', 'bench']),
  measuredAt: z.string().min(1),
  plan: planBasisSchema(),
  offeredRps: positive(),
  achievedRps: nonNegative(),
  achievedPerInstanceRps: nonNegative(),
  loadApplied: z.boolean(),
  loadProblem: z.string().optional(),
  requests: z.number().int().min(0),
  errors: z.number().int().min(0),
  errorsByKind: z.record(z.string(), z.number()),
  latencyMs: percentiles(),
  server: z
    .object({
      answers: z.number().int().min(0),
      latencyMs: percentiles(),
      meanBatchRequests: positive().optional(),
      meanBatchInputs: positive().optional(),
      deviceMs: percentiles().optional(),
      overheadMs: percentiles().extend({ p5: nonNegative() }).optional(),
    })
    .optional(),
  httpOverheadMs: nonNegative().optional(),
}));
