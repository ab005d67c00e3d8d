import { LatencyRecorder } from '../../../lib/bench/latency';
import { mergeTokenRuns, tokenWorkerRequests, type TokenRunResult } from '../../../lib/bench/token-merge';
import {
  checkGoldenAnswer,
  isTokenProofConfig,
  judgeTokenRun,
  STREAMS_PER_WORKER,
  tokenFanOut,
  type TokenCapacityConfig,
  type TokenMeasurement,
} from '../../../lib/bench/token-proof';

function encoded(valuesMs: readonly number[]): string {
  const recorder = new LatencyRecorder();
  valuesMs.forEach((v) => recorder.record(v));
  return recorder.encode();
}

function run(overrides: Partial<TokenRunResult> & { ttft: number[]; tpot: number[] }): TokenRunResult {
  const { ttft, tpot, ...rest } = overrides;
  return {
    requests: ttft.length,
    errors: 0,
    errorsByKind: {},
    errorSamples: {},
    durationMs: 10_000,
    outputTokens: ttft.length * 100,
    encoded: { ttft: encoded(ttft), tpot: encoded(tpot), e2e: encoded(ttft.map((t, i) => t + 99 * tpot[i])) },
    ...rest,
  };
}

describe('the golden answer check', () => {
  test('GIVEN an exact answer WHEN the model answers it with surrounding white space THEN it passes', () => {
    expect(checkGoldenAnswer({ kind: 'exact', text: 'Paris' }, ' Paris\n').passed).toBe(true);
  });

  test('GIVEN an exact answer WHEN the model answers something else THEN it fails naming expected and got', () => {
    const verdict = checkGoldenAnswer({ kind: 'exact', text: 'Paris' }, 'London');
    expect(verdict).toEqual({ passed: false, message: 'expected "Paris" (exact text), got "London"' });
  });

  test('GIVEN a pattern WHEN the answer contains it THEN it passes, and WHEN not THEN it fails with both texts', () => {
    const expect_ = { kind: 'regex' as const, pattern: '\\bParis\\b' };
    expect(checkGoldenAnswer(expect_, 'The capital is Paris.').passed).toBe(true);
    expect(checkGoldenAnswer(expect_, 'tok1 tok2')).toEqual({ passed: false, message: 'expected text matching /\\bParis\\b/, got "tok1 tok2"' });
    expect(checkGoldenAnswer({ ...expect_, flags: 'i' }, 'paris').passed).toBe(true);
  });
});

describe('judging a streamed run', () => {
  const limits = { ttftP99MaxMs: 500, tpotP99MaxMs: 50, minOutputTokensPerSecond: 100, rateShare: 0.95, maxErrorRate: 0.01 };
  const predicted = { ttftP99Ms: 300, tpotP99Ms: 40, e2eP99Ms: 4_300, outputTokensPerSecond: 200, rateRps: 2 };

  test('GIVEN a run within every limit WHEN judged THEN it passes with predicted beside measured', () => {
    const measured = mergeTokenRuns([run({ ttft: Array(20).fill(200), tpot: Array(20).fill(30) })]);
    const verdict = judgeTokenRun(measured, limits, predicted, 'smoke run');
    expect(verdict.failures).toEqual([]);
    expect(verdict.thresholds.map((t) => t.name)).toEqual(['rate', 'ttftP99', 'tpotP99', 'outputTokensPerSecond', 'errorRate']);
    expect(verdict.thresholds.find((t) => t.name === 'tpotP99')).toEqual({ name: 'tpotP99', limit: 50, measured: expect.closeTo(30, 1), passed: true, predicted: 40 });
  });

  test('GIVEN a slow TPOT and errors WHEN judged THEN each miss is a sentence naming measured, limit and plan', () => {
    const measured = mergeTokenRuns([run({ ttft: Array(20).fill(200), tpot: Array(20).fill(80), errors: 2, errorsByKind: { timeout: 2 } })]);
    const verdict = judgeTokenRun(measured, limits, predicted, 'capacity proof at 2 requests/s');
    // 18 of 20 offered in 10 s complete: 1.8 requests/s, under 95 % of the 2 offered.
    expect(verdict.failures).toEqual([
      'capacity proof at 2 requests/s: achieved 1.80 requests/s < min 1.90 requests/s (the share of the arrivals offered that must complete), plan predicted 2',
      expect.stringMatching(/^capacity proof at 2 requests\/s: p99 time per output token 80(\.\d)? ms > max 50 ms, plan predicted 40$/),
      'capacity proof at 2 requests/s: error rate 10.00 % (2 of 20) > max 1.00 %',
    ]);
  });

  test('GIVEN a run where nothing succeeded WHEN judged THEN latency limits fail rather than read 0 ms', () => {
    const measured: TokenMeasurement = { ...mergeTokenRuns([]), requests: 3, errors: 3, errorRate: 1 };
    const verdict = judgeTokenRun(measured, limits, predicted, 'smoke run');
    expect(verdict.failures).toContain('smoke run: p99 time to first token: no successful request to measure (max 500 ms)');
  });
});

describe('merging the load workers', () => {
  test('GIVEN two workers WHEN merged THEN the p99 is that of all samples, not a mean of the two p99s', () => {
    // Worker A: 98 fast TTFTs and 2 slow (its own p99 is slow); worker B: 100 fast. Over all 200 samples only 1 %
    // is slow, so the p99 is fast: the mean of the two p99s (550 ms) or their max would both be wrong.
    const a = run({ ttft: [...Array(98).fill(100), 1000, 1000], tpot: Array(100).fill(20) });
    const b = run({ ttft: Array(100).fill(100), tpot: Array(100).fill(20), durationMs: 9_000 });
    expect(mergeTokenRuns([a]).ttftMs.p99).toBeCloseTo(1000, 0);
    const merged = mergeTokenRuns([a, b]);
    expect(merged.requests).toBe(200);
    expect(merged.ttftMs.p99).toBeCloseTo(100, 0);
    expect(merged.ttftMs.max).toBeCloseTo(1000, 0);
    // Rates over the longest window: 200 successes in 10 s.
    expect(merged.achievedRps).toBe(20);
    expect(merged.outputTokensPerSecond).toBe(2000);
  });

  test('GIVEN a worker that failed WHEN merged THEN it is counted as worker-failed with its cause', () => {
    const merged = mergeTokenRuns([run({ ttft: [100], tpot: [20] })], { '1': 'worker 1 failed: out of memory' });
    expect(merged.errorsByKind).toEqual({ 'worker-failed': 1 });
    expect(merged.errorSamples['worker-failed']).toBe('worker 1 failed: out of memory');
  });

  test('GIVEN a capacity proof WHEN split into worker requests THEN the rate is shared evenly with the plan lengths', () => {
    const config = { rateRps: 6, workers: 3, durationMs: 60_000, warmupMs: 10_000, inputTokens: 1024, outputTokens: 256 } as TokenCapacityConfig;
    expect(tokenWorkerRequests(config)).toEqual([0, 1, 2].map((worker) => ({
      kind: 'tokens', worker, rateRps: 2, durationMs: 60_000, warmupMs: 10_000, inputTokens: 1024, outputTokens: 256,
    })));
  });
});

describe('the fan-out of the capacity proof', () => {
  test('GIVEN the rate and predicted e2e WHEN sized THEN the workers hold the streams in flight (Little), not the rate', () => {
    // 2 requests/s x 8 s = 16 streams: one worker, though a single-call proof would size by requests/s.
    expect(tokenFanOut(2, 8_000)).toEqual({ streams: 16, workers: 1, streamsPerWorker: 16 });
    // 40 requests/s x 8 s = 320 streams: 5 workers at 64.
    expect(tokenFanOut(40, 8_000)).toEqual({ streams: 320, workers: 5, streamsPerWorker: 64 });
    expect(STREAMS_PER_WORKER).toBe(64);
  });
});

describe('telling a proof in tokens apart', () => {
  test('GIVEN SMOKE_CONFIG documents WHEN read THEN only kind tokens is a proof in tokens', () => {
    expect(isTokenProofConfig('{"kind":"tokens"}')).toBe(true);
    expect(isTokenProofConfig('{"schemaVersion":1}')).toBe(false);
    expect(isTokenProofConfig('not json')).toBe(false);
    expect(isTokenProofConfig(undefined)).toBe(false);
  });
});
