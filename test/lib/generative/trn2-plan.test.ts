import { findGenerativeProfile, planGenerativeReport, vllmReplicaConfigs } from '../../../lib/generative';
import type { GenerativeProfile, GenerativeTargets } from '../../../lib/generative';
import { engineSummary, VLLM_DLC_PINS } from '../../../lib/generative/engine-image';

/*
 * Issue 31's first "done when": with built-in prices, a Llama 3.3 70B plan in a region that offers Trn2 (us-east-2)
 * lists Trn2 candidates with the plugin's image and settings, and picks Trn2 when it is the cheapest that meets the
 * targets. By the performance model fitted to the published rows (issue 36), Trn1 and Inf2 cost less per token than
 * Trn2 where decode bounds the plan (at these prices they offer more HBM bandwidth per dollar), so the case that picks
 * Trn2 is the one its compute wins: 8,000-token prompts with a first token within 2 s, which no Inf2 or Trn1 degree
 * prefills in time.
 */
const LLAMA_70B = findGenerativeProfile('llama-3.3-70b-instruct') as GenerativeProfile;
const targets = (requestsPerSecond: number): GenerativeTargets => ({
  requestsPerSecond, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 10_000, tpotP99Ms: 100,
});
const OHIO = { region: 'us-east-2', hosting: 'ec2' } as const;

describe('Llama 3.3 70B on Trn2 with built-in prices', () => {
  test('GIVEN 8,000-token prompts with TTFT p99 2 s WHEN planned in us-east-2 THEN Trn2 is picked, at a batch nobody published, with the plugin image and its settings', () => {
    const longPrompts: GenerativeTargets = { ...targets(1.2), inputTokens: { mean: 8000 }, ttftP99Ms: 2000, fixedLengths: true };
    const report = planGenerativeReport(LLAMA_70B, longPrompts, { ...OHIO, instanceTypes: ['inf2.48xlarge', 'trn1.32xlarge', 'trn2.48xlarge'] });
    const chosen = report.chosen;
    expect(chosen.instance.family).toBe('trn2');
    expect(report.rejected.filter((r) => !r.instanceType.startsWith('trn2') && r.code === 'ttft').length).toBeGreaterThan(0);
    expect(chosen.generative.estimate).toBeDefined();
    expect(LLAMA_70B.measurements.some((r) => r.tensorParallelDegree === chosen.generative.tensorParallelDegree
      && r.batchSize === chosen.generative.maxConcurrentSequences)).toBe(false);
    // Cheaper per 1M output tokens than any Inf2 or Trn1 candidate that meets the targets.
    for (const other of report.alternatives.filter((p) => p.instance.family !== 'trn2')) {
      expect(chosen.generative.costPer1MOutputTokensUsd).toBeLessThanOrEqual(other.generative.costPer1MOutputTokensUsd);
    }
    expect(engineSummary(chosen)).toContain(VLLM_DLC_PINS.trn2.tag);
    const args = vllmReplicaConfigs(chosen, { model: '/opt/ml/model', servedModelName: 'llama' })[0].args;
    expect(args).toEqual(expect.arrayContaining(['--enable-prefix-caching', '--async-scheduling', `--max-num-seqs=${chosen.generative.maxConcurrentSequences}`]));
    const additional = JSON.parse(args.find((a) => a.startsWith('--additional-config='))!.slice('--additional-config='.length));
    expect(additional.neuron_config.num_seqs_buckets.at(-1)).toBe(chosen.generative.maxConcurrentSequences);
    // The plugin runs none of NxD Inference's fused speculation or override FP8, and the 70B's EAGLE3 head is
    // unmeasured: no Trn2 candidate carries them.
    for (const plan of [chosen, ...report.alternatives].filter((p) => p.instance.family === 'trn2')) {
      expect(plan.generative.engine.levers?.speculation).toBeUndefined();
      expect(plan.generative.engine.levers?.fp8Weights).toBeUndefined();
    }
  });

  test('GIVEN any plan on trn2.48xlarge THEN no copy spans 2 chips: TP 8 at LNC=2 is refused, naming the topology rule', () => {
    const report = planGenerativeReport(LLAMA_70B, targets(1), { ...OHIO, instanceTypes: ['trn2.48xlarge'] });
    for (const plan of [report.chosen, ...report.alternatives]) {
      expect([1, 4, 8, 16]).toContain(plan.generative.replicas[0].devices.length);
      // The plugin runs none of NxD Inference's fused speculation or override FP8: no Trn2 candidate carries them.
      expect(plan.generative.engine.levers?.speculation).toBeUndefined();
      expect(plan.generative.engine.levers?.fp8Weights).toBeUndefined();
    }
    // THEN TP 16, four replicas an instance as the plugin's 70B recipe runs, is a candidate; a larger degree, no larger
    // than the 70B's rows measured on Trn2 (TP 64), wins by what TP 16 costs more, and the plan says so.
    expect(report.alternatives.some((p) => p.generative.tensorParallelDegree === 16 && p.generative.replicasPerInstance === 4)).toBe(true);
    expect(report.chosen.generative.tensorParallelReason).toMatch(/^TP (32|64) rather than a smaller degree: .* 4 x TP 16, .* costs \d+ % more; its times are the performance model's at a degree no larger than the model's rows measured on trn2$/);
    // THEN the 70B's EAGLE3 head, which no published run measured, is priced beside the plan, not planned.
    expect(report.unmeasuredLevers?.map((u) => u.levers)).toContainEqual(['speculation']);
    expect(report.rejected).toContainEqual(expect.objectContaining({
      instanceType: 'trn2.48xlarge', configuration: 'tp=8 (ESTIMATE)', code: 'tensor-parallel',
      reason: expect.stringMatching(/span 2 Neuron devices .* 1, 4, 8 or 16 .* use 16 NeuronCores/),
    }));
  });

  test('GIVEN half the prompt tokens in the prefix cache WHEN planned on Trn2 THEN prefix caching is priced and rendered into the plugin\'s blocks', () => {
    const chosen = planGenerativeReport(LLAMA_70B, targets(2), { ...OHIO, instanceTypes: ['trn2.48xlarge'], levers: { prefixHitRate: 0.5 } }).chosen;
    expect(chosen.generative.engine.levers).toEqual({ prefixHitRate: 0.5 });
    const args = vllmReplicaConfigs(chosen, { model: '/opt/ml/model', servedModelName: 'llama' })[0].args;
    const seqs = chosen.generative.maxConcurrentSequences;
    expect(args).toEqual(expect.arrayContaining(['--enable-prefix-caching', '--block-size=32',
      `--num-gpu-blocks-override=${Math.ceil(chosen.generative.maxModelLength / 32) * seqs}`]));
  });

  test('GIVEN speculation and FP8 turned off WHEN planned THEN no candidate on any chip carries them (the options reach the estimates)', () => {
    const report = planGenerativeReport(LLAMA_70B, targets(1), { ...OHIO, instanceTypes: ['trn1.32xlarge'], levers: { fp8: false, speculativeDecoding: false } });
    for (const plan of [report.chosen, ...report.alternatives]) {
      expect(plan.generative.engine.levers).toBeUndefined();
    }
  });

  test('GIVEN 6 requests a minute WHEN planned THEN Trn2 is listed but not picked: one trn2.48xlarge costs more than the fleet that suffices', () => {
    const report = planGenerativeReport(LLAMA_70B, targets(0.1), { ...OHIO, instanceTypes: ['inf2.48xlarge', 'trn1.32xlarge', 'trn2.48xlarge'] });
    expect(report.chosen.instance.family).not.toBe('trn2');
    expect(report.alternatives.some((p) => p.instance.family === 'trn2')).toBe(true);
  });
});
