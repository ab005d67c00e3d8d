import { calibrationRecord, planBasis, type CalibrationRecord, type MeasuredRun } from '../../../lib/bench/calibration-record';
import { calibrateProfile, describeCalibration, MIN_CALIBRATION_REQUESTS, MIN_PLANNED_SHARE, readCalibrationRecord } from '../../../lib/calibration';
import { InputError } from '../../../lib/errors';
import { plan, type Plan, type PlanOptions } from '../../../lib/planner';
import { parseProfile, requireProfile, type ModelProfile } from '../../../lib/profiles';

const BERT = requireProfile('bert-base-uncased');
const TARGETS = { throughputRps: 20_000, p99Ms: 50 };
const OPTIONS: PlanOptions = { region: 'us-east-1', hosting: 'sagemaker', instanceTypes: ['inf2.xlarge'] };
const CALIBRATE = { source: 's3://reports/smoke/bert-staging/latest.json', calibratedAt: '2026-11-25T10:00:00.000Z' };

/** A run against `p`: the server's device time and host work as planned unless `overrides` says otherwise. */
function run(p: Plan, overrides: Partial<MeasuredRun> & { deviceP50?: number; overheadP5?: number } = {}): CalibrationRecord {
  const { deviceP50 = p.measurement.p50Ms, overheadP5 = p.hostCpuMsPerRequest, ...rest } = overrides;
  const offeredRps = rest.offeredRps ?? p.capacityRps;
  return calibrationRecord('capacity-proof', planBasis(p), {
    startedAt: '2026-11-24T09:00:00.000Z',
    offeredRps,
    achievedRps: offeredRps,
    requests: Math.round(offeredRps * 60),
    errors: 0,
    errorsByKind: {},
    latencyMs: { p50: 12, p90: 15, p99: 22, max: 40 },
    server: {
      answers: Math.round(offeredRps * 60),
      latencyMs: { p50: 3, p90: 6, p99: 12, max: 20 },
      meanBatchRequests: 1,
      meanBatchInputs: 1,
      deviceMs: { p50: deviceP50, p90: deviceP50 * 1.02, p99: (deviceP50 * p.measurement.p99Ms) / p.measurement.p50Ms, max: deviceP50 * 2 },
      overheadMs: { p5: overheadP5, p50: overheadP5 * 2, p90: overheadP5 * 4, p99: overheadP5 * 8, max: overheadP5 * 10 },
    },
    ...rest,
  });
}

function replan(profile: ModelProfile): Plan {
  return plan(profile, TARGETS, OPTIONS);
}

describe('Calibration from the proof turns a measured run into a profile that plans from what the instances held', () => {
  const original = replan(BERT);

  test('GIVEN a proof whose instances held 30 % less than planned WHEN calibrated and replanned THEN about 1/0.7 as many instances', () => {
    const record = run(original, { achievedRps: 0.7 * original.capacityRps, errors: 100, errorsByKind: { backpressure: 100 } });
    const { profile } = calibrateProfile(record, BERT, CALIBRATE);
    const calibrated = replan(profile);
    expect(calibrated.capacityPerInstanceRps).toBeCloseTo(0.7 * original.capacityPerInstanceRps, 0);
    // N instances hold the target with a need in (N - 1, N]; at 0.7 of the capacity it is in ((N - 1) / 0.7, N / 0.7].
    expect(calibrated.instanceCount).toBeGreaterThanOrEqual(Math.ceil((original.instanceCount - 1) / 0.7));
    expect(calibrated.instanceCount).toBeLessThanOrEqual(Math.ceil(original.instanceCount / 0.7) + 1);
    expect(calibrated.measurement.capacityFactor).toBeCloseTo(0.7, 2);
  });

  test('GIVEN a proof that held 30 % above the planned capacity within the p99 target WHEN replanned THEN fewer instances', () => {
    const record = run(original, { offeredRps: 1.3 * original.capacityRps });
    const calibrated = replan(calibrateProfile(record, BERT, CALIBRATE).profile);
    expect(calibrated.capacityPerInstanceRps).toBeCloseTo(1.3 * original.capacityPerInstanceRps, 0);
    expect(calibrated.instanceCount).toBeLessThan(original.instanceCount);
    expect(calibrated.instanceCount).toBeLessThanOrEqual(Math.ceil(original.instanceCount / 1.3));
  });

  // On the model server the bert row is host-bound (a 1.075 ms host stage against a 1.06 ms device stage), so the
  // device's speed hardly moves its capacity; a plan for a Neuron DLC's toolkit is busy for their sum, and shows it.
  const dlcOptions: PlanOptions = { ...OPTIONS, server: 'neuron-dlc' };
  const dlcOriginal = plan(BERT, TARGETS, dlcOptions);
  const dlcReplan = (profile: ModelProfile) => plan(profile, TARGETS, dlcOptions);

  test('GIVEN device calls 30 % faster than the row WHEN calibrated THEN the chip\'s rows scale and the plan needs fewer instances', () => {
    const original = dlcOriginal;
    const replan = dlcReplan;
    const record = run(original, { deviceP50: original.measurement.p50Ms / 1.3 });
    expect(record.plan.server).toBe('neuron-dlc');
    const { profile } = calibrateProfile(record, BERT, CALIBRATE);
    const row = BERT.measurements.findIndex((m) => m === original.measurement);
    expect(profile.measurements[row].throughputRps).toBeCloseTo(original.measurement.throughputRps * 1.3, 0);
    const otherInf2 = BERT.measurements.findIndex((m, i) => i !== row && m.instanceType?.startsWith('inf2'));
    expect(profile.measurements[otherInf2].p50Ms).toBeCloseTo(BERT.measurements[otherInf2].p50Ms / 1.3, 2);
    const inf1 = BERT.measurements.findIndex((m) => m.coreVersion === 'v1');
    expect(profile.measurements[inf1]).toEqual(BERT.measurements[inf1]);
    expect(replan(profile).instanceCount).toBeLessThan(original.instanceCount);
  });

  test('GIVEN device calls 30 % slower and the rate not held WHEN calibrated THEN more instances, not double-counted', () => {
    const original = dlcOriginal;
    const replan = dlcReplan;
    const record = run(original, { deviceP50: original.measurement.p50Ms / 0.7, achievedRps: 0.7 * original.capacityRps });
    const calibrated = replan(calibrateProfile(record, BERT, CALIBRATE).profile);
    // The slower device explains most of the shortfall: the factor corrects the model to what was held, no further.
    expect(calibrated.capacityPerInstanceRps).toBeCloseTo(0.7 * original.capacityPerInstanceRps, 0);
  });

  test('GIVEN a stock plan WHEN the server reports its overhead THEN hostCpuMsPerRequest is its 5th percentile', () => {
    const { profile } = calibrateProfile(run(original, { overheadP5: 0.4 }), BERT, CALIBRATE);
    expect(profile.hostCpuMsPerRequest).toBe(0.4);
    expect(profile.hostCpuSource).toContain(CALIBRATE.source);
    expect(profile.calibration?.measured.hostMsPerRequest).toBe(0.4);
  });

  test('GIVEN a calibrated profile WHEN written and read back THEN the profile format accepts it and names its source and date', () => {
    const { profile } = calibrateProfile(run(original, { achievedRps: 0.7 * original.capacityRps }), BERT, CALIBRATE);
    const read = parseProfile(JSON.parse(JSON.stringify(profile)), 'profile.json');
    expect(read.calibration).toMatchObject({
      source: CALIBRATE.source,
      measuredAt: '2026-11-24T09:00:00.000Z',
      calibratedAt: CALIBRATE.calibratedAt,
      plan: { instanceType: 'ml.inf2.xlarge', instanceCount: original.instanceCount, capacityPerInstanceRps: original.capacityPerInstanceRps },
    });
    expect(read.calibration?.changes.join('\n')).toMatch(/capacityFactor of measurements\[\d+\]: 1 -> 0\.7/);
    expect(describeCalibration(read)).toContain(`from ${CALIBRATE.source}, measured 2026-11-24T09:00:00.000Z`);
    expect(describeCalibration(BERT)).toBeUndefined();
  });

  test('GIVEN a profile calibrated once WHEN a second proof of its plan held the rate THEN the factor stays (no bounce back)', () => {
    const once = calibrateProfile(run(original, { achievedRps: 0.7 * original.capacityRps }), BERT, CALIBRATE).profile;
    const second = replan(once);
    const twice = calibrateProfile(run(second), once, CALIBRATE).profile;
    expect(replan(twice).instanceCount).toBe(second.instanceCount);
  });

  test('GIVEN a run that held the rate above the p99 target WHEN calibrated THEN capacity is capped at the rate and a warning says so', () => {
    const record = run(original, { offeredRps: 0.8 * original.capacityRps });
    const slow = { ...record, server: { ...record.server!, latencyMs: { p50: 20, p90: 40, p99: 80, max: 90 } } };
    const result = calibrateProfile(slow, BERT, CALIBRATE);
    expect(replan(result.profile).capacityPerInstanceRps).toBeCloseTo(0.8 * original.capacityPerInstanceRps, 0);
    expect(result.warnings.join('\n')).toMatch(/above the target 50 ms.*Prove again at a lower rate/);
  });
});

describe('Calibration refuses runs that cannot calibrate, with the reason', () => {
  const original = plan(BERT, TARGETS, OPTIONS);
  const refusal = (record: CalibrationRecord, profile: ModelProfile = BERT): string => {
    try {
      calibrateProfile(record, profile, CALIBRATE);
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      return (e as Error).message;
    }
    throw new Error('expected a refusal');
  };

  test('GIVEN a report of another model THEN it names both', () => {
    expect(refusal(run(original), requireProfile('roberta-base'))).toMatch(/measured bert-base-uncased, the profile is roberta-base/);
  });

  test('GIVEN a plan on an instance type the profile has no such row for THEN it says the plan was made from other numbers', () => {
    const record = run(original);
    const inf1 = { ...record, plan: { ...record.plan, instanceType: 'ml.inf1.xlarge', coreVersion: 'v1' as const } };
    expect(refusal(inf1)).toMatch(/no row the plan was sized from \(ml\.inf1\.xlarge, NeuronCore-v1/);
  });

  test('GIVEN no successful request THEN nothing to calibrate from', () => {
    const record = run(original, { achievedRps: 0, errors: 1000, requests: 1000, errorsByKind: { 'http-500': 1000 } });
    expect(refusal(record)).toMatch(/no successful request \(1000 sent, errors by kind: http-500 1000\)/);
  });

  test('GIVEN a load worker that returned nothing THEN the rate was not reached', () => {
    const record = run(original, { loadProblem: 'worker 3 failed: TooManyRequestsException' });
    expect(refusal(record)).toMatch(/the rate was not reached: .*worker 3 failed/);
  });

  test('GIVEN wrong answers THEN the achieved rate does not measure capacity', () => {
    const record = run(original, { errors: 50_000, errorsByKind: { 'wrong-answer': 50_000 } });
    expect(refusal(record)).toMatch(/50000 of \d+ requests failed for reasons other than load \(wrong-answer 50000\)/);
  });
});

describe('The record is found in what calibrate is given', () => {
  const original = plan(BERT, TARGETS, OPTIONS);
  const record = run(original);

  test('GIVEN the capacity proof report, bench --json output or the bare record THEN each yields the record', () => {
    const json = JSON.parse(JSON.stringify(record));
    expect(readCalibrationRecord({ schemaVersion: 1, report: {}, settings: {}, capacity: { passed: true, calibration: json } }, 'r')).toEqual(json);
    expect(readCalibrationRecord({ requests: 1, latencyMs: {}, calibration: json }, 'r')).toEqual(json);
    expect(readCalibrationRecord(json, 'r')).toEqual(json);
  });

  test.each([
    [{ schemaVersion: 1, report: {}, settings: {}, capacity: { skipped: 'the smoke run failed' } }, /capacity proof did not run \(the smoke run failed\)/],
    [{ schemaVersion: 1, report: {}, settings: {}, capacity: { passed: true } }, /no calibration record: .*give it the plan/],
    [{ schemaVersion: 1, report: {}, settings: {} }, /smoke report without a capacity proof/],
    [{ requests: 3, latencyMs: {} }, /run bench with --plan/],
    [{ calibration: { schemaVersion: 2 } }, /calibration\.schemaVersion is 2; this cdk-inferentia reads version 1/],
    [[], /expected a JSON object/],
  ])('GIVEN %j THEN it says why there is no record', (json, message) => {
    expect(() => readCalibrationRecord(json, 'report.json')).toThrow(message);
  });

  test('GIVEN a record that names its server, or one written before records did THEN it is read; the latter as the model server', () => {
    const json = JSON.parse(JSON.stringify(record));
    expect(json.plan.server).toBe('model-server');
    const older = { ...json.plan };
    delete older.server;
    const old = { ...json, plan: older };
    expect(readCalibrationRecord(old, 'r')).toEqual(old);
    // The same figures either way: no server is the model server's.
    const fromOld = calibrateProfile(old, BERT, CALIBRATE).profile;
    const fromNew = calibrateProfile(json, BERT, CALIBRATE).profile;
    expect(fromOld.measurements).toEqual(fromNew.measurements);
    expect(fromOld.calibration?.capacityPerInstanceRps).toBe(fromNew.calibration?.capacityPerInstanceRps);
    expect(fromOld.calibration?.plan.server).toBeUndefined();
    expect(fromNew.calibration?.plan.server).toBe('model-server');
    expect(() => readCalibrationRecord({ ...json, plan: { ...json.plan, server: 'torchserve' } }, 'report.json')).toThrow(/plan\.server/);
  });

  test('GIVEN a record with a bad field THEN the field is named', () => {
    const bad = { ...JSON.parse(JSON.stringify(record)), offeredRps: -1 };
    expect(() => readCalibrationRecord(bad, 'report.json')).toThrow(/report\.json: offeredRps: .*got -1/);
  });
});

describe('Calibration refuses a run too small or too far below the plan to say anything about capacity', () => {
  const original = replan(BERT);

  test('GIVEN 10 requests at 10 requests/s against the plan, p99 above target, from a server without timing WHEN calibrated THEN refused with the rule, no profile', () => {
    // The case: bench --plan plan.json --rate 10 against a plan of thousands of requests/s, on another server.
    const record = run(original, {
      offeredRps: 10, achievedRps: 10, requests: 10, latencyMs: { p50: 80, p90: 90, p99: 120, max: 120 }, server: undefined,
    });
    expect(() => calibrateProfile(record, BERT, CALIBRATE)).toThrow(InputError);
    let message = '';
    try {
      calibrateProfile(record, BERT, CALIBRATE);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(`10 requests measured; calibration needs at least ${MIN_CALIBRATION_REQUESTS}`);
    expect(message).toMatch(/offered 10 requests\/s, 0\.04\d % of the plan's 2446\d\.\d; calibration needs at least 50 %/);
    expect(message).toContain(`at least ${MIN_PLANNED_SHARE * 100} %`);
  });

  test('GIVEN a full-rate run of a batching plan whose server sent no timing header WHEN calibrated THEN refused: not the model server', () => {
    const batching = plan(BERT, TARGETS, { ...OPTIONS, serving: 'batching' });
    const record = run(batching, { server: undefined });
    expect(() => calibrateProfile(record, BERT, CALIBRATE)).toThrow(
      /the server sent no timing header, so it is not the cdk-inferentia model server a batching plan deploys/,
    );
  });

  test.each([
    ['999 requests at the planned rate', { requests: 999 }, /999 requests measured/],
    ['a run at 49 % of the planned rate', { share: 0.49 }, /offered [\d.]+ requests\/s, 49 % of the plan/],
  ])('GIVEN %s WHEN calibrated THEN refused', (_name, change: { requests?: number; share?: number }, message) => {
    const offeredRps = (change.share ?? 1) * original.capacityRps;
    const record = run(original, { offeredRps, achievedRps: offeredRps, ...(change.requests ? { requests: change.requests } : {}) });
    expect(() => calibrateProfile(record, BERT, CALIBRATE)).toThrow(message);
  });

  test('GIVEN exactly the minimum (1,000 requests at half the plan) WHEN calibrated THEN it calibrates', () => {
    const offeredRps = MIN_PLANNED_SHARE * original.capacityRps;
    const record = run(original, { offeredRps, achievedRps: offeredRps, requests: MIN_CALIBRATION_REQUESTS });
    expect(calibrateProfile(record, BERT, CALIBRATE).profile.calibration).toBeDefined();
  });
});

