import { checkProfile, findProfile, serialThroughputRps } from '../../../lib/profiles';
import type { Measurement, ModelProfile } from '../../../lib/profiles';

/** A one-measurement profile. */
function profileWith(m: Partial<Measurement>): ModelProfile {
  return {
    id: 'm',
    deviceMemoryGiB: 1,
    hostMemoryGiB: 1,
    measurements: [
      { coreVersion: 'v2', coresPerProcess: 1, batchSize: 1, throughputRps: 100, p50Ms: 10, p99Ms: 11, source: 's', ...m },
    ],
  };
}

describe('checkProfile flags throughput that batch size and latency cannot explain', () => {
  test("the seed table's bert-base-cased real-time row is flagged with both numbers", () => {
    // GIVEN bert-base-cased, inf2.xlarge, real time, batch 1: 41.24/s for the instance at p50 1.02 ms
    const profile = findProfile('bert-base-cased') as ModelProfile;
    // WHEN checked
    const warnings = checkProfile(profile);
    // THEN its measurement is flagged: 41.24 / 2 = 20.62/s per process, 2.103 % of 1000 / 1.02 = 980.4/s
    const index = profile.measurements.findIndex((m) => m.instanceType === 'inf2.xlarge' && m.mode === 'real-time');
    const warning = warnings.find((w) => w.measurementIndex === index);
    expect(warning).toBeDefined();
    expect(warning?.profileId).toBe('bert-base-cased');
    expect(warning?.message).toContain('20.62/s per process');
    expect(warning?.message).toContain('980.4/s');
    expect(warning?.message).toContain('2.103 %');
    expect(warning?.message).toContain('Likely cause');
  });

  test('consistent rows are not flagged', () => {
    // GIVEN bert-base-uncased: every row within 25 %-400 % of batch x 1000 / p50
    // THEN no warning for the Inf2 and Trn1 rows (the Inf1 real-time row sits at 24.9 % and is flagged)
    const warnings = checkProfile(findProfile('bert-base-uncased') as ModelProfile);
    const flagged = warnings.map((w) => findProfile('bert-base-uncased')?.measurements[w.measurementIndex].instanceType);
    expect(flagged).toEqual(['inf1.xlarge']);
    expect(checkProfile(findProfile('resnet50') as ModelProfile)).toEqual([]);
  });

  test('serial throughput is batch x 1000 / p50', () => {
    // GIVEN batch 8 at p50 5 ms THEN at most 1600/s one request at a time
    expect(serialThroughputRps({ batchSize: 8, p50Ms: 5 })).toBe(1600);
  });

  test.each([
    // [throughput, expected warnings] for batch 1 at p50 10 ms (100/s serially)
    [24.9, 1],
    [25, 0],
    [400, 0],
    [400.1, 1],
  ])('throughput %p/s against 100/s serial gives %p warning(s)', (throughputRps, count) => {
    expect(checkProfile(profileWith({ throughputRps }))).toHaveLength(count);
  });

  test('too high names the bound and the likely cause', () => {
    // GIVEN 1000/s at batch 1 and p50 10 ms: 1000 % of 100/s
    const [warning] = checkProfile(profileWith({ throughputRps: 1000 }));
    expect(warning.message).toContain('1000 % of the 100/s');
    expect(warning.message).toContain('at most 400 % expected');
    expect(warning.message).toContain('whole instance rather than one process');
  });

  test('a NeuronCore Pipeline may hold one request per core in flight', () => {
    // GIVEN 16 cores per process, 1185 % of the serial rate (the Inf1 BERT base pipeline row)
    // THEN not flagged; the same rate on 1 core is
    expect(checkProfile(findProfile('BERT base (NeuronCore Pipeline)') as ModelProfile)).toEqual([]);
    expect(checkProfile(profileWith({ throughputRps: 1185, coresPerProcess: 1 }))).toHaveLength(1);
    expect(checkProfile(profileWith({ throughputRps: 1185, coresPerProcess: 16 }))).toHaveLength(0);
  });
});
