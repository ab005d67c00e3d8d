/**
 * Prompt and output lengths as distributions: what `--input-tokens 1000` means is "about 1000".
 *
 * A length is lognormal with the stated mean and p99. Without a p99 it takes the spread its workload preset measured
 * on a public trace (`workloads.ts`: chat by default, `DEFAULT_LENGTH_SPREAD`); `fixed` asks for every request at the
 * mean (a benchmark's shape, not traffic's). Lengths read from the user's own traffic (`plan --lengths-from`) are
 * the file's own distribution, `empirical`: its quantile table, not a lognormal. The planner, the replay
 * (`simulateGenerativeReplica`), the token proof and the bench draw from the same distribution, carried in the plan's
 * JSON (`GenerativePlanDetails.lengths`).
 */
import { normal, random } from '../planner/simulate';
import { quantileAt } from '../traffic/quantiles';
import type { CountSummary, TrafficSummary } from '../traffic/types';
import type { GenerativeTargets, LengthDistribution, LengthSpread, TokenLength, WorkloadLengths } from './types';
import { presetSpread, WORKLOAD_PRESETS } from './workloads';
import type { WorkloadPresetName } from './workloads';

export type { LengthDistribution, LengthSpread, WorkloadLengths } from './types';

/**
 * The default spread, p99 / mean, measured on the public trace of a chat service (the `chat` preset): prompts
 * (ContextTokens) mean 1154.7, p50 1020, p99 4142 (3.59 x the mean, coefficient of variation 0.96); outputs
 * (GeneratedTokens) mean 211.1, p50 129, p99 601 (2.85 x, coefficient of variation 0.77). The same trace's code
 * service is wider still (prompts 3.63 x, outputs 9.03 x: `--workload code`).
 */
export const DEFAULT_LENGTH_SPREAD = {
  ...presetSpread(WORKLOAD_PRESETS.chat),
  source: WORKLOAD_PRESETS.chat.trace,
} as const;

/** z of the 99th percentile of the standard normal. */
const Z99 = 2.3263478740408408;

/**
 * The longest p99 a lognormal holds, as a multiple of its mean: `p99 / mean = exp(Z99 sigma - sigma^2 / 2)` is largest
 * at sigma = Z99, where it is exp(Z99^2 / 2) = 14.97. A wider spread than that is no lognormal's: more sigma moves
 * the mass past the p99, and the p99 falls back towards the mean.
 */
export const MAX_LOGNORMAL_P99_OVER_MEAN = Math.exp((Z99 * Z99) / 2);

/**
 * The lognormal with this mean and p99: its sigma solves `p99 = mean x exp(Z99 x sigma - sigma^2 / 2)` (the smaller
 * root). A p99 at or below the mean is a fixed length.
 *
 * @throws RangeError when the p99 is more than {@link MAX_LOGNORMAL_P99_OVER_MEAN} times the mean: no lognormal has it
 */
export function lognormalLength(mean: number, p99: number, spread: LengthSpread, source: string, max?: number): LengthDistribution {
  const cap = max !== undefined ? { max } : {};
  if (!(p99 > mean)) {
    return { spread: 'fixed', mean, p99: mean, mu: Math.log(mean), sigma: 0, scv: 0, ...cap, source };
  }
  const { mu, sigma } = lognormalFit(mean, p99);
  return { spread, mean, p99, mu, sigma, scv: Math.exp(sigma * sigma) - 1, ...cap, source };
}

function lognormalFit(mean: number, p99: number): { readonly mu: number; readonly sigma: number } {
  const c = Math.log(p99 / mean);
  const disc = Z99 * Z99 - 2 * c;
  if (disc < -1e-12) {
    throw new RangeError(
      `a p99 of ${p99} is ${(p99 / mean).toFixed(1)} x the mean ${mean}; no lognormal has a p99 above ` +
        `${MAX_LOGNORMAL_P99_OVER_MEAN.toFixed(2)} x its mean`,
    );
  }
  const sigma = Z99 - Math.sqrt(Math.max(0, disc));
  return { mu: Math.log(mean) - (sigma * sigma) / 2, sigma };
}

/**
 * The distribution a stated length means: its p99 when given; otherwise the workload's spread for its role, or a
 * fixed length when `fixed` is asked for.
 */
export function lengthDistributionOf(
  length: TokenLength,
  role: 'input' | 'output',
  options: { readonly fixed?: boolean; readonly max?: number; readonly workload?: WorkloadPresetName } = {},
): LengthDistribution {
  if (length.p99 !== undefined) {
    return lognormalLength(length.mean, length.p99, 'stated', 'p99 as stated', options.max);
  }
  if (options.fixed === true) {
    return lognormalLength(length.mean, length.mean, 'fixed', 'fixed lengths asked for', options.max);
  }
  const preset = WORKLOAD_PRESETS[options.workload ?? 'chat'];
  const spread = presetSpread(preset);
  const ratio = role === 'input' ? spread.inputP99OverMean : spread.outputP99OverMean;
  const name = preset.name === 'chat' ? 'default spread' : `${preset.name} workload spread`;
  return lognormalLength(length.mean, Math.ceil(length.mean * ratio), 'default', `${name} (p99 ${ratio} x the mean): ${preset.trace}`, options.max);
}

/**
 * A file's own distribution of one length: its quantile table, mean, p99 and SCV as measured. `mu` and `sigma` are the
 * lognormal of the same mean and p99 (at most {@link MAX_LOGNORMAL_P99_OVER_MEAN} wide), for a reader that knows no
 * table; everything here draws from the table.
 */
export function empiricalLength(count: CountSummary, source: string, max?: number): LengthDistribution {
  const mean = Math.max(1, count.mean);
  const fit = count.p99 > mean ? lognormalFit(mean, Math.min(count.p99, mean * MAX_LOGNORMAL_P99_OVER_MEAN)) : { mu: Math.log(mean), sigma: 0 };
  return {
    spread: 'empirical',
    mean,
    p99: count.p99,
    ...fit,
    scv: count.scv,
    ...(max !== undefined ? { max } : {}),
    quantiles: count.quantiles,
    source,
  };
}

/**
 * The prompt and output distributions of a traffic file, with their correlation: the rank correlation of the rows,
 * as a Gaussian copula's (r = 2 sin(pi rho / 6)), so a drawn long prompt comes with an output as long as the file's
 * do.
 *
 * @throws RangeError when the summary has no lengths (a file of timestamps only)
 */
export function lengthsFromTraffic(traffic: TrafficSummary): WorkloadLengths {
  if (traffic.input === undefined || traffic.output === undefined || traffic.total === undefined) {
    throw new RangeError(`${traffic.file} has no token counts`);
  }
  const rho = traffic.rankCorrelation ?? 0;
  const correlation = Math.round(2 * Math.sin((Math.PI * rho) / 6) * 1000) / 1000;
  return {
    input: empiricalLength(traffic.input, traffic.source),
    output: empiricalLength(traffic.output, traffic.source),
    ...(correlation !== 0 ? { correlation } : {}),
    totalP99: traffic.total.p99,
  };
}

/** The distribution's value at probability `p` (0 < p < 1), unrounded. */
export function lengthAt(dist: LengthDistribution, p: number): number {
  if (dist.quantiles !== undefined) {
    return quantileAt(dist.quantiles, p);
  }
  return dist.sigma === 0 ? dist.mean : Math.exp(dist.mu + dist.sigma * normalQuantile(p));
}

/** The `q` quantile (0 < q < 1) of the distribution, tokens, rounded up and cut to its cap. */
export function lengthQuantile(dist: LengthDistribution, q: number): number {
  return Math.min(dist.max ?? Infinity, Math.max(1, Math.ceil(lengthAt(dist, q))));
}

/** One length drawn with `next` (uniform on [0, 1)): at least 1, whole, cut to the cap. */
export function sampleLength(dist: LengthDistribution, next: () => number): number {
  const value = dist.quantiles !== undefined ? quantileAt(dist.quantiles, next()) : dist.sigma === 0 ? dist.mean : Math.exp(dist.mu + dist.sigma * normal(next));
  return Math.min(dist.max ?? Infinity, Math.max(1, Math.round(value)));
}

/** A seeded source of lengths: the same seed draws the same lengths, in the planner's replay and in the proof. */
export function lengthSampler(dist: LengthDistribution, seed: number): () => number {
  const next = random(seed);
  return () => sampleLength(dist, next);
}

/**
 * A source of (input, output) pairs from a workload, drawing from `next`. Input and output are independent unless the
 * workload states a correlation; then both come from correlated normals (a Gaussian copula), each through its own
 * distribution.
 */
export function workloadSampler(lengths: WorkloadLengths, next: () => number): () => { readonly input: number; readonly output: number } {
  const r = lengths.correlation ?? 0;
  if (r === 0) {
    return () => ({ input: sampleLength(lengths.input, next), output: sampleLength(lengths.output, next) });
  }
  const through = (dist: LengthDistribution, z: number): number => {
    const value = dist.quantiles !== undefined ? quantileAt(dist.quantiles, normalCdf(z)) : dist.sigma === 0 ? dist.mean : Math.exp(dist.mu + dist.sigma * z);
    return Math.min(dist.max ?? Infinity, Math.max(1, Math.round(value)));
  };
  const partner = Math.sqrt(1 - r * r);
  return () => {
    const z1 = normal(next);
    const z2 = r * z1 + partner * normal(next);
    return { input: through(lengths.input, z1), output: through(lengths.output, z2) };
  };
}

/** Draws `count` (input, output) pairs from a workload, seeded (`workloadSampler`). */
export function sampleWorkload(lengths: WorkloadLengths, count: number, seed: number): { readonly input: number; readonly output: number }[] {
  const draw = workloadSampler(lengths, random(seed));
  return Array.from({ length: count }, draw);
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

/**
 * The standard normal CDF, `erfc(-z / sqrt 2) / 2` (the Numerical Recipes `erfcc` Chebyshev fit, fractional error
 * below 1.2e-7).
 */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const erfc = t * Math.exp(-x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807
    + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return z >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/**
 * The workload's distributions: given whole (`targets.lengths`, a file's), or each length's as `lengthDistributionOf`
 * reads it with the workload's spread. Where a default spread would reach past the model's context (p99 input + p99
 * output above `maxContextTokens`), the prompt's default p99 is cut so the two fit: no request can be longer than the
 * context, and the plan says so in the source.
 */
export function workloadLengths(
  targets: Pick<GenerativeTargets, 'inputTokens' | 'outputTokens' | 'fixedLengths' | 'lengths' | 'workload'>,
  maxContextTokens?: number,
): WorkloadLengths {
  if (targets.lengths !== undefined) {
    return targets.lengths;
  }
  const options = { fixed: targets.fixedLengths === true, workload: targets.workload };
  const output = lengthDistributionOf(targets.outputTokens, 'output', options);
  let input = lengthDistributionOf(targets.inputTokens, 'input', options);
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
export function lengthDistribution(length: TokenLength): LengthDistribution {
  return lognormalLength(length.mean, length.p99 ?? length.mean, 'stated', 'p99 as stated');
}

/**
 * The distributions the model and the replay work with: the workload's own (`lengths`, as the planner resolves them),
 * else lognormal with the stated means and p99s.
 */
export function distributionsOf(targets: Pick<GenerativeTargets, 'inputTokens' | 'outputTokens' | 'lengths'>): WorkloadLengths {
  return targets.lengths ?? { input: lengthDistribution(targets.inputTokens), output: lengthDistribution(targets.outputTokens) };
}

const keys = new WeakMap<LengthDistribution, string>();

/** A key naming the distribution's shape, for the model's memos: equal keys, equal draws. */
export function lengthKey(dist: LengthDistribution): string {
  let key = keys.get(dist);
  if (key === undefined) {
    key = dist.quantiles !== undefined ? `e|${dist.quantiles.join(',')}` : `l|${dist.mean}|${dist.sigma}`;
    keys.set(dist, key);
  }
  return key;
}
