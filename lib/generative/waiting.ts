/**
 * Waiting-time distributions on a grid, for the token planner's TTFT (`continuous-batching.ts`).
 *
 * The single-call planner's queueing functions (`lib/planner/queueing.ts`) give one quantile of one queue from two
 * moments. TTFT adds several waits and a prompt's own prefill, and quantiles do not add: the sum of 99.5th
 * percentiles the token planner used before held back up to half of what a replica holds. Here each term is a
 * distribution on a common grid of `delta` seconds, rounded up (so every quantile read off it is on the safe side by
 * at most one cell), and the sum is their convolution.
 */

/** A distribution on the grid `0, delta, 2 delta, ...`: `pmf[k]` is P(X = k delta); mass beyond the grid is missing. */
export interface GridDistribution {
  readonly delta: number;
  readonly pmf: Float64Array;
}

/** Point masses: `values[i]` seconds with weight `weights[i]` (weights sum to 1). */
export interface PointMasses {
  readonly values: readonly number[];
  readonly weights: readonly number[];
}

/**
 * Upper edges of the quantile bins length distributions are cut into: 0.1 % wide up to 4 % and from 96 %, 2 % wide
 * between. The TTFT p99 falls in the prompts' own upper tail when few requests wait, and the TPOT p99 in the
 * shortest outputs, so both tails are cut finely.
 */
const BIN_EDGES = [
  ...Array.from({ length: 39 }, (_, i) => (i + 1) * 0.001),
  ...Array.from({ length: 47 }, (_, i) => 0.04 + i * 0.02),
  ...Array.from({ length: 40 }, (_, i) => 0.961 + i * 0.001),
];

/** Points of `f(x)` at the middle of each quantile bin of a standard normal x, weighted by the bin (one when fixed). */
export function quantilePoints(sigma: number, f: (z: number) => number, normalQuantile: (p: number) => number): PointMasses {
  if (sigma === 0) {
    return { values: [f(0)], weights: [1] };
  }
  const values: number[] = [];
  const weights: number[] = [];
  BIN_EDGES.forEach((edge, i) => {
    const lower = i === 0 ? 0 : BIN_EDGES[i - 1];
    values.push(f(normalQuantile((lower + edge) / 2)));
    weights.push(edge - lower);
  });
  return { values, weights };
}

/** The point masses on the grid, each rounded up to the next cell. */
export function onGrid(points: PointMasses, delta: number, cells: number): GridDistribution {
  const pmf = new Float64Array(cells);
  points.values.forEach((v, i) => {
    const k = Math.ceil(v / delta - 1e-9);
    if (k < cells) {
      pmf[Math.max(0, k)] += points.weights[i];
    }
  });
  return { delta, pmf };
}

/**
 * The waiting time of an M/G/1 first-come-first-served queue with Poisson arrivals at `lambda` and services `service`:
 * the Pollaczek-Khinchine (Benes) form `W = R_1 + ... + R_K`, K geometric with P(K = k) = (1 - rho) rho^k and R the
 * equilibrium residual service (density P(S > t) / E[S]), solved on the grid by
 * `w_n = (1 - rho) [n = 0] + rho sum_{j>=1} r_j w_{n-j}`. Each residual cell's mass sits at its upper end.
 * Undefined when rho >= 1.
 */
export function mg1Wait(lambda: number, service: PointMasses, delta: number, cells: number): GridDistribution | undefined {
  const mean = service.values.reduce((sum, v, i) => sum + v * service.weights[i], 0);
  const rho = lambda * mean;
  if (rho >= 1) {
    return undefined;
  }
  const pmf = new Float64Array(cells);
  if (rho <= 0 || mean <= 0) {
    pmf[0] = 1;
    return { delta, pmf };
  }
  // Residual mass of cell [k delta, (k + 1) delta) = integral of P(S > t) over it / E[S], put at index k + 1.
  const full = new Float64Array(cells + 1);
  const r = new Float64Array(cells);
  service.values.forEach((v, i) => {
    const whole = Math.floor(v / delta);
    const w = service.weights[i];
    full[0] += w * delta;
    if (whole < cells) {
      full[whole] -= w * delta;
      if (whole + 1 < cells) {
        r[whole + 1] += (w * (v - whole * delta)) / mean;
      }
    }
  });
  let running = 0;
  for (let k = 0; k + 1 < cells; k++) {
    running += full[k];
    r[k + 1] += running / mean;
  }
  pmf[0] = 1 - rho;
  for (let n = 1; n < cells; n++) {
    let sum = 0;
    for (let j = 1; j <= n; j++) {
      sum += r[j] * pmf[n - j];
    }
    pmf[n] = rho * sum;
  }
  return { delta, pmf };
}

/** The wait `0` with probability `1 - waits`, else exponential with mean `mean`, on the grid (cells rounded up). */
export function atomPlusExponential(waits: number, mean: number, delta: number, cells: number): GridDistribution {
  const pmf = new Float64Array(cells);
  pmf[0] = 1 - waits;
  if (waits > 0 && mean > 0) {
    for (let k = 1; k < cells; k++) {
      pmf[k] = waits * (Math.exp(-((k - 1) * delta) / mean) - Math.exp(-(k * delta) / mean));
    }
  }
  return { delta, pmf };
}

/** The distribution of the sum of two independent distributions on the same grid, cut to the grid. */
export function convolve(a: GridDistribution, b: GridDistribution): GridDistribution {
  const cells = a.pmf.length;
  const pmf = new Float64Array(cells);
  for (let i = 0; i < cells; i++) {
    const ai = a.pmf[i];
    if (ai === 0) {
      continue;
    }
    for (let j = 0; i + j < cells; j++) {
      pmf[i + j] += ai * b.pmf[j];
    }
  }
  return { delta: a.delta, pmf };
}

/** The smallest grid value x with P(X <= x) >= quantile; Infinity when the grid's mass does not reach it. */
export function gridQuantile(d: GridDistribution, quantile: number): number {
  let cdf = 0;
  for (let k = 0; k < d.pmf.length; k++) {
    cdf += d.pmf[k];
    if (cdf >= quantile - 1e-12) {
      return k * d.delta;
    }
  }
  return Infinity;
}
