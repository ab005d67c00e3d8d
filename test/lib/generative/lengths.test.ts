import {
  DEFAULT_LENGTH_SPREAD, lengthDistributionOf, lengthQuantile, lengthSampler, lognormalLength, sampleWorkload, workloadLengths,
} from '../../../lib/generative/lengths';
import { normalQuantile } from '../../../lib/generative/continuous-batching';

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(q * sorted.length) - 1];
}

describe('length distributions', () => {
  test('a stated p99 is kept, and the lognormal has that mean and p99', () => {
    const d = lengthDistributionOf({ mean: 1000, p99: 3000 }, 'input');
    expect(d.spread).toBe('stated');
    expect(d.p99).toBe(3000);
    expect(Math.exp(d.mu + (d.sigma * d.sigma) / 2)).toBeCloseTo(1000, 6);
    expect(Math.exp(d.mu + d.sigma * normalQuantile(0.99))).toBeCloseTo(3000, 3);
    expect(d.scv).toBeCloseTo(Math.exp(d.sigma * d.sigma) - 1, 12);
  });

  test('without a p99 the default spread of the chat trace applies, per role', () => {
    const input = lengthDistributionOf({ mean: 1000 }, 'input');
    const output = lengthDistributionOf({ mean: 200 }, 'output');
    expect(input.spread).toBe('default');
    expect(input.p99).toBe(Math.ceil(1000 * DEFAULT_LENGTH_SPREAD.inputP99OverMean));
    expect(output.p99).toBe(Math.ceil(200 * DEFAULT_LENGTH_SPREAD.outputP99OverMean));
    expect(input.source).toContain('AzureLLMInferenceTrace_conv.csv');
  });

  test('fixed lengths are asked for, or follow from a p99 equal to the mean', () => {
    for (const d of [lengthDistributionOf({ mean: 512 }, 'output', { fixed: true }), lengthDistributionOf({ mean: 512, p99: 512 }, 'output')]) {
      expect(d).toMatchObject({ spread: 'fixed', mean: 512, p99: 512, sigma: 0, scv: 0 });
      expect(lengthQuantile(d, 0.999)).toBe(512);
    }
  });

  test('draws are seeded, whole, at least 1, and match the mean and p99', () => {
    const d = lengthDistributionOf({ mean: 256 }, 'output');
    const a = lengthSampler(d, 7);
    const b = lengthSampler(d, 7);
    const draws = Array.from({ length: 40000 }, () => a());
    expect(Array.from({ length: 100 }, () => b())).toEqual(draws.slice(0, 100));
    expect(draws.every((x) => Number.isInteger(x) && x >= 1)).toBe(true);
    const mean = draws.reduce((s, x) => s + x, 0) / draws.length;
    expect(Math.abs(mean / 256 - 1)).toBeLessThan(0.03);
    expect(Math.abs(percentile(draws, 0.99) / d.p99 - 1)).toBeLessThan(0.06);
    expect(lengthQuantile(d, 0.99)).toBeGreaterThanOrEqual(d.p99 - 1);
    expect(lengthQuantile(d, 0.99)).toBeLessThanOrEqual(d.p99 + 1);
  });

  test('a cap cuts draws and quantiles', () => {
    const d = lognormalLength(1000, 4000, 'stated', 'test', 2000);
    expect(lengthQuantile(d, 0.99)).toBe(2000);
    expect(sampleWorkload({ input: d, output: d }, 2000, 3).every((w) => w.input <= 2000 && w.output <= 2000)).toBe(true);
  });

  test('a default spread past the context is cut to fit it; a stated one is left for validation to refuse', () => {
    const cut = workloadLengths({ inputTokens: { mean: 40000 }, outputTokens: { mean: 200 } }, 131072);
    expect(cut.input.p99 + cut.output.p99).toBe(131072);
    expect(cut.input.source).toContain('cut to');
    const stated = workloadLengths({ inputTokens: { mean: 40000, p99: 140000 }, outputTokens: { mean: 200 } }, 131072);
    expect(stated.input.p99).toBe(140000);
    expect(workloadLengths({ inputTokens: { mean: 100 }, outputTokens: { mean: 10 }, fixedLengths: true }).input.spread).toBe('fixed');
  });

  test('a quantile outside (0, 1) is refused', () => {
    expect(() => normalQuantile(1)).toThrow(/strictly between 0 and 1/);
  });
});
