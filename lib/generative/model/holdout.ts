/**
 * The model's error where it was not fitted: rows hidden from the fit and the anchors, predicted, and each prediction
 * labelled with the kind of extrapolation it was (`extrapolationOf`), so a plan's headroom follows the distance from
 * its own configuration to the rows (`evidence.ts`).
 *
 * Hidden sets (each hidden once, duplicates skipped):
 * - every row of one model (leave-one-model-out: the headline figures; no anchor from its own rows);
 * - one model's rows on one chip; on one chip and stack; one configuration (chip, stack, degree, batch) of a model;
 * - one model's rows on a chip at and above each measured degree but its smallest (TP beyond what remains), and at
 *   and below each but its largest (TP below what remains);
 * - every row of one chip (a chip nobody measured).
 */
import type { FitOptions, FittedCoefficients, Observation } from './fit';
import { fitCoefficients, predictAnchored } from './fit';
import type { FitRow } from './rows';

/** How far a prediction reaches from the rows it rests on. */
export interface Extrapolation {
  /** The chip family predicted for (`inf2`, `trn2`): a class is first judged on its own chip's held-out rows. */
  readonly chipFamily: string;
  /** Whether the model has rows at all. */
  readonly model: 'same' | 'new';
  /**
   * Whether the model has rows on the chip (`same`; for a new model, whether any model has), only other models do
   * (`new`), or no model does (`unmeasured`).
   */
  readonly chip: 'same' | 'new' | 'unmeasured';
  /** Whether the reference rows (the model's on the chip, else every model's on the chip, else every row) ran this stack. */
  readonly stack: 'same' | 'other';
  /** The degree exceeds every degree of the reference rows (the model's on the chip, else its own, else the chip's). */
  readonly tpBeyond: boolean;
  /** The degree is below every degree of the same reference rows (a narrower group than anyone measured). */
  readonly tpBelow: boolean;
}

/** What a configuration to predict is, for classifying it. */
export interface Target {
  /** The model's architecture key (`architectureKey`): models of one architecture are one model here. */
  readonly architecture: string;
  readonly chip: string;
  readonly stack: string;
  readonly tensorParallelDegree: number;
}

/** The extrapolation a prediction of `target` from `known` rows makes. */
export function extrapolationOf(target: Target, known: readonly Pick<FitRow, 'architecture' | 'chip' | 'stack' | 'tensorParallelDegree'>[]): Extrapolation {
  const own = known.filter((r) => r.architecture === target.architecture);
  const onChip = known.filter((r) => r.chip === target.chip);
  const ownOnChip = own.filter((r) => r.chip === target.chip);
  const model = own.length > 0 ? 'same' : 'new';
  const chip = ownOnChip.length > 0 || (model === 'new' && onChip.length > 0) ? 'same' : onChip.length > 0 ? 'new' : 'unmeasured';
  // The stack is judged against the model's rows on the chip, else every model's there, else every row.
  const stackRef = ownOnChip.length > 0 ? ownOnChip : onChip.length > 0 ? onChip : known;
  const tpRef = ownOnChip.length > 0 ? ownOnChip : own.length > 0 ? own : onChip.length > 0 ? onChip : known;
  return {
    chipFamily: target.chip,
    model,
    chip,
    stack: stackRef.some((r) => r.stack === target.stack) ? 'same' : 'other',
    tpBeyond: tpRef.length > 0 && target.tensorParallelDegree > Math.max(...tpRef.map((r) => r.tensorParallelDegree)),
    tpBelow: tpRef.length > 0 && target.tensorParallelDegree < Math.min(...tpRef.map((r) => r.tensorParallelDegree)),
  };
}

/**
 * Classes from the narrowest to the broadest (every prediction), as keys: a plan takes the first with enough held-out
 * rows. The narrowest are judged on the chip family's own held-out rows (`same model, same chip (trn2)`): a chip with
 * few or noisy rows is less certain than the pool of every chip.
 */
export function classKeys(e: Extrapolation): string[] {
  const base = `${e.model} model, ${e.chip === 'unmeasured' ? 'unmeasured' : e.chip} chip`;
  const tp = e.tpBeyond ? ['TP beyond measured'] : e.tpBelow ? ['TP below measured'] : [];
  const flags = [...(e.stack === 'other' ? ['other stack'] : []), ...tp];
  const exact = [base, ...flags].join(', ');
  return [
    `${exact} (${e.chipFamily})`,
    `${base} (${e.chipFamily})`,
    exact,
    ...(tp.length > 0 && e.stack === 'other' ? [`${base}, ${tp[0]}`] : []),
    base,
    `${e.model} model`,
    'any',
  ].filter((k, i, all) => all.indexOf(k) === i);
}

/** One held-out prediction. */
export interface HeldOutPrediction {
  readonly observation: Observation;
  readonly predictedSeconds: number;
  /** measured / predicted: above 1 when the model was too fast. */
  readonly ratio: number;
  /** |predicted / measured - 1|. */
  readonly error: number;
  readonly extrapolation: Extrapolation;
  /** Which hidden set it came from. */
  readonly scheme: HoldoutScheme;
}

/** Which rows were hidden. */
export type HoldoutScheme = 'model' | 'model-chip' | 'model-chip-stack' | 'configuration' | 'tp-beyond' | 'tp-below' | 'chip';

/** Predicts every observation of `hidden` from a fit and anchors without it. */
export function predictHidden(all: readonly Observation[], hidden: (o: Observation) => boolean, scheme: HoldoutScheme, options?: FitOptions): HeldOutPrediction[] {
  const known = all.filter((o) => !hidden(o));
  const held = all.filter(hidden);
  if (held.length === 0 || known.length === 0) {
    return [];
  }
  const fitted: FittedCoefficients = fitCoefficients(known, options);
  const knownRows = [...new Set(known.map((o) => o.row))];
  return held.map((o) => {
    const predicted = predictAnchored(fitted, known, o);
    return {
      observation: o, predictedSeconds: predicted, ratio: o.seconds / predicted, error: Math.abs(predicted / o.seconds - 1),
      extrapolation: extrapolationOf({ ...o.row }, knownRows), scheme,
    };
  });
}

/**
 * Leave-one-model-out: every model's rows predicted from the others' (the headline figures; milliseconds to a second).
 * A model is an architecture: holding out Llama 3.1 8B holds out Llama 3 8B too, whose rows would time it exactly.
 */
export function leaveOneModelOut(all: readonly Observation[], options?: FitOptions): HeldOutPrediction[] {
  return [...new Set(all.map((o) => o.row.architecture))].sort().flatMap((m) => predictHidden(all, (o) => o.row.architecture === m, 'model', options));
}

/** Every hidden set of the module comment, each prediction labelled with its extrapolation. */
export function heldOutPredictions(all: readonly Observation[], options?: FitOptions): HeldOutPrediction[] {
  const rows = [...new Set(all.map((o) => o.row))];
  const seen = new Set<string>();
  const out: HeldOutPrediction[] = [];
  const hide = (scheme: HoldoutScheme, keep: (r: FitRow) => boolean) => {
    const hidden = new Set(rows.filter(keep));
    const key = rows.map((r) => (hidden.has(r) ? '1' : '0')).join('');
    if (hidden.size === 0 || hidden.size === rows.length || seen.has(key)) {
      return;
    }
    seen.add(key);
    out.push(...predictHidden(all, (o) => hidden.has(o.row), scheme, options));
  };
  const models = [...new Set(rows.map((r) => r.architecture))].sort();
  for (const m of models) {
    hide('model', (r) => r.architecture === m);
  }
  for (const m of models) {
    const own = rows.filter((r) => r.architecture === m);
    for (const chip of [...new Set(own.map((r) => r.chip))]) {
      hide('model-chip', (r) => r.architecture === m && r.chip === chip);
      const onChip = own.filter((r) => r.chip === chip);
      for (const stack of [...new Set(onChip.map((r) => r.stack))]) {
        hide('model-chip-stack', (r) => r.architecture === m && r.chip === chip && r.stack === stack);
      }
      for (const config of [...new Set(onChip.map(configurationKey))]) {
        hide('configuration', (r) => r.architecture === m && r.chip === chip && configurationKey(r) === config);
      }
      const degrees = [...new Set(onChip.map((r) => r.tensorParallelDegree))].sort((a, b) => a - b);
      for (const tp of degrees.slice(1)) {
        hide('tp-beyond', (r) => r.architecture === m && r.chip === chip && r.tensorParallelDegree >= tp);
      }
      for (const tp of degrees.slice(0, -1)) {
        hide('tp-below', (r) => r.architecture === m && r.chip === chip && r.tensorParallelDegree <= tp);
      }
    }
  }
  for (const chip of [...new Set(rows.map((r) => r.chip))].sort()) {
    hide('chip', (r) => r.chip === chip);
  }
  return out;
}

/** What a configuration is, apart from its lengths: stack, SDK, degree, batch, dtypes. */
function configurationKey(r: FitRow): string {
  return [r.stack, r.neuronSdkVersion, r.tensorParallelDegree, r.batchSize, r.weightDtype ?? '', r.kvDtype ?? ''].join('|');
}

/** Median, a quantile and worst of a set of errors, and how many. */
export interface ErrorSummary {
  readonly count: number;
  readonly median: number;
  readonly worst: number;
}

/** The `q` quantile of values (the smallest value at or above a share `q` of them). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

/** Median and worst of the errors. */
export function summarize(errors: readonly number[]): ErrorSummary {
  return { count: errors.length, median: quantile(errors, 0.5), worst: errors.length > 0 ? Math.max(...errors) : 0 };
}
