/**
 * What an estimated configuration rests on: the published rows nearest to it, and the headroom its times get for the
 * model's held-out error on extrapolations of its kind (`holdout.ts`), not one global percentile.
 *
 * Headroom: the configuration's extrapolation class (same or new model; the model measured on the chip, only other
 * models, or none; the stack measured there or another; the degree beyond the largest measured) is looked up in the
 * recorded class table, narrowest first. A class needs `MIN_CLASS_ROWS` held-out TPOT and TTFT predictions; with
 * fewer, the next broader class is used and the plan says so, and the narrow class's own factor is kept when it is
 * larger, so falling back never lowers the headroom. The factor is measured / predicted at the report's quantile,
 * at least 1.
 */
import type { ClassError, ErrorReport } from './report';
import type { Extrapolation, Target } from './holdout';
import { classKeys, extrapolationOf } from './holdout';
import type { FitRow } from './rows';
import type { GenerativeHeadroom } from '../types';

/** Held-out predictions of each kind a class needs before a plan sizes its headroom from it. */
export const MIN_CLASS_ROWS = 8;

/** The headroom of an estimated plan, and where it comes from (`GenerativeHeadroom`, as plans carry it). */
export type Headroom = GenerativeHeadroom;

/** The headroom of a configuration whose extrapolation is `e`, from the recorded class table. */
export function headroomFor(e: Extrapolation, report: ErrorReport): Headroom {
  const keys = classKeys(e);
  const counted = keys.map((k) => ({ k, c: report.classes[k] })).filter((x) => x.c !== undefined);
  const chosen = counted.find((x) => x.c.tpot.count >= MIN_CLASS_ROWS && x.c.ttft.count >= MIN_CLASS_ROWS) ?? counted[counted.length - 1];
  if (!chosen) {
    return { tpot: 1, ttft: 1, class: keys[0], heldOutRows: 0, quantile: report.quantile };
  }
  const narrow = counted[0];
  const factor = (kind: 'tpot' | 'ttft') => Math.max(1, chosen.c[kind].ratioAtQuantile, ...(narrow !== chosen && narrow.c[kind].count > 0 ? [narrow.c[kind].ratioAtQuantile] : []));
  return {
    tpot: factor('tpot'),
    ttft: factor('ttft'),
    class: chosen.k,
    heldOutRows: chosen.c.tpot.count + chosen.c.ttft.count,
    quantile: report.quantile,
    ...(keys[0] !== chosen.k ? { narrowestClass: keys[0], narrowestHeldOutRows: (report.classes[keys[0]]?.tpot.count ?? 0) + (report.classes[keys[0]]?.ttft.count ?? 0) } : {}),
  };
}

/** A class's held-out errors, as the report records them. */
export interface HeldOutError {
  /** The class the figures are of: the narrowest of `classKeys` with any held-out prediction. */
  readonly class: string;
  readonly tpot: ClassError;
  readonly ttft: ClassError;
}

/**
 * The held-out error of the narrowest class of `e` that has any: what a choice that rests on the model (a larger
 * tensor-parallel degree than the rows measured, say) must beat before the model's word is taken over the rows'.
 */
export function heldOutErrorOf(e: Extrapolation, report: ErrorReport): HeldOutError | undefined {
  const key = classKeys(e).find((k) => report.classes[k] !== undefined);
  return key === undefined ? undefined : { class: key, ...report.classes[key] };
}

/** The extrapolation an estimate of `target` from every known row makes. */
export function extrapolationFor(target: Target, known: readonly FitRow[]): Extrapolation {
  return extrapolationOf(target, known);
}

/** One row near a configuration, and how it differs. */
export interface NearRow {
  readonly row: FitRow;
  /** What differs and by how much: `same model and chip; TP 8 -> 16; batch 32 -> 16`. */
  readonly distance: string;
  /**
   * A score: lower is nearer (a different architecture weighs most, then the chip, the stack, the degree, the batch,
   * the lengths; another model of the same architecture a little).
   */
  readonly score: number;
}

/** A configuration to find rows near. */
export interface NearTarget extends Target {
  /** The model's key, for the words: a row of another model of the same architecture says so. */
  readonly model: string;
  readonly batchSize: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

const log2Ratio = (a: number, b: number) => Math.abs(Math.log2(Math.max(a, 1e-9) / Math.max(b, 1e-9)));

/** How far a row is from the target, in words and as a score. */
export function distanceOf(target: NearTarget, row: FitRow): NearRow {
  const sameModel = row.architecture === target.architecture;
  const sameChip = row.chip === target.chip;
  const model = !sameModel ? `model ${row.model}` : row.model === target.model ? 'same model' : `${row.model} (same architecture)`;
  const parts = [sameChip ? (model === 'same model' ? 'same model and chip' : `${model}; same chip`) : `${model}; chip ${row.chip} -> ${target.chip}`];
  if (row.stack !== target.stack) {
    parts.push(`stack ${row.stack} -> ${target.stack}`);
  }
  const change = (name: string, from: number, to: number) => {
    if (from !== to) {
      parts.push(`${name} ${from} -> ${to}`);
    }
  };
  change('TP', row.tensorParallelDegree, target.tensorParallelDegree);
  change('batch', row.batchSize, target.batchSize);
  change('input', row.inputTokens, target.inputTokens);
  change('output', row.outputTokens, target.outputTokens);
  const score = (sameModel ? (row.model === target.model ? 0 : 0.5) : 100) + (sameChip ? 0 : 30) + (row.stack === target.stack ? 0 : 10) +
    5 * log2Ratio(row.tensorParallelDegree, target.tensorParallelDegree) + 2 * log2Ratio(row.batchSize, target.batchSize) +
    log2Ratio(row.inputTokens, target.inputTokens) + log2Ratio(row.outputTokens, target.outputTokens);
  return { row, distance: parts.join('; '), score };
}

/**
 * The `count` rows nearest to the target, nearest first (ties: the newer SDK, then the source), one per measured
 * configuration (model, instance, stack, degree, batch; the newest SDK's): the lengths and releases a configuration was
 * run at say less than another configuration does.
 */
export function nearestRows(target: NearTarget, rows: readonly FitRow[], count = 3): NearRow[] {
  const sorted = rows.map((r) => distanceOf(target, r))
    .sort((a, b) => a.score - b.score || b.row.neuronSdkVersion.localeCompare(a.row.neuronSdkVersion, undefined, { numeric: true }) || a.row.source.localeCompare(b.row.source));
  const seen = new Set<string>();
  return sorted.filter((n) => {
    const r = n.row;
    const key = [r.model, r.instanceType, r.stack, r.tensorParallelDegree, r.batchSize].join('|');
    return !seen.has(key) && seen.add(key) !== undefined;
  }).slice(0, count);
}
