import { Catalog } from '../../../lib/catalog/catalog';
import { InfeasibleError } from '../../../lib/errors';
import { findGenerativeProfile, planGenerativeReport } from '../../../lib/generative';
import type { GenerativeTargets } from '../../../lib/generative';

const LLAMA = findGenerativeProfile('llama-3.1-8b-instruct')!;
/** Measured rows at fixed lengths: milliseconds to plan. */
const TARGETS: GenerativeTargets = {
  requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60, fixedLengths: true,
};
const OPTIONS = { region: 'us-east-1', hosting: 'ec2', estimates: false } as const;

describe('A generative plan made again for the same inputs', () => {
  test('GIVEN the same profile, targets and options on the same catalog THEN the report planned first is returned', () => {
    const first = planGenerativeReport(LLAMA, TARGETS, OPTIONS);
    // A copy of the inputs and a progress callback are the same inputs.
    expect(planGenerativeReport(LLAMA, { ...TARGETS }, { ...OPTIONS, onProgress: () => undefined })).toBe(first);
  });

  test('GIVEN another target, option or catalog THEN it is planned again', () => {
    const first = planGenerativeReport(LLAMA, TARGETS, OPTIONS);
    const faster = planGenerativeReport(LLAMA, { ...TARGETS, requestsPerSecond: 20 }, OPTIONS);
    expect(faster).not.toBe(first);
    expect(faster.chosen.targets.requestsPerSecond).toBe(20);
    expect(planGenerativeReport(LLAMA, TARGETS, { ...OPTIONS, headroom: 0.5 }).chosen.headroom).toBe(0.5);
    const priced = Catalog.builtIn().withPriceFile({ instances: [], prices: [] });
    expect(planGenerativeReport(LLAMA, TARGETS, OPTIONS, priced)).not.toBe(first);
  });

  test('GIVEN targets nothing meets THEN each call refuses again', () => {
    const impossible = { ...TARGETS, tpotP99Ms: 0.5 };
    expect(() => planGenerativeReport(LLAMA, impossible, OPTIONS)).toThrow(InfeasibleError);
    expect(() => planGenerativeReport(LLAMA, impossible, OPTIONS)).toThrow(InfeasibleError);
  });
});
