import { describePools, poolFailures, PoolRecorder } from '../../../lib/bench/pools';
import { mergeTokenRuns } from '../../../lib/bench/token-merge';
import { TokenLoadRecorder } from '../../../lib/bench/token-load';
import { judgeTokenPools } from '../../../lib/bench/token-pools';
import type { TokenStreamResult } from '../../../lib/bench/token-stream';
import { parsePool } from '../../../lib/serving/pool';

describe('the pool an answer came from', () => {
  test.each<[string | undefined, number | undefined]>([
    ['server-ms=1.200,batch-requests=1,batch-inputs=1,device-ms=1.000,pool=2', 2],
    ['pool=3', 3],
    ['trace=abc, pool = 1', 1],
    ['server-ms=1.200', undefined],
    ['pool=9', undefined],
    ['pool=x', undefined],
    [undefined, undefined],
  ])('GIVEN custom attributes %p THEN the pool is %p', (attributes, pool) => {
    expect(parsePool(attributes)).toBe(pool);
  });
});

describe('single-call answers by pool', () => {
  const limits = [
    { pool: 1, instanceType: 'ml.inf2.xlarge', p99MaxMs: 10, serverP99MaxMs: 6 },
    { pool: 2, instanceType: 'ml.trn1.2xlarge', p99MaxMs: 10 },
    { pool: 3, instanceType: 'ml.inf2.8xlarge', p99MaxMs: 10 },
  ];

  test('GIVEN answers of two pools recorded by two workers WHEN merged THEN each pool counts exactly its own answers', () => {
    const a = new PoolRecorder();
    const b = new PoolRecorder();
    for (let i = 0; i < 100; i++) {
      a.record('server-ms=2.000,pool=1', 4, 2);
      b.record('server-ms=3.000,pool=2', 20, 3);
      b.record('server-ms=2.000', 4, 2); // no pool named: not counted under any pool
    }
    const merged = new PoolRecorder();
    merged.add(a.encode());
    merged.add(b.encode());
    const report = merged.report()!;
    expect(report.map((p) => [p.pool, p.answers])).toEqual([[1, 100], [2, 100]]);
    expect(report[1].latencyMs?.p99).toBeCloseTo(20, 0);
    expect(report[0].serverLatencyMs?.p99).toBeCloseTo(2, 0);
  });

  test('GIVEN pool 2 over its p99 and pool 3 without answers THEN pool 2 fails, pool 3 is reported as not in service', () => {
    const recorder = new PoolRecorder();
    for (let i = 0; i < 50; i++) {
      recorder.record('server-ms=5.000,pool=1', 6, 5);
      recorder.record('pool=2', 25);
    }
    const answers = recorder.report();
    expect(poolFailures(answers, limits)).toEqual(['instance pool 2 (ml.trn1.2xlarge): p99 25 ms over 50 answers, above its limit of 10 ms']);
    expect(describePools(answers, limits)[2]).toBe('instance pool 3 (ml.inf2.8xlarge): no answer, no instance of it in service');
  });

  test('GIVEN a server p99 above the pool plan\'s THEN that pool fails on it', () => {
    const recorder = new PoolRecorder();
    recorder.record('server-ms=8.000,pool=1', 9, 8);
    expect(poolFailures(recorder.report(), limits)).toEqual(['instance pool 1 (ml.inf2.xlarge): server p99 8 ms over 1 answers, above its plan\'s 6 ms']);
  });
});

describe('streamed answers by pool', () => {
  const answer = (pool: number | undefined, ttftMs: number, tpotMs: number): TokenStreamResult => ({
    ok: true, text: 'x', outputTokens: 10, ttftMs, tpotMs, e2eMs: ttftMs + 9 * tpotMs, ...(pool !== undefined ? { pool } : {}),
  });

  test('GIVEN two workers\' runs with answers of pools 1 and 3 WHEN merged and judged THEN the slow pool fails on TPOT alone', () => {
    const runs = [1, 2].map(() => {
      const recorder = new TokenLoadRecorder();
      for (let i = 0; i < 20; i++) {
        recorder.record(answer(1, 500, 30));
        recorder.record(answer(3, 600, 80));
        recorder.record(answer(undefined, 500, 30));
      }
      return recorder.report({ requests: 60, offeredRps: 1, durationMs: 60_000, elapsedMs: 60_000 });
    });
    const merged = mergeTokenRuns(runs);
    expect(merged.pools?.map((p) => [p.pool, p.completed])).toEqual([[1, 40], [3, 40]]);
    const limits = [
      { pool: 1, instanceType: 'ml.inf2.48xlarge', ttftP99MaxMs: 2000, tpotP99MaxMs: 60 },
      { pool: 3, instanceType: 'ml.trn1.32xlarge', ttftP99MaxMs: 2000, tpotP99MaxMs: 60 },
    ];
    const failures = judgeTokenPools(merged.pools, limits, 'capacity proof at 2 requests/s');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/^capacity proof at 2 requests\/s: instance pool 3 \(ml\.trn1\.32xlarge\): p99 time per output token 8\d(\.\d+)? ms over 40 answers > max 60 ms$/);
  });
});
