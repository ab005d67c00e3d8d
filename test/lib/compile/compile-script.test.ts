import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { delimiter, join } from 'path';
import { runCli } from '../../../bin/cli';
import { parseCompileSpec, parseManifest } from '../../../lib/compile';
import { parseProfile } from '../../../lib/profiles';

const ROOT = join(__dirname, '..', '..', '..');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cdk-inferentia-compile-script-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('what the compile script writes is what the TypeScript side reads', () => {
  test('its manifest parses, its profile parses and plans through the CLI', async () => {
    // GIVEN the example spec, validated the way the CLI validates it, run through compile.py with CPU stand-ins on
    // a host that "has the chip"
    const spec = parseCompileSpec(JSON.parse(readFileSync(join(ROOT, 'examples/bert-base-uncased/compile-spec.json'), 'utf8')), 'spec');
    writeFileSync(join(dir, 'spec.json'), JSON.stringify(spec));
    const out = join(dir, 'out');
    const run = spawnSync('/usr/bin/python3', [join(ROOT, 'serving/compile/compile.py'), '--spec', join(dir, 'spec.json'),
      '--hash', 'abc123', '--source', join(dir, 'source'), '--out', out, '--instance-type', 'inf2.xlarge', '--measure', 'yes'],
    { env: { ...process.env, PYTHONPATH: ['compile_frameworks', 'stand_in_common'].map((d) => join(ROOT, 'serving/tests', d)).join(delimiter) }, encoding: 'utf8' });
    expect(run.status).toBe(0);
    // THEN the manifest passes the manifest schema with the spec's facts
    const manifest = parseManifest(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')), 'manifest.json');
    expect(manifest).toMatchObject({ chip: 'inf2', coreVersion: 'v2', batchSizes: spec.batchSizes, profile: 'profile.json' });
    // AND the profile passes the profile schema, and `plan --profile` plans from it
    const profilePath = join(out, 'profile.json');
    expect(parseProfile(JSON.parse(readFileSync(profilePath, 'utf8')), 'profile.json').measurements).toHaveLength(spec.batchSizes.length);
    let stdout = '';
    const code = await runCli(['plan', '--profile', profilePath, '--throughput', '10', '--p99', '1000', '--region', 'us-east-1',
      '--hosting', 'sagemaker', '--json'], { stdout: (s) => (stdout += s), stderr: () => undefined });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).chosen.instance.coreVersion).toBe('v2');
  });
});
