/**
 * Prompt and output lengths as distributions: what `--input-tokens 1000` means is "about 1000".
 *
 * A length is lognormal with the stated mean and p99. Without a p99 it takes the default spread measured on a public
 * trace of chat traffic (`DEFAULT_LENGTH_SPREAD`); `fixed` asks for every request at the mean (a benchmark's shape,
 * not traffic's). The planner, the replay (`simulateGenerativeReplica`), the token proof and the bench draw from the same
 * distribution, carried in the plan's JSON (`GenerativePlanDetails.lengths`).
 */
import { normal, random } from '../planner/simulate';
import type { GenerativeLengthCut, GenerativeMeasurement, LengthDistribution, LengthSpread, TokenLength, WorkloadLengths } from './types';

export type { LengthDistribution, LengthSpread, WorkloadLengths } from './types';

const TRACE =
  'Azure LLM inference trace 2023, conversation service (Azure/AzurePublicDataset data/AzureLLMInferenceTrace_conv.csv ' +
  '@ b469a113, 19,366 requests of 2023-11-16, described in Patel et al., "Splitwise", ISCA 2024)';

/**
 * The default spread, p99 / mean, measured on the public trace of a chat service: prompts (ContextTokens) mean 1154.7,
 * p50 1020, p99 4142 (3.59 x the mean, coefficient of variation 0.96); outputs (GeneratedTokens) mean 211.1, p50 129,
 * p99 601 (2.85 x, coefficient of variation 0.77). The same trace's code service is wider still (prompts 3.63 x, outputs
 * 9.04 x); chat is the common case and the narrower one, so a workload wider than chat must say its p99.
 */
export const DEFAULT_LENGTH_SPREAD = {
  inputP99OverMean: 3.59,
  outputP99OverMean: 2.85,
  source: TRACE,
} as const;

/** z of the 99th percentile of the standard normal. */
const Z99 = 2.3263478740408408;

/**
 * The lognormal with this mean and p99: its sigma solves `p99 = mean x exp(Z99 x sigma - sigma^2 / 2)` (the smaller
 * root). A p99 at or below the mean is a fixed length.
 */
export function lognormalLength(mean: number, p99: number, spread: LengthSpread, source: string, max?: number): LengthDistribution {
  const cap = max !== undefined ? { max } : {};
  if (!(p99 > mean)) {
    return { spread: 'fixed', mean, p99: mean, mu: Math.log(mean), sigma: 0, scv: 0, ...cap, source };
  }
  const c = Math.log(p99 / mean);
  const disc = Z99 * Z99 - 2 * c;
  const sigma = disc > 0 ? Z99 - Math.sqrt(disc) : Z99;
  return { spread, mean, p99, mu: Math.log(mean) - (sigma * sigma) / 2, sigma, scv: Math.exp(sigma * sigma) - 1, ...cap, source };
}

/**
 * The distribution a stated length means: its p99 when given; otherwise the default spread for its role, or a fixed
 * length when `fixed` is asked for.
 */
export function lengthDistributionOf(length: TokenLength, role: 'input' | 'output', options: { readonly fixed?: boolean; readonly max?: number } = {}): LengthDistribution {
  if (length.p99 !== undefined) {
    return lognormalLength(length.mean, length.p99, 'stated', 'p99 as stated', options.max);
  }
  if (options.fixed === true) {
    return lognormalLength(length.mean, length.mean, 'fixed', 'fixed lengths asked for', options.max);
  }
  const ratio = role === 'input' ? DEFAULT_LENGTH_SPREAD.inputP99OverMean : DEFAULT_LENGTH_SPREAD.outputP99OverMean;
  return lognormalLength(length.mean, Math.ceil(length.mean * ratio), 'default', `default spread (p99 ${ratio} x the mean): ${DEFAULT_LENGTH_SPREAD.source}`, options.max);
}

/** The `q` quantile (0 < q < 1) of the distribution, tokens, rounded up and cut to its cap. */
export function lengthQuantile(dist: LengthDistribution, q: number): number {
  const value = dist.sigma === 0 ? dist.mean : Math.exp(dist.mu + dist.sigma * normalQuantile(q));
  return Math.min(dist.max ?? Infinity, Math.max(1, Math.ceil(value)));
}

/** One length drawn with `next` (uniform on [0, 1)): at least 1, whole, cut to the cap. */
export function sampleLength(dist: LengthDistribution, next: () => number): number {
  const value = dist.sigma === 0 ? dist.mean : Math.exp(dist.mu + dist.sigma * normal(next));
  return Math.min(dist.max ?? Infinity, Math.max(1, Math.round(value)));
}

/** A seeded source of lengths: the same seed draws the same lengths, in the planner's replay and in the proof. */
export function lengthSampler(dist: LengthDistribution, seed: number): () => number {
  const next = random(seed);
  return () => sampleLength(dist, next);
}

/** Draws `count` (input, output) pairs from a workload, seeded. Input and output are drawn independently. */
export function sampleWorkload(lengths: WorkloadLengths, count: number, seed: number): { readonly input: number; readonly output: number }[] {
  const next = random(seed);
  return Array.from({ length: count }, () => ({ input: sampleLength(lengths.input, next), output: sampleLength(lengths.output, next) }));
}

/** The inverse of the standard normal CDF (Acklam's rational approximation, relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) {
    throw new RangeError(`quantile ${p} must be strictly between 0 and 1`);
  }
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low || p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(p < low ? p : 1 - p));
    const x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    return p < low ? x : -x;
  }
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/** The standard normal CDF (Abramowitz and Stegun 7.1.26 for erf, absolute error below 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Quantile midpoints the share of long requests is summed over (prompts). */
const CUT_POINTS = 4000;

/**
 * The share of requests whose prompt plus output (drawn independently, each rounded to whole tokens as
 * `sampleLength` draws them) exceeds `tokens`.
 */
export function shareLongerThan(lengths: WorkloadLengths, tokens: number): number {
  const { input, output } = lengths;
  // P(output > y) for a whole y: the draw rounds, so output > y when the continuous value is at least y + 0.5.
  const outputAbove = (y: number) => {
    if (y < 1) return 1;
    if (output.sigma === 0) return Math.max(1, Math.round(output.mean)) > y ? 1 : 0;
    return 1 - normalCdf((Math.log(y + 0.5) - output.mu) / output.sigma);
  };
  if (input.sigma === 0) {
    return outputAbove(tokens - Math.max(1, Math.round(input.mean)));
  }
  let share = 0;
  for (let i = 0; i < CUT_POINTS; i++) {
    const prompt = Math.max(1, Math.round(Math.exp(input.mu + input.sigma * normalQuantile((i + 0.5) / CUT_POINTS))));
    share += outputAbove(tokens - prompt);
  }
  return share / CUT_POINTS;
}

/**
 * How far below p99 input + p99 output a measured row's sequence length may be and still plan it: 10 %. The sum of two
 * p99s is itself beyond the 99th percentile of the sum, so a row compiled a little shorter often still holds 99 % of
 * the requests (the README's 1,024/256-token default spread needs 4,407; 0.4 % of its requests pass the 8B rows' 4,096).
 */
export const MEASURED_LENGTH_SNAP = 0.1;

/** The share of requests that must fit a snapped model length. */
export const SNAPPED_LENGTH_FITS = 0.99;

/**
 * The longest measured row's sequence length below `needed` (p99 input + p99 output) that is within
 * `MEASURED_LENGTH_SNAP` of it and holds at least `SNAPPED_LENGTH_FITS` of the requests, with the share it cuts; undefined
 * when none is. A row compiled for that length then plans, and longer requests are cut to it.
 */
export function snapToMeasuredLength(rows: readonly GenerativeMeasurement[], lengths: WorkloadLengths, needed: number): GenerativeLengthCut | undefined {
  const candidates = rows
    .map((r) => ({ length: r.sequenceLength ?? r.inputTokens + r.outputTokens, row: r }))
    .filter(({ length }) => length < needed && length * (1 + MEASURED_LENGTH_SNAP) >= needed)
    .sort((a, b) => b.length - a.length);
  const best = candidates[0];
  if (best === undefined) return undefined;
  const cutShare = shareLongerThan(lengths, best.length);
  if (cutShare > 1 - SNAPPED_LENGTH_FITS) return undefined;
  return { requestedLength: needed, measuredLength: best.length, cutShare: Math.round(cutShare * 1e4) / 1e4, source: best.row.source };
}

/**
 * The workload's distributions: each length's as `lengthDistributionOf` reads it. Where a default spread would
 * reach past the model's context (p99 input + p99 output above `maxContextTokens`), the prompt's default p99 is cut so
 * the two fit: no request can be longer than the context, and the plan says so in the source.
 */
export function workloadLengths(
  targets: { readonly inputTokens: TokenLength; readonly outputTokens: TokenLength; readonly fixedLengths?: boolean },
  maxContextTokens?: number,
): WorkloadLengths {
  const fixed = targets.fixedLengths === true;
  const output = lengthDistributionOf(targets.outputTokens, 'output', { fixed });
  let input = lengthDistributionOf(targets.inputTokens, 'input', { fixed });
  if (maxContextTokens !== undefined && input.spread === 'default' && input.p99 + output.p99 > maxContextTokens) {
    const p99 = Math.max(input.mean, maxContextTokens - output.p99);
    input = lognormalLength(input.mean, p99, p99 > input.mean ? 'default' : 'fixed', `${input.source}; p99 cut to ${p99} to fit the model's context of ${maxContextTokens} tokens`);
  }
  return { input, output };
}

/**
 * A lognormal length distribution with the given mean and p99 (a fixed length when the p99 is absent or equal to
 * the mean); {@link lognormalLength} draws it.
 */
export function lengthDistribution(length: TokenLength): { readonly mu: number; readonly sigma: number; readonly scv: number } {
  return lognormalLength(length.mean, length.p99 ?? length.mean, 'stated', 'p99 as stated');
}
