/**
 * Calibration of a generative profile from a proof in tokens: the configuration the plan deployed becomes a measured
 * row (instance, tensor-parallel degree, sequences, lengths, TTFT and TPOT as the capacity proof measured them at the
 * plan's rate), so the next plan times that configuration from what the deployment did instead of from the published
 * row or the performance model's ESTIMATE: measured rows win where they exist.
 *
 * The measured percentiles were taken under the plan's load, so they hold what that load adds (a TPOT that prefills
 * interrupted, a TTFT that waited): a plan from the row errs towards more capacity, never less. Pure: reading the
 * report is the caller's.
 */
import { generativeCalibrationRecordSchema, type GenerativeCalibrationRecord } from '../bench/token-calibration';
import { InputError } from '../errors';
import type { GenerativeMeasurement, GenerativeProfile } from '../generative/types';
import { formatPath, formatValue, valueAt } from '../profiles/schema';

/** Fewest successful requests a proof needs before its p99s can stand for a row. */
export const MIN_GENERATIVE_CALIBRATION_REQUESTS = 100;

/** Most of the requests that may fail before a run cannot calibrate. */
const MAX_ERROR_RATE = 0.01;

/** True when a report document holds a generative calibration record (`capacity.calibration.kind: 'generative'`). */
export function isGenerativeCalibration(json: unknown): boolean {
  return valueAt(json, ['capacity', 'calibration', 'kind']) === 'generative' || valueAt(json, ['kind']) === 'generative';
}

/**
 * The generative record of a proof in tokens' report (or a bare record), checked against its schema.
 *
 * @throws InputError naming every invalid field
 */
export function readGenerativeCalibrationRecord(json: unknown, origin: string): GenerativeCalibrationRecord {
  const inReport = valueAt(json, ['capacity', 'calibration']) !== undefined;
  const record = inReport ? valueAt(json, ['capacity', 'calibration']) : json;
  const path = inReport ? 'capacity.calibration.' : '';
  const result = generativeCalibrationRecordSchema().safeParse(record);
  if (!result.success) {
    throw new InputError(
      result.error.issues.map((issue) => `${origin}: ${path}${formatPath(issue.path)}: ${issue.message}, got ${formatValue(valueAt(record, issue.path))}`),
    );
  }
  return result.data as GenerativeCalibrationRecord;
}

/**
 * The profile with the deployed configuration's measured row: it replaces a row of the same instance type, degree,
 * sequences and lengths, or is added.
 *
 * @throws InputError when the record measured another model, too few requests, too many errors, or part of the load
 */
export function calibrateGenerativeProfile(
  record: GenerativeCalibrationRecord,
  profile: GenerativeProfile,
  options: { readonly source: string },
): { readonly profile: GenerativeProfile; readonly row: GenerativeMeasurement; readonly replaced: boolean } {
  const { plan, measured } = record;
  const problems: string[] = [];
  if (plan.profileId !== profile.id) {
    problems.push(`${options.source}: the proof measured ${plan.profileId}, not ${profile.id}; give the profile the plan was made from`);
  }
  const succeeded = measured.requests - measured.errors;
  if (!record.loadApplied) {
    problems.push(`${options.source}: a load worker returned nothing, so the planned rate was not all applied; prove again`);
  }
  if (succeeded < MIN_GENERATIVE_CALIBRATION_REQUESTS) {
    problems.push(
      `${options.source}: ${succeeded} successful requests; a row needs at least ${MIN_GENERATIVE_CALIBRATION_REQUESTS} so its p99 rests on ` +
        'one request or more: lengthen the capacity proof (its durationMs)',
    );
  }
  if (measured.requests > 0 && measured.errors / measured.requests > MAX_ERROR_RATE) {
    problems.push(`${options.source}: ${measured.errors} of ${measured.requests} requests failed; fix the deployment before calibrating from it`);
  }
  InputError.throwIfAny(problems);
  const row: GenerativeMeasurement = {
    instanceType: plan.instanceType,
    tensorParallelDegree: plan.tensorParallelDegree,
    batchSize: plan.maxConcurrentSequences,
    inputTokens: Math.round(plan.inputTokens),
    outputTokens: Math.round(plan.outputTokens),
    sequenceLength: plan.maxModelLength,
    neuronSdkVersion: plan.neuronSdkVersion,
    ttftP50Ms: measured.ttftMs.p50,
    ttftP99Ms: measured.ttftMs.p99,
    tpotP50Ms: measured.tpotMs.p50,
    tpotP99Ms: measured.tpotMs.p99,
    source:
      `measured by the proof in tokens ${options.source} (${record.measuredAt}): ${plan.instanceCount} x ${plan.instanceType}, ` +
      `${plan.replicasPerInstance} replica(s) of tp=${plan.tensorParallelDegree} max_num_seqs=${plan.maxConcurrentSequences}, ` +
      `${measured.achievedRps} of ${measured.offeredRps} requests/s offered, ${succeeded} requests`,
  };
  const same = (m: GenerativeMeasurement): boolean =>
    m.instanceType === row.instanceType && m.tensorParallelDegree === row.tensorParallelDegree && m.batchSize === row.batchSize &&
    m.inputTokens === row.inputTokens && m.outputTokens === row.outputTokens && m.chunkedPrefill !== true;
  const replaced = profile.measurements.some(same);
  const measurements = [...profile.measurements.filter((m) => !same(m)), row];
  return { profile: { ...profile, measurements }, row, replaced };
}
