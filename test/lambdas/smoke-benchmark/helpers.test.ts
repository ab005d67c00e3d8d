import {
  longestRunMs,
  planRunBudget,
  REPORT_RESERVE_MS,
  requiredFunctionTimeoutMs,
  STARTUP_ALLOWANCE_MS,
  STOP_GRACE_MS,
  type RunShape,
} from '../../../lib/smoke/budget';
import { readSettings } from '../../../lib/smoke/config';
import { reportKeys } from '../../../lambdas/smoke-benchmark/report';
import { isRollingBack } from '../../../lambdas/smoke-benchmark/stack-status';

const DURATION_RUN: RunShape = {
  mode: { kind: 'closed', concurrency: 2 },
  stop: { durationMs: 30_000 },
  warmupMs: 5_000,
  timeoutMs: 10_000,
};

describe('the time budget of a run', () => {
  test('a duration run lasts at most warm-up + duration + one request timeout', () => {
    expect(longestRunMs(DURATION_RUN)).toBe(45_000);
    expect(requiredFunctionTimeoutMs(DURATION_RUN)).toBe(STARTUP_ALLOWANCE_MS + 45_000 + STOP_GRACE_MS + REPORT_RESERVE_MS);
  });

  test('a request-count run has no length known in advance', () => {
    const shape: RunShape = { ...DURATION_RUN, stop: { requests: 100 } };
    expect(longestRunMs(shape)).toBeUndefined();
    expect(requiredFunctionTimeoutMs(shape)).toBeUndefined();
  });

  test('the run may use what is left after the stop grace and the report reserve', () => {
    // GIVEN 60 s left and a run of at most 45 s
    // WHEN the budget is planned
    const budget = planRunBudget(60_000, DURATION_RUN);

    // THEN the run is aborted at 60 - 2 - 5 = 53 s at the latest
    expect(budget).toEqual({ fits: true, runMs: 53_000 });
  });

  test('a run that does not fit is refused with what it needs and what is left', () => {
    const budget = planRunBudget(50_000, DURATION_RUN);
    expect(budget).toEqual({
      fits: false,
      reason: expect.stringContaining('needs up to 45 s (warm-up 5 s + duration 30 s + one request timeout 10 s) but the Lambda has 43 s left'),
    });
  });

  test('no time at all is refused even for a request-count run', () => {
    const budget = planRunBudget(6_000, { ...DURATION_RUN, stop: { requests: 10 } });
    expect(budget.fits).toBe(false);
  });
});

describe('report keys', () => {
  test('a run is filed under its time and fingerprint, and latest.json beside it', () => {
    expect(reportKeys('smoke', 'bert-prod', new Date('2025-03-04T05:06:07.089Z'), 'sha256:ab/cd')).toEqual({
      run: 'smoke/bert-prod/2025-03-04T05-06-07.089Z-sha256_ab_cd.json',
      latest: 'smoke/bert-prod/latest.json',
    });
  });

  test('without a fingerprint the key is the time alone', () => {
    expect(reportKeys('smoke', 'bert-prod', new Date('2025-03-04T05:06:07.089Z')).run).toBe(
      'smoke/bert-prod/2025-03-04T05-06-07.089Z.json',
    );
  });
});

describe('telling a rollback from a deployment', () => {
  test.each([
    ['ROLLBACK_IN_PROGRESS', true],
    ['UPDATE_ROLLBACK_IN_PROGRESS', true],
    ['UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS', true],
    ['IMPORT_ROLLBACK_IN_PROGRESS', true],
    ['CREATE_IN_PROGRESS', false],
    ['UPDATE_IN_PROGRESS', false],
    ['UPDATE_COMPLETE_CLEANUP_IN_PROGRESS', false],
    ['UPDATE_ROLLBACK_COMPLETE', false],
  ])('%s is a rollback in progress: %s', (status, rollingBack) => {
    expect(isRollingBack(status)).toBe(rollingBack);
  });
});

describe('reading the settings', () => {
  test('names every missing variable', () => {
    expect(() => readSettings({})).toThrow(
      /SMOKE_CONFIG: SMOKE_CONFIG is not set[\s\S]*SMOKE_TARGET: SMOKE_TARGET is not set[\s\S]*SMOKE_STACK_ID: SMOKE_STACK_ID is not set/,
    );
  });

  test('says when the configuration is not JSON', () => {
    expect(() =>
      readSettings({
        SMOKE_CONFIG: '{not json',
        SMOKE_TARGET: 'e',
        SMOKE_NAME: 'e',
        SMOKE_ENVIRONMENT: 'prod',
        SMOKE_REPORT_BUCKET: 'b',
        SMOKE_STACK_ID: 's',
      }),
    ).toThrow(/SMOKE_CONFIG is not JSON/);
  });
});
