import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runCli } from '../../bin/cli';
import { findGenerativeProfile } from '../../lib/generative';

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'generative-profile-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** The built-in Llama 8B profile as a user would copy it into a file, with `change` applied. */
function profileFile(name: string, change: (p: Record<string, unknown>) => Record<string, unknown>): string {
  const llama = JSON.parse(JSON.stringify(findGenerativeProfile('llama-3.1-8b-instruct'))) as Record<string, unknown>;
  const file = path.join(scratch, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(change(llama)));
  return file;
}

const PLAN = ['--throughput', '2', '--input-tokens', '1024', '--output-tokens', '256', '--ttft-p99', '2000', '--tpot-p99', '60',
  '--region', 'us-east-1', '--hosting', 'sagemaker'];

describe('A generative profile file is read as one, or refused saying why', () => {
  test('GIVEN "kind": "generativ" WHEN planned THEN one problem names kind and suggests "generative", exit 2', async () => {
    const file = profileFile('typo', (p) => ({ ...p, kind: 'generativ' }));
    const { code, stderr } = await run('plan', '--profile', file, ...PLAN);
    expect(code).toBe(2);
    expect(stderr).toBe(`error: ${file}: kind: "generativ" is not a profile kind; did you mean "generative"? `
      + '(generative profiles say "kind": "generative"; single-call profiles have no kind)\n');
  });

  test('GIVEN generative fields and no kind WHEN planned THEN it says the profile looks generative and to add kind, exit 2', async () => {
    const file = profileFile('no-kind', ({ kind: _kind, ...p }) => p);
    const { code, stderr } = await run('plan', '--profile', file, ...PLAN);
    expect(code).toBe(2);
    expect(stderr).toContain(`${file}: kind is missing, but the fields (model, measurements[0].tpotP50Ms) are a generative profile's; `
      + 'add "kind": "generative"');
    expect(stderr).not.toMatch(/problems/);
  });

  test('GIVEN a row on p4d.24xlarge WHEN read THEN it is refused, not dropped', async () => {
    const file = profileFile('gpu', (p) => ({
      ...p, measurements: [{ ...(p.measurements as object[])[0], instanceType: 'p4d.24xlarge' }],
    }));
    const { code, stderr } = await run('profiles', '--profile', file);
    expect(code).toBe(2);
    expect(stderr).toContain(`${file}: measurements[0].instanceType: "p4d.24xlarge" is not a Neuron instance; `
      + 'measure on inf2, trn1, trn2 ... (families: inf1, inf2, trn1, trn1n, trn2, trn2u, trn3)');
  });

  test('GIVEN "neuronSdkVersion": "latest" WHEN planned THEN it is refused as a version, exit 2', async () => {
    const file = profileFile('latest', (p) => ({
      ...p, measurements: (p.measurements as object[]).map((m) => ({ ...m, neuronSdkVersion: 'latest' })),
    }));
    const { code, stderr } = await run('plan', '--profile', file, ...PLAN);
    expect(code).toBe(2);
    expect(stderr).toContain(`${file}: measurements[0].neuronSdkVersion: expected a Neuron SDK release such as "2.26.1", got "latest"`);
  });

  test('GIVEN the built-in profile copied to a file WHEN read THEN it is a valid generative profile (exit 0)', async () => {
    const file = profileFile('valid', (p) => p);
    const { code, stdout } = await run('profiles', '--profile', file, '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).generative[0].id).toBe('llama-3.1-8b-instruct');
  });
});
