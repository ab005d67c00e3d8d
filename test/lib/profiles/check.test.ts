import { builtInProfiles, checkProfile, findProfile, serialThroughputRps } from '../../../lib/profiles';
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
  test('a self-contradicting row is flagged with both numbers', () => {
    // GIVEN the 2024 Inf2 table's bert-base-cased real-time row as it was once built: 41.24 / 2 = 20.62/s per
    //       process at batch 1, p50 1.02 ms
    const warnings = checkProfile(profileWith({ throughputRps: 20.62, p50Ms: 1.02, p99Ms: 1.09 }));
    // THEN flagged: 20.62/s is 2.103 % of 1000 / 1.02 = 980.4/s
    expect(warnings).toHaveLength(1);
    expect(warnings[0].profileId).toBe('m');
    expect(warnings[0].message).toContain('20.62/s per process');
    expect(warnings[0].message).toContain('980.4/s');
    expect(warnings[0].message).toContain('2.103 %');
    expect(warnings[0].message).toContain('Likely cause');
  });

  test('the built-in data contradicts itself only where a row\'s note explains it', () => {
    // GIVEN every built-in profile, the Inf1 latency rows now counted as the one process their table states
    const flagged = builtInProfiles().flatMap((p) =>
      checkProfile(p).map((w) => `${p.id}: ${p.measurements[w.measurementIndex].source}`),
    );
    // THEN only the CLIP batch-64 row warns, and its source says why (its p50 includes queueing)
    expect(flagged).toHaveLength(1);
    expect(flagged[0]).toMatch(/^openai\/clip-vit-base-patch32: .*batch 64.*KNOWN WARNING: p50 includes queueing/);
  });

  test('the Inf1 real-time rows are consistent once counted as one process', () => {
    // GIVEN bert-base-uncased: Inf1 real-time batch 3, 284.7/s at p50 10.5 ms (before: 71.2/s, 24.9 %, flagged)
    expect(checkProfile(findProfile('bert-base-uncased') as ModelProfile)).toEqual([]);
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
