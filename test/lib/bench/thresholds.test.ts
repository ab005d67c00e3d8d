import { evaluateThresholds, type BenchStats } from '../../../lib/bench';

const stats: BenchStats = {
  requests: 200,
  errors: 4,
  errorRate: 0.02,
  throughputRps: 95,
  latencyMs: { p50: 12, p90: 30, p99: 48, max: 70 },
};

describe('evaluateThresholds checks each given limit and only those', () => {
  test('GIVEN no thresholds WHEN evaluated THEN nothing is checked', () => {
    expect(evaluateThresholds(stats)).toEqual([]);
    expect(evaluateThresholds(stats, {})).toEqual([]);
  });

  test('GIVEN all limits met, with the measured value equal to the limit WHEN evaluated THEN all pass in a fixed order', () => {
    expect(evaluateThresholds(stats, { maxErrorRate: 0.02, minThroughputRps: 95, p99MaxMs: 48, p50MaxMs: 20 })).toEqual([
      { name: 'p50', limit: 20, measured: 12, passed: true },
      { name: 'p99', limit: 48, measured: 48, passed: true },
      { name: 'throughput', limit: 95, measured: 95, passed: true },
      { name: 'errorRate', limit: 0.02, measured: 0.02, passed: true },
    ]);
  });

  test('GIVEN each limit missed WHEN evaluated THEN each fails with its measured value', () => {
    const results = evaluateThresholds(stats, { p50MaxMs: 11.9, p99MaxMs: 47, minThroughputRps: 95.5, maxErrorRate: 0.01 });
    expect(results.map((r) => [r.name, r.measured, r.passed])).toEqual([
      ['p50', 12, false],
      ['p99', 48, false],
      ['throughput', 95, false],
      ['errorRate', 0.02, false],
    ]);
  });

  test('GIVEN no successful request WHEN latency limits are evaluated THEN they fail rather than pass on 0 ms', () => {
    const allFailed = { ...stats, errors: 200, errorRate: 1, throughputRps: 0, latencyMs: { p50: 0, p90: 0, p99: 0, max: 0 } };
    expect(evaluateThresholds(allFailed, { p50MaxMs: 100, p99MaxMs: 100 }).map((r) => r.passed)).toEqual([false, false]);
  });

  test('GIVEN no request measured at all WHEN an error-rate limit is evaluated THEN it fails', () => {
    const nothing = { ...stats, requests: 0, errors: 0, errorRate: 0, throughputRps: 0 };
    expect(evaluateThresholds(nothing, { maxErrorRate: 0.5 })[0].passed).toBe(false);
  });
});
