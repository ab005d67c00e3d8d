/**
 * `calibrate` from a proof in tokens, end to end through the CLI: a generative plan, the report the gate writes when
 * its capacity proof measured the deployed configuration slower than the plan's row, calibrate from that report, then
 * plan from the calibrated profile: the measured row wins, and the next plan no longer buys the configuration that
 * missed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { runCli } from '../../bin/cli';
import type { CliIo } from '../../bin/commands/io';
import { generativeCalibrationRecord, generativePlanBasis } from '../../lib/bench/token-calibration';
import { calibrateGenerativeProfile, MIN_GENERATIVE_CALIBRATION_REQUESTS } from '../../lib/calibration/generative';
import { findGenerativeProfile, parseGenerativeProfile, planGenerative } from '../../lib/generative';
import type { GenerativePlan, GenerativePlanOptions, GenerativeTargets } from '../../lib/generative';

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

const TARGETS: GenerativeTargets = { requestsPerSecond: 2, inputTokens: { mean: 1024, p99: 2048 }, outputTokens: { mean: 256, p99: 512 }, ttftP99Ms: 2000, tpotP99Ms: 60 };
const OPTIONS: GenerativePlanOptions = {
  region: 'us-east-1',
  hosting: 'ec2',
  instanceTypes: ['inf2.48xlarge'],
  levers: { speculativeDecoding: false, fp8: false },
  // The published rows only: the proof measured a configuration a row already times, which its measured row replaces.
  estimates: false,
};
const percentiles = (p50: number, p99: number) => ({ p50, p90: (p50 + p99) / 2, p99, max: p99 * 1.1 });
const configuration = (p: GenerativePlan) => `${p.instanceType} tp=${p.generative.tensorParallelDegree} seqs=${p.generative.maxConcurrentSequences}`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cdk-inferentia-calibrate-generative-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('calibrate from a proof in tokens', () => {
  test('GIVEN a capacity proof that measured TPOT above the target WHEN calibrated and planned again THEN the measured row wins and the plan changes', async () => {
    const profile = findGenerativeProfile('llama-3.1-8b-instruct')!;
    const first = planGenerative(profile, TARGETS, OPTIONS);
    // The gate's report: the deployed configuration measured at the plan's rate, its TPOT p50 above the 60 ms target.
    const calibration = generativeCalibrationRecord(
      generativePlanBasis(first),
      { requests: 600, errors: 0, offeredRps: 2.02, achievedRps: 2, ttftMs: percentiles(900, 1900), tpotMs: percentiles(70, 80), e2eMs: percentiles(19_000, 22_000), goodputRps: 0 },
      '2026-11-27T03:00:00.000Z',
      true,
    );
    const report = join(dir, 'token-report.json');
    writeFileSync(report, JSON.stringify({ schemaVersion: 1, kind: 'tokens', name: 'llama-prod', capacity: { calibration } }));
    const out = join(dir, 'llama-calibrated.json');

    const { code, stdout, stderr } = await cli(['calibrate', '--report', report, '--out', out]);

    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain(`the measured row ${configuration(first).replace(/^ml\./, '')}`);
    const calibrated = parseGenerativeProfile(JSON.parse(readFileSync(out, 'utf8')), out);
    const row = calibrated.measurements.find((m) => m.source.includes('proof in tokens'))!;
    expect(row).toMatchObject({ instanceType: 'inf2.48xlarge', tensorParallelDegree: first.generative.tensorParallelDegree, batchSize: first.generative.maxConcurrentSequences, tpotP50Ms: 70, ttftP99Ms: 1900 });
    // The next plan times that configuration from the measured row: 70 ms per token cannot meet 60, so it buys another.
    const next = planGenerative(calibrated, TARGETS, OPTIONS);
    expect(configuration(next)).not.toBe(configuration(first));
    expect(next.hourlyCostUsd).toBeGreaterThanOrEqual(first.hourlyCostUsd);
  }, 300_000);

  test('GIVEN a proof of too few requests, another model or a partial load WHEN calibrated THEN it is refused, naming each reason', () => {
    const profile = findGenerativeProfile('llama-3.1-8b-instruct')!;
    const basis = {
      profileId: 'qwen3-32b', instanceType: 'inf2.48xlarge', instanceCount: 1, replicasPerInstance: 3, tensorParallelDegree: 8,
      maxConcurrentSequences: 8, maxModelLength: 4096, inputTokens: 512, outputTokens: 128, neuronSdkVersion: '2.24.0',
    };
    const measured = { requests: 40, errors: 2, offeredRps: 1, achievedRps: 0.9, ttftMs: percentiles(300, 600), tpotMs: percentiles(20, 30), e2eMs: percentiles(3000, 4000) };

    expect(() => calibrateGenerativeProfile(generativeCalibrationRecord(basis, measured, '2026-11-27T03:00:00.000Z', false), profile, { source: 'r.json' })).toThrow(
      new RegExp(`measured qwen3-32b, not llama-3.1-8b-instruct[\\s\\S]*not all applied[\\s\\S]*38 successful requests; a row needs at least ${MIN_GENERATIVE_CALIBRATION_REQUESTS}[\\s\\S]*2 of 40 requests failed`),
    );
  });
});
