import { writeFileSync } from 'fs';
import { join } from 'path';
import { Command } from 'commander';
import type { CliIo } from '../../bin/commands/io';
import { loadProfile, registerProfilesCommand } from '../../bin/commands/profiles';
import { InputError } from '../../lib/errors';
import { findProfile, profileIds } from '../../lib/profiles';
import { tempDir } from '../support/temp-dir';

/** Runs `profiles` with `argv` and returns what it wrote. */
async function run(argv: string[]): Promise<{ stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) };
  const program = new Command().exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  registerProfilesCommand(program, io);
  program.commands.forEach((c) => c.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr }));
  await program.parseAsync(['profiles', ...argv], { from: 'user' });
  return { stdout, stderr };
}

const dir = tempDir('cdk-inferentia-profiles-', 'all');

/** Writes `content` to a file in the test's temp directory and returns its path. */
function file(name: string, content: string): string {
  const path = join(dir(), name);
  writeFileSync(path, content);
  return path;
}

const MY_PROFILE = {
  id: 'my-model',
  deviceMemoryGiB: 3,
  hostMemoryGiB: 4,
  measurements: [{ coreVersion: 'v2', coresPerProcess: 2, batchSize: 4, throughputRps: 400, p50Ms: 10, p99Ms: 12 }],
};

describe('profiles --json prints every profile and the warnings', () => {
  test('all built-in profiles with their fields, and the one known warning of the built-in data', async () => {
    // WHEN `profiles --json` runs
    const { stdout, stderr } = await run(['--json']);
    const out = JSON.parse(stdout);
    // THEN every built-in profile is there with the ModelProfile fields, and nothing goes to stderr
    expect(out.profiles.map((p: { id: string }) => p.id)).toEqual(profileIds());
    const bert = out.profiles.find((p: { id: string }) => p.id === 'bert-base-uncased');
    expect(Object.keys(bert).sort()).toEqual(
      ['description', 'deviceMemoryGiB', 'hostCpuMsPerRequest', 'hostCpuSource', 'hostMemoryGiB', 'id', 'measurements', 'memorySource', 'vcpuPerProcess'],
    );
    expect(bert.measurements.find((m: { instanceType: string; batchSize: number }) => m.instanceType === 'inf2.xlarge' && m.batchSize === 8))
      .toMatchObject({ coreVersion: 'v2', coresPerProcess: 1, throughputRps: 1337.095, p50Ms: 5.97, p99Ms: 6.17, mode: 'batch' });
    expect(out.warnings.map((w: { profileId: string }) => w.profileId)).toEqual(['openai/clip-vit-base-patch32']);
    expect(stderr).toBe('');
  });

  test('--model narrows to one profile', async () => {
    const out = JSON.parse((await run(['--json', '--model', 'resnet50'])).stdout);
    expect(out.profiles).toEqual([findProfile('resnet50')]);
    expect(out.warnings).toEqual([]);
  });
});

describe('profiles prints tables, and warnings on stderr', () => {
  test('the summary lists every id with its memory', async () => {
    // WHEN `profiles` runs without flags
    const { stdout, stderr } = await run([]);
    // THEN each id appears in the table, and the self-contradicting rows are warned about on stderr
    for (const id of profileIds()) {
      expect(stdout).toContain(id);
    }
    expect(stdout).toMatch(/bert-base-uncased\s+│ 1\.4\s+│ 1\.46\s+│ 1\s+│ v1 x2, v2 x4/);
    expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(/^warning: openai\/clip-vit-base-patch32 measurements\[0\]/)]);
  });

  test('--model shows the measurements and their sources', async () => {
    // WHEN `profiles --model bert-base-cased` runs
    const { stdout, stderr } = await run(['--model', 'bert-base-cased']);
    // THEN the per-process throughput 2697.72 / 2 = 1348.86 and the Neuron page it comes from are shown, no warning
    expect(stdout).toMatch(/^bert-base-cased - /);
    expect(stdout).toContain('1348.86');
    expect(stdout).toMatch(/\[2\] AWS Neuron docs, "Inf2 Inference Performance", last updated 2024-09-16/);
    expect(stderr).toBe('');
  });

  test('--profile validates and shows a user file', async () => {
    // GIVEN a valid profile file
    const path = file('mine.json', JSON.stringify(MY_PROFILE));
    // WHEN shown
    const { stdout, stderr } = await run(['--profile', path]);
    // THEN it is printed with its defaulted source and no warning (400/s of 400/s serial)
    expect(stdout).toContain('my-model');
    expect(stdout).toContain(`[0] ${path}, measurements[0]`);
    expect(stderr).toBe('');
  });

  test('an unknown model throws an InputError with the closest ids first', async () => {
    await expect(run(['--model', 'bert-base'])).rejects.toThrow(
      /^unknown model 'bert-base'; known models: bert-base-cased, bert-base-uncased, /,
    );
  });

  test('--model and --profile together are refused by commander', async () => {
    await expect(run(['--model', 'resnet50', '--profile', 'x.json'])).rejects.toMatchObject({ code: 'commander.conflictingOption' });
  });
});

describe('loadProfile takes exactly one of --model and --profile', () => {
  test('a built-in id with its warnings', () => {
    // GIVEN --model openai/clip-vit-base-patch32 WHEN loaded THEN the built-in profile and its one known warning
    const { profile, warnings } = loadProfile({ model: 'openai/clip-vit-base-patch32' });
    expect(profile).toBe(findProfile('openai/clip-vit-base-patch32'));
    expect(warnings.map((w) => w.measurementIndex)).toEqual([0]);
  });

  test('a file, validated, with warnings for its self-contradicting rows', () => {
    // GIVEN a file whose measurement claims 5000/s at batch 1 and p50 10 ms (50x the 100/s serial rate)
    const path = file('fast.json', JSON.stringify({
      ...MY_PROFILE,
      measurements: [{ coreVersion: 'v2', coresPerProcess: 1, batchSize: 1, throughputRps: 5000, p50Ms: 10, p99Ms: 12, source: 'x' }],
    }));
    // WHEN loaded THEN the profile is returned with one warning
    const { profile, warnings } = loadProfile({ profile: path });
    expect(profile.id).toBe('my-model');
    expect(profile.vcpuPerProcess).toBe(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toContain('5000 % of the 100/s');
  });

  test.each([
    [{}, 'no model given; pass --model ID (see `cdk-inferentia profiles`) or --profile FILE'],
    [{ model: 'resnet50', profile: 'p.json' }, '--model resnet50 and --profile p.json both given; pass only one'],
  ])('%p is refused', (opts, message) => {
    expect(() => loadProfile(opts)).toThrow(new InputError(message));
  });

  test('a missing file is named', () => {
    const path = join(dir(), 'absent.json');
    expect(() => loadProfile({ profile: path })).toThrow(InputError);
    expect(() => loadProfile({ profile: path })).toThrow(`--profile ${path}: cannot read the file (ENOENT`);
  });

  test('a file that is not JSON is named', () => {
    const path = file('broken.json', '{ "id": ');
    expect(() => loadProfile({ profile: path })).toThrow(new RegExp(`^--profile ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not valid JSON \\(`));
  });

  test('an invalid profile names the file and the field', () => {
    // GIVEN a profile whose throughput is 0
    const path = file('zero.json', JSON.stringify({ ...MY_PROFILE, measurements: [{ ...MY_PROFILE.measurements[0], throughputRps: 0 }] }));
    // THEN the error names the file, the JSON path and the value
    expect(() => loadProfile({ profile: path })).toThrow(`${path}: measurements[0].throughputRps: expected a positive number, got 0`);
  });
});
