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
import { generativeCalibrationRecordSchema, UNKNOWN_SDK, type GenerativeCalibrationRecord } from '../bench/token-calibration';
import { ec2Name } from '../catalog/catalog';
import { measuredInstanceProblem } from '../catalog/instance-type';
import { InputError } from '../errors';
import { pinFor } from '../generative/engine-image';
import { parseGenerativeProfile } from '../generative/schema';
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
 * The generative record of a proof in tokens' report (or a bare record), checked against its schema and for sense:
 * the checks a profile's row gets (a Neuron instance type, a Neuron SDK release, positive and ordered percentiles),
 * and those of a measurement (no more errors than requests, a rate offered, no more achieved than offered).
 *
 * @throws InputError naming every invalid field, with its path in the report
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
  const parsed = result.data as GenerativeCalibrationRecord;
  InputError.throwIfAny(recordProblems(parsed).map((p) => `${origin}: ${path}${p}`));
  return parsed;
}

/**
 * Most achieved per offered a measurement can hold: Poisson arrivals over a capacity proof of 100 requests or more
 * scatter the achieved rate a few tens of percent around the offered one, never to half again above it.
 */
const MAX_ACHIEVED_PER_OFFERED = 1.5;

/** A Neuron SDK release as the Neuron release notes write it (the profile's rule). */
const SDK_RELEASE = /^\d+\.\d+(\.\d+)?$/;

/** Why a schema-valid record cannot make a row that reads back, one problem per field. */
function recordProblems(record: GenerativeCalibrationRecord): string[] {
  const { plan, measured } = record;
  const problems: string[] = [];
  if (Number.isNaN(Date.parse(record.measuredAt))) {
    problems.push(`measuredAt: expected an ISO 8601 time such as "2026-11-27T03:00:00.000Z", got ${formatValue(record.measuredAt)}`);
  }
  const instance = measuredInstanceProblem(ec2Name(plan.instanceType));
  if (instance !== undefined) {
    problems.push(`plan.instanceType: ${instance}`);
  }
  if (plan.neuronSdkVersion !== UNKNOWN_SDK && !SDK_RELEASE.test(plan.neuronSdkVersion)) {
    problems.push(`plan.neuronSdkVersion: expected a Neuron SDK release such as "2.28.0" (the serving image's), got ${formatValue(plan.neuronSdkVersion)}`);
  }
  const tokens = Math.round(plan.inputTokens) + Math.round(plan.outputTokens);
  if (plan.maxModelLength < tokens) {
    problems.push(`plan.maxModelLength: expected at least inputTokens + outputTokens (${tokens}), got ${plan.maxModelLength}`);
  }
  if (measured.errors > measured.requests) {
    problems.push(`measured.errors: ${measured.errors} is more than the ${measured.requests} requests measured; the report is damaged: prove again`);
  }
  if (measured.requests > 0 && !(measured.offeredRps > 0)) {
    problems.push(`measured.offeredRps: ${measured.requests} requests measured at an offered ${measured.offeredRps} requests/s; the report is damaged: prove again`);
  }
  if (measured.requests > measured.errors && !(measured.achievedRps > 0)) {
    problems.push(`measured.achievedRps: ${measured.requests - measured.errors} requests succeeded at an achieved ${measured.achievedRps} requests/s; the report is damaged: prove again`);
  }
  if (measured.offeredRps > 0 && measured.achievedRps > MAX_ACHIEVED_PER_OFFERED * measured.offeredRps) {
    problems.push(`measured.achievedRps: ${measured.achievedRps} requests/s achieved of ${measured.offeredRps} offered; a proof cannot achieve ` +
      `more than ${MAX_ACHIEVED_PER_OFFERED} x what it offered: the report is damaged, prove again`);
  }
  for (const name of ['ttftMs', 'tpotMs', 'e2eMs'] as const) {
    const q = measured[name];
    if (!(q.p50 > 0)) {
      problems.push(`measured.${name}.p50: expected a positive number of milliseconds, got ${q.p50}`);
    }
    const order = (['p50', 'p90', 'p99', 'max'] as const).find((k, i, ks) => i > 0 && q[k] < q[ks[i - 1]]);
    if (order !== undefined) {
      problems.push(`measured.${name}: expected p50 <= p90 <= p99 <= max, got ${formatValue(q)}`);
    }
  }
  return problems;
}

/** What calibration made: the profile, its new row, whether it replaced one, and what the user should know. */
export interface GenerativeCalibration {
  readonly profile: GenerativeProfile;
  readonly row: GenerativeMeasurement;
  readonly replaced: boolean;
  readonly warnings: readonly string[];
}

/**
 * The profile with the deployed configuration's measured row: it replaces a row of the same instance type, degree,
 * sequences and lengths, or is added. The profile written reads back (`parseGenerativeProfile`), so the next
 * `plan --profile` plans from it.
 *
 * A record that does not know its Neuron SDK (written before the serving image's was recorded) takes the SDK of the
 * image pinned for the instance's chip, with a warning.
 *
 * @throws InputError when the record measured another model, too few requests, too many errors, or part of the load
 */
export function calibrateGenerativeProfile(
  record: GenerativeCalibrationRecord,
  profile: GenerativeProfile,
  options: { readonly source: string },
): GenerativeCalibration {
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
  const instanceType = ec2Name(plan.instanceType);
  const warnings: string[] = [];
  let sdk = plan.neuronSdkVersion;
  if (sdk === UNKNOWN_SDK) {
    const pin = pinFor(instanceType.split('.')[0]);
    if (pin === undefined) {
      throw new InputError(`${options.source}: plan.neuronSdkVersion is "${UNKNOWN_SDK}" and no serving image is pinned for ${instanceType}; ` +
        'the row needs the Neuron SDK that served it: prove again with this cdk-inferentia, which records it');
    }
    sdk = pin.neuronSdkVersion;
    warnings.push(`the report does not say which Neuron SDK served (written before the proof recorded it): the row says ${sdk}, the SDK of ` +
      `the image pinned for ${instanceType} (${pin.tag}); if the deployment ran another image, edit neuronSdkVersion in the profile`);
  }
  const row: GenerativeMeasurement = {
    instanceType,
    tensorParallelDegree: plan.tensorParallelDegree,
    batchSize: plan.maxConcurrentSequences,
    inputTokens: Math.round(plan.inputTokens),
    outputTokens: Math.round(plan.outputTokens),
    sequenceLength: plan.maxModelLength,
    neuronSdkVersion: sdk,
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
  const calibrated: GenerativeProfile = { ...profile, measurements: [...profile.measurements.filter((m) => !same(m)), row] };
  // What is written must read back: the record checks above are the profile's rules, and this proves it.
  try {
    parseGenerativeProfile(JSON.parse(JSON.stringify(calibrated)), 'the calibrated profile');
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    throw new InputError(e.problems.map((p) => `${options.source}: the row it measured would not read back: ${p}`));
  }
  return { profile: calibrated, row, replaced, warnings };
}
