import { findGenerativeProfile } from '../../../../lib/generative';
import type { GenerativeProfile } from '../../../../lib/generative';
import { anchorOf, fitCoefficients, jointCoefficientsFor, observations, observationsOf, predictObservation, TERMS } from '../../../../lib/generative/model/fit';
import { nnls } from '../../../../lib/generative/model/nnls';
import { dot } from '../../../../lib/generative/model/physics';
import type { FitRow } from '../../../../lib/generative/model/rows';

const LLAMA_8B = (findGenerativeProfile('llama-3.1-8b-instruct') as GenerativeProfile).model;

/** A row of a model measured on a chip and stack; times filled in by the test. */
function row(fields: Partial<FitRow> & Pick<FitRow, 'model'>): FitRow {
  return {
    architecture: fields.model, facts: LLAMA_8B, instanceType: 'inf2.48xlarge', chip: 'inf2', stack: 'vllm-nxdi', neuronSdkVersion: '2.24.0', tensorParallelDegree: 8,
    batchSize: 1, inputTokens: 1024, outputTokens: 256, source: 'test', ...fields,
  };
}

/** Rows spanning degrees, batches and lengths, timed exactly by `truth` on each chip. */
function syntheticRows(truth: Record<string, readonly number[]>): FitRow[] {
  const rows: FitRow[] = [];
  for (const [chip, instanceType] of [['inf2', 'inf2.48xlarge'], ['trn2', 'trn2.48xlarge']] as const) {
    for (const tp of [2, 4, 8, 16]) {
      for (const batch of [1, 4, 16]) {
        for (const [input, output] of [[128, 128], [2000, 200], [6000, 500]]) {
          const stack = chip === 'inf2' ? 'vllm-nxdi' : 'vllm-neuron-plugin';
          const draft = row({ model: `m${tp}`, chip, instanceType, stack, tensorParallelDegree: tp, batchSize: batch, inputTokens: input, outputTokens: output, concurrency: 1 });
          const [tpot, ttft] = observationsOf({ ...draft, tpotSeconds: 1, ttftSeconds: 1 });
          rows.push({ ...draft, tpotSeconds: dot(truth[chip], tpot.x), ttftSeconds: dot(truth[chip], ttft.x) });
        }
      }
    }
  }
  return rows;
}

describe('non-negative least squares', () => {
  test('GIVEN a system whose exact solution is non-negative WHEN solved THEN it comes back; a negative least-squares answer is clipped to the boundary', () => {
    const a = [[1, 0], [0, 1], [1, 1]];
    expect(nnls(a, [2, 3, 5]).map((v) => Number(v.toFixed(9)))).toEqual([2, 3]);
    // Unconstrained, x = (-1, 2); with x >= 0 the best is x1 = 0.
    const x = nnls([[1, 0], [0, 1]], [-1, 2]);
    expect(x[0]).toBe(0);
    expect(x[1]).toBeCloseTo(2, 12);
    // A column of zeros gets 0.
    const y = nnls([[0, 1], [0, 2]], [1, 2]);
    expect(y[0]).toBe(0);
    expect(y[1]).toBeCloseTo(1, 12);
  });
});

describe('the fit', () => {
  test('GIVEN rows timed exactly by per-chip coefficients WHEN fitted without pulls THEN every row is predicted exactly on its own chip', () => {
    const truth = {
      inf2: [1.2, 2, 3, 1.5, 1, 4, 2, 0.5, 1, 0.9, 1.1, 2.5, 1.4, 1, 3, 0.5, 1, 2],
      trn2: [0.8, 1.5, 2, 1, 1, 2, 1, 0.2, 1.5, 0.7, 1, 1.5, 1, 1, 2, 0.3, 0.5, 1],
    };
    const obs = observations(syntheticRows(truth));
    const fitted = fitCoefficients(obs, { shared: 0, chip: 0, group: 0 });
    for (const o of obs) {
      expect(predictObservation(fitted, o) / o.seconds).toBeCloseTo(1, 6);
    }
    expect(jointCoefficientsFor(fitted, 'inf2', 'vllm-nxdi').level).toBe('chip and stack');
    expect(jointCoefficientsFor(fitted, 'inf2', 'optimum-neuron').level).toBe('chip');
    // A chip nobody measured with a stack measured elsewhere takes the stack's; with neither, the shared ones.
    expect(jointCoefficientsFor(fitted, 'trn3', 'vllm-neuron-plugin').level).toBe('stack');
    expect(jointCoefficientsFor(fitted, 'trn3', 'tgi-neuron').level).toBe('shared');
    expect(jointCoefficientsFor(fitted, 'inf2', 'vllm-neuron-plugin').level).toBe('chip, stack');
  });

  test('GIVEN a chip with few rows WHEN fitted with pulls THEN its coefficients stay near the shared ones; unseen terms are the parent\'s', () => {
    const truth = { inf2: new Array(2 * TERMS).fill(1), trn2: new Array(2 * TERMS).fill(1) };
    const rows = syntheticRows(truth);
    // One trn2 row, measured 50 % slower than the others' physics, prefill only.
    const odd = rows.filter((r) => r.chip === 'trn2').slice(0, 1).map((r) => ({ ...r, tpotSeconds: undefined, ttftSeconds: (r.ttftSeconds as number) * 1.5 }));
    const obs = observations([...rows.filter((r) => r.chip === 'inf2'), ...odd]);
    const fitted = fitCoefficients(obs);
    const trn2 = fitted.byChip.trn2;
    // No decode observation on trn2: its decode coefficients are the shared ones.
    expect(trn2.slice(0, TERMS)).toEqual(fitted.shared.slice(0, TERMS));
    const o = observations(odd)[0];
    const ratio = predictObservation(fitted, o) / o.seconds;
    expect(ratio).toBeGreaterThan(1 / 1.5);
    expect(ratio).toBeLessThan(1);
  });

  test('GIVEN a derived end-to-end time WHEN it becomes an observation THEN it carries one prefill and output - 1 decode steps, never a TPOT', () => {
    const r = row({ model: 'm', e2eSeconds: 3 });
    const [e2e] = observationsOf(r);
    const [step, prefill] = observationsOf({ ...r, e2eSeconds: undefined, tpotSeconds: 1, ttftSeconds: 1 });
    expect(e2e.kind).toBe('e2e');
    e2e.x.forEach((v, k) => expect(v).toBeCloseTo(step.x[k] * 255 + prefill.x[k], 12));
  });

  test('GIVEN continuous batching at concurrency 4 WHEN a TPOT is an observation THEN three other prompts\' prefills land in each answer', () => {
    const base = row({ model: 'm', stack: 'vllm-nxdi', batchSize: 8, tpotSeconds: 0.02, ttftSeconds: 0.2 });
    const [alone, prefill] = observationsOf({ ...base, concurrency: 1 });
    const [loaded] = observationsOf({ ...base, concurrency: 4 });
    for (let k = TERMS; k < 2 * TERMS; k++) {
      expect(alone.x[k]).toBe(0);
      expect(loaded.x[k]).toBeCloseTo((prefill.x[k] * 3) / 255, 12);
    }
    // A static batch prefills before decoding: nothing lands.
    const [staticBatch] = observationsOf({ ...base, concurrency: 4, staticBatch: true });
    expect(staticBatch.x.slice(TERMS).every((v) => v === 0)).toBe(true);
  });

  test('GIVEN a model\'s rows on a chip WHEN anchored THEN the factor is their geometric mean ratio shrunk toward 1; with none there, other chips\'', () => {
    const truth = { inf2: new Array(2 * TERMS).fill(1), trn2: new Array(2 * TERMS).fill(1) };
    const obs = observations(syntheticRows(truth));
    const fitted = fitCoefficients(obs, { shared: 0, chip: 0, group: 0 });
    const slowRow = obs.find((o) => o.kind === 'tpot' && o.row.chip === 'inf2')!;
    const own = observations([{ ...slowRow.row, model: 'slow', architecture: 'slow', tpotSeconds: 2 * slowRow.seconds, ttftSeconds: undefined }]);
    const a = anchorOf(fitted, own, 'slow', 'inf2', 'tpot');
    // One row at twice the prediction, shrunk as n / (n + 1): sqrt(2).
    expect(a.factor).toBeCloseTo(Math.SQRT2, 6);
    expect(a.scope).toBe('same chip');
    expect(anchorOf(fitted, own, 'slow', 'trn2', 'tpot').scope).toBe('other chips');
    expect(anchorOf(fitted, own, 'other', 'inf2', 'tpot')).toEqual({ factor: 1, rows: 0, scope: 'none' });
  });
});
