import { lengthDistribution, singleSlotWaitQuantile } from '../../../lib/generative';
import { lengthAt } from '../../../lib/generative/lengths';
import { convolve, gridQuantile, mg1Wait, onGrid, plusAtomExponential, lengthPoints, slotTurnoverTails } from '../../../lib/generative/queueing';

describe('M/G/1 waiting time on a grid', () => {
  test('GIVEN fixed services WHEN the wait is solved on a grid THEN its quantiles are Erlang\'s exact M/D/1 ones, rounded up by under 1 %', () => {
    const hold = 2;
    for (const lambda of [0.1, 0.25, 0.4]) {
      const cells = 2000;
      const delta = (20 * hold) / cells;
      const wait = mg1Wait(lambda, { values: [hold], weights: [1] }, delta, cells)!;
      expect(wait.pmf[0]).toBeCloseTo(1 - lambda * hold, 12);
      for (const q of [0.95, 0.99]) {
        const exact = singleSlotWaitQuantile(lambda, hold, 0, q);
        // Each residual's mass sits at its cell's upper end: the grid errs on the long side, by a cell per residual.
        expect(gridQuantile(wait, q)).toBeGreaterThanOrEqual(exact - 1e-9);
        expect(gridQuantile(wait, q) - exact).toBeLessThanOrEqual(0.01 * exact + 2 * delta);
      }
    }
  });

  test('GIVEN a load at or past one WHEN solved THEN there is no steady wait', () => {
    expect(mg1Wait(0.5, { values: [2], weights: [1] }, 0.01, 100)).toBeUndefined();
  });

  test('GIVEN two point masses WHEN convolved THEN their sum lands on the grid, rounded up', () => {
    const a = onGrid({ values: [0.15], weights: [1] }, 0.1, 10);
    const b = onGrid({ values: [0.2, 0.31], weights: [0.5, 0.5] }, 0.1, 10);
    const sum = convolve(a, b);
    expect(gridQuantile(sum, 0.5)).toBeCloseTo(0.4, 12);
    expect(gridQuantile(sum, 0.99)).toBeCloseTo(0.6, 12);
  });

  test('GIVEN a wait that is zero or exponential WHEN added in one pass THEN it equals the cell-by-cell convolution', () => {
    const delta = 0.01;
    const cells = 300;
    const d = onGrid({ values: [0.05, 0.4, 1.2], weights: [0.5, 0.3, 0.2] }, delta, cells);
    const waits = 0.3;
    const mean = 0.25;
    // The exponential cut into cells, each cell's mass at its upper end.
    const wait = new Float64Array(cells);
    wait[0] = 1 - waits;
    for (let k = 1; k < cells; k++) {
      wait[k] = waits * (Math.exp(-((k - 1) * delta) / mean) - Math.exp(-(k * delta) / mean));
    }
    const expected = convolve(d, { delta, pmf: wait });
    const actual = plusAtomExponential(d, waits, mean);
    actual.pmf.forEach((p, k) => expect(p).toBeCloseTo(expected.pmf[k], 12));
    expect(plusAtomExponential(d, 0, mean).pmf).toEqual(d.pmf);
  });

  test('GIVEN a spread length WHEN cut into quantile bins THEN the weights sum to one and both tails are reached', () => {
    const dist = lengthDistribution({ mean: 1000, p99: 3000 });
    const points = lengthPoints(dist, (tokens) => tokens);
    expect(points.weights.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(Math.min(...points.values)).toBeLessThan(lengthAt(dist, 0.001));
    expect(Math.max(...points.values)).toBeGreaterThan(lengthAt(dist, 0.999));
  });
});

describe('Prefills landing in a decode, bounded by slot turnover', () => {
  test('GIVEN fixed output lengths WHEN counted THEN exactly N - 1 can land: every running sequence ends first', () => {
    const [tails] = slotTurnoverTails(lengthDistribution({ mean: 256 }), 8, [255], 0);
    expect([0, 1, 2, 3, 4, 5, 6, 7].map(tails)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    expect(tails(8)).toBe(0);
  });

  test('GIVEN spread lengths and a long decode WHEN counted THEN short sequences may turn a slot over twice', () => {
    const [short, long] = slotTurnoverTails(lengthDistribution({ mean: 125, p99: 250 }), 4, [60, 400], 0);
    // A short decode: each busy slot admits only if its sequence ends within it.
    expect(short(1)).toBeLessThan(1);
    expect(short(4)).toBeLessThan(0.01);
    // A long one: every slot turns over, and some twice or more.
    expect(long(3)).toBeCloseTo(1, 6);
    expect(long(4)).toBeGreaterThan(0.5);
  });

  test('GIVEN free slots WHEN counted THEN each may admit whatever the running sequences do', () => {
    const [busy] = slotTurnoverTails(lengthDistribution({ mean: 125, p99: 250 }), 4, [60], 0);
    const [idle] = slotTurnoverTails(lengthDistribution({ mean: 125, p99: 250 }), 4, [60], 1);
    expect(idle(3)).toBeCloseTo(1, 9);
    expect(busy(3)).toBeLessThan(idle(3));
  });
});
