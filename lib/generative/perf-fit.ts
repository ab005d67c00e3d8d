/**
 * The performance model's coefficients, fitted to the published rows, and its measured error.
 *
 * Every decoder row of the built-in profiles with a TPOT is a decode point (its compiled batch, the context held at
 * mid-answer: input + output / 2); every row with a TTFT measured one prompt at a time (batch 1, or a vLLM engine
 * serving one request) is a prefill point. Encoder-decoder rows (T5, beam search, per-token latency over input and
 * output) and chunked-prefill TTFTs are left out: they time something else. The coefficients minimise the squared
 * relative error under non-negativity (every subset of the four terms solved by least squares, the best feasible
 * kept). A prediction for a model is then scaled by its anchor: the geometric mean of measured / predicted over the
 * model's own rows on the same chip, so the model's kernels and serving stack there carry over. Anchoring on other
 * chips' rows was tried and measured worse (TTFT leave-one-out worst 172 % against 62 %): stacks differ by chip.
 *
 * `leaveOneOut` predicts each row from a fit and anchors without it: the model's measured error (`bench:llm-model`).
 */
import { chipOf } from '../planner/planner';
import { ec2Name } from '../catalog/catalog';
import { perOutputTokenMs } from './engine-timing';
import { CHIP_FIGURES, decodeFeatures, dot, prefillFeatures } from './perf-model';
import type { Features, ModelConfiguration, PerformanceCoefficients } from './perf-model';
import type { GenerativeMeasurement, GenerativeProfile } from './types';

/** One published row as the fit sees it. */
export interface FitPoint {
  readonly profileId: string;
  readonly chip: string;
  readonly kind: 'tpot' | 'ttft';
  readonly features: Features;
  /** Measured seconds. */
  readonly seconds: number;
  readonly row: GenerativeMeasurement;
}

/** The configuration a row was measured in. */
export function rowConfiguration(profile: GenerativeProfile, row: GenerativeMeasurement): ModelConfiguration | undefined {
  const chip = CHIP_FIGURES[chipOf(ec2Name(row.instanceType).split('.')[0])];
  if (!chip) {
    return undefined;
  }
  return { model: profile.model, chip, coresPerChip: chip.coresPerChip, tensorParallelDegree: row.tensorParallelDegree, batch: row.batchSize };
}

/** The decode and prefill points of a profile's rows. */
export function fitPoints(profiles: readonly GenerativeProfile[]): FitPoint[] {
  const points: FitPoint[] = [];
  for (const profile of profiles.filter((p) => p.model.architecture === 'decoder-only')) {
    for (const row of profile.measurements) {
      const cfg = rowConfiguration(profile, row);
      if (!cfg) {
        continue;
      }
      const base = { profileId: profile.id, chip: cfg.chip.chip, row };
      points.push({ ...base, kind: 'tpot', features: decodeFeatures(cfg, row.inputTokens + row.outputTokens / 2), seconds: perOutputTokenMs(row) / 1000 });
      if (row.ttftP50Ms !== undefined && row.chunkedPrefill !== true) {
        points.push({ ...base, kind: 'ttft', features: prefillFeatures({ ...cfg, batch: 1 }, row.inputTokens), seconds: row.ttftP50Ms / 1000 });
      }
    }
  }
  return points;
}

/** Non-negative least squares of relative error over 4 terms: every subset solved, the best feasible kept. */
export function fitRelative(points: readonly { features: Features; seconds: number }[]): Features {
  let best: { c: number[]; sse: number } = { c: [0, 0, 0, 0], sse: Infinity };
  for (let mask = 1; mask < 16; mask++) {
    const terms = [0, 1, 2, 3].filter((i) => mask & (1 << i));
    const rows = points.map((p) => terms.map((i) => p.features[i] / p.seconds));
    const c = leastSquares(rows, points.map(() => 1));
    if (!c || c.some((v) => !(v >= 0))) {
      continue;
    }
    const full = [0, 0, 0, 0];
    terms.forEach((t, k) => (full[t] = c[k]));
    const sse = points.reduce((s, p) => s + (dot(full as unknown as Features, p.features) / p.seconds - 1) ** 2, 0);
    if (sse < best.sse - 1e-12) {
      best = { c: full, sse };
    }
  }
  return best.c as unknown as Features;
}

/** Least squares of A x = b by the normal equations; undefined when singular. */
function leastSquares(a: number[][], b: number[]): number[] | undefined {
  const n = a[0]?.length ?? 0;
  if (n === 0 || a.length < n) {
    return undefined;
  }
  const m = Array.from({ length: n }, (_, i) => [
    ...Array.from({ length: n }, (__, j) => a.reduce((s, r) => s + r[i] * r[j], 0)),
    a.reduce((s, r, k) => s + r[i] * b[k], 0),
  ]);
  for (let col = 0; col < n; col++) {
    const pivot = m.slice(col).reduce((bi, r, k) => (Math.abs(r[col]) > Math.abs(m[bi][col]) ? col + k : bi), col);
    if (Math.abs(m[pivot][col]) < 1e-300) {
      return undefined;
    }
    [m[col], m[pivot]] = [m[pivot], m[col]];
    for (let r = 0; r < n; r++) {
      if (r !== col) {
        const f = m[r][col] / m[col][col];
        for (let k = col; k <= n; k++) {
          m[r][k] -= f * m[col][k];
        }
      }
    }
  }
  return m.map((r, i) => r[n] / r[i]);
}

/** Both fits over the points. */
export function fitCoefficients(points: readonly FitPoint[]): PerformanceCoefficients {
  return {
    decode: fitRelative(points.filter((p) => p.kind === 'tpot')),
    prefill: fitRelative(points.filter((p) => p.kind === 'ttft')),
  };
}

/** A model's anchor for a kind of time on a chip: the geometric mean of measured / predicted over its points there, else 1. */
export function anchor(points: readonly FitPoint[], c: PerformanceCoefficients, profileId: string, chip: string, kind: FitPoint['kind']): number {
  const use = points.filter((p) => p.profileId === profileId && p.kind === kind && p.chip === chip);
  if (use.length === 0) {
    return 1;
  }
  const coeff = kind === 'tpot' ? c.decode : c.prefill;
  return Math.exp(use.reduce((s, p) => s + Math.log(p.seconds / dot(coeff, p.features)), 0) / use.length);
}

/** One row predicted from the others. */
export interface LeaveOneOutResult {
  readonly point: FitPoint;
  readonly predictedSeconds: number;
  /** |predicted / measured - 1|. */
  readonly error: number;
}

/** Each point predicted by the fit and anchors of all the others. */
export function leaveOneOut(points: readonly FitPoint[]): LeaveOneOutResult[] {
  return points.map((point, i) => {
    const others = points.filter((_, k) => k !== i);
    const c = fitCoefficients(others);
    const coeff = point.kind === 'tpot' ? c.decode : c.prefill;
    const predicted = dot(coeff, point.features) * anchor(others, c, point.profileId, point.chip, point.kind);
    return { point, predictedSeconds: predicted, error: Math.abs(predicted / point.seconds - 1) };
  });
}

/** Median, 75th and 90th percentiles and worst of the errors. */
export function errorSummary(errors: readonly number[]): { readonly median: number; readonly p75: number; readonly p90: number; readonly worst: number; readonly count: number } {
  const sorted = [...errors].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
  return { median: at(0.5), p75: at(0.75), p90: at(0.9), worst: sorted[sorted.length - 1] ?? 0, count: sorted.length };
}
