/**
 * The reports of recent generative plans, kept per catalog: planning is pure, and one synth plans the same model for
 * the same targets several times (an environments config's stages, a stack and its pools' compile jobs), each a few
 * seconds of queueing model.
 */
import { canonicalJson } from '../compile/hash';
import type { Catalog } from '../catalog/catalog';

/** Reports kept per catalog; the oldest goes first. */
const KEPT_REPORTS = 32;

const reports = new WeakMap<Catalog, Map<string, unknown>>();

/**
 * The report `plan` made for the same inputs on this catalog before, else the one it makes now (a refusal is not
 * kept: it throws again). `inputs` must be plain data (the profile, targets and options without callbacks); reports
 * are shared, so callers must not change them (the plan types are readonly).
 */
export function rememberedReport<R>(catalog: Catalog, inputs: unknown, plan: () => R): R {
  let byInputs = reports.get(catalog);
  if (!byInputs) {
    byInputs = new Map();
    reports.set(catalog, byInputs);
  }
  const key = canonicalJson(inputs);
  if (byInputs.has(key)) {
    return byInputs.get(key) as R;
  }
  const report = plan();
  byInputs.set(key, report);
  if (byInputs.size > KEPT_REPORTS) {
    byInputs.delete(byInputs.keys().next().value!);
  }
  return report;
}
