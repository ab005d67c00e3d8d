import { parsePrefillBuckets, prefillMs } from '../../bench/vllm-standin/engine';
import { standinTimingOfPlan } from '../../bench/vllm-standin/timing';
import { Catalog } from '../../lib/catalog/catalog';
import { findGenerativeProfile, planGenerative, planTiming } from '../../lib/generative';

describe('The vLLM stand-in prefills as the engine the plan priced', () => {
  test('GIVEN an estimated plan WHEN its stand-in timing is derived THEN every prompt takes its compiled bucket\'s prefill, as the plan', () => {
    // GIVEN the default-spread plan bench:generative's second case deploys (estimated, buckets from the lengths)
    const profile = findGenerativeProfile('llama-3.1-8b-instruct')!;
    const plan = planGenerative(profile, {
      requestsPerSecond: 5, inputTokens: { mean: 512 }, outputTokens: { mean: 128 }, ttftP99Ms: 1000, tpotP99Ms: 35,
    }, { region: 'us-east-1', hosting: 'ec2' }, Catalog.builtIn());
    expect(plan.generative.estimate).toBeDefined();
    // WHEN
    const standin = standinTimingOfPlan(plan);
    const timing = planTiming(profile, plan);
    // THEN short, mean, long and past-the-last-bucket prompts take the plan's own prefill
    expect(standin.prefillBuckets?.map((b) => b.tokens)).toEqual(plan.generative.engine.contextEncodingBuckets);
    for (const tokens of [1, 200, 512, 1839, 4000, plan.generative.maxModelLength]) {
      expect(prefillMs(standin, tokens)).toBeCloseTo(timing.prefillSeconds(tokens) * 1000, 9);
    }
  });

  test('GIVEN --prefill-buckets text WHEN read THEN tokens:ms pairs, and a malformed or unordered list is refused naming it', () => {
    expect(parsePrefillBuckets('128:10,1024:55.5')).toEqual([{ tokens: 128, ms: 10 }, { tokens: 1024, ms: 55.5 }]);
    expect(() => parsePrefillBuckets('128:10,abc')).toThrow('--prefill-buckets entry "abc": give tokens:ms');
    expect(() => parsePrefillBuckets('1024:10,128:5')).toThrow('list the buckets by ascending tokens');
    expect(prefillMs({ maxNumSeqs: 1, stepMs: 1, prefillMsPerToken: 1, prefillFloorMs: 0, prefillBuckets: [{ tokens: 128, ms: 10 }, { tokens: 1024, ms: 55.5 }], slowdown: 0.5 }, 129)).toBe(27.75);
  });
});
