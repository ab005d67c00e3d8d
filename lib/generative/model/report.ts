/**
 * The model's error report: leave-one-model-out figures (overall, by chip family, by stack) and the held-out error of
 * every extrapolation class, which sizes an estimated plan's headroom (`evidence.ts`). Computed by
 * `npm run fit:llm-model` and recorded in `error-report.ts`, so plans never refit.
 */
import type { FitOptions, Observation } from './fit';
import type { ErrorSummary, HeldOutPrediction } from './holdout';
import { classKeys, heldOutPredictions, leaveOneModelOut, quantile, summarize } from './holdout';

/** The held-out error of one class for one kind of time. */
export interface ClassError {
  /** Held-out predictions in the class. */
  readonly count: number;
  /** Median |predicted / measured - 1|. */
  readonly median: number;
  /** measured / predicted at `ErrorReport.quantile`: the factor that covers that share of the class's predictions. */
  readonly ratioAtQuantile: number;
}

/** TPOT and TTFT errors of a set of held-out predictions. */
export interface KindErrors {
  readonly tpot: ErrorSummary;
  readonly ttft: ErrorSummary;
}

/** Everything `bench:llm-model` prints and plans read. */
export interface ErrorReport {
  /** Rows (configurations with at least one time) the model is fitted to, and what they span. */
  readonly rows: number;
  readonly models: number;
  /** Distinct architectures among the models (`architectureKey`): what leave-one-model-out holds out. */
  readonly architectures: number;
  readonly chips: number;
  readonly stacks: number;
  /** Whole models held out, one at a time: no fit and no anchor from their own rows. */
  readonly leaveOneModelOut: KindErrors & {
    readonly byChip: Readonly<Record<string, KindErrors>>;
    readonly byStack: Readonly<Record<string, KindErrors>>;
  };
  /** The share of a class's held-out predictions the headroom covers. */
  readonly quantile: number;
  /** Held-out errors by extrapolation class (`classKeys`), over every hidden set of `holdout.ts`. */
  readonly classes: Readonly<Record<string, { readonly tpot: ClassError; readonly ttft: ClassError }>>;
}

/** The share of a class's held-out predictions an estimated plan's headroom covers. */
export const HEADROOM_QUANTILE = 0.8;

function kindErrors(predictions: readonly HeldOutPrediction[]): KindErrors {
  const of = (kind: 'tpot' | 'ttft') => summarize(predictions.filter((p) => p.observation.kind === kind).map((p) => p.error));
  return { tpot: of('tpot'), ttft: of('ttft') };
}

function grouped(predictions: readonly HeldOutPrediction[], key: (p: HeldOutPrediction) => string): Record<string, KindErrors> {
  const keys = [...new Set(predictions.map(key))].sort();
  return Object.fromEntries(keys.map((k) => [k, kindErrors(predictions.filter((p) => key(p) === k))]));
}

/** The leave-one-model-out part of the report (the cheap part: one fit per model). */
export function leaveOneModelOutReport(obs: readonly Observation[], options?: FitOptions): ErrorReport['leaveOneModelOut'] {
  const lomo = leaveOneModelOut(obs, options);
  return { ...kindErrors(lomo), byChip: grouped(lomo, (p) => p.observation.row.chip), byStack: grouped(lomo, (p) => p.observation.row.stack) };
}

/** The class table of a set of held-out predictions. */
export function classErrors(predictions: readonly HeldOutPrediction[], q = HEADROOM_QUANTILE): ErrorReport['classes'] {
  const byClass = new Map<string, HeldOutPrediction[]>();
  for (const p of predictions) {
    for (const k of classKeys(p.extrapolation)) {
      byClass.set(k, [...(byClass.get(k) ?? []), p]);
    }
  }
  const of = (ps: readonly HeldOutPrediction[], kind: 'tpot' | 'ttft'): ClassError => {
    const use = ps.filter((p) => p.observation.kind === kind);
    return { count: use.length, median: quantile(use.map((p) => p.error), 0.5), ratioAtQuantile: quantile(use.map((p) => p.ratio), q) };
  };
  return Object.fromEntries([...byClass.keys()].sort().map((k) => [k, { tpot: of(byClass.get(k)!, 'tpot'), ttft: of(byClass.get(k)!, 'ttft') }]));
}

/** The whole report: leave-one-model-out and every class (a fit per hidden set: seconds, so it is recorded). */
export function errorReport(obs: readonly Observation[], options?: FitOptions): ErrorReport {
  const rows = [...new Set(obs.map((o) => o.row))];
  return {
    rows: rows.length,
    models: new Set(rows.map((r) => r.model)).size,
    architectures: new Set(rows.map((r) => r.architecture)).size,
    chips: new Set(rows.map((r) => r.chip)).size,
    stacks: new Set(rows.map((r) => r.stack)).size,
    leaveOneModelOut: leaveOneModelOutReport(obs, options),
    quantile: HEADROOM_QUANTILE,
    classes: classErrors(heldOutPredictions(obs, options)),
  };
}
