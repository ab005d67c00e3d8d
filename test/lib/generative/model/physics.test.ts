import { findGenerativeProfile } from '../../../../lib/generative';
import type { GenerativeProfile } from '../../../../lib/generative';
import {
  activeParametersBillions, allReduceHops, allReduceTransferSeconds, CHIP_FIGURES, decodeFeatures, FEATURE_NAMES, groupSpan, prefillFeatures,
  touchedParametersBillions,
} from '../../../../lib/generative/model/physics';
import type { ModelConfiguration, ModelFacts } from '../../../../lib/generative/model/physics';

const LLAMA_70B = (findGenerativeProfile('llama-3.3-70b-instruct') as GenerativeProfile).model;
const term = (name: (typeof FEATURE_NAMES)[number]) => FEATURE_NAMES.indexOf(name);
const on = (chip: keyof typeof CHIP_FIGURES, tp: number, batch = 1): ModelConfiguration =>
  ({ model: LLAMA_70B, chip: CHIP_FIGURES[chip], coresPerChip: CHIP_FIGURES[chip].coresPerChip, tensorParallelDegree: tp, batch });

describe('collectives by the chips a group spans', () => {
  test('GIVEN a tensor-parallel group WHEN it spans more chips THEN it pays more hops; a torus fewer than a ring of the same chips', () => {
    expect(groupSpan(on('trn2', 4))).toEqual({ chips: 1, ranksPerChip: 4 });
    expect(groupSpan(on('trn2', 64))).toEqual({ chips: 16, ranksPerChip: 4 });
    // One chip: a reduce and a broadcast among its cores. 16 Trn2 chips: a 4 x 4 torus, 2 x (3 + 3) steps, + 2 on chip.
    expect(allReduceHops(on('trn2', 4))).toBe(2);
    expect(allReduceHops(on('trn2', 16))).toBe(2 * 2 + 2);
    expect(allReduceHops(on('trn2', 64))).toBe(2 * 6 + 2);
    // 12 Inferentia2 chips in a ring: 2 x 11 steps, + 2 on chip.
    expect(allReduceHops(on('inf2', 24))).toBe(2 * 11 + 2);
    // The same 12 chips as Trn1's 2D torus (3 x 4): 2 x (2 + 3) steps, + 2 on chip.
    expect(allReduceHops(on('trn1', 24))).toBe(2 * 5 + 2);
  });

  test('GIVEN the same message WHEN it crosses NeuronLink THEN it costs more than within one chip, and less on a faster link', () => {
    const bytes = 32 * 8192 * 2;
    expect(allReduceTransferSeconds(on('trn2', 16), bytes)).toBeGreaterThan(allReduceTransferSeconds(on('trn2', 4), bytes));
    // Inf2's NeuronLink-v2 (192 GiB/s per device) is slower than Trn1's (384 GiB/s): the same group costs more there.
    expect(allReduceTransferSeconds(on('inf2', 8), bytes)).toBeGreaterThan(allReduceTransferSeconds(on('trn1', 8), bytes));
  });

  test('GIVEN 70B at TP 64 and at TP 16 on trn2 WHEN a decode step is featured THEN the larger group reads less per rank but pays more collectives', () => {
    const small = decodeFeatures(on('trn2', 16, 8), 2000);
    const large = decodeFeatures(on('trn2', 64, 8), 2000);
    expect(large[term('weights read')]).toBeCloseTo(small[term('weights read')] / 4, 12);
    expect(large[term('collective hops')]).toBeGreaterThan(small[term('collective hops')]);
    expect(large[term('collective bytes')]).toBeGreaterThan(0);
    // A single rank has no collectives.
    const alone = decodeFeatures({ ...on('trn2', 1), model: { ...LLAMA_70B } }, 100);
    expect(alone[term('collective hops')]).toBe(0);
    expect(alone[term('collective bytes')]).toBe(0);
  });
});

describe('passes', () => {
  test('GIVEN a batch and a context WHEN a decode step is featured THEN the KV cache and attention grow with both, the weights with neither', () => {
    const a = decodeFeatures(on('inf2', 8, 8), 1000);
    const b = decodeFeatures(on('inf2', 8, 16), 2000);
    expect(b[term('KV cache')]).toBeCloseTo(4 * a[term('KV cache')], 12);
    expect(b[term('attention')]).toBeCloseTo(4 * a[term('attention')], 12);
    expect(b[term('weights read')]).toBe(a[term('weights read')]);
    expect(b[term('matmul')]).toBeCloseTo(2 * a[term('matmul')], 12);
    // FP8 weights halve the bytes read and use the chip's FP8 rate (Trn2: 1,299 against 667 TFLOPS).
    const fp8 = decodeFeatures({ ...on('trn2', 16, 8), weightDtype: 'fp8' }, 1000);
    const bf16 = decodeFeatures(on('trn2', 16, 8), 1000);
    expect(fp8[term('weights read')]).toBeCloseTo(bf16[term('weights read')] / 2, 12);
    expect(fp8[term('matmul')]).toBeCloseTo((bf16[term('matmul')] * 667) / 1299, 12);
  });

  test('GIVEN a prompt WHEN its prefill is featured THEN attention grows with its square; a static batch multiplies the compute, not the weights', () => {
    const p1 = prefillFeatures(on('trn2', 16), 1000);
    const p2 = prefillFeatures(on('trn2', 16), 2000);
    expect(p2[term('attention')]).toBeCloseTo(4 * p1[term('attention')], 12);
    expect(p2[term('matmul')]).toBeCloseTo(2 * p1[term('matmul')], 12);
    const batch = prefillFeatures(on('trn2', 16), 1000, 4);
    expect(batch[term('matmul')]).toBeCloseTo(4 * p1[term('matmul')], 12);
    expect(batch[term('weights read')]).toBe(p1[term('weights read')]);
  });

  test('GIVEN a mixture of experts WHEN featured THEN FLOPs count active parameters and a step reads the experts its tokens reach', () => {
    const moe: ModelFacts = { ...LLAMA_70B, parametersBillions: 30, experts: { count: 128, perToken: 8, parametersBillions: 28 } };
    expect(activeParametersBillions(moe)).toBeCloseTo(2 + 28 * (8 / 128), 12);
    expect(touchedParametersBillions(moe, 1)).toBeCloseTo(2 + 28 * (8 / 128), 12);
    // Many tokens reach nearly every expert.
    expect(touchedParametersBillions(moe, 256)).toBeGreaterThan(29.9);
    expect(touchedParametersBillions(LLAMA_70B, 1)).toBe(LLAMA_70B.parametersBillions);
  });
});
