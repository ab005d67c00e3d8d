import { Catalog } from '../../../lib/catalog/catalog';
import { findGenerativeProfile, planGenerative, type GenerativeProfile } from '../../../lib/generative';
import { measuredEvidence, otherStackWarning } from '../../../lib/generative/plan-evidence';

const LLAMA = findGenerativeProfile('llama-3.1-8b-instruct')!;
const TARGETS = { requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60 };
const OPTIONS = { region: 'us-east-1', hosting: 'sagemaker' as const, instanceTypes: ['inf2.48xlarge'] };
const otherStack = (warnings: readonly string[]) => warnings.filter((w) => w.startsWith('measured with another serving stack'));

describe('a plan timed by rows another serving stack measured says so, with the model\'s error across stacks', () => {
  test('GIVEN the README\'s Llama targets WHEN planned on inf2 from optimum-neuron\'s vLLM rows THEN the warning names both stacks and the held-out error', () => {
    const plan = planGenerative(LLAMA, TARGETS, OPTIONS);

    expect(plan.generative.evidence?.basis).toBe('measured');
    expect(plan.generative.evidence?.nearest.map((r) => r.stack)).toContain('optimum-neuron-vllm');
    expect(otherStack(plan.warnings)).toEqual([expect.stringMatching(
      /^measured with another serving stack than this plan deploys \(vLLM over NxD Inference, vllm-nxdi\): inf2\.48xlarge TP 8 batch \d+ \(optimum-neuron-vllm\).*; its times are used as measured, without headroom, while the performance model's held-out error across stacks on inf2 is median \d+ % for TPOT and \d+ % for TTFT \(".*other stack.*", \d+ predictions\): read the first token proof/,
    )]);
  });

  test('GIVEN the same rows as the profile\'s own (calibrated from a proof of the deployed engine) WHEN judged THEN no warning', () => {
    const instance = Catalog.builtIn().instances.find((i) => i.name === 'inf2.48xlarge')!;
    const rows = LLAMA.measurements.filter((m) => m.instanceType === 'inf2.48xlarge');
    const own: GenerativeProfile = { ...LLAMA, measurements: rows.map((m) => ({ ...m, source: `token proof of llama-prod (${m.instanceType})` })) };

    expect(otherStackWarning(measuredEvidence(LLAMA, rows), instance)).toMatch(/^measured with another serving stack/);
    expect(otherStackWarning(measuredEvidence(own, own.measurements), instance)).toBeUndefined();
  });
});
