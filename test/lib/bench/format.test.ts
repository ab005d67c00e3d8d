import { formatHistogram, formatReport, type BenchReport } from '../../../lib/bench';

const report: BenchReport = {
  requests: 1000,
  errors: 30,
  errorRate: 0.03,
  errorsByKind: { timeout: 5, 'http-503': 25 },
  errorSamples: { timeout: 'no complete answer within 100 ms', 'http-503': 'HTTP 503' },
  throughputRps: 96.5,
  latencyMs: { p50: 5.2, p90: 40.1, p99: 44.5, max: 61 },
  thresholds: [
    { name: 'p99', limit: 50, measured: 44.5, passed: true },
    { name: 'errorRate', limit: 0.01, measured: 0.03, passed: false },
  ],
  passed: false,
  failures: ['error rate 3.00 % > max 1.00 %'],
  durationMs: 10_050,
  startedAt: '2025-01-01T00:00:00.000Z',
  histogram: [
    { upToMs: 10, count: 800 },
    { upToMs: 20, count: 0 },
    { upToMs: 30, count: 0 },
    { upToMs: 40, count: 100 },
    { upToMs: 50, count: 69 },
    { upToMs: 61, count: 1 },
  ],
};

describe('formatReport renders a report for the terminal', () => {
  const text = formatReport(report);

  test('GIVEN a report WHEN formatted THEN the summary shows counts, error kinds by count, throughput and percentiles', () => {
    expect(text).toMatch(/requests\s+│ 1000/);
    expect(text).toMatch(/errors\s+│ 30 \(3\.00 %\)/);
    expect(text.indexOf('http-503')).toBeLessThan(text.indexOf('timeout'));
    expect(text).toMatch(/throughput\s+│ 96\.50 req\/s/);
    expect(text).toMatch(/latency p50\s+│ 5\.20 ms/);
    expect(text).toMatch(/latency p99\s+│ 44\.5 ms/);
    expect(text).toMatch(/latency max\s+│ 61\.0 ms/);
  });

  test('GIVEN thresholds WHEN formatted THEN each shows PASS or FAIL with limit and measured value', () => {
    expect(text).toMatch(/p99\s+│ PASS\s+│ p99 44\.5 ms <= max 50 ms/);
    expect(text).toMatch(/errorRate\s+│ FAIL\s+│ error rate 3\.00 % > max 1\.00 %/);
    expect(text.trimEnd().endsWith('Thresholds breached: 1 of 2.')).toBe(true);
  });

  test('GIVEN histogram buckets WHEN formatted THEN bars are proportional, the tallest 40 wide, any non-empty at least 1', () => {
    const lines = formatHistogram(report.histogram).split('\n').slice(1);
    const bar = (line: string) => (line.match(/█/g) ?? []).length;
    expect(lines).toHaveLength(6);
    expect(lines.map(bar)).toEqual([40, 0, 0, 5, 3, 1]);
    expect(lines[0]).toMatch(/^<= 10\.0 ms │█+ 800$/);
    expect(lines[2]).toMatch(/^<= 30\.0 ms │ +0$/);
  });

  test('GIVEN a run without successes or thresholds WHEN formatted THEN latencies read n/a, no thresholds table appears and it says the run failed', () => {
    const failed = formatReport({
      ...report,
      errors: 1000,
      errorRate: 1,
      latencyMs: { p50: 0, p90: 0, p99: 0, max: 0 },
      thresholds: [],
      passed: false,
      histogram: [],
    });
    expect(failed).toMatch(/latency p99\s+│ n\/a \(no successful request\)/);
    expect(failed).not.toMatch(/PASS|FAIL/);
    expect(failed.trimEnd().endsWith('No thresholds set.\n\nNo request succeeded: the run failed, whatever the thresholds say.')).toBe(true);
    expect(failed).toMatch(/Latency histogram: no successful request\./);
  });
});
