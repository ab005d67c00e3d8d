/**
 * Calibration from the proof: a profile and a run measured against a plan made from it become a profile whose plans
 * start from what the deployment did rather than from the tables.
 *
 * Three corrections, each from one measured quantity, each recorded in the profile's `calibration.changes`:
 * - device time: the server's median `device-ms` against the planned row's p50 scales that row (its p50, p99 and
 *   throughput) and the other rows of the same chip alike: the same model on the same hardware.
 * - host work: with stock serving (one call per request), the 5th percentile of `server-ms - device-ms` is the host
 *   work of a request that did not wait for a process; it becomes `hostCpuMsPerRequest`. With server batching that
 *   difference also holds the wait for the batch to close, and on instances that fell behind the offered rate the wait
 *   for a process (nearly every request queues), neither of which can be told apart, so host work is kept.
 * - capacity factor: what an instance held against what the planner's queueing model, fed the corrected row and host
 *   work, predicts for the measured layout. A run whose instances fell behind the offered rate measured their
 *   capacity: the factor makes the model match it. A run that held its rate within the p99 target proved at least
 *   that rate: the factor only rises to it. A run that held the rate above the target proved the capacity within the
 *   target is below it: the factor caps the model at it, and a warning says to prove again at a lower rate.
 */
import type { CalibrationRecord } from '../bench/calibration-record';
import { ec2Name } from '../catalog/catalog';
import { InputError } from '../errors';
import { measurementApplies } from '../planner/planner';
import { capacityRps, servingModel } from '../planner/serving';
import { parseProfile } from '../profiles/schema';
import type { Measurement, ModelProfile, ProfileCalibration } from '../profiles/types';

/**
 * Below this share of the offered rate the instances fell behind: the achieved rate is their capacity. The capacity
 * proof's own default pass mark (`rateShare`) is the same.
 */
export const SATURATED_SHARE = 0.95;

/** Most of the requests that may fail for reasons other than load before a run cannot calibrate. */
export const MAX_NON_LOAD_ERROR_RATE = 0.01;

/** The error kinds an overloaded endpoint produces: they measure capacity rather than spoil the run. */
export const LOAD_ERROR_KINDS: readonly string[] = ['backpressure', 'timeout', 'throttled', 'http-503', 'http-429'];

/**
 * Fewest requests a run must have measured to calibrate. Calibration judges the run by its p99: among n requests
 * about n / 100 lie above the true p99, and the sample p99 is the value at that rank. At 1,000 requests 10 lie above
 * it, and the sample p99 falls between the true 98.4th and 99.6th percentiles 95 % of the time (binomial: 1 % +/-
 * 1.96 x sqrt(0.01 x 0.99 / 1000)); at 100 requests it is the single slowest request, at 10 it is just the maximum.
 * A capacity proof at its defaults (60 s at the planned rate) measures far more for any plan of 17 requests/s or
 * more; below that, lengthen its `duration`.
 */
export const MIN_CALIBRATION_REQUESTS = 1000;

/**
 * Smallest share of the plan's capacity a run must have offered to calibrate. A run at a share f of the plan can
 * only cap the capacity at f x plan (it shows nothing above what it offered), so a run at a few percent, with one
 * mismeasured p99 (another server, a cold start), cuts the capacity by 1/f: the issue's 10 requests/s against 2,467.6
 * cut it 250-fold. Below half, the instances are idle most of the time and the p99 is the call time with little
 * queueing in it, which the device-time correction already reads from the server's timing; at half or above, a
 * wrong p99 moves the capacity by at most 2x, which the next proof at the full rate corrects. The capacity proof
 * runs at the full plan by default (`fraction` 1).
 */
export const MIN_PLANNED_SHARE = 0.5;

/** Percentile of `server-ms - device-ms` taken as the host work of a request that did not wait. */
export const HOST_WORK_PERCENTILE = 5;

/** Smallest host work written: the profile format wants a positive number. */
const MIN_HOST_MS = 0.01;

/** How to calibrate. */
export interface CalibrateOptions {
  /** The report's name: an `s3://` URI or a file name. */
  readonly source: string;
  /** When the calibration is made (ISO 8601); the caller's clock, so the function stays pure. */
  readonly calibratedAt: string;
}

/** A calibrated profile and what a person should know about it. */
export interface CalibrationResult {
  /** The original profile with calibrated rows, host work and a `calibration` block. */
  readonly profile: ModelProfile;
  /** Things the measurement could not settle, one sentence each. */
  readonly warnings: readonly string[];
}

/**
 * Calibrates a profile from a run measured against a plan made from it.
 *
 * @throws InputError when the run cannot calibrate this profile: another model, no row matching the plan's, no
 *   successful request, the load not applied, or requests failing for reasons other than load
 */
export function calibrateProfile(record: CalibrationRecord, profile: ModelProfile, options: CalibrateOptions): CalibrationResult {
  const basis = record.plan;
  const rowIndex = refuseUnusable(record, profile, options.source);
  const row = profile.measurements[rowIndex];
  const family = ec2Name(basis.instanceType).split('.')[0];
  const sameChip = (m: Measurement) => measurementApplies(m, { family, coreVersion: basis.coreVersion });
  const changes: string[] = [];
  const warnings: string[] = [];
  const server = record.server;

  // Device time: the planned row becomes the measured call, the chip's other rows scale with it.
  let measurements = profile.measurements;
  const device = server?.deviceMs;
  if (device !== undefined && device.p50 > 0) {
    const scale = device.p50 / row.p50Ms;
    const scaled = (m: Measurement, i: number): Measurement =>
      i === rowIndex
        ? { ...m, p50Ms: device.p50, p99Ms: Math.max(device.p99, device.p50), throughputRps: round(m.throughputRps / scale, 3) }
        : sameChip(m)
          ? { ...m, p50Ms: round(m.p50Ms * scale, 3), p99Ms: round(m.p99Ms * scale, 3), throughputRps: round(m.throughputRps / scale, 3) }
          : m;
    measurements = measurements.map(scaled);
    const others = profile.measurements.filter((m, i) => i !== rowIndex && sameChip(m)).length;
    changes.push(
      `device time: median ${fmt(device.p50)} ms per call measured against the row's p50 ${fmt(row.p50Ms)} ms (x${fmt(scale)}): ` +
        `measurements[${rowIndex}] p50 ${fmt(row.p50Ms)} -> ${fmt(device.p50)} ms, p99 ${fmt(row.p99Ms)} -> ` +
        `${fmt(measurements[rowIndex].p99Ms)} ms, throughput ${fmt(row.throughputRps)} -> ${fmt(measurements[rowIndex].throughputRps)}/s per process` +
        (others > 0 ? `; ${others} other row(s) of the same chip scaled alike` : ''),
    );
  } else {
    warnings.push('the report has no device time (the server sent no device-ms): the rows keep their device latency; serve with the cdk-inferentia model server to measure it');
  }

  // Host work: only where server-ms - device-ms holds nothing but host work and the wait for a process.
  let hostCpuMsPerRequest = profile.hostCpuMsPerRequest;
  let hostCpuSource = profile.hostCpuSource;
  const overhead = server?.overheadMs;
  const fellBehind = record.achievedRps < SATURATED_SHARE * record.offeredRps;
  if (overhead !== undefined && basis.serving === 'stock' && !fellBehind) {
    const perInput = Math.max(MIN_HOST_MS, round(overhead.p5 / basis.inputsPerRequest, 3));
    changes.push(
      `hostCpuMsPerRequest: ${profile.hostCpuMsPerRequest === undefined ? `the planner's default (plan counted ${fmt(basis.hostCpuMsPerRequest)} ms)` : `${fmt(profile.hostCpuMsPerRequest)} ms`} -> ` +
        `${fmt(perInput)} ms (p${HOST_WORK_PERCENTILE} of server-ms - device-ms${basis.inputsPerRequest > 1 ? `, / ${basis.inputsPerRequest} inputs` : ''})`,
    );
    hostCpuMsPerRequest = perInput;
    hostCpuSource = `calibrated from ${options.source} (${record.measuredAt}): p${HOST_WORK_PERCENTILE} of server-ms - device-ms at ${fmt(record.offeredRps)} requests/s`;
  } else if (overhead !== undefined && fellBehind) {
    warnings.push('host work kept: the instances fell behind the offered rate, so server-ms - device-ms also holds the wait for a process; prove at a rate they hold to measure it');
  } else if (overhead !== undefined) {
    warnings.push('host work kept: with server batching, server-ms - device-ms also holds the wait for the batch to close');
  }

  // Capacity: the model fed the corrected numbers, against what the instances held.
  const inputs = basis.inputsPerRequest;
  const model = servingModel(measurements[rowIndex], {
    mode: basis.serving,
    server: basis.server,
    processes: basis.processesPerInstance,
    hostMsPerRequest: (hostCpuMsPerRequest ?? basis.hostCpuMsPerRequest / inputs) * inputs,
    requestsPerBatch: basis.serving === 'stock' ? 1 : Math.floor(basis.batchSize / inputs),
    maxDelayMs: basis.maxDelayMs,
    frontEnds: basis.frontEndsPerInstance,
  });
  const modelled = capacityRps(model, basis.p99TargetMs / 1000);
  const offeredPerInstance = record.offeredRps / basis.instanceCount;
  const held = record.achievedRps / basis.instanceCount;
  const p99 = server?.latencyMs.p99 ?? record.latencyMs.p99;
  const p99Name = server !== undefined ? 'server p99' : 'client p99';
  const previous = row.capacityFactor ?? 1;
  let factor = previous;
  let why: string;
  if (!(modelled > 0)) {
    throw new InputError(
      `${options.source}: with the measured device time and host work, the planner's model holds no load within the plan's p99 ` +
        `target of ${basis.p99TargetMs} ms on ${basis.instanceType}: replan with a higher target or another layout before calibrating`,
    );
  }
  if (fellBehind) {
    factor = held / modelled;
    why = `the instances fell behind: they held ${fmt(held)} of the ${fmt(offeredPerInstance)} requests/s per instance offered`;
  } else if (p99 <= basis.p99TargetMs) {
    factor = Math.max(previous, offeredPerInstance / modelled);
    why = `the instances held the offered ${fmt(offeredPerInstance)} requests/s per instance at ${p99Name} ${fmt(p99)} ms, within the target ${fmt(basis.p99TargetMs)} ms`;
  } else {
    factor = Math.min(previous, offeredPerInstance / modelled);
    why = `the instances held the offered ${fmt(offeredPerInstance)} requests/s per instance but at ${p99Name} ${fmt(p99)} ms, above the target ${fmt(basis.p99TargetMs)} ms`;
    warnings.push(
      `${why}: their capacity within the target is below that rate by an amount this run cannot tell; the calibrated plan counts ` +
        'at most the rate proven. Prove again at a lower rate (capacityProof.fraction, or bench --rate) to measure it',
    );
  }
  factor = round(factor, 4);
  const calibratedCapacity = modelled * factor;
  if (Math.abs(factor - 1) < 1e-4) {
    measurements = measurements.map((m, i) => (i === rowIndex ? withoutFactor(m) : m));
  } else {
    measurements = measurements.map((m, i) => (i === rowIndex ? { ...m, capacityFactor: factor } : m));
  }
  if (factor !== previous) {
    changes.push(
      `capacityFactor of measurements[${rowIndex}]: ${fmt(previous)} -> ${fmt(factor)}, so its model's ${fmt(modelled)} requests/s per instance ` +
        `becomes ${fmt(calibratedCapacity)}`,
    );
  }
  changes.push(
    `capacity per ${basis.instanceType} instance (${basis.processesPerInstance} x g=${basis.coresPerProcess} b=${basis.batchSize} ${basis.serving}, ` +
      `p99 <= ${fmt(basis.p99TargetMs)} ms): planned ${fmt(basis.capacityPerInstanceRps)} -> calibrated ${fmt(calibratedCapacity)} requests/s (${why})`,
  );
  if (record.httpOverheadMs !== undefined) {
    warnings.push(
      `the network, router and client added ${fmt(record.httpOverheadMs)} ms per request (client p50 - server p50), outside the ` +
        "plan's p99: a client-side target needs that much more room",
    );
  }

  const calibration: ProfileCalibration = {
    source: options.source,
    measuredAt: record.measuredAt,
    calibratedAt: options.calibratedAt,
    plan: {
      instanceType: basis.instanceType,
      instanceCount: basis.instanceCount,
      processesPerInstance: basis.processesPerInstance,
      coresPerProcess: basis.coresPerProcess,
      batchSize: basis.batchSize,
      serving: basis.serving,
      ...(basis.server !== undefined ? { server: basis.server } : {}),
      p99TargetMs: basis.p99TargetMs,
      capacityPerInstanceRps: basis.capacityPerInstanceRps,
      offeredRps: record.offeredRps,
    },
    measured: {
      achievedPerInstanceRps: round(held, 1),
      p99Ms: record.latencyMs.p99,
      ...(server !== undefined && server.latencyMs.p99 > 0 ? { serverP99Ms: server.latencyMs.p99 } : {}),
      ...(device !== undefined && device.p50 > 0 ? { deviceP50Ms: device.p50 } : {}),
      ...(hostCpuMsPerRequest !== profile.hostCpuMsPerRequest && hostCpuMsPerRequest !== undefined ? { hostMsPerRequest: hostCpuMsPerRequest } : {}),
      ...(record.httpOverheadMs !== undefined ? { httpOverheadMs: record.httpOverheadMs } : {}),
    },
    capacityPerInstanceRps: round(calibratedCapacity, 1),
    changes,
  };
  const note = `calibrated from ${options.source} (${record.measuredAt})`;
  const calibrated = {
    ...profile,
    ...(hostCpuMsPerRequest !== undefined ? { hostCpuMsPerRequest } : {}),
    ...(hostCpuSource !== undefined ? { hostCpuSource } : {}),
    measurements: measurements.map((m, i) => (m === profile.measurements[i] ? m : { ...m, source: `${m.source.split('; calibrated from ')[0]}; ${note}` })),
    calibration,
  };
  // What is written must read back: the profile format's own check, on the JSON a file would hold.
  return { profile: parseProfile(JSON.parse(JSON.stringify(calibrated)), `calibrated ${profile.id}`), warnings };
}

/** The index of the row the plan was sized from, after every reason the run cannot calibrate was checked. */
function refuseUnusable(record: CalibrationRecord, profile: ModelProfile, origin: string): number {
  const basis = record.plan;
  const problems: string[] = [];
  if (basis.profileId !== profile.id) {
    problems.push(
      `the report measured ${basis.profileId}, the profile is ${profile.id}: calibrate the profile the plan was made from ` +
        `(--profile FILE, or no --profile for the built-in ${basis.profileId})`,
    );
  }
  const family = ec2Name(basis.instanceType).split('.')[0];
  const rowIndex = profile.measurements.findIndex(
    (m) =>
      measurementApplies(m, { family, coreVersion: basis.coreVersion }) &&
      m.coresPerProcess === basis.coresPerProcess &&
      m.batchSize === basis.batchSize &&
      close(m.throughputRps, basis.measurement.throughputRps) &&
      close(m.p50Ms, basis.measurement.p50Ms) &&
      close(m.p99Ms, basis.measurement.p99Ms),
  );
  if (basis.profileId === profile.id && rowIndex < 0) {
    problems.push(
      `the profile has no row the plan was sized from (${basis.instanceType}, NeuronCore-${basis.coreVersion}, g=${basis.coresPerProcess} ` +
        `b=${basis.batchSize}, ${basis.measurement.throughputRps}/s, p50 ${basis.measurement.p50Ms} ms, p99 ${basis.measurement.p99Ms} ms): ` +
        'the plan was made from other numbers; calibrate the profile the deployed plan was made from',
    );
  }
  if (record.requests < MIN_CALIBRATION_REQUESTS) {
    problems.push(
      `${record.requests} requests measured; calibration needs at least ${MIN_CALIBRATION_REQUESTS} (a p99 from fewer rests on ` +
        `too few slow requests to say anything): run longer, e.g. ${Math.ceil(MIN_CALIBRATION_REQUESTS / Math.max(record.offeredRps, 1e-9))} s ` +
        `at ${fmt(record.offeredRps)} requests/s (bench --duration, capacityProof.duration)`,
    );
  }
  const plannedRps = basis.capacityPerInstanceRps * basis.instanceCount;
  // 0.1 % of slack: the basis carries the per-instance capacity rounded, so its product can exceed the plan's total.
  if (record.offeredRps < MIN_PLANNED_SHARE * plannedRps * 0.999) {
    problems.push(
      `offered ${fmt(record.offeredRps)} requests/s, ${+((100 * record.offeredRps) / plannedRps).toPrecision(2)} % of the plan's ` +
        `${+plannedRps.toFixed(1)}; calibration needs at least ${MIN_PLANNED_SHARE * 100} % (a run far below the plan can only cap ` +
        `the capacity at what it offered): prove at the planned rate (bench --rate ${+plannedRps.toFixed(1)}, capacityProof.fraction 1)`,
    );
  }
  if (basis.serving === 'batching' && record.server === undefined) {
    problems.push(
      'the server sent no timing header, so it is not the cdk-inferentia model server a batching plan deploys: point ' +
        'the run at the deployed endpoint (or its model server), not at another server',
    );
  }
  const successes = record.requests - record.errors;
  if (successes <= 0) {
    problems.push(
      `no successful request (${record.requests} sent, errors by kind: ${describeErrors(record.errorsByKind)}): there is nothing to ` +
        'calibrate from; fix the endpoint and prove again',
    );
  }
  if (!record.loadApplied) {
    problems.push(
      `the rate was not reached: the load generator did not apply the offered ${fmt(record.offeredRps)} requests/s ` +
        `(${record.loadProblem ?? 'no reason recorded'}), so the achieved rate says nothing about the endpoint; prove again`,
    );
  }
  const nonLoad = Object.entries(record.errorsByKind).filter(([kind]) => !LOAD_ERROR_KINDS.includes(kind) && kind !== 'worker-failed');
  const nonLoadCount = nonLoad.reduce((sum, [, count]) => sum + count, 0);
  if (record.requests > 0 && successes > 0 && nonLoadCount / record.requests > MAX_NON_LOAD_ERROR_RATE) {
    problems.push(
      `${nonLoadCount} of ${record.requests} requests failed for reasons other than load (${describeErrors(Object.fromEntries(nonLoad))}), ` +
        `above ${MAX_NON_LOAD_ERROR_RATE * 100} %: the achieved rate measures those failures, not capacity; fix them and prove again`,
    );
  }
  InputError.throwIfAny(problems.map((p) => `${origin}: ${p}`));
  return rowIndex;
}

function withoutFactor(m: Measurement): Measurement {
  const rest: { -readonly [K in keyof Measurement]?: Measurement[K] } = { ...m };
  delete rest.capacityFactor;
  return rest as Measurement;
}

function describeErrors(byKind: Readonly<Record<string, number>>): string {
  const kinds = Object.entries(byKind).filter(([, count]) => count > 0);
  return kinds.length > 0 ? kinds.map(([kind, count]) => `${kind} ${count}`).join(', ') : 'none';
}

/** Equal up to the rounding a JSON round trip or a printed plan may add. */
function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** 4 significant figures for messages. */
function fmt(n: number): string {
  return String(+n.toPrecision(4));
}
