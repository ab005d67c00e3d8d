import { prefillSums } from '../../../lib/generative/landing';
import type { EngineTiming } from '../../../lib/generative';

const TIMING: EngineTiming = {
  maxSequences: 4, stepSeconds: 0.01, prefillSeconds: () => 0.1, tpotTail: 1, ttftTail: 1, chunkedPrefill: false, prefillEstimated: false,
};

describe('Sums of the prefills that land in a decode', () => {
  test('GIVEN prompts of 0.1 s or 0.3 s, half each WHEN j of them are summed THEN P(S_j > t) is the binomial count, on the long side by under a cell', () => {
    // GIVEN
    const sums = prefillSums(TIMING, 'two-valued', { values: [0.1, 0.3], weights: [0.5, 0.5] }, 0.2)!;
    // THEN S_1: above 0.1 only the 0.3 prompts; above 0.3 nothing.
    expect(sums.exceeds(1, 0.15)).toBeCloseTo(0.5, 12);
    expect(sums.exceeds(1, 0.31)).toBe(0);
    // S_3 = 0.3 + 0.2 x (number of long prompts): P(S_3 > 0.55) = P(at least 2 long) = 1/2.
    expect(sums.exceeds(3, 0.55)).toBeCloseTo(0.5, 12);
    expect(sums.exceeds(3, 0.89)).toBeCloseTo(0.125, 12);
    expect(sums.exceeds(3, 0.91)).toBe(0);
    expect(sums.exceeds(2, -1)).toBe(1);
  });

  test('GIVEN every prompt with the same prefill time WHEN asked THEN there is nothing to sum: the count decides', () => {
    expect(prefillSums(TIMING, 'fixed', { values: [0.1, 0.1], weights: [0.5, 0.5] }, 0.1)).toBeUndefined();
  });
});
