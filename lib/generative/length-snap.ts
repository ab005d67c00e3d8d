/**
 * Measured rows used: a `max_model_len` a few per cent above the sequence length a published row was compiled for
 * snaps down to it when at least 99 % of the requests still fit, so the measured row plans instead of an estimate
 * (the README's 1,024/256-token chat spread needs 4,407 tokens; Llama 3.1 8B's rows were compiled for 4,096). The
 * requests that do not fit are cut to the snapped length, as the replay (`simulateGenerativeReplica`), the token proof
 * and `bench:generative` cut every draw at `maxModelLength`, and the plan says what share that is.
 */
import { lengthAt, normalCdf, normalQuantile } from './lengths';
import type { GenerativeLengthCut, GenerativeMeasurement, LengthDistribution, WorkloadLengths } from './types';

/**
 * How far below the needed length (p99 input + p99 output, or a file's p99 of the two together) a measured row's
 * sequence length may be and still plan it: 10 %. The sum of two p99s is itself beyond the 99th percentile of the sum,
 * so a row compiled a little shorter often still holds 99 % of the requests.
 */
export const MEASURED_LENGTH_SNAP = 0.1;

/** The share of requests that must fit a snapped model length. */
export const SNAPPED_LENGTH_FITS = 0.99;

/** Prompt quantile midpoints the share of long requests is summed over. */
const CUT_POINTS = 4000;

/**
 * The standard-normal score at and above which a draw of `dist` (rounded to whole tokens, as `sampleLength` and the
 * copula of `workloadSampler` draw it) exceeds `tokens`: -Infinity when every draw does, Infinity when none does.
 */
function scoreAbove(dist: LengthDistribution, tokens: number): number {
  // A draw rounds, so it exceeds a whole `tokens` when its continuous value is at least tokens + 0.5.
  const edge = tokens + 0.5;
  if (tokens < 1) return -Infinity;
  if (dist.quantiles === undefined) {
    if (dist.sigma === 0) return Math.max(1, Math.round(dist.mean)) > tokens ? -Infinity : Infinity;
    return (Math.log(edge) - dist.mu) / dist.sigma;
  }
  // A table: the probability at which it reaches the edge, by bisection (it never decreases).
  if (lengthAt(dist, 1) < edge) return Infinity;
  if (lengthAt(dist, 0) >= edge) return -Infinity;
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 50; i++) {
    const mid = (lo + hi) / 2;
    if (lengthAt(dist, mid) >= edge) hi = mid;
    else lo = mid;
  }
  return normalQuantile(hi);
}

/**
 * The share of requests whose prompt plus output exceeds `tokens`, drawn as the replay draws them: each length
 * rounded to whole tokens, the two independent or tied by the workload's correlation (a Gaussian copula).
 */
export function shareLongerThan(lengths: WorkloadLengths, tokens: number): number {
  const { input, output } = lengths;
  const r = lengths.correlation ?? 0;
  const partner = Math.sqrt(Math.max(0, 1 - r * r));
  // P(output > y) given the prompt's normal score z.
  const outputAbove = (y: number, z: number): number => {
    const score = scoreAbove(output, y);
    if (!Number.isFinite(score)) return score < 0 ? 1 : 0;
    if (partner === 0) return r * z >= score ? 1 : 0;
    return 1 - normalCdf((score - r * z) / partner);
  };
  if (input.quantiles === undefined && input.sigma === 0) {
    return outputAbove(tokens - Math.max(1, Math.round(input.mean)), 0);
  }
  let share = 0;
  for (let i = 0; i < CUT_POINTS; i++) {
    const p = (i + 0.5) / CUT_POINTS;
    const prompt = Math.max(1, Math.round(lengthAt(input, p)));
    share += outputAbove(tokens - prompt, normalQuantile(p));
  }
  return share / CUT_POINTS;
}

/**
 * The longest measured row's sequence length below `needed` that is within {@link MEASURED_LENGTH_SNAP} of it and
 * holds at least {@link SNAPPED_LENGTH_FITS} of the requests, with the share it cuts; undefined when none is.
 */
export function snapToMeasuredLength(rows: readonly GenerativeMeasurement[], lengths: WorkloadLengths, needed: number): GenerativeLengthCut | undefined {
  const best = rows
    .map((r) => ({ length: r.sequenceLength ?? r.inputTokens + r.outputTokens, row: r }))
    .filter(({ length }) => length < needed && length * (1 + MEASURED_LENGTH_SNAP) >= needed)
    .sort((a, b) => b.length - a.length)[0];
  if (best === undefined) return undefined;
  const cutShare = shareLongerThan(lengths, best.length);
  if (cutShare > 1 - SNAPPED_LENGTH_FITS) return undefined;
  return { requestedLength: needed, measuredLength: best.length, cutShare: Math.round(cutShare * 1e4) / 1e4, source: best.row.source };
}

/** What a snapped model length tells the reader. */
export function lengthCutWarning(cut: GenerativeLengthCut): string {
  return `max_model_len ${cut.measuredLength}, not the ${cut.requestedLength} the lengths need at p99: a published row was compiled for ` +
    `${cut.measuredLength} tokens, and ${Math.round(cut.cutShare * 1000) / 10} % of the requests of these lengths are longer; their output is ` +
    'cut to fit (the replay, the token proof and bench:generative cut them so). State shorter p99 lengths to keep every request whole.';
}
