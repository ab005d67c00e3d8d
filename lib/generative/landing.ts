/**
 * What lands in a request's decode: how many prefills (a generalized Poisson count of arrivals over a period that each
 * arrival's own work lengthens) and how long they take together (sums of the prompts' prefill times), for the TPOT
 * tail of `continuous-batching.ts`.
 */
import { onGrid } from './queueing';
import type { PointMasses } from './queueing';
import type { EngineTiming } from './types';

/** Landing prefills whose sum's distribution the TPOT tail computes; beyond, it counts them (`tpotQuantileSeconds`). */
export const SUMMED_PREFILLS = 32;

/** Grid cells per mean prefill time the sums are computed on (each term rounded up: at most 1/32 long). */
const CELLS_PER_MEAN_PREFILL = 32;

/** The distributions of sums of 1..SUMMED_PREFILLS prefill times, built as far as asked. */
export interface PrefillSums {
  /** P(S_j > seconds), S_j the sum of j independent prompts' prefill times (rounded up to the grid: on the long side). */
  exceeds(j: number, seconds: number): number;
  /** `out[j - 1] = exceeds(j, seconds)` for j = 1..`count`: one grid lookup for all j (the TPOT tail's inner loop). */
  exceedsEach(seconds: number, count: number, out: Float64Array): void;
}

const prefillSumsMemo = new WeakMap<EngineTiming, Map<string, PrefillSums | undefined>>();

/**
 * The sums of a timing's prompts' prefill times (`prefills`, with their mean), kept per timing and `key` (the
 * lengths); undefined when every prompt takes the same prefill time.
 */
export function prefillSums(timing: EngineTiming, key: string, prefills: PointMasses, prefillMean: number): PrefillSums | undefined {
  let byLengths = prefillSumsMemo.get(timing);
  if (byLengths?.has(key)) {
    return byLengths.get(key);
  }
  let built: PrefillSums | undefined;
  if (new Set(prefills.values).size > 1 && prefillMean > 0) {
    const delta = prefillMean / CELLS_PER_MEAN_PREFILL;
    const one = onGrid(prefills, delta, Math.ceil(Math.max(...prefills.values) / delta) + 2).pmf;
    // tails[j - 1][c] = P(S_j > c delta) on the grid.
    const tails: Float64Array[] = [];
    let pmf = one;
    // P(S > c delta) = the mass of the cells above c.
    const tailOf = (d: Float64Array) => {
      const t = new Float64Array(d.length);
      let above = 0;
      for (let c = d.length - 1; c >= 0; c--) {
        t[c] = above;
        above += d[c];
      }
      return t;
    };
    // The sums' tails up to S_j, each convolved from the last as far as asked.
    const buildTo = (j: number) => {
      while (tails.length < j) {
        if (tails.length > 0) {
          const next = new Float64Array(pmf.length + one.length - 1);
          for (let a = 0; a < pmf.length; a++) {
            const pa = pmf[a];
            if (pa < 1e-16) continue;
            for (let b = 0; b < one.length; b++) next[a + b] += pa * one[b];
          }
          pmf = next;
        }
        tails.push(tailOf(pmf));
      }
    };
    const cellOf = (seconds: number) => Math.floor(seconds / delta + 1e-9);
    const read = (t: Float64Array, c: number) => (c < 0 ? 1 : c < t.length ? t[c] : 0);
    built = {
      exceeds(j, seconds) {
        buildTo(j);
        return read(tails[j - 1], cellOf(seconds));
      },
      exceedsEach(seconds, count, out) {
        buildTo(count);
        const c = cellOf(seconds);
        for (let j = 1; j <= count; j++) {
          out[j - 1] = read(tails[j - 1], c);
        }
      },
    };
  }
  if (!byLengths) {
    byLengths = new Map();
    prefillSumsMemo.set(timing, byLengths);
  }
  byLengths.set(key, built);
  return built;
}

/**
 * P(J >= k) for J generalized-Poisson (Consul): `P(J = j) = theta (theta + j eta)^(j-1) e^-(theta + j eta) / j!`, the
 * number of arrivals in a period that starts as `theta / lambda` seconds and grows by each arrival's own work of
 * `eta / lambda` seconds (arrivals during arrivals' prefills also count).
 */
export function generalizedPoissonTail(theta: number, eta: number, k: number): number {
  return generalizedPoissonTails(theta, eta)(k);
}

/** ln P(J = j), j >= 1, given ln j! (`logFactorial`): the generalized Poisson term every sum here adds. */
function logTerm(theta: number, eta: number, j: number, logFactorial: number): number {
  return Math.log(theta) + (j - 1) * Math.log(theta + j * eta) - theta - j * eta - logFactorial;
}

/**
 * `generalizedPoissonTail(theta, eta, k)` as a function of k, its terms summed once and kept: the TPOT search asks
 * for many k of the same count.
 */
export function generalizedPoissonTails(theta: number, eta: number): (k: number) => number {
  if (theta <= 0) {
    return (k) => (k <= 0 ? 1 : 0);
  }
  const mean = theta / Math.max(1e-9, 1 - eta);
  // tails[k] = P(J >= k), filled as far as asked; past the last term that matters it is 0.
  const tails = [1, 1 - Math.exp(-theta)];
  let cdf = Math.exp(-theta);
  let logFactorial = 0;
  let done = false;
  return (k) => {
    if (k <= 0) {
      return 1;
    }
    while (!done && tails.length <= k) {
      const j = tails.length - 1;
      logFactorial += Math.log(j);
      const term = Math.exp(logTerm(theta, eta, j, logFactorial));
      cdf += term;
      if (j > mean && term < 1e-15) {
        done = true;
        break;
      }
      tails.push(Math.max(0, 1 - cdf));
    }
    return k < tails.length ? tails[k] : 0;
  };
}

/** E[J - k + 1 | J >= k] for J generalized-Poisson (`generalizedPoissonTail`); 1 when P(J >= k) is negligible. */
export function generalizedPoissonExcess(theta: number, eta: number, k: number): number {
  if (theta <= 0) {
    return 1;
  }
  const mean = theta / Math.max(1e-9, 1 - eta);
  let mass = 0;
  let excess = 0;
  let logFactorial = 0;
  for (let j = 1; j < 100000; j++) {
    logFactorial += Math.log(j);
    if (j < k) {
      continue;
    }
    const term = Math.exp(logTerm(theta, eta, j, logFactorial));
    mass += term;
    excess += term * (j - k + 1);
    if (j > mean && term < 1e-15) {
      break;
    }
  }
  return mass < 1e-12 ? 1 : excess / mass;
}
