/**
 * Every published Neuron LLM measurement this project could cite, as data: `PUBLISHED_ROWS` (one row per distinct
 * measured operating point, with its source, SDK and serving stack) and `PUBLISHED_MODELS` (the architecture of every
 * model they cover). The performance model is fitted to these rows, and the built-in generative profiles plan from the
 * ones that stand for a deployable configuration (`measurements.ts`).
 *
 * One file per source family; a new source is a new file added to `PUBLISHED_ROWS`.
 */
import { NEURON_DOCS_INF2_ROWS } from './neuron-docs-inf2';
import { NEURON_DOCS_TRN1_ROWS } from './neuron-docs-trn1';
import { NXDI_TUTORIAL_ROWS } from './nxdi-tutorials';
import { OPTIMUM_NEURON_STATIC_ROWS } from './optimum-neuron-static';
import { OPTIMUM_NEURON_VLLM_ROWS } from './optimum-neuron-vllm';
import { TGI_NEURON_ROWS } from './tgi-neuron';
import type { PublishedRow } from './types';
import { VLLM_NEURON_ROWS } from './vllm-neuron';

export type * from './types';
export { SERVING_STACKS } from './types';
export { PUBLISHED_MODELS } from './models';
export { describeSource, measurementsOf, plannerUnusableReason, plannerUsable, toMeasurement } from './measurements';
export type { RowPattern } from './measurements';

/** Every published row, grouped by source family. */
export const PUBLISHED_ROWS: readonly PublishedRow[] = [
  ...NEURON_DOCS_INF2_ROWS,
  ...NEURON_DOCS_TRN1_ROWS,
  ...NXDI_TUTORIAL_ROWS,
  ...VLLM_NEURON_ROWS,
  ...OPTIMUM_NEURON_VLLM_ROWS,
  ...OPTIMUM_NEURON_STATIC_ROWS,
  ...TGI_NEURON_ROWS,
];

/** Row counts of a set of published rows: in total, and by model, chip and serving stack (largest first). */
export interface PublishedCounts {
  readonly rows: number;
  readonly byModel: readonly (readonly [string, number])[];
  readonly byChip: readonly (readonly [string, number])[];
  readonly byStack: readonly (readonly [string, number])[];
}

function countBy(rows: readonly PublishedRow[], key: (r: PublishedRow) => string): (readonly [string, number])[] {
  const counts = new Map<string, number>();
  rows.forEach((r) => counts.set(key(r), (counts.get(key(r)) ?? 0) + 1));
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** Counts of `rows` by model, chip and stack. */
export function publishedCounts(rows: readonly PublishedRow[] = PUBLISHED_ROWS): PublishedCounts {
  return {
    rows: rows.length,
    byModel: countBy(rows, (r) => r.model),
    byChip: countBy(rows, (r) => r.chip),
    byStack: countBy(rows, (r) => r.stack),
  };
}

/**
 * One line for a bench to print: `N published rows of M models (K chips, S stacks): by chip inf2 84, ...; by stack
 * ...; by model ...`.
 */
export function publishedSummary(rows: readonly PublishedRow[] = PUBLISHED_ROWS): string {
  const c = publishedCounts(rows);
  const list = (pairs: readonly (readonly [string, number])[]) => pairs.map(([k, n]) => `${k} ${n}`).join(', ');
  return `${c.rows} published rows of ${c.byModel.length} models (${c.byChip.length} chips, ${c.byStack.length} serving stacks): ` +
    `by chip ${list(c.byChip)}; by stack ${list(c.byStack)}; by model ${list(c.byModel)}`;
}
