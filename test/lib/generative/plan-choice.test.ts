import { Catalog } from '../../../lib/catalog/catalog';
import { findGenerativeProfile, meetsTargets, predictReplica } from '../../../lib/generative';
import { resolveGenerativeRequest } from '../../../lib/generative/planner';
import type { EngineTiming, GenerativePlan, GenerativeProfile, GenerativeTargets, LeverSet } from '../../../lib/generative';
import { largerDegreeMargin, preferSmallerDegree, splitByEvidence, unmeasuredAlternatives } from '../../../lib/generative/choice';
import { leverEvidence, measurementFor, unmeasuredLeversOf } from '../../../lib/generative/lever-evidence';
import { draftFor, leverSets } from '../../../lib/generative/levers';
import { sampleWorkload, workloadLengths } from '../../../lib/generative/lengths';
import { shareLongerThan, snapToMeasuredLength } from '../../../lib/generative/length-snap';
import { perReplicaRate, planSensitivity, slowedTiming } from '../../../lib/generative/sensitivity';

const LLAMA_8B = findGenerativeProfile('llama-3.1-8b-instruct') as GenerativeProfile;
const LLAMA_70B = findGenerativeProfile('llama-3.3-70b-instruct') as GenerativeProfile;

/** A plan with only the fields the choice reads. */
function plan(fields: { family: string; tp: number; usd: number; levers?: LeverSet; estimate?: boolean; profileId?: string }): GenerativePlan {
  return {
    profileId: fields.profileId ?? LLAMA_8B.id,
    instanceType: `${fields.family}.48xlarge`,
    instance: { family: fields.family },
    instanceCount: 1,
    hourlyCostUsd: fields.usd,
    generative: {
      tensorParallelDegree: fields.tp, replicasPerInstance: 1, maxConcurrentSequences: 8,
      costPer1MOutputTokensUsd: fields.usd, costPer1MOutputTokensAtGoodputUsd: fields.usd,
      engine: { ...(fields.levers ? { levers: fields.levers } : {}) },
      ...(fields.estimate === false ? {} : { estimate: {} }),
    },
  } as unknown as GenerativePlan;
}

describe('Levers only with evidence', () => {
  const fp8: LeverSet = { fp8Weights: true, fp8KvCache: true };

  test('GIVEN the published rows WHEN a lever is looked up by chip and stack THEN only EAGLE3 on Llama 3.1 8B with the plugin on Trn2 is measured', () => {
    const eagle3 = leverSets(LLAMA_8B, { fp8: false }, 'trn2')[1];
    expect(eagle3.speculation?.draft.method).toBe('eagle3');
    expect(measurementFor('speculation', eagle3, 'trn2', LLAMA_8B.id)?.source).toMatch(/tutorial-eagle3-speculative-decoding-llama-3-1\.md/);
    // The 70B's EAGLE3 head has no published run; fused speculation was measured on Trn2 with NxD Inference, which
    // Trn2 does not run here; nothing was measured on Inf2 or Trn1; FP8 speed nowhere.
    expect(unmeasuredLeversOf(leverSets(LLAMA_70B, { fp8: false }, 'trn2')[1], 'trn2', LLAMA_70B.id)).toEqual(['speculation']);
    for (const family of ['inf2', 'trn1']) {
      expect(unmeasuredLeversOf({ ...leverSets(LLAMA_70B, {}, family)[3], prefixHitRate: 0.5 }, family, LLAMA_70B.id)).toEqual(['speculation', 'fp8', 'prefix-caching']);
    }
  });

  test('GIVEN a plan\'s levers WHEN its evidence is written THEN each truthy key names its row, or the nearest row elsewhere and what asked for it', () => {
    const eagle3 = leverSets(LLAMA_8B, { fp8: false }, 'trn2')[1];
    expect(leverEvidence(eagle3, 'trn2', LLAMA_8B.id)).toEqual({
      speculation: { measured: true, source: expect.stringContaining('mean accepted length 3.22') },
    });
    const evidence = leverEvidence({ ...fp8, prefixHitRate: 0.5 }, 'inf2', LLAMA_8B.id)!;
    expect(Object.keys(evidence)).toEqual(['fp8Weights', 'fp8KvCache', 'prefixHitRate']);
    // FP8's nearest published row is the 405B's, with NxD Inference on Trn2.
    expect(evidence.fp8Weights).toEqual({ measured: false, source: expect.stringMatching(
      /^no published measurement on inf2 with vLLM over NxD Inference; planned because asked for \(--unmeasured-levers fp8\); nearest: FP8 weights with llama-3\.1-405b-instruct on trn2\.48xlarge .*trn2-llama3\.1-405b-speculative-tutorial\.rst/) });
    expect(evidence.prefixHitRate.source).toMatch(/a prefix hit rate was stated; nearest: prefix caching with llama-3\.3-70b-instruct on trn2\.48xlarge \(vllm-nxdi\).*llama70b_apc_perf_comparison\.csv/);
    expect(leverEvidence(undefined, 'inf2', LLAMA_8B.id)).toBeUndefined();
  });

  test('GIVEN feasible plans WHEN split THEN a plan with an unmeasured lever is planned only when asked for, and priced beside the plan with what it saves', () => {
    const plain = plan({ family: 'inf2', tp: 8, usd: 20 });
    const withFp8 = plan({ family: 'inf2', tp: 8, usd: 15, levers: fp8 });
    const withPrefix = plan({ family: 'inf2', tp: 8, usd: 18, levers: { prefixHitRate: 0.5 } });
    const eagle3 = plan({ family: 'trn2', tp: 4, usd: 30, levers: { speculation: { draft: draftFor(LLAMA_8B, 'trn2')!, speculativeTokens: 3, acceptedTokens: 3.22 } } });
    const { allowed, unmeasured } = splitByEvidence([plain, withFp8, withPrefix, eagle3], []);
    // A stated hit rate asks for prefix caching; EAGLE3 on Trn2 is measured.
    expect(allowed).toEqual([plain, withPrefix, eagle3]);
    expect(unmeasured).toEqual([withFp8]);
    expect(splitByEvidence([withFp8], ['fp8']).allowed).toEqual([withFp8]);
    const [side] = unmeasuredAlternatives(unmeasured, plain, [], (a, b) => a.hourlyCostUsd - b.hourlyCostUsd);
    expect(side).toMatchObject({ levers: ['fp8'], plan: withFp8, saves: 0.25 });
  });

  test('GIVEN a lever name nobody knows WHEN planned THEN refused before planning, naming the field and the names', () => {
    const targets: GenerativeTargets = { requestsPerSecond: 1, inputTokens: { mean: 100 }, outputTokens: { mean: 10 }, ttftP99Ms: 1000, tpotP99Ms: 100 };
    expect(() => resolveGenerativeRequest(LLAMA_8B, targets, { region: 'us-east-1', hosting: 'ec2', levers: { unmeasured: ['fp4' as never] } }, Catalog.builtIn()))
      .toThrow("levers.unmeasured: 'fp4' is no lever; use speculation, fp8, prefix-caching");
  });
});

describe('Layouts people run', () => {
  test('GIVEN a larger degree the model says is cheaper by less than its error WHEN chosen THEN the smaller degree wins', () => {
    const big = plan({ family: 'trn1', tp: 32, usd: 100 });
    const small = plan({ family: 'trn1', tp: 8, usd: 115 });
    expect(preferSmallerDegree([big, small], () => 0.21).chosen).toBe(small);
  });

  test('GIVEN a larger degree cheaper by more than the error, or measured WHEN chosen THEN it wins and the plan says why', () => {
    const big = plan({ family: 'trn1', tp: 32, usd: 100 });
    const small = plan({ family: 'trn1', tp: 8, usd: 130 });
    const beyond = preferSmallerDegree([big, small], () => 0.21);
    expect(beyond.chosen).toBe(big);
    expect(beyond.reason).toMatch(/^TP 32 rather than a smaller degree: the cheapest plan at one \(1 x trn1\.48xlarge, 1 x TP 8, 8 sequences, \$130\/h\) costs 30 % more, beyond the 21 %/);
    expect(preferSmallerDegree([big, plan({ family: 'trn1', tp: 8, usd: 101 })], () => 0).chosen).toBe(big);
  });

  test('GIVEN a measured plan and a smaller degree\'s estimate of the same cost WHEN chosen THEN the measured plan keeps its degree and says why', () => {
    const measured = plan({ family: 'inf2', tp: 8, usd: 15.58, estimate: false });
    const estimate = plan({ family: 'inf2', tp: 4, usd: 15.58 });
    const same = preferSmallerDegree([measured, estimate], () => 0);
    expect(same.chosen).toBe(measured);
    expect(same.reason).toMatch(/^TP 8 rather than a smaller degree: .* costs the same, and its times are the performance model's ESTIMATE where these are measured$/);
    // A cheaper estimate at a smaller degree still wins.
    expect(preferSmallerDegree([measured, plan({ family: 'inf2', tp: 4, usd: 15.5 })], () => 0).chosen.generative.tensorParallelDegree).toBe(4);
  });

  test('GIVEN the profiles\' rows WHEN the margin is read THEN a degree the model\'s rows measured on the chip needs none, one beyond does', () => {
    // Llama 3.3 70B was measured at TP 64 on trn2.48xlarge; Llama 3.1 8B at TP 8 on inf2 and trn1.
    expect(largerDegreeMargin(plan({ family: 'trn2', tp: 64, usd: 1 }), LLAMA_70B)).toBe(0);
    expect(largerDegreeMargin(plan({ family: 'trn1', tp: 32, usd: 1 }), LLAMA_8B)).toBeGreaterThan(0.1);
    expect(largerDegreeMargin(plan({ family: 'trn1', tp: 8, usd: 1 }), LLAMA_8B)).toBe(0);
    expect(largerDegreeMargin(plan({ family: 'trn1', tp: 32, usd: 1, estimate: false }), LLAMA_8B)).toBe(0);
  });
});

describe('Measured rows used: the model length snaps to a row\'s', () => {
  const readme = workloadLengths({ inputTokens: { mean: 1024 }, outputTokens: { mean: 256 } }, LLAMA_8B.model.maxContextTokens);

  test('GIVEN lengths WHEN the share longer than a length is computed THEN it matches 50,000 drawn requests', () => {
    const drawn = sampleWorkload(readme, 50_000, 5);
    const longer = drawn.filter((r) => r.input + r.output > 4096).length / drawn.length;
    // The draw's standard error at 0.8 % over 50,000 requests is 0.04 points: within 3.5 of them.
    expect(Math.abs(shareLongerThan(readme, 4096) - longer)).toBeLessThan(0.0015);
  });

  test('GIVEN the README\'s 1,024/256 default spread (4,407 tokens) WHEN snapped THEN the 8B rows\' 4,096 plans, cutting under 1 % of requests', () => {
    expect(readme.input.p99 + readme.output.p99).toBe(4407);
    const cut = snapToMeasuredLength(LLAMA_8B.measurements, readme, 4407)!;
    expect(cut).toMatchObject({ requestedLength: 4407, measuredLength: 4096 });
    expect(cut.cutShare).toBeGreaterThan(0);
    expect(cut.cutShare).toBeLessThan(0.01);
  });

  test('GIVEN a length more than 10 % above every row, or one that would cut over 1 % WHEN snapped THEN it is not', () => {
    expect(snapToMeasuredLength(LLAMA_8B.measurements, readme, 4600)).toBeUndefined();
    const wide = workloadLengths({ inputTokens: { mean: 1900, p99: 3800 }, outputTokens: { mean: 300, p99: 600 } });
    expect(shareLongerThan(wide, 4096)).toBeGreaterThan(0.01);
    expect(snapToMeasuredLength(LLAMA_8B.measurements, wide, 4400)).toBeUndefined();
  });
});

describe('Sensitivity', () => {
  const targets: GenerativeTargets = { requestsPerSecond: 1, inputTokens: { mean: 512 }, outputTokens: { mean: 128 }, ttftP99Ms: 500, tpotP99Ms: 40 };
  const timing: EngineTiming = {
    maxSequences: 8, stepSeconds: 0.025, prefillSeconds: (tokens) => 0.05 + tokens * 1e-4, tpotTail: 1, ttftTail: 1, chunkedPrefill: false, prefillEstimated: false,
  };
  const sized = {
    targets, instanceCount: 1, generative: { replicasPerInstance: 2, engine: { levers: { speculation: { acceptedTokens: 3 } } } },
  } as unknown as GenerativePlan;
  const holds = (t: EngineTiming) => meetsTargets(predictReplica(t, targets, perReplicaRate(sized)), targets);

  test('GIVEN a plan WHEN its slowdown to a miss is found THEN its timings that much slower hold and 2 % more miss', () => {
    const { stepSlowdownToMissTarget: f } = planSensitivity(sized, timing);
    expect(f).toBeGreaterThan(1);
    expect(holds(slowedTiming(timing, f))).toBe(true);
    expect(holds(slowedTiming(timing, f * 1.02))).toBe(false);
  });

  test('GIVEN a speculative plan WHEN the accepted length to a miss is found THEN it holds there and misses 2 % below', () => {
    // Decode time per token falls as 1 / accepted tokens (3 planned): fewer accepted, slower steps.
    const at = (a: number) => ({ ...timing, stepSeconds: (timing.stepSeconds * 3) / a });
    const { acceptedTokensToMissTarget: a } = planSensitivity(sized, at(3), at);
    expect(a).toBeGreaterThan(1);
    expect(a).toBeLessThan(3);
    expect(holds(at(a!))).toBe(true);
    expect(holds(at(a! * 0.98))).toBe(false);
  });
});
