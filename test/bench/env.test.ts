import { spawnSync } from 'child_process';
import * as path from 'path';
import { caseListEnv, positiveIntegerEnv } from '../../bench/env';

describe('bench scripts read their environment variables strictly', () => {
  test('GIVEN BENCH_REQUESTS=abc, 0, 2.5 or 1e3 THEN each is refused naming the variable, the value and the fix', () => {
    for (const value of ['abc', '0', '2.5', '1e3', '']) {
      expect(() => positiveIntegerEnv({ BENCH_REQUESTS: value }, 'BENCH_REQUESTS', 200))
        .toThrow(`BENCH_REQUESTS=${JSON.stringify(value)} is not a whole number of at least 1; e.g. BENCH_REQUESTS=200 (the default)`);
    }
    expect(positiveIntegerEnv({}, 'BENCH_REQUESTS', 200)).toBe(200);
    expect(positiveIntegerEnv({ BENCH_REQUESTS: '400' }, 'BENCH_REQUESTS', 200)).toBe(400);
  });

  test('GIVEN BENCH_CASES=99 of 3 cases, or 1,x THEN refused naming the cases there are', () => {
    expect(() => caseListEnv({ BENCH_CASES: '99' }, 'BENCH_CASES', 3)).toThrow('BENCH_CASES="99": case 99 does not exist; the cases are 1 to 3, e.g. BENCH_CASES=1,3');
    expect(() => caseListEnv({ BENCH_CASES: '1,x' }, 'BENCH_CASES', 3)).toThrow(/BENCH_CASES="1,x": case x does not exist/);
    expect(caseListEnv({ BENCH_CASES: '3,1' }, 'BENCH_CASES', 3)).toEqual([3, 1]);
    expect(caseListEnv({}, 'BENCH_CASES', 3)).toBeUndefined();
  });

  test.each([
    ['BENCH_CASES', '99', /^error: BENCH_CASES="99": case 99 does not exist; the cases are 1 to \d+/],
    ['BENCH_REQUESTS', 'abc', /^error: BENCH_REQUESTS="abc" is not a whole number of at least 1/],
  ])('GIVEN npm run bench:generative with %s=%s THEN exit 2 with one line, no stack trace, nothing started', (name, value, message) => {
    const run = spawnSync(process.execPath, [require.resolve('tsx/cli'), path.join(__dirname, '..', '..', 'bench', 'generative.ts')], {
      env: { ...process.env, [name]: value }, encoding: 'utf8', timeout: 60_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).toBe('');
  });
});
