import { random } from '../../../lib/planner/simulate';
import { shareArrivals } from '../../../lib/bench/token-load';
import { arrivalProcessOf, gapSampler, isPoisson, plannedArrivals, shareGaps } from '../../../lib/traffic/arrivals';
import { quantileAt, quantileTable, tableMean, tableScv } from '../../../lib/traffic/quantiles';
import { QUANTILE_PROBABILITIES } from '../../../lib/traffic/types';
import type { TrafficSummary } from '../../../lib/traffic/types';

function moments(draw: () => number, count: number): { mean: number; scv: number } {
  let sum = 0;
  let squares = 0;
  for (let i = 0; i < count; i++) {
    const g = draw();
    sum += g;
    squares += g * g;
  }
  const mean = sum / count;
  return { mean, scv: squares / count / (mean * mean) - 1 };
}

describe('quantile tables', () => {
  test('GIVEN sorted values WHEN tabled THEN the grid\'s points read back exactly and values between are interpolated', () => {
    const sorted = Float64Array.from({ length: 1000 }, (_, i) => i + 1);
    const table = quantileTable(sorted);
    expect(quantileAt(table, 0.99)).toBe(990);
    expect(quantileAt(table, 0)).toBe(1);
    expect(quantileAt(table, 1)).toBe(1000);
    expect(quantileAt(table, 0.1125)).toBeCloseTo(112.5, 6);
    expect(tableMean(table)).toBeCloseTo(500.5, 0);
    expect(() => quantileAt([1, 2], 0.5)).toThrow(`one per QUANTILE_PROBABILITIES point`);
  });
});

describe('drawing arrivals', () => {
  test.each([1, 2, 4])('GIVEN gamma gaps of SCV %s WHEN drawn THEN their mean is 1 and their SCV the one asked for', (scv) => {
    const m = moments(gapSampler({ scv, source: 't' }, random(7)), 40_000);
    expect(m.mean).toBeCloseTo(1, 1);
    expect(m.scv).toBeGreaterThan(scv * 0.9);
    expect(m.scv).toBeLessThan(scv * 1.1);
  });

  test('GIVEN a file\'s gap table WHEN drawn THEN the draws average 1 and spread as the table does', () => {
    const next = random(2);
    const gaps = Float64Array.from({ length: 5000 }, () => (next() < 0.9 ? 0.3 : 7.3) * -Math.log(1 - next())).sort();
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    const table = quantileTable(gaps.map((g) => g / mean));
    const m = moments(gapSampler({ scv: 3, source: 't', gapQuantiles: table }, random(3)), 40_000);
    expect(m.mean).toBeCloseTo(1, 1);
    expect(m.scv / tableScv(table)).toBeGreaterThan(0.9);
    expect(m.scv / tableScv(table)).toBeLessThan(1.1);
  });

  test('GIVEN Poisson WHEN drawn THEN it is the exponential the replays always drew, one uniform a gap', () => {
    const a = gapSampler(undefined, random(1));
    const b = random(1);
    expect([a(), a()]).toEqual([-Math.log(1 - b()), -Math.log(1 - b())]);
    expect(isPoisson({ scv: 1, source: 'x' })).toBe(true);
    expect(isPoisson({ scv: 2, source: 'x' })).toBe(false);
  });

  test('GIVEN 3 senders sharing a bursty process WHEN their arrivals are merged THEN they are the one process, in order, at 3 x the rate', () => {
    const process = { scv: 4, source: 'bursty' };
    const all = shareArrivals({ process, index: 0, of: 1 }, 6, 30_000, 5);
    const merged = [0, 1, 2].flatMap((index) => shareArrivals({ process, index, of: 3 }, 2, 30_000, 5)).sort((x, y) => x - y);
    expect(merged.length).toBeGreaterThan(100);
    merged.forEach((t, i) => expect(t).toBeCloseTo(all[i], 6));
    const m = moments(shareGaps({ process, index: 0, of: 1 }, random(9)), 20_000);
    expect(m.scv).toBeGreaterThan(3.5);
  });

  test('GIVEN arrivals more regular than Poisson, or bad ones WHEN planned THEN Poisson is planned and each problem named', () => {
    const problems: string[] = [];
    expect(plannedArrivals({ scv: 0.4, source: 'bench.json', gapQuantiles: QUANTILE_PROBABILITIES.map(() => 1) }, problems))
      .toEqual({ scv: 1, source: "bench.json; its gaps' SCV of 0.4 is more regular than Poisson, planned as Poisson" });
    plannedArrivals({ scv: -1, source: 'x' }, problems);
    plannedArrivals({ scv: 2, source: 'x', gapQuantiles: [3, 2, 1] }, problems);
    expect(problems).toEqual([
      'arrivals.scv=-1 must be a positive number (1 for Poisson arrivals, above 1 for bursty ones)',
      `arrivals.gapQuantiles must hold ${QUANTILE_PROBABILITIES.length} gaps relative to their mean, one per QUANTILE_PROBABILITIES point, ascending`,
    ]);
  });

  test('GIVEN a file\'s arrivals WHEN made a process THEN its SCV, its gaps and its evidence travel', () => {
    const traffic = {
      file: 'gateway.jsonl',
      arrivals: {
        scv: 2.4, scvRange: [1.9, 3.1], gapQuantiles: QUANTILE_PROBABILITIES.map((p) => p * 2), meanRps: 2.1, durationSeconds: 600,
        busiestMinuteOverMean: 1.4, timestamps: 1260, field: 'created', spreadOver: 'a second',
      },
    } as unknown as TrafficSummary;
    expect(arrivalProcessOf(traffic)).toEqual({
      scv: 2.4,
      gapQuantiles: traffic.arrivals?.gapQuantiles,
      source: "gateway.jsonl: 1,260 arrival times (created; arrivals sharing one spread over a second) over 600 s, 2.1 requests/s; " +
        "gaps against the mean gap of the minute around each: SCV 2.4, 1.9 to 3.1 over the file's tenths; busiest minute 1.4 x the mean rate (size --peak for it)",
    });
  });
});
