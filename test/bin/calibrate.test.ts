/**
 * `calibrate` end to end through the CLI: plan --json, a measured run against that plan, calibrate from a file and from
 * S3 (the SDK mocked), then plan --profile from the calibrated profile.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { runCli } from '../../bin/cli';
import type { CliIo } from '../../bin/commands/io';
import { calibrationRecord, planBasis } from '../../lib/bench/calibration-record';
import { findGenerativeProfile } from '../../lib/generative';
import type { Plan } from '../../lib/planner';

const s3 = mockClient(S3Client);

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cdk-inferentia-calibrate-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  s3.reset();
});

const PLAN_FLAGS = ['--model', 'bert-base-uncased', '--throughput', '20000', '--p99', '50', '--region', 'us-east-1', '--hosting', 'sagemaker', '--instance-types', 'inf2.xlarge'];

/** The plan, and the capacity proof's report of a run whose instances held `share` of its capacity. */
async function provenAt(share: number): Promise<{ planned: Plan; report: unknown }> {
  const { stdout } = await cli(['plan', ...PLAN_FLAGS, '--json']);
  const planned = (JSON.parse(stdout) as { chosen: Plan }).chosen;
  const offered = planned.capacityRps;
  const calibration = calibrationRecord('capacity-proof', planBasis(planned), {
    startedAt: '2026-11-24T09:00:00.000Z',
    offeredRps: offered,
    achievedRps: share * offered,
    requests: 60_000,
    errors: share < 1 ? 6_000 : 0,
    errorsByKind: share < 1 ? { backpressure: 6_000 } : {},
    latencyMs: { p50: 12, p90: 15, p99: 22, max: 40 },
  });
  return { planned, report: { schemaVersion: 1, name: 'bert-staging', report: {}, settings: {}, capacity: { passed: share >= 0.95, calibration } } };
}

describe('calibrate writes a calibrated profile that plan --profile plans from and names', () => {
  test('GIVEN a staging proof that held 70 % of the plan WHEN calibrated from a file THEN the replan needs about 1/0.7 as many instances', async () => {
    const { planned, report } = await provenAt(0.7);
    const reportFile = join(dir, 'latest.json');
    writeFileSync(reportFile, JSON.stringify(report));
    const out = join(dir, 'bert-calibrated.json');

    const calibrated = await cli(['calibrate', '--report', reportFile, '--out', out]);
    expect(calibrated.code).toBe(0);
    expect(calibrated.stdout).toContain(`Calibrated bert-base-uncased from ${reportFile} (measured 2026-11-24T09:00:00.000Z`);
    expect(calibrated.stdout).toMatch(/capacityFactor of measurements\[\d+\]: 1 -> 0\.7/);
    expect(JSON.parse(readFileSync(out, 'utf8')).calibration.source).toBe(reportFile);

    const replanned = await cli(['plan', ...PLAN_FLAGS.slice(2), '--profile', out]);
    expect(replanned.code).toBe(0);
    expect(replanned.stdout).toMatch(new RegExp(`^Calibrated profile: bert-base-uncased from ${reportFile}, measured 2026-11-24T09:00:00.000Z`));
    expect(replanned.stdout).toContain('as calibrated');
    const json = JSON.parse((await cli(['plan', ...PLAN_FLAGS.slice(2), '--profile', out, '--json'])).stdout) as { chosen: Plan; calibration: { source: string } };
    expect(json.calibration.source).toBe(reportFile);
    // N planned instances hold the target with a need in (N - 1, N]; at 0.7 of the capacity it is in ((N - 1) / 0.7, N / 0.7].
    expect(json.chosen.instanceCount).toBeGreaterThanOrEqual(Math.ceil((planned.instanceCount - 1) / 0.7));
    expect(json.chosen.instanceCount).toBeLessThanOrEqual(Math.ceil(planned.instanceCount / 0.7) + 1);

    // The calibration names the server its plan was made for; a plan for the other server is told the factor is not its own.
    expect(JSON.parse(readFileSync(out, 'utf8')).calibration.plan.server).toBe('model-server');
    const forDlc = await cli(['plan', ...PLAN_FLAGS.slice(2), '--profile', out, '--server', 'neuron-dlc']);
    expect(forDlc.code).toBe(0);
    expect(forDlc.stderr).toContain('the plan is made for neuron-dlc; the calibration measured a plan made for model-server, whose workers '
      + "overlap host work with device calls: the calibrated capacity corrects that server's model, not this one's");
    expect(replanned.stderr).not.toContain('the calibration measured a plan made for');
  });

  test('GIVEN the report in S3 WHEN calibrated THEN it is read with GetObject and the profile names the URI', async () => {
    const { report } = await provenAt(0.7);
    s3.on(GetObjectCommand).resolves({ Body: { transformToString: async () => JSON.stringify(report) } } as never);
    const out = join(dir, 'from-s3.json');
    const uri = 's3://my-reports/smoke-benchmarks/bert-staging/latest.json';

    const { code, stderr } = await cli(['calibrate', '--report', uri, '--out', out, '--region', 'us-east-1']);
    expect(stderr).not.toMatch(/error/);
    expect(code).toBe(0);
    expect(s3).toHaveReceivedCommandWith(GetObjectCommand, { Bucket: 'my-reports', Key: 'smoke-benchmarks/bert-staging/latest.json' });
    expect(JSON.parse(readFileSync(out, 'utf8')).calibration.source).toBe(uri);
  });

  test('GIVEN no object at the URI THEN exit 2 saying where the proof writes', async () => {
    s3.on(GetObjectCommand).rejects(Object.assign(new Error('The specified key does not exist.'), { name: 'NoSuchKey' }));
    const { code, stderr } = await cli(['calibrate', '--report', 's3://my-reports/x/latest.json', '--out', join(dir, 'none.json')]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/no such object; the capacity proof writes <reportPrefix>\/<endpoint>\/latest\.json/);
  });
});

describe('calibrate checks its flags before reading anything', () => {
  test('GIVEN bad flags THEN exit 2 listing every problem and no AWS call', async () => {
    const { code, stderr } = await cli(['calibrate', '--report', 's3://Bad_Bucket/key', '--out', '/no/such/dir/p.json', '--region', 'mars-1']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--report s3:\/\/Bad_Bucket\/key: bucket 'Bad_Bucket'/);
    expect(stderr).toMatch(/--out \/no\/such\/dir\/p\.json: the folder \/no\/such\/dir does not exist/);
    expect(stderr).toMatch(/--region mars-1: not an AWS region code/);
    expect(s3).not.toHaveReceivedCommand(GetObjectCommand);
  });

  test('GIVEN no flags THEN both required ones are named', async () => {
    const { code, stderr } = await cli(['calibrate']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/give --report/);
    expect(stderr).toMatch(/give --out FILE/);
  });

  test('GIVEN a report that cannot calibrate THEN exit 2 with the reason and no file written', async () => {
    const { report } = await provenAt(0.7);
    const record = (report as { capacity: { calibration: Record<string, unknown> } }).capacity.calibration;
    const failed = { ...record, loadApplied: false, loadProblem: 'worker 1 failed: Error: out of memory' };
    const reportFile = join(dir, 'failed.json');
    writeFileSync(reportFile, JSON.stringify({ capacity: { calibration: failed } }));
    const out = join(dir, 'not-written.json');
    const { code, stderr } = await cli(['calibrate', '--report', reportFile, '--out', out]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/the rate was not reached: .*worker 1 failed/);
    expect(existsSync(out)).toBe(false);
  });
});

describe('calibrate names an S3 refusal', () => {
  test('GIVEN GetObject denied THEN exit 1 naming the call, the URI and the refusal', async () => {
    s3.on(GetObjectCommand).rejects(
      Object.assign(new Error('User is not authorized to perform s3:GetObject'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }),
    );
    const { code, stderr } = await cli(['calibrate', '--report', 's3://my-reports/x/latest.json', '--out', join(dir, 'denied.json')]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/S3 GetObject s3:\/\/my-reports\/x\/latest\.json/);
    expect(stderr).toMatch(/AccessDenied|not authorized/);
  });
});

describe('calibrate with a generative profile', () => {
  test('GIVEN a valid generative profile as --profile THEN exit 2 saying generative calibration comes from token-proof reports, no file written', async () => {
    const { report } = await provenAt(1);
    const reportFile = join(dir, 'for-generative.json');
    writeFileSync(reportFile, JSON.stringify(report));
    const profileFile = join(dir, 'llama.json');
    writeFileSync(profileFile, JSON.stringify(findGenerativeProfile('llama-3.1-8b-instruct')));
    const out = join(dir, 'llama-calibrated.json');
    const { code, stderr } = await cli(['calibrate', '--report', reportFile, '--profile', profileFile, '--out', out]);
    expect(code).toBe(2);
    expect(stderr).toContain(`--profile ${profileFile}: a generative profile (llama-3.1-8b-instruct); generative calibration comes from `
      + 'token-proof reports');
    expect(stderr).not.toMatch(/deviceMemoryGiB|problems/);
    expect(existsSync(out)).toBe(false);
  });
});

