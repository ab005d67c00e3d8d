/**
 * The queueing terms of the token planner's replica model (`continuous-batching.ts`), each on the safe side of the
 * replay (`simulate.ts`):
 * - waiting-time distributions on a grid, for TTFT;
 * - the slot-turnover bound on the prefills that can land in one request's decode, for TPOT.
 *
 * Waits. The single-call planner's queueing functions (`lib/planner/queueing.ts`) give one quantile of one queue from
 * two moments. TTFT adds several waits and a prompt's own prefill, and quantiles do not add: the sum of 99.5th
 * percentiles the token planner used before held back up to half of what a replica holds. Here each term is a
 * distribution on a common grid of `delta` seconds, rounded up (so every quantile read off it is on the safe side by
 * at most one cell), and the sum is their convolution.
 */
import { waitQuantileSeconds } from '../planner/queueing';
import type { LengthDistribution } from './types';
import { lengthAt, lengthKey } from './lengths';

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

/**
 * Points of `f(length)` at the middle of each quantile bin of the distribution (lognormal or a file's table),
 * weighted by the bin; one point when every length is the same.
 */
export function lengthPoints(dist: LengthDistribution, f: (tokens: number) => number): PointMasses {
  if (dist.quantiles === undefined && dist.sigma === 0) {
    return { values: [f(dist.mean)], weights: [1] };
  }
  const values: number[] = [];
  const weights: number[] = [];
  BIN_EDGES.forEach((edge, i) => {
    const lower = i === 0 ? 0 : BIN_EDGES[i - 1];
    values.push(f(lengthAt(dist, (lower + edge) / 2)));
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
  // The residual has no mass past the longest service: the recursion reads only that far back.
  let support = cells - 1;
  while (support > 0 && r[support] === 0) {
    support--;
  }
  pmf[0] = 1 - rho;
  for (let n = 1; n < cells; n++) {
    let sum = 0;
    const reach = Math.min(n, support);
    for (let j = 1; j <= reach; j++) {
      sum += r[j] * pmf[n - j];
    }
    pmf[n] = rho * sum;
  }
  return { delta, pmf };
}

/**
 * The sum of `d` and a wait that is 0 with probability `1 - waits`, else exponential with mean `mean`, each of the
 * exponential's cells rounded up (`waits (1 - q) q^(k-1)` in cell k >= 1, q = e^(-delta / mean)). The cells fall
 * geometrically, so the convolution is a running sum: one pass instead of one per cell.
 */
export function plusAtomExponential(d: GridDistribution, waits: number, mean: number): GridDistribution {
  const cells = d.pmf.length;
  const pmf = new Float64Array(cells);
  if (!(waits > 0 && mean > 0)) {
    for (let n = 0; n < cells; n++) {
      pmf[n] = (1 - waits) * d.pmf[n];
    }
    return { delta: d.delta, pmf };
  }
  const q = Math.exp(-d.delta / mean);
  let running = 0;
  for (let n = 0; n < cells; n++) {
    // running = sum over k = 1..n of q^(k-1) d[n - k]
    running = n === 0 ? 0 : d.pmf[n - 1] + q * running;
    pmf[n] = (1 - waits) * d.pmf[n] + waits * (1 - q) * running;
  }
  return { delta: d.delta, pmf };
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

/**
 * The `quantile` wait of a single slot (M/G/1) whose holds are prefill + decode: exact for fixed lengths (Erlang's
 * M/D/1 waiting-time distribution, `P(W <= t) = (1 - rho) sum_{k=0}^{floor(t/D)} (lambda (kD - t))^k / k!
 * e^(-lambda (kD - t))`), the two-moment exponential tail (`waitQuantileSeconds`) when output lengths vary.
 */
export function singleSlotWaitQuantile(lambda: number, hold: number, scv: number, quantile: number): number {
  const rho = lambda * hold;
  if (rho >= 1) {
    return Infinity;
  }
  if (scv > 0 || rho <= 1 - quantile) {
    return scv > 0 ? waitQuantileSeconds(lambda, hold, 1, scv, quantile) : 0;
  }
  const cdf = (t: number): number => {
    let sum = 0;
    let logFactorial = 0;
    for (let k = 0; k <= Math.floor(t / hold); k++) {
      if (k > 0) {
        logFactorial += Math.log(k);
      }
      const x = lambda * (k * hold - t);
      // x <= 0: the terms alternate in sign; (x^k) = sign * e^(k ln|x|).
      const magnitude = k === 0 ? 1 : Math.exp(k * Math.log(-x) - logFactorial);
      sum += (k % 2 === 0 ? 1 : -1) * magnitude * Math.exp(-x);
    }
    return (1 - rho) * sum;
  };
  let high = hold;
  while (cdf(high) < quantile) {
    high += hold;
    if (high > 30 * hold) {
      // Beyond 30 holds the alternating sum loses precision: the two-moment tail, conservative here.
      return waitQuantileSeconds(lambda, hold, 1, 0, quantile);
    }
  }
  let low = 0;
  for (let i = 0; i < 50; i++) {
    const mid = (low + high) / 2;
    if (cdf(mid) < quantile) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return high;
}

/*
 * How many prefills can land in one request's decode, whatever the arrival rate: a bound from slot turnover, for the
 * TPOT tail of `continuous-batching.ts`.
 *
 * A prefill that lands between a request's first and last token admits a sequence into one of the other N - 1 slots.
 * Each other slot admits at most one sequence when its current one ends, and another only after that one, admitted
 * inside the window, has ended too. Output lengths are drawn independently, so with `gap` decode steps in the window
 * a slot admits at most `1 + R` sequences, `P(R >= i) = P(S_i <= gap - 1)`, S_i the decode steps (output - 1) of i
 * fresh sequences, and the first only if the slot is free or its sequence ends within the gap (its remaining steps
 * follow the equilibrium residual of the decode length). With fixed lengths every running sequence ends first and R
 * is 0: at most N - 1 land, exactly. The Poisson count of arrivals, which the TPOT tail also uses, knows nothing of
 * this bound, and at a few slots it is what binds.
 */

/** Output lengths the per-slot renewal count is computed over: midpoints of this many quantiles. */
const RENEWAL_POINTS = 256;

/** Renewals per slot beyond which the count's tail is taken as zero (P(S_i <= gap - 1) below 1e-12). */
const NEGLIGIBLE = 1e-12;

interface RenewalTable {
  /** Per gap: `atLeast[i] = P(S_i <= gap - 1)`, i from 0. */
  readonly atLeast: readonly (readonly number[])[];
  /** Per gap: P(a running sequence's remaining decode steps <= gap - 1), its equilibrium residual. */
  readonly endsWithin: readonly number[];
  /** True when a drawn output can be one token (a sequence that never holds a slot): no bound. */
  readonly unbounded: boolean;
}

/** Memo entries kept before the oldest go: a plan asks for a handful of length and slot combinations. */
const MEMO_LIMIT = 256;

function remember<T>(memo: Map<string, T>, key: string, value: T): T {
  if (memo.size >= MEMO_LIMIT) {
    memo.delete(memo.keys().next().value as string);
  }
  memo.set(key, value);
  return value;
}

const tables = new Map<string, RenewalTable>();

function renewalTable(key: string, dist: LengthDistribution, gaps: readonly number[]): RenewalTable {
  const known = tables.get(key);
  if (known) {
    return known;
  }
  const points = dist.sigma === 0 && dist.quantiles === undefined ? 1 : RENEWAL_POINTS;
  const steps = Array.from({ length: points }, (_, i) =>
    Math.max(1, Math.round(points === 1 ? dist.mean : lengthAt(dist, (i + 0.5) / points))) - 1);
  const longest = Math.max(1, ...gaps);
  const weight = 1 / points;
  const meanSteps = steps.reduce((a, b) => a + b, 0) * weight;
  // cdfs[i][s] = P(S_i <= s) for s < longest.
  const cdfs: Float64Array[] = [new Float64Array(longest).fill(1)];
  const unbounded = Math.min(...steps) === 0;
  let pmf = new Float64Array(longest);
  pmf[0] = 1;
  while (!unbounded) {
    const next = new Float64Array(longest);
    for (let s = 0; s < longest; s++) {
      if (pmf[s] === 0) continue;
      for (const d of steps) {
        if (s + d < longest) next[s + d] += pmf[s] * weight;
      }
    }
    const cdf = new Float64Array(longest);
    let acc = 0;
    for (let s = 0; s < longest; s++) {
      acc += next[s];
      cdf[s] = acc;
    }
    if (acc < NEGLIGIBLE) break;
    cdfs.push(cdf);
    pmf = next;
  }
  // Equilibrium residual of the decode steps: P(Res = r) = P(steps > r) / E[steps], r = 0, 1, ...
  const residualCdf = (r: number) => {
    let sum = 0;
    for (const d of steps) sum += Math.min(d, r + 1) * weight;
    return meanSteps > 0 ? sum / meanSteps : 1;
  };
  return remember(tables, key, {
    atLeast: gaps.map((gap) => cdfs.map((cdf, i) => (i === 0 ? 1 : gap >= 1 ? cdf[Math.min(gap - 1, longest - 1)] : 0))),
    endsWithin: gaps.map((gap) => (gap >= 1 ? residualCdf(gap - 1) : 0)),
    unbounded,
  });
}

/**
 * Per gap, `tails[a][k] = P(C_1 + ... + C_a >= k)` for a = 0 .. slots - 1, where `C = 1 + R` is what one admitting
 * slot takes in: the a-fold sums do not depend on how many slots are free, so they are computed once per lengths and
 * slots, and each rate only weighs them (`slotTurnoverTails`). Probabilities below 1e-15 are dropped.
 */
const admittedTails = new Map<string, readonly (readonly Float64Array[])[]>();

function admittedCountTails(key: string, table: RenewalTable, slots: number): readonly (readonly Float64Array[])[] {
  const known = admittedTails.get(key);
  if (known) {
    return known;
  }
  const byGap = new Map<string, Float64Array[]>();
  return remember(admittedTails, key, table.atLeast.map((atLeast) => {
    const seen = byGap.get(atLeast.join(','));
    if (seen) {
      return seen;
    }
    // count[c] = P(C = c): C = 1 + R, P(R = i) = atLeast[i] - atLeast[i + 1].
    let length = atLeast.length;
    while (length > 1 && atLeast[length - 1] < 1e-15) {
      length--;
    }
    const count = new Float64Array(length + 1);
    for (let i = 0; i < length; i++) {
      count[i + 1] = atLeast[i] - (i + 1 < length ? atLeast[i + 1] : 0);
    }
    const tails: Float64Array[] = [];
    let sum = Float64Array.of(1);
    for (let a = 0; a < slots; a++) {
      const tail = new Float64Array(sum.length + 1);
      for (let k = sum.length - 1; k >= 0; k--) {
        tail[k] = tail[k + 1] + sum[k];
      }
      tails.push(tail);
      if (a + 1 < slots) {
        const out = new Float64Array(sum.length + count.length - 1);
        for (let x = 0; x < sum.length; x++) {
          const p = sum[x];
          if (p < 1e-15) continue;
          for (let y = 1; y < count.length; y++) out[x + y] += p * count[y];
        }
        sum = out;
      }
    }
    byGap.set(atLeast.join(','), tails);
    return tails;
  }));
}

/**
 * For each gap (decode steps between a request's first and last token), `P(T >= k)` as a function of k: 1 at k <= 0,
 * 0 beyond what the other slots can take in. Each other slot is free at the request's first token with probability
 * `free`; a busy one admits only if its sequence ends within the gap (its equilibrium residual). So the admitting
 * slots are binomial and each takes in `1 + R` sequences. Always 1 (no bound) when a drawn output can be a single
 * token.
 */
export function slotTurnoverTails(
  output: LengthDistribution,
  slots: number,
  gaps: readonly number[],
  free: number,
): readonly ((k: number) => number)[] {
  const key = `${lengthKey(output)}|${gaps.join(',')}`;
  const table = renewalTable(key, output, gaps);
  if (table.unbounded) {
    return gaps.map(() => () => 1);
  }
  const sums = admittedCountTails(`${key}|${slots}`, table, slots);
  return gaps.map((_, g) => {
    const admits = free + (1 - free) * table.endsWithin[g];
    // Binomial(slots - 1, admits) weights of how many other slots admit.
    const others = slots - 1;
    const weights = new Float64Array(others + 1);
    let choose = 1;
    for (let a = 0; a <= others; a++) {
      weights[a] = choose * Math.pow(admits, a) * Math.pow(1 - admits, others - a);
      choose = (choose * (others - a)) / (a + 1);
    }
    const tails = sums[g];
    return (k: number) => {
      if (k <= 0) {
        return 1;
      }
      let p = 0;
      for (let a = 1; a <= others; a++) {
        p += weights[a] * (tails[a][k] ?? 0);
      }
      return p;
    };
  });
}
