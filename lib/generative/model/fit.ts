/**
 * The fit: each row's measured times as physics features (`physics.ts`), and coefficients that multiply them, fitted
 * per chip family and serving stack where the rows allow and shared where they do not.
 *
 * - **Observations.** A TPOT is one decode step at the row's compiled batch (the running sequences on the vLLM Neuron
 *   plugin, whose graphs are bucketed by them), at mid-answer context (input + output / 2); under continuous batching
 *   at concurrency `c`, each of the other `c - 1` requests' prefills lands inside a request's decode, so the measured
 *   TPOT is a step plus `(c - 1) / (output - 1)` prefills. A TTFT is a prefill (of the whole batch's prompts for a
 *   static-batch `generate`) of the prompt padded to its compiled bucket (`FitRow.prefillTokens`). A derived end-to-end time is one prefill plus `output - 1` steps. Decode and prefill
 *   coefficients are fitted jointly, so a derived row constrains both and is never read as a TPOT.
 * - **Error.** Least squares of the log error (`ln(predicted / measured)`, symmetric in too fast and too slow) under
 *   non-negativity (`nnls.ts`), by Gauss-Newton from the relative least squares; each architecture's rows weigh
 *   as much together as another's would at the same count (`1 / sqrt(rows)` each), so the fit is not the model with
 *   most rows.
 * - **Levels.** A shared vector over every row (pulled weakly toward the pure physics, all ones), then one per chip
 *   family and one per serving stack, each pulled toward the shared one, then one per (chip, stack) pulled toward the
 *   mean of its chip's and its stack's (a stack measured on one chip carries its efficiency to another): ridge penalties of
 *   `PRIOR_ROWS` rows' weight on each coefficient, in units of its typical relative contribution over every row. A level with few
 *   rows stays near its parent; a coefficient its rows cannot see (a feature that is zero in all of them) is the
 *   parent's.
 * - **Anchors.** A model with rows of its own (rows of its architecture) is scaled by them: the geometric mean of measured / predicted over its
 *   rows on the same chip (else on other chips), shrunk toward 1 as `n / (n + ANCHOR_SHRINK)` for `n` rows.
 */
import type { Features, ModelConfiguration, PerformanceCoefficients } from './physics';
import { CHIP_FIGURES, decodeFeatures, dot, FEATURE_NAMES, prefillFeatures } from './physics';
import { addOuter, nnlsNormal } from './nnls';
import type { FitRow, ServingStack } from './rows';

/** Which time an observation measured. */
export type TimeKind = 'tpot' | 'ttft' | 'e2e';

/** One measured time and the joint features (decode terms, then prefill terms) that predict it. */
export interface Observation {
  readonly row: FitRow;
  readonly kind: TimeKind;
  /** Decode features, then prefill features: what the joint coefficient vector multiplies. */
  readonly x: readonly number[];
  /** Measured seconds. */
  readonly seconds: number;
}

/** Terms per kind of pass. */
export const TERMS = FEATURE_NAMES.length;

/** The configuration a row ran, or undefined when the model has no figures for its chip. */
export function rowConfiguration(row: FitRow, batch = row.batchSize): ModelConfiguration | undefined {
  const chip = CHIP_FIGURES[row.chip];
  if (!chip) {
    return undefined;
  }
  return {
    model: row.facts, chip, coresPerChip: chip.coresPerChip, tensorParallelDegree: row.tensorParallelDegree, batch,
    ...(row.weightDtype ? { weightDtype: row.weightDtype } : {}),
    ...(row.kvDtype ?? row.weightDtype ? { kvDtype: row.kvDtype ?? row.weightDtype } : {}),
  };
}

const ZERO: readonly number[] = new Array<number>(TERMS).fill(0);
const scaled = (f: Features, s: number) => f.map((v) => v * s);

/** The observations a row yields (none where its chip has no figures). */
export function observationsOf(row: FitRow): Observation[] {
  const cfg = rowConfiguration(row);
  if (!cfg) {
    return [];
  }
  const running = Math.min(row.batchSize, row.concurrency ?? row.batchSize);
  const stepBatch = row.stack === 'vllm-neuron-plugin' ? running : row.batchSize;
  const step = decodeFeatures({ ...cfg, batch: stepBatch }, row.decodeContextTokens ?? row.inputTokens + row.outputTokens / 2);
  const prompts = row.staticBatch ? row.batchSize : 1;
  const prefill = prefillFeatures({ ...cfg, batch: 1 }, row.prefillTokens ?? row.inputTokens, prompts);
  const out: Observation[] = [];
  if (row.tpotSeconds !== undefined) {
    const landing = row.staticBatch || row.outputTokens <= 1 ? 0 : (running - 1) / (row.outputTokens - 1);
    out.push({ row, kind: 'tpot', x: [...step, ...scaled(prefill, landing)], seconds: row.tpotSeconds });
  }
  if (row.ttftSeconds !== undefined) {
    out.push({ row, kind: 'ttft', x: [...ZERO, ...prefill], seconds: row.ttftSeconds });
  }
  if (row.e2eSeconds !== undefined) {
    // Its own prefill, and under continuous batching the other running requests' prefills, which stop its decode.
    const prefills = row.staticBatch ? 1 : running;
    out.push({ row, kind: 'e2e', x: [...scaled(step, Math.max(0, row.outputTokens - 1)), ...scaled(prefill, prefills)], seconds: row.e2eSeconds });
  }
  return out;
}

/** Every observation of the rows. */
export function observations(rows: readonly FitRow[]): Observation[] {
  return rows.flatMap(observationsOf);
}

/** Joint coefficient vectors by level: shared, per chip family, per serving stack, per chip and stack (`chip|stack`). */
export interface FittedCoefficients {
  readonly shared: readonly number[];
  readonly byChip: Readonly<Record<string, readonly number[]>>;
  readonly byStack: Readonly<Record<string, readonly number[]>>;
  readonly byGroup: Readonly<Record<string, readonly number[]>>;
}

/** How strongly each level is pulled toward its parent, in rows' weight. */
export interface FitOptions {
  /** Pull of the shared vector toward the pure physics (all ones). @default PRIOR_ROWS.shared */
  readonly shared?: number;
  /** Pull of a chip family's vector toward the shared one. @default PRIOR_ROWS.chip */
  readonly chip?: number;
  /** Pull of a serving stack's vector (over every chip) toward the shared one. @default PRIOR_ROWS.stack */
  readonly stack?: number;
  /** Pull of a (chip, stack) vector toward the mean of its chip's and its stack's. @default PRIOR_ROWS.group */
  readonly group?: number;
}

/** Default pulls of each level toward its parent, in rows' weight (chosen on leave-one-model-out error, `bench:llm-model`). */
export const PRIOR_ROWS = { shared: 0.5, chip: 4, stack: 4, group: 4 } as const;

/** `chip|stack`. */
export function groupKey(chip: string, stack: ServingStack): string {
  return `${chip}|${stack}`;
}

/** An architecture's observations weigh 1 / sqrt(their count) each: a model with many rows does not drown the others. */
function modelWeights(obs: readonly Observation[]): number[] {
  const counts = new Map<string, number>();
  obs.forEach((o) => counts.set(o.row.architecture, (counts.get(o.row.architecture) ?? 0) + 1));
  return obs.map((o) => 1 / Math.sqrt(counts.get(o.row.architecture) as number));
}

/**
 * The typical relative contribution of each feature over all observations (root mean square of feature / measured):
 * the unit a ridge pull is counted in. Taken over every row, not a level's own, so a coefficient a level's rows barely
 * see (a collective term of short prompts) cannot run away where other rows lean on it.
 */
function featureScales(obs: readonly Observation[], weights: readonly number[]): number[] {
  const n = obs[0]?.x.length ?? 0;
  const total = weights.reduce((s, w) => s + w, 0);
  return Array.from({ length: n }, (_, k) => Math.sqrt(obs.reduce((s, o, i) => s + weights[i] * (o.x[k] / o.seconds) ** 2, 0) / Math.max(total, 1e-12)));
}

/**
 * Gauss-Newton steps on the log error after the relative least squares: the relative error punishes predicting 2x
 * too slow more than 2x too fast, which biases a fit on noisy rows (chart figures rounded to 100 ms) low.
 */
export const LOG_STEPS = 3;

/**
 * Least squares of the log error (`ln(predicted / measured)`) with a ridge pull of `strength` rows toward `parent`;
 * unseen coefficients keep the parent's. Starts from the relative least squares (`predicted / measured - 1`, the
 * log error's first-order form) and takes `LOG_STEPS` Gauss-Newton steps, each a non-negative least squares.
 */
function fitLevel(obs: readonly Observation[], weights: readonly number[], parent: readonly number[], strength: number, scale: readonly number[]): number[] {
  const n = parent.length;
  const seen = Array.from({ length: n }, (_, k) => obs.some((o) => o.x[k] > 0));
  // ln(x.c / y) ~ ln(x.c0 / y) + x.(c - c0) / x.c0: rows x / x.c0, target 1 - ln(x.c0 / y). From c0 = y, the relative form.
  let at = obs.map((o) => o.seconds);
  let c: number[] = parent.slice();
  for (let step = 0; step <= LOG_STEPS; step++) {
    const g = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    const h = new Array<number>(n).fill(0);
    obs.forEach((o, i) => {
      const root = Math.sqrt(weights[i]);
      addOuter(g, h, o.x.map((v) => (v / at[i]) * root), (1 - Math.log(at[i] / o.seconds)) * root);
    });
    for (let k = 0; k < n; k++) {
      // The ridge pull: a row of `strength` weight asking coefficient k to be the parent's, in units of `scale[k]`.
      if (seen[k] && strength > 0) {
        const s2 = strength * scale[k] * scale[k];
        g[k][k] += s2;
        h[k] += s2 * parent[k];
      }
    }
    c = nnlsNormal(g, h, step > 0 ? c : undefined).map((v, k) => (seen[k] ? v : parent[k]));
    at = obs.map((o) => Math.max(dot(c, o.x), 1e-3 * o.seconds));
  }
  return c;
}

/** The three levels of coefficients fitted to the observations. */
export function fitCoefficients(obs: readonly Observation[], options: FitOptions = {}): FittedCoefficients {
  const pull = { ...PRIOR_ROWS, ...options };
  const weights = modelWeights(obs);
  const physics = new Array<number>(2 * TERMS).fill(1);
  const scale = featureScales(obs, weights);
  const shared = fitLevel(obs, weights, physics, pull.shared, scale);
  const subset = (keep: (o: Observation) => boolean) => {
    const idx = obs.map((o, i) => (keep(o) ? i : -1)).filter((i) => i >= 0);
    return { o: idx.map((i) => obs[i]), w: idx.map((i) => weights[i]) };
  };
  const level = (values: readonly string[], key: (o: Observation) => string, strength: number) => Object.fromEntries(values.map((v) => {
    const { o, w } = subset((x) => key(x) === v);
    return [v, fitLevel(o, w, shared, strength, scale)];
  }));
  const chips = [...new Set(obs.map((o) => o.row.chip))].sort();
  const stacks = [...new Set(obs.map((o) => o.row.stack))].sort();
  const byChip = level(chips, (o) => o.row.chip, pull.chip);
  const byStack = level(stacks, (o) => o.row.stack, pull.stack);
  const byGroup: Record<string, number[]> = {};
  for (const chip of chips) {
    for (const stack of stacks) {
      const g = subset((x) => x.row.chip === chip && x.row.stack === stack);
      if (g.o.length > 0) {
        byGroup[groupKey(chip, stack)] = fitLevel(g.o, g.w, mean(byChip[chip], byStack[stack]), pull.group, scale);
      }
    }
  }
  return { shared, byChip, byStack, byGroup };
}

/** The element-wise mean of two coefficient vectors. */
function mean(a: readonly number[], b: readonly number[]): number[] {
  return a.map((v, k) => (v + b[k]) / 2);
}

/** Which level a prediction's coefficients come from. */
export type CoefficientLevel = 'chip and stack' | 'chip, stack' | 'chip' | 'stack' | 'shared';

/**
 * The most specific coefficients fitted for a chip and stack: their own, else the mean of the chip's and the stack's
 * (each measured elsewhere), else whichever was measured, else the shared ones.
 */
export function jointCoefficientsFor(f: FittedCoefficients, chip: string, stack: ServingStack): { readonly joint: readonly number[]; readonly level: CoefficientLevel } {
  const group = f.byGroup[groupKey(chip, stack)];
  if (group) {
    return { joint: group, level: 'chip and stack' };
  }
  const byChip = f.byChip[chip];
  const byStack = f.byStack[stack];
  if (byChip && byStack) {
    return { joint: mean(byChip, byStack), level: 'chip, stack' };
  }
  return byChip ? { joint: byChip, level: 'chip' } : byStack ? { joint: byStack, level: 'stack' } : { joint: f.shared, level: 'shared' };
}

/** Decode and prefill coefficients of a joint vector. */
export function splitJoint(joint: readonly number[]): PerformanceCoefficients {
  return { decode: joint.slice(0, TERMS), prefill: joint.slice(TERMS) };
}

/** The model's prediction of an observation, before any anchor. */
export function predictObservation(f: FittedCoefficients, o: Observation): number {
  return dot(jointCoefficientsFor(f, o.row.chip, o.row.stack).joint, o.x);
}

/** Shrinkage of an anchor toward 1: `n / (n + ANCHOR_SHRINK)` of the log-ratio over `n` rows. */
export const ANCHOR_SHRINK = 1;

/** A model's anchor for one kind of time: the factor, the rows it rests on and where they were measured. */
export interface Anchor {
  readonly factor: number;
  readonly rows: number;
  readonly scope: 'same chip' | 'other chips' | 'none';
}

/**
 * The anchor of an architecture (`FitRow.architecture`) on `chip` for a kind, from its observations among `known`
 * (TPOT for decode, TTFT for prefill).
 */
export function anchorOf(f: FittedCoefficients, known: readonly Observation[], architecture: string, chip: string, kind: 'tpot' | 'ttft'): Anchor {
  const own = known.filter((o) => o.row.architecture === architecture && o.kind === kind);
  const here = own.filter((o) => o.row.chip === chip);
  const use = here.length > 0 ? here : own;
  if (use.length === 0) {
    return { factor: 1, rows: 0, scope: 'none' };
  }
  const logSum = use.reduce((s, o) => s + Math.log(o.seconds / predictObservation(f, o)), 0);
  return { factor: Math.exp(logSum / (use.length + ANCHOR_SHRINK)), rows: use.length, scope: here.length > 0 ? 'same chip' : 'other chips' };
}

/** The model's prediction of an observation with the anchors its architecture's known observations give. */
export function predictAnchored(f: FittedCoefficients, known: readonly Observation[], o: Observation): number {
  const raw = predictObservation(f, o);
  if (o.kind === 'e2e') {
    return raw;
  }
  return raw * anchorOf(f, known, o.row.architecture, o.row.chip, o.kind).factor;
}

/** Names of the joint vector's coefficients, for reports: `decode memory`, ..., `prefill per step`. */
export const COEFFICIENT_NAMES: readonly string[] = [...FEATURE_NAMES.map((n) => `decode ${n}`), ...FEATURE_NAMES.map((n) => `prefill ${n}`)];
