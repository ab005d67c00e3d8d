import { headroomFor, MIN_CLASS_ROWS, nearestRows } from '../../../../lib/generative/model/evidence';
import { classKeys, extrapolationOf } from '../../../../lib/generative/model/holdout';
import type { ErrorReport } from '../../../../lib/generative/model/report';
import type { FitRow } from '../../../../lib/generative/model/rows';

const known = [
  { architecture: 'a', chip: 'inf2', stack: 'vllm-nxdi', tensorParallelDegree: 8 },
  { architecture: 'a', chip: 'inf2', stack: 'optimum-neuron', tensorParallelDegree: 24 },
  { architecture: 'b', chip: 'trn2', stack: 'vllm-neuron-plugin', tensorParallelDegree: 64 },
];

describe('extrapolation classes', () => {
  test('GIVEN what is measured WHEN a configuration is classified THEN model, chip, stack and degree are judged against the nearest reference rows', () => {
    expect(extrapolationOf({ architecture: 'a', chip: 'inf2', stack: 'vllm-nxdi', tensorParallelDegree: 8 }, known))
      .toEqual({ chipFamily: 'inf2', model: 'same', chip: 'same', stack: 'same', tpBeyond: false, tpBelow: false });
    expect(extrapolationOf({ architecture: 'a', chip: 'inf2', stack: 'vllm-nxdi', tensorParallelDegree: 32 }, known))
      .toEqual({ chipFamily: 'inf2', model: 'same', chip: 'same', stack: 'same', tpBeyond: true, tpBelow: false });
    expect(extrapolationOf({ architecture: 'a', chip: 'trn2', stack: 'vllm-neuron-plugin', tensorParallelDegree: 16 }, known))
      .toEqual({ chipFamily: 'trn2', model: 'same', chip: 'new', stack: 'same', tpBeyond: false, tpBelow: false });
    expect(extrapolationOf({ architecture: 'c', chip: 'trn1', stack: 'vllm-nxdi', tensorParallelDegree: 8 }, known))
      .toEqual({ chipFamily: 'trn1', model: 'new', chip: 'unmeasured', stack: 'same', tpBeyond: false, tpBelow: false });
    expect(extrapolationOf({ architecture: 'c', chip: 'trn2', stack: 'vllm-nxdi', tensorParallelDegree: 128 }, known))
      .toEqual({ chipFamily: 'trn2', model: 'new', chip: 'same', stack: 'other', tpBeyond: true, tpBelow: false });
    // Narrower than anything measured is an extrapolation too.
    expect(extrapolationOf({ architecture: 'a', chip: 'inf2', stack: 'vllm-nxdi', tensorParallelDegree: 2 }, known))
      .toEqual({ chipFamily: 'inf2', model: 'same', chip: 'same', stack: 'same', tpBeyond: false, tpBelow: true });
  });

  test('GIVEN a class WHEN its keys are listed THEN they run from the narrowest, on its own chip, to every prediction', () => {
    expect(classKeys({ chipFamily: 'trn2', model: 'same', chip: 'same', stack: 'other', tpBeyond: true, tpBelow: false })).toEqual([
      'same model, same chip, other stack, TP beyond measured (trn2)', 'same model, same chip (trn2)',
      'same model, same chip, other stack, TP beyond measured', 'same model, same chip, TP beyond measured', 'same model, same chip', 'same model', 'any',
    ]);
    expect(classKeys({ chipFamily: 'trn1', model: 'new', chip: 'unmeasured', stack: 'same', tpBeyond: false, tpBelow: false }))
      .toEqual(['new model, unmeasured chip (trn1)', 'new model, unmeasured chip', 'new model', 'any']);
  });
});

describe('headroom by class', () => {
  const cell = (count: number, ratio: number) => ({ count, median: 0.1, ratioAtQuantile: ratio });
  const report = (classes: ErrorReport['classes']): ErrorReport => ({
    rows: 0, models: 0, architectures: 0, chips: 0, stacks: 0, quantile: 0.8, classes,
    leaveOneModelOut: { tpot: { count: 0, median: 0, worst: 0 }, ttft: { count: 0, median: 0, worst: 0 }, byChip: {}, byStack: {} },
  });

  test('GIVEN a class with enough held-out rows WHEN sized THEN its own quantile is the headroom, never below 1', () => {
    const h = headroomFor({ chipFamily: 'inf2', model: 'same', chip: 'same', stack: 'same', tpBeyond: false, tpBelow: false }, report({
      'same model, same chip': { tpot: cell(MIN_CLASS_ROWS, 1.2), ttft: cell(MIN_CLASS_ROWS, 0.9) },
    }));
    expect(h).toEqual({
      tpot: 1.2, ttft: 1, class: 'same model, same chip', heldOutRows: 2 * MIN_CLASS_ROWS, quantile: 0.8,
      narrowestClass: 'same model, same chip (inf2)', narrowestHeldOutRows: 0,
    });
  });

  test('GIVEN a class with too few held-out rows WHEN sized THEN the next broader class is used, said so, and the narrow factor kept when larger', () => {
    const h = headroomFor({ chipFamily: 'inf2', model: 'same', chip: 'same', stack: 'same', tpBeyond: true, tpBelow: false }, report({
      'same model, same chip, TP beyond measured (inf2)': { tpot: cell(3, 1.6), ttft: cell(2, 1.1) },
      'same model, same chip (inf2)': { tpot: cell(20, 1.2), ttft: cell(5, 1.3) },
      'same model, same chip': { tpot: cell(40, 1.1), ttft: cell(30, 1.2) },
    }));
    expect(h).toEqual({
      tpot: 1.6, ttft: 1.2, class: 'same model, same chip', heldOutRows: 70, quantile: 0.8,
      narrowestClass: 'same model, same chip, TP beyond measured (inf2)', narrowestHeldOutRows: 5,
    });
  });
});

describe('nearest rows', () => {
  const row = (fields: Partial<FitRow>): FitRow => ({
    model: 'llama', architecture: 'llama', facts: {} as FitRow['facts'], instanceType: 'inf2.48xlarge', chip: 'inf2', stack: 'vllm-nxdi', neuronSdkVersion: '2.24.0',
    tensorParallelDegree: 8, batchSize: 32, inputTokens: 1024, outputTokens: 256, source: 'x', ...fields,
  });

  test('GIVEN rows of the model and of others WHEN the nearest are listed THEN the same model and chip come first, with what differs', () => {
    const rows = [row({ model: 'other', architecture: 'other', source: 'o' }), row({ chip: 'trn1', instanceType: 'trn1.32xlarge', source: 't' }), row({ source: 's' })];
    const near = nearestRows({ model: 'llama', architecture: 'llama', chip: 'inf2', stack: 'vllm-nxdi', tensorParallelDegree: 16, batchSize: 16, inputTokens: 1024, outputTokens: 256 }, rows, 2);
    expect(near.map((n) => n.row.source)).toEqual(['s', 't']);
    expect(near[0].distance).toBe('same model and chip; TP 8 -> 16; batch 32 -> 16');
    expect(near[1].distance).toBe('same model; chip trn1 -> inf2; TP 8 -> 16; batch 32 -> 16');
  });
});
