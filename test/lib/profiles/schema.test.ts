import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseProfile } from '../../../lib/profiles';
import { inputError } from '../../support/input-error';

/** A valid profile JSON to break one field at a time. */
function validJson(): Record<string, unknown> {
  return {
    id: 'my-bert',
    deviceMemoryGiB: 1.5,
    hostMemoryGiB: 2,
    measurements: [
      { coreVersion: 'v2', coresPerProcess: 1, batchSize: 4, throughputRps: 1300, p50Ms: 3, p99Ms: 3.5, source: 'my bench 2026-03-01' },
      { coreVersion: 'v1', coresPerProcess: 4, batchSize: 1, throughputRps: 250, p50Ms: 4, p99Ms: 5 },
    ],
  };
}

/** The problems `parseProfile` throws for `json`; fails the test when it does not throw an InputError. */
const problemsOf = (json: unknown): readonly string[] => inputError(() => parseProfile(json, 'my-profile.json')).problems;
/** The `problems`, each prefixed with the profile's file name as parseProfile reports them. */
const inProfileFile = (...problems: string[]): string[] => problems.map((p) => `my-profile.json: ${p}`);

describe('parseProfile accepts a valid profile', () => {
  test('defaults vcpuPerProcess to 1 and names the file as the source of unsourced measurements', () => {
    // GIVEN a profile without vcpuPerProcess and a measurement without source
    // WHEN parsed
    const profile = parseProfile(validJson(), 'my-profile.json');
    // THEN vcpuPerProcess is 1, sourced measurements keep their source, the other names the file and entry
    expect(profile.vcpuPerProcess).toBe(1);
    expect(profile.measurements[0].source).toBe('my bench 2026-03-01');
    expect(profile.measurements[1].source).toBe('my-profile.json, measurements[1]');
    expect(profile.measurements[1]).toMatchObject({ coreVersion: 'v1', coresPerProcess: 4, throughputRps: 250 });
  });

  test('keeps optional fields', () => {
    const json = { ...validJson(), vcpuPerProcess: 2, description: 'd', memorySource: 'neuron-monitor, 2026-03-01' };
    const profile = parseProfile(json, 'f.json');
    expect(profile).toMatchObject({ vcpuPerProcess: 2, description: 'd', memorySource: 'neuron-monitor, 2026-03-01' });
  });
});

describe('parseProfile accepts memory per measurement and host CPU per request', () => {
  test('keeps a measurement\'s own memory, its source and the copies it ran', () => {
    // GIVEN a batch-4 measurement that needs more memory than the profile's default
    const json = validJson();
    Object.assign((json.measurements as Record<string, unknown>[])[0], {
      deviceMemoryGiB: 2.5,
      hostMemoryGiB: 3,
      memorySource: 'neuron-monitor, batch-4 artifact',
      measuredProcesses: 2,
    });
    // WHEN parsed THEN they stay on that measurement, and the other measurement has none (the profile's apply)
    const profile = parseProfile(json, 'f.json');
    expect(profile.measurements[0]).toMatchObject({ deviceMemoryGiB: 2.5, hostMemoryGiB: 3, memorySource: 'neuron-monitor, batch-4 artifact', measuredProcesses: 2 });
    expect(profile.measurements[1].deviceMemoryGiB).toBeUndefined();
  });

  test('keeps hostCpuMsPerRequest and hostCpuSource', () => {
    const json = { ...validJson(), hostCpuMsPerRequest: 1.5, hostCpuSource: 'model server on inf2.xlarge, 2026-03-01' };
    expect(parseProfile(json, 'f.json')).toMatchObject({ hostCpuMsPerRequest: 1.5, hostCpuSource: 'model server on inf2.xlarge, 2026-03-01' });
  });

  test('leaves hostCpuMsPerRequest out when the file does, so the planner\'s default applies', () => {
    expect(parseProfile(validJson(), 'f.json')).not.toHaveProperty('hostCpuMsPerRequest');
  });
});

describe('the example profile the docs point to is valid', () => {
  test('examples/profiles/my-bert.json parses and keeps every documented field', () => {
    // GIVEN the shipped example WHEN parsed as `--profile examples/profiles/my-bert.json` would
    const file = join(__dirname, '../../../examples/profiles/my-bert.json');
    const profile = parseProfile(JSON.parse(readFileSync(file, 'utf8')), file);
    // THEN every field survives, per-measurement memory included
    expect(profile).toMatchObject({ id: 'my-bert', deviceMemoryGiB: 1.2, hostMemoryGiB: 1.8, hostCpuMsPerRequest: 1.5 });
    expect(profile.measurements.map((m) => [m.batchSize, m.deviceMemoryGiB])).toEqual([[1, 0.6], [8, 1.2]]);
    expect(profile.hostCpuSource).toMatch(/model server/);
  });
});

describe('parseProfile names the JSON path, the value and what is expected', () => {
  test('a bad host CPU cost, a bad measurement memory and fractional copies', () => {
    // GIVEN hostCpuMsPerRequest 0, hostCpuSource a number, measurements[0] with negative device memory and 1.5 copies
    const json: Record<string, unknown> = { ...validJson(), hostCpuMsPerRequest: 0, hostCpuSource: 3 };
    Object.assign((json.measurements as Record<string, unknown>[])[0], { deviceMemoryGiB: -1, measuredProcesses: 1.5 });
    // THEN each is named with its value
    expect(problemsOf(json)).toEqual(inProfileFile(
      'hostCpuMsPerRequest: expected a positive number, got 0', 'hostCpuSource: expected a string, got 3',
      'measurements[0].deviceMemoryGiB: expected a positive number, got -1',
      'measurements[0].measuredProcesses: expected a positive integer, got 1.5',
    ));
  });

  test('a zero throughput', () => {
    // GIVEN measurements[1].throughputRps = 0
    const json = validJson();
    (json.measurements as Record<string, unknown>[])[1].throughputRps = 0;
    // THEN exactly that field is reported, prefixed with the file
    expect(problemsOf(json)).toEqual(['my-profile.json: measurements[1].throughputRps: expected a positive number, got 0']);
  });

  test('every problem at once, one line each', () => {
    // GIVEN an empty id, a negative memory, a string memory, a fractional core count, batch 0, an unknown core
    //       version and p99 below p50
    const json = {
      id: '',
      deviceMemoryGiB: -1,
      hostMemoryGiB: '2',
      measurements: [{ coreVersion: 'v4', coresPerProcess: 1.5, batchSize: 0, throughputRps: 10, p50Ms: 5, p99Ms: 4 }],
    };
    // THEN each one is named with its value
    expect(problemsOf(json)).toEqual([
      'my-profile.json: id: expected a non-empty string, got ""',
      'my-profile.json: deviceMemoryGiB: expected a positive number, got -1',
      'my-profile.json: hostMemoryGiB: expected a positive number, got "2"',
      "my-profile.json: measurements[0].coreVersion: expected 'v1' (Inf1), 'v2' (Inf2, Trn1) or 'v3' (Trn2), got \"v4\"",
      'my-profile.json: measurements[0].coresPerProcess: expected a positive integer, got 1.5',
      'my-profile.json: measurements[0].batchSize: expected a positive integer, got 0',
      'my-profile.json: measurements[0].p99Ms: expected a value >= p50Ms (5), got 4',
    ]);
  });

  test('missing fields and an empty measurement list', () => {
    expect(problemsOf({ measurements: [] })).toEqual([
      'my-profile.json: id: expected a non-empty string, got nothing (the field is missing)',
      'my-profile.json: deviceMemoryGiB: expected a positive number, got nothing (the field is missing)',
      'my-profile.json: hostMemoryGiB: expected a positive number, got nothing (the field is missing)',
      'my-profile.json: measurements: expected at least one measurement, got []',
    ]);
  });

  test('a misspelt field is an error, not silently ignored', () => {
    // GIVEN "vcpusPerProcess" instead of "vcpuPerProcess"
    const json = { ...validJson(), vcpusPerProcess: 2 };
    expect(problemsOf(json)).toEqual(["my-profile.json: unknown field 'vcpusPerProcess'; remove or rename it"]);
  });

  test('a mode outside batch / real-time and a zero vCPU count', () => {
    const json = validJson();
    json.vcpuPerProcess = 0;
    (json.measurements as Record<string, unknown>[])[0].mode = 'offline';
    expect(problemsOf(json)).toEqual([
      'my-profile.json: vcpuPerProcess: expected a positive number, got 0',
      "my-profile.json: measurements[0].mode: expected 'batch' or 'real-time', got \"offline\"",
    ]);
  });

  test('not an object at all', () => {
    expect(problemsOf([1, 2])).toEqual([
      'my-profile.json: expected a JSON object with id, deviceMemoryGiB, hostMemoryGiB and measurements, got [1,2]',
    ]);
  });
});
