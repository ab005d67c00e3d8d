import { Catalog } from '../../../lib/catalog/catalog';
import type { Price } from '../../../lib/catalog/types';
import { findGenerativeProfile, planGenerativeReport, vllmReplicaConfigs } from '../../../lib/generative';
import type { GenerativeProfile, GenerativeTargets } from '../../../lib/generative';
import { bucketFor, builtInPerformanceModel, chooseBuckets, estimatedTiming } from '../../../lib/generative/estimate';
import { workloadLengths } from '../../../lib/generative/lengths';
import { acceptedTokensFrom, draftFor, leverSets, SPECULATIVE_TOKENS, speculativeDecodeScale } from '../../../lib/generative/levers';
import { CHIP_FIGURES, decodeFeatures, decodeStepSeconds, prefillSeconds } from '../../../lib/generative/perf-model';
import { jointCoefficientsFor, splitJoint } from '../../../lib/generative/model/fit';

const LLAMA_8B = findGenerativeProfile('llama-3.1-8b-instruct') as GenerativeProfile;
const LLAMA_70B = findGenerativeProfile('llama-3.3-70b-instruct') as GenerativeProfile;
const QWEN_32B = findGenerativeProfile('qwen3-32b') as GenerativeProfile;

function withTrn2Price(): Catalog {
  const price: Price = {
    instanceType: 'trn2.48xlarge', region: 'us-east-1', hosting: 'ec2', usdPerHour: 40, kind: 'on-demand', source: 'test price file', asOf: '2026-11-25', unverified: true,
  };
  return Catalog.builtIn().withPriceFile({ instances: [], prices: [price] });
}

/** The recorded coefficients a plan on this chip and stack uses. */
function recorded(chip: string, stack: string) {
  return splitJoint(jointCoefficientsFor(builtInPerformanceModel().coefficients, chip, stack).joint);
}

describe('performance model', () => {
  test('GIVEN the chip figures WHEN a decode step is computed THEN more bytes (batch, context) and more ranks move it the physical way', () => {
    const coefficients = recorded('inf2', 'vllm-nxdi');
    const cfg = { model: LLAMA_8B.model, chip: CHIP_FIGURES.inf2, coresPerChip: 2, tensorParallelDegree: 8, batch: 8 };
    expect(decodeStepSeconds(coefficients, { ...cfg, batch: 32 }, 2000)).toBeGreaterThan(decodeStepSeconds(coefficients, cfg, 2000));
    expect(decodeStepSeconds(coefficients, cfg, 16000)).toBeGreaterThan(decodeStepSeconds(coefficients, cfg, 2000));
    // FP8 weights halve the weight bytes read.
    expect(decodeFeatures({ ...cfg, weightDtype: 'fp8' }, 0)[0]).toBeLessThan(decodeFeatures(cfg, 0)[0]);
    // Prefill grows faster than linearly: the attention term.
    const p = (l: number) => prefillSeconds(coefficients, { ...cfg, batch: 1 }, l);
    expect(p(32000) - p(16000)).toBeGreaterThan(p(16000) - p(8000));
  });

  test('GIVEN a model with rows on a chip WHEN estimated there THEN its anchor reproduces its rows within the fit', () => {
    const lengths = workloadLengths({ inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, fixedLengths: true });
    const buckets = { contextEncoding: [1024, 4096], tokenGeneration: [1280, 4096] };
    const t = estimatedTiming({ profile: LLAMA_8B, chip: CHIP_FIGURES.inf2, tensorParallelDegree: 8, maxSequences: 8, lengths, buckets });
    // Measured: 16 ms at batch 8 (static batching, inf2.48xlarge TP 8, input 1024).
    expect(t.rawStepMs).toBeGreaterThan(16 * 0.7);
    expect(t.rawStepMs).toBeLessThan(16 * 1.3);
    expect(t.stepSeconds * 1000).toBeCloseTo(t.rawStepMs * t.headroom.tpot, 6);
    // A configuration of a model measured on its chip takes that class's held-out error as headroom.
    expect(t.headroom.class).toMatch(/^same model, same chip/);
    expect(t.headroom.tpot).toBeGreaterThanOrEqual(1);
  });
});

describe('buckets', () => {
  test('GIVEN a spread of prompts WHEN buckets are chosen THEN they sit at its quantiles, rounded to 128, and end at the model length', () => {
    const lengths = workloadLengths({ inputTokens: { mean: 8000 }, outputTokens: { mean: 200 } });
    const b = chooseBuckets(lengths, 29290);
    expect(b.contextEncoding[b.contextEncoding.length - 1]).toBe(29290);
    expect(b.contextEncoding.slice(0, -1).every((x) => x % 128 === 0)).toBe(true);
    expect(b.contextEncoding).toEqual([...b.contextEncoding].sort((x, y) => x - y));
    expect(bucketFor(b.contextEncoding, 1)).toBe(b.contextEncoding[0]);
    expect(bucketFor(b.contextEncoding, 1e9)).toBe(29290);
  });
});

describe('levers', () => {
  test('GIVEN the published 70B speed-up WHEN the accepted tokens are back-solved THEN the model reproduces TPOT 5.6 ms from 19.8 ms at batch 1', () => {
    // The fused draft NxD Inference runs (Inf2, Trn1): its published run was on Trn2 with NxD Inference.
    const draft = draftFor(LLAMA_70B, 'trn1')!;
    const coefficients = recorded('trn2', 'vllm-nxdi');
    const cfg = { model: LLAMA_70B.model, chip: CHIP_FIGURES.trn2, coresPerChip: 4, tensorParallelDegree: 64, batch: 1 };
    const ratioAt = (acceptedTokens: number) => speculativeDecodeScale({ speculation: { draft, speculativeTokens: SPECULATIVE_TOKENS, acceptedTokens } }, LLAMA_70B.model)!(cfg, 11000, coefficients)
      / decodeStepSeconds(coefficients, cfg, 11000);
    // Back-solved with the model's own verify step (k + 1 positions cost more than one), it reproduces the published run.
    const verify = decodeStepSeconds(coefficients, cfg, 11000, SPECULATIVE_TOKENS + 1) / decodeStepSeconds(coefficients, cfg, 11000);
    const ratio = ratioAt(acceptedTokensFrom(19.8, 5.6, 1.24 / 70.6, verify));
    expect(ratio).toBeGreaterThan((5.6 / 19.8) * 0.9);
    expect(ratio).toBeLessThan((5.6 / 19.8) * 1.2);
    // The default, back-solved as if a verify step cost one plain step, is never faster than the published run.
    expect(ratioAt(draft.acceptedTokens)).toBeGreaterThanOrEqual(ratio);
  });

  test('GIVEN a fused draft WHEN its default acceptance is read THEN it is the published chat-like 3.2, not the 3.97 a batch-1 synthetic run back-solves to', () => {
    expect(acceptedTokensFrom(19.8, 5.6, 1.24 / 70.6)).toBeCloseTo(3.97, 2);
    expect(draftFor(LLAMA_70B, 'inf2')).toMatchObject({ method: 'fused', huggingFaceId: 'meta-llama/Llama-3.2-1B-Instruct', acceptedTokens: 3.2 });
    // Qwen3's own published pair back-solves lower than the chat-like figure: the lower is kept.
    expect(draftFor(QWEN_32B, 'trn1')!.acceptedTokens).toBeCloseTo(1.22, 2);
  });

  test('GIVEN Trn2 WHEN a draft is chosen THEN it is the EAGLE3 head the plugin runs, whose published run the cost model reproduces', () => {
    const draft = draftFor(LLAMA_8B, 'trn2')!;
    expect(draft).toMatchObject({ method: 'eagle3', huggingFaceId: 'RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3', acceptedTokens: 3.22, stepCost: 0.32 });
    expect(draftFor(QWEN_32B, 'trn2')).toBeUndefined();
    // The tutorial's run: TP 8 on trn2.48xlarge, 2 sequences, sonnet 512/128: TPOT 10.52 -> 6.41 ms.
    const coefficients = recorded('trn2', 'vllm-neuron-plugin');
    const cfg = { model: LLAMA_8B.model, chip: CHIP_FIGURES.trn2, coresPerChip: 4, tensorParallelDegree: 8, batch: 2 };
    const scale = speculativeDecodeScale({ speculation: { draft, speculativeTokens: 3, acceptedTokens: 3.22 } }, LLAMA_8B.model)!;
    const ratio = scale(cfg, 576, coefficients) / decodeStepSeconds(coefficients, cfg, 576);
    expect(ratio).toBeGreaterThan((6.41 / 10.52) * 0.95);
    expect(ratio).toBeLessThan((6.41 / 10.52) * 1.1);
  });

  test('GIVEN levers turned off WHEN the sets are listed THEN only the plain set remains; a hit rate adds prefix caching', () => {
    expect(leverSets(LLAMA_70B, { speculativeDecoding: false, fp8: false }, 'inf2')).toEqual([{}]);
    expect(leverSets(LLAMA_70B, {}, 'inf2')).toHaveLength(4);
    expect(leverSets(LLAMA_70B, { prefixHitRate: 0.5, speculativeDecoding: false, fp8: false }, 'inf2')).toEqual([{ prefixHitRate: 0.5 }]);
    expect(draftFor({ id: 'google/flan-t5-xl' }, 'inf2')).toBeUndefined();
  });

  test('GIVEN an accepted length above what a draft proposes WHEN the sets are listed THEN speculation is left out there, and kept where it fits', () => {
    // EAGLE3 proposes 3 (at most 4 kept); the fused draft 7 (at most 8).
    expect(leverSets(LLAMA_8B, { acceptedTokens: 5, fp8: false }, 'trn2')).toEqual([{}]);
    expect(leverSets(LLAMA_8B, { acceptedTokens: 5, fp8: false }, 'inf2')[1].speculation?.acceptedTokens).toBe(5);
  });
});

describe('estimated plans', () => {
  const longPrompts: GenerativeTargets = { requestsPerSecond: 2, inputTokens: { mean: 8000 }, outputTokens: { mean: 200 }, ttftP99Ms: 4000, tpotP99Ms: 60 };

  test('GIVEN 8,000-token prompts WHEN planned on inf2.48xlarge THEN an ESTIMATE plan renders its buckets, counts them in memory and meets the targets', () => {
    // FP8, asked for: without it no degree prefills the p99 prompt within TTFT, and no published row measured FP8 on
    // Inf2, so it is planned only when asked for.
    const report = planGenerativeReport(LLAMA_8B, longPrompts, { region: 'us-east-1', hosting: 'ec2', instanceTypes: ['inf2.48xlarge'], levers: { speculativeDecoding: false, unmeasured: ['fp8'] } });
    const { chosen } = report;
    const g = chosen.generative;
    expect(g.estimate).toBeDefined();
    expect(chosen.warnings.some((w) => w.startsWith('ESTIMATE'))).toBe(true);
    // The evidence: the nearest published rows (one per configuration; the architecture's own on inf2 first, Llama 3
    // 8B's longer prompts before Llama 3.1 8B's), and headroom from the held-out error of this plan's extrapolation
    // class, as the estimate applied it.
    const e = g.evidence!;
    expect(e.basis).toBe('estimated');
    expect(e.nearest).toHaveLength(3);
    expect(e.nearest[0].instanceType).toBe('inf2.48xlarge');
    expect(e.nearest[0].distance).toMatch(/^(same model and chip|llama-3-8b \(same architecture\); same chip); stack \S+ -> vllm-nxdi/);
    expect(e.headroom.class).toMatch(/^same model, same chip/);
    expect(e.headroom.heldOutRows).toBeGreaterThan(0);
    expect(e.headroom.tpot).toBe(g.estimate!.headroom.tpot);
    expect(e.headroom.ttft).toBe(g.estimate!.headroom.ttft);
    expect(g.lengths?.input.spread).toBe('default');
    expect(g.maxModelLength).toBe(g.lengths!.input.p99 + g.lengths!.output.p99);
    expect(g.engine.contextEncodingBuckets?.[g.engine.contextEncodingBuckets.length - 1]).toBe(g.maxModelLength);
    // The TTFT quantile is computed on an 800-cell grid (continuous-batching.ts): within its resolution of the target.
    expect(g.predictedTtftP99Ms).toBeLessThanOrEqual(4000 * 1.005);
    expect(g.predictedTpotP99Ms).toBeLessThanOrEqual(60);
    expect(g.memoryGiB.weights + g.memoryGiB.kvCache + g.memoryGiB.reserve).toBeLessThanOrEqual(g.memoryGiB.available);
    expect(g.goodputRps).toBeCloseTo(chosen.capacityRps * 0.98, 3);
    const args = vllmReplicaConfigs(chosen, { model: '/opt/ml/model', servedModelName: 'm' })[0].args;
    const additional = args.find((a) => a.startsWith('--additional-config='))!;
    expect(JSON.parse(additional.slice('--additional-config='.length)).override_neuron_config.context_encoding_buckets).toEqual(g.engine.contextEncodingBuckets);
  }, 300_000);

  test('GIVEN Qwen3-32B, whose only rows are on Trn2 WHEN planned on Inf2 and on a priced Trn2 THEN both plan at batch sizes nobody published', () => {
    const targets: GenerativeTargets = { requestsPerSecond: 1, inputTokens: { mean: 1000 }, outputTokens: { mean: 250 }, ttftP99Ms: 3000, tpotP99Ms: 80 };
    const onInf2 = planGenerativeReport(QWEN_32B, targets, { region: 'us-east-1', hosting: 'ec2', instanceTypes: ['inf2.48xlarge'], levers: { speculativeDecoding: false } }).chosen;
    expect(onInf2.generative.estimate).toBeDefined();
    const onTrn2 = planGenerativeReport(QWEN_32B, targets, { region: 'us-east-1', hosting: 'ec2', instanceTypes: ['trn2.48xlarge'], levers: { speculativeDecoding: false } }, withTrn2Price()).chosen;
    for (const plan of [onInf2, onTrn2]) {
      expect(QWEN_32B.measurements.some((r) => r.batchSize === plan.generative.maxConcurrentSequences && r.tensorParallelDegree === plan.generative.tensorParallelDegree)).toBe(false);
      expect(plan.generative.predictedTpotP99Ms).toBeLessThanOrEqual(80);
    }
  }, 600_000);

  test('GIVEN no estimates WHEN 8,000-token prompts are planned THEN the measured rows alone cannot, as before', () => {
    expect(() => planGenerativeReport(LLAMA_8B, longPrompts, { region: 'us-east-1', hosting: 'ec2', instanceTypes: ['inf2.48xlarge'], estimates: false }))
      .toThrow(/measured for sequences of at most 4096 tokens/);
  });
});
