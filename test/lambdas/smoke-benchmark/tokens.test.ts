/**
 * The proof in tokens (smoke gate and capacity proof) against the stand-in engine, real processes on 127.0.0.1
 * speaking vLLM's HTTP and SSE protocol, through the real token client; the load workers' handler runs in this
 * process for each mocked Lambda Invoke. Only the control plane (CloudFormation, S3, Lambda Invoke) is mocked.
 *
 * Cost: two stand-in processes (about 1.5 s each to start on a loaded 2-core machine) and about 20 s of streamed
 * generation. The plan's timings are 25 ms decode steps and a 100 ms prefill; the TPOT limit is 60 ms, so a host at
 * a load average of 17 on 2 cores passes (it measured 25 ms TPOT for a 10 ms step), and the slowed stand-in
 * (`--slowdown 4`, 100 ms steps) fails on TPOT by 67 %.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InvokeCommand } from '@aws-sdk/client-lambda';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import 'aws-sdk-client-mock-jest';
import { spawnStandin, type StandinProcess } from '../../../bench/vllm-standin/spawn';
import type { TokenProofConfig } from '../../../lib/bench/token-proof';
import { smokeReportSchema } from '../../../lib/release';
import type { SmokeContext, SmokeOutcome } from '../../../lambdas/smoke-benchmark/index';
import type { TokenReportDocument } from '../../../lambdas/smoke-benchmark/token-report';
import { answerAsAnUpdate, hookEnvironment, lambdaContext, mockControlPlane } from '../../support/smoke-gate';

const GOLDEN_PROMPT = 'What is the capital of France? Answer with one word.';
const PREDICTED = { ttftP99Ms: 125, tpotP99Ms: 26, e2eP99Ms: 620 };

const controlPlane = mockControlPlane();
const { s3, lambda } = controlPlane;

let good: StandinProcess;
let slow: StandinProcess;
/** Plays a Trn2 vLLM Neuron plugin engine that compiled for 900 s at start: its shared cache missed. */
let cold: StandinProcess;
let handler: (event: unknown, context: SmokeContext) => Promise<SmokeOutcome>;
let worker: (event: unknown, context: Pick<SmokeContext, 'getRemainingTimeInMillis'>) => Promise<unknown>;

/** The config the construct renders for a plan of 4 requests/s, 16 tokens in and 20 out, on the stand-in. */
function config(overrides: Partial<TokenProofConfig> = {}): TokenProofConfig {
  const limits = { ttftP99MaxMs: 600, tpotP99MaxMs: 60, maxErrorRate: 0.01 };
  return {
    schemaVersion: 1,
    kind: 'tokens',
    target: { kind: 'http' },
    fingerprint: 'engine-abc',
    api: 'chat',
    model: 'llama-3.1-8b-instruct',
    golden: { prompt: GOLDEN_PROMPT, maxTokens: 16, expect: { kind: 'regex', pattern: '\\bParis\\b' } },
    smoke: {
      requests: 8,
      concurrency: 2,
      // 2 streams x 1000 / 620 ms.
      rateRps: 3.23,
      inputTokens: 16,
      outputTokens: 20,
      timeoutMs: 10_000,
      predicted: { ...PREDICTED, outputTokensPerSecond: 64.5 },
      thresholds: { ...limits, minOutputTokensPerSecond: 32.3 },
    },
    capacity: {
      rateRps: 4,
      workers: 2,
      streamsPerWorker: 1.24,
      durationMs: 3_000,
      warmupMs: 0,
      timeoutMs: 10_000,
      inputTokens: 16,
      outputTokens: 20,
      predicted: { ...PREDICTED, outputTokensPerSecond: 80, rateRps: 4 },
      thresholds: { ...limits, rateShare: 0.95 },
    },
    metricNamespace: 'CdkInferentia/SmokeBenchmark',
    reportPrefix: 'smoke-benchmarks',
    ...overrides,
  };
}

function useTarget(standin: StandinProcess, value: TokenProofConfig = config()): void {
  process.env.SMOKE_CONFIG = JSON.stringify(value);
  process.env.SMOKE_TARGET = standin.url;
}

function context(ms = 120_000): SmokeContext {
  return lambdaContext(ms, { functionVersion: '3', awsRequestId: 'req-1' });
}

function writtenReport(): TokenReportDocument {
  const calls = s3.commandCalls(PutObjectCommand);
  expect(calls.map((c) => c.args[0].input.Key)).toEqual([
    expect.stringMatching(/^smoke-benchmarks\/llama-prod\/.*-engine-abc\.json$/),
    'smoke-benchmarks/llama-prod/latest.json',
  ]);
  return JSON.parse(String(calls[0].args[0].input.Body)) as TokenReportDocument;
}

async function invoke(): Promise<{ outcome?: SmokeOutcome; error?: Error }> {
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    return { outcome: await handler({}, context()) };
  } catch (error) {
    return { error: error as Error };
  } finally {
    write.mockRestore();
    log.mockRestore();
  }
}

beforeAll(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'token-gate-'));
  const golden = path.join(dir, 'golden.json');
  writeFileSync(golden, JSON.stringify({ [GOLDEN_PROMPT]: 'Paris' }));
  const flags = ['--max-num-seqs', '8', '--step-ms', '25', '--prefill-ms-per-token', '0', '--prefill-floor-ms', '100', '--served-model-name', 'llama-3.1-8b-instruct', '--golden', golden];
  // The good engine plays a Trn2 plugin engine that found its graphs in the shared cache (4 s of graph capture).
  // Its launcher saw the 16 NeuronCores (4 Trn2 chips at LNC=2) its TP 16 needs.
  const warm = ['--plugin-compile-seconds', '4', '--plugin-load-seconds', '40', '--neuron-cores-seen', '16', '--copy', 'ip-10-0-1-5'];
  [good, slow, cold] = await Promise.all([
    spawnStandin([...flags, ...warm]), spawnStandin([...flags, '--slowdown', '4']),
    spawnStandin([...flags, '--plugin-compile-seconds', '900', '--plugin-load-seconds', '40']),
  ]);
  Object.assign(process.env, hookEnvironment('llama-prod'));
  ({ handler } = await import('../../../lambdas/smoke-benchmark/index'));
  ({ handler: worker } = await import('../../../lambdas/smoke-load-worker/index'));
});

afterAll(async () => {
  await Promise.all([good?.close(), slow?.close(), cold?.close()]);
});

beforeEach(() => {
  answerAsAnUpdate(controlPlane, worker);
});

describe('the proof in tokens against an engine that meets its plan', () => {
  test('passes the golden prompt, the short run and the capacity proof, with predicted beside measured', async () => {
    // GIVEN the stand-in at the plan's timings
    useTarget(good);
    // WHEN the gate runs
    const { outcome, error } = await invoke();
    // THEN it passes, and the report shows the golden answer and each figure beside the plan's
    expect(error).toBeUndefined();
    expect(outcome).toMatchObject({ outcome: 'passed', name: 'llama-prod' });
    const report = writtenReport();
    expect(report).toMatchObject({ kind: 'tokens', passed: true, failures: [], model: 'llama-3.1-8b-instruct' });
    expect(report.golden).toMatchObject({ passed: true, answer: { text: 'Paris' } });
    if (!('measured' in report.smoke) || report.capacity === undefined || !('measured' in report.capacity)) {
      throw new Error(`expected both runs to be measured: ${JSON.stringify(report)}`);
    }
    expect(report.smoke.measured).toMatchObject({ requests: 8, errors: 0 });
    // TPOT is the 25 ms step (the arithmetic, with room for a loaded host), TTFT at least the 100 ms prefill.
    expect(report.smoke.measured.tpotMs.p50).toBeGreaterThanOrEqual(24.5);
    expect(report.smoke.measured.tpotMs.p50).toBeLessThan(50);
    expect(report.smoke.measured.ttftMs.p50).toBeGreaterThanOrEqual(99);
    expect(report.smoke.thresholds.find((t) => t.name === 'tpotP99')).toMatchObject({ limit: 60, predicted: 26, passed: true });
    // Both workers answered and their histograms merged: 2 x 2 requests/s for 3 s, each worker its own arrivals.
    expect(lambda).toHaveReceivedCommandTimes(InvokeCommand, 2);
    expect(report.capacity.workersAnswered).toBe(2);
    expect(report.capacity.measured.errors).toBe(0);
    expect(report.capacity.measured.requests).toBeGreaterThan(4);
    expect(report.capacity.thresholds.map((t) => t.name)).toEqual(['rate', 'ttftP99', 'tpotP99', 'errorRate']);
    expect(report.capacity.predicted.rateRps).toBe(4);
    // The plugin's start is in the report: the compile (a cache hit), the load and the startup time.
    // The cores the copy saw before its engine loaded, as its launcher counted them.
    expect(report.engine).toEqual({
      startup: expect.objectContaining({ compilationSeconds: 4, modelLoadSeconds: 40, startupSeconds: 44 }),
      copies: [{ copy: 'ip-10-0-1-5', coresSeen: 16, coresNeeded: 16, source: 'standin' }],
      failures: [],
    });
    // Goodput beside the percentiles: the requests within the TTFT and TPOT limits together, per second of the window.
    const { goodRequests, goodputRps, requests, durationMs } = report.capacity.measured;
    expect(goodRequests).toBeGreaterThan(0);
    expect(goodRequests).toBeLessThanOrEqual(requests);
    expect(goodputRps).toBeCloseTo((goodRequests! * 1000) / durationMs, 1);
    // The promotion gate reads the same document as a single-call report: complete, passed, short run's figures.
    expect(smokeReportSchema().parse(report)).toMatchObject({ complete: true, passed: true, report: { requests: 8, errorRate: 0 } });
  }, 60_000);
});

describe('the cores each copy saw, in the proof\'s report', () => {
  test('GIVEN a plan of 2 copies behind the target WHEN the one copy answers every read THEN the report lists it against the 2 planned', async () => {
    // GIVEN the plan's basis: 1 instance of 2 replicas at TP 16
    useTarget(good, config({
      capacity: undefined,
      plan: { profileId: 'llama-3.3-70b-instruct', instanceType: 'trn2.48xlarge', instanceCount: 1, replicasPerInstance: 2, tensorParallelDegree: 16,
        maxConcurrentSequences: 8, maxModelLength: 4096, inputTokens: 16, outputTokens: 20, neuronSdkVersion: '2.33.0' },
    }));
    // WHEN the gate runs (it reads /metrics until both copies answered, at most 4 times)
    const { error } = await invoke();
    // THEN the copy that answered is listed with the planned count, and seeing its cores fails nothing
    expect(error).toBeUndefined();
    expect(writtenReport().engine).toMatchObject({
      copies: [{ copy: 'ip-10-0-1-5', coresSeen: 16, coresNeeded: 16, source: 'standin' }], copiesPlanned: 2, failures: [],
    });
  }, 60_000);
});

describe('the proof in tokens fails a deployment that misses its plan', () => {
  test('an engine four times slower than the plan fails on TPOT, and the capacity proof does not run', async () => {
    // GIVEN the stand-in with every duration four times longer (100 ms steps against a 60 ms limit)
    useTarget(slow);
    // WHEN the gate runs
    const { error } = await invoke();
    // THEN it fails naming the measured TPOT, the limit and the plan's prediction
    expect(error?.name).toBe('TokenProofFailedError');
    expect(error?.message).toMatch(/smoke run of 8 streamed requests: p99 time per output token \d+(\.\d+)? ms > max 60 ms, plan predicted 26/);
    const report = writtenReport();
    expect(report.passed).toBe(false);
    expect(report.capacity).toEqual({ skipped: 'the smoke gate failed, so the endpoint was not driven at the planned rate' });
    expect(lambda).toHaveReceivedCommandTimes(InvokeCommand, 0);
    // Every answer took 100 ms or more per token against the 60 ms limit: none counts toward goodput.
    expect('measured' in report.smoke && report.smoke.measured).toMatchObject({ goodRequests: 0, goodputRps: 0 });
  }, 60_000);

  test('the capacity proof alone fails the slow engine when the smoke limits are loose', async () => {
    // GIVEN loose smoke limits but the plan's limits on the capacity proof
    const loose = config();
    useTarget(slow, { ...loose, smoke: { ...loose.smoke, requests: 2, thresholds: { maxErrorRate: 0.01, tpotP99MaxMs: 1_000, ttftP99MaxMs: 5_000 } } });
    // WHEN the gate runs
    const { error } = await invoke();
    // THEN the capacity proof, merged over both workers, fails on TPOT
    expect(error?.message).toMatch(/capacity proof at 4 requests\/s: p99 time per output token \d+(\.\d+)? ms > max 60 ms, plan predicted 26/);
    expect(lambda).toHaveReceivedCommandTimes(InvokeCommand, 2);
  }, 60_000);

  test('a Trn2 engine that compiled at serving time fails, naming the compile time and the CPU compile job', async () => {
    // GIVEN the plugin engine that spent 900 s in neuronx-cc at start
    useTarget(cold, { ...config(), capacity: undefined });
    // WHEN the gate runs
    const { error } = await invoke();
    // THEN the cold compile fails the proof and the report carries the plugin's figures
    expect(error?.message).toContain('the engine compiled for 900 s at serving time (vllm_neuron:compilation_time_seconds, limit 120 s)');
    const report = writtenReport();
    expect(report.engine?.startup).toMatchObject({ compilationSeconds: 900, modelLoadSeconds: 40 });
    expect(report.passed).toBe(false);
  }, 60_000);

  test('a wrong golden answer fails with the expected and the received text, before any load', async () => {
    // GIVEN an exact expected answer the engine does not give
    useTarget(good, config({ golden: { prompt: GOLDEN_PROMPT, maxTokens: 16, expect: { kind: 'exact', text: 'London' } } }));
    // WHEN the gate runs
    const { error } = await invoke();
    // THEN the message says what was expected and what came back
    expect(error?.message).toContain('golden prompt: expected "London" (exact text), got "Paris"');
    const report = writtenReport();
    expect(report.smoke).toEqual({ skipped: 'the golden prompt failed, so the latency of a wrong model was not measured' });
  }, 60_000);

  test('a prompt the engine has no golden answer for fails the pattern with the text it produced', async () => {
    // GIVEN a prompt the stand-in answers with filler tokens, as a model with broken weights would
    useTarget(good, config({ golden: { prompt: 'Name the capital of Peru.', maxTokens: 4, expect: { kind: 'regex', pattern: '\\bLima\\b' } } }));
    // WHEN the gate runs
    const { error } = await invoke();
    // THEN the pattern and the text are both in the message
    expect(error?.message).toContain('golden prompt: expected text matching /\\bLima\\b/, got "tok1 tok2 tok3 tok4"');
  }, 60_000);
});
