/**
 * Arrivals burstier than Poisson in the continuous-batching model (`continuous-batching.ts`): how each of its queueing
 * terms scales with the squared coefficient of variation of the gaps between requests (`ca2`, 1 for Poisson).
 *
 * - Waits (the prefill queue, the wait for a slot) scale as in the GI/G/1 and GI/G/c approximations of Kingman and of
 *   Allen and Cunneen: by `(ca2 + cs2) / (1 + cs2)` against the Poisson queue of the same services (cs2 their SCV).
 *   The prefill queue's exact M/G/1 waiting-time distribution is stretched by that factor; the slot wait's
 *   exponential tail has its mean scaled by it (the single-call planner's `waitQuantileSeconds` does the same).
 * - Counts (the sequences holding a slot, the prefills landing in one request's decode) are arrivals over a window
 *   longer than a few gaps, whose variance over mean (index of dispersion) tends to ca2 for a renewal process: the
 *   generalized Poisson count keeps its mean and has its index of dispersion multiplied by ca2.
 * - Those are heavy-traffic figures. At low load bursts still cluster: a request follows another closer than a
 *   prefill far more often than Poisson's `lambda x prefill` (with gamma gaps of shape below 1, in proportion to a
 *   power of the rate below 1). So each term also takes the renewal process's own figure and keeps the larger: the
 *   wait behind the requests just before it (`withClusteredArrivals`), and the count of arrivals within a window
 *   after one (`burstyCountTails`). Both ask how soon the n-th arrival after one comes (`Burstiness.within`): from the
 *   file's own gaps when the arrivals carry them, else from gamma-distributed gaps of the workload's SCV (what
 *   `vllm bench serve --burstiness` draws). The two differ a lot at one SCV: gamma gaps of shape below 1 crowd near
 *   zero, while real bursts (on and off) are closer to a two-phase hyperexponential.
 *
 * Arrivals more regular than Poisson (ca2 below 1) are planned as Poisson: a plan does not count on traffic staying
 * as regular as one file showed. `npm run bench:traffic` holds the result against the replay driven by the same
 * bursty arrivals (`simulateGenerativeReplica` with `arrivals`).
 */
import { random } from '../planner/simulate';
import { quantileAt, tableMean, tableScv } from '../traffic/quantiles';
import { normalCdf } from './lengths';
import { renewalWithin } from '../traffic/renewal';
import { generalizedPoissonTails } from './landing';
import type { GridDistribution, PointMasses } from './queueing';
import type { GenerativeTargets } from './types';

/** The gaps' SCV the model plans with: the workload's, at least 1 (Poisson). */
export function plannedArrivalScv(targets: Pick<GenerativeTargets, 'arrivals'>): number {
  return Math.max(1, targets.arrivals?.scv ?? 1);
}

/** How bursty the workload's arrivals are, as the model asks it. */
export interface Burstiness {
  /** The gaps' SCV planned with (at least 1). */
  readonly ca2: number;
  /**
   * What the generalized Poisson counts' index of dispersion is multiplied by: ca2 where the gaps' shape is assumed
   * (gamma), 1 where the file's own gaps give the renewal counts (`within`) that the larger of the two then takes.
   */
  readonly dispersion: number;
  /** P(the `n`-th arrival after a given one comes within `seconds`) at `lambda` arrivals per second. */
  within(n: number, lambda: number, seconds: number): number;
}

/** The workload's burstiness: its file's gaps when it has them, gamma gaps of its SCV otherwise, Poisson without. */
export function burstinessOf(targets: Pick<GenerativeTargets, 'arrivals'>): Burstiness {
  const ca2 = plannedArrivalScv(targets);
  const table = targets.arrivals?.gapQuantiles;
  if (ca2 > 1 && table !== undefined) {
    const sums = gapSums(table);
    return { ca2, dispersion: 1, within: (n, lambda, seconds) => (n <= 0 ? 1 : !(seconds > 0 && lambda > 0) ? 0 : sums(n)(lambda * seconds)) };
  }
  return { ca2, dispersion: ca2, within: (n, lambda, seconds) => renewalWithin(n, lambda, seconds, ca2) };
}

/** Sums of n gaps drawn from a table, per n: sorted samples. */
const SUM_SAMPLES = 4096;

/** Gaps summed by sampling; a longer sum is taken as normal (its mean n, its variance n x SCV). */
const SAMPLED_SUMS = 32;
const sumsMemo = new WeakMap<readonly number[], Map<number, (gaps: number) => number>>();

/**
 * The distribution functions of sums of n gaps (in mean gaps) drawn from a table of gaps, each estimated from
 * {@link SUM_SAMPLES} sums of Latin hypercube draws (each gap one of the table's stratified values, shuffled apart, seeded): a
 * probability of 1 % is read to about 15 % of itself. Sums of more than {@link SAMPLED_SUMS} gaps are taken as
 * normal. Built once per table and n.
 */
function gapSums(table: readonly number[]): (n: number) => (gaps: number) => number {
  let byN = sumsMemo.get(table);
  if (byN === undefined) {
    byN = new Map();
    sumsMemo.set(table, byN);
  }
  const known = byN;
  const mean = tableMean(table);
  const scv = tableScv(table);
  // The table's gaps at SUM_SAMPLES stratified probabilities, in mean gaps: each sum adds one of them per gap.
  const strata = Float64Array.from({ length: SUM_SAMPLES }, (_, i) => quantileAt(table, (i + 0.5) / SUM_SAMPLES) / mean);
  return (n) => {
    let cdf = known.get(n);
    if (cdf === undefined && n > SAMPLED_SUMS) {
      const sd = Math.sqrt(n * scv);
      cdf = (gaps) => normalCdf((gaps - n) / sd);
      known.set(n, cdf);
    }
    if (cdf === undefined) {
      const next = random(1000 + n);
      const sums = new Float64Array(SUM_SAMPLES);
      const order = Uint32Array.from({ length: SUM_SAMPLES }, (_, i) => i);
      for (let j = 0; j < n; j++) {
        for (let i = SUM_SAMPLES - 1; i > 0; i--) {
          const k = Math.floor(next() * (i + 1));
          const swap = order[i];
          order[i] = order[k];
          order[k] = swap;
        }
        for (let i = 0; i < SUM_SAMPLES; i++) {
          sums[i] += strata[order[i]];
        }
      }
      sums.sort();
      cdf = (gaps) => {
        let lo = 0;
        let hi = SUM_SAMPLES;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (sums[mid] <= gaps) lo = mid + 1;
          else hi = mid;
        }
        return lo / SUM_SAMPLES;
      };
      known.set(n, cdf);
    }
    return cdf;
  };
}

/** Kingman's factor: a queue's waits at arrivals of SCV `ca2` over its waits at Poisson arrivals, services of SCV `cs2`. */
export function waitScale(ca2: number, cs2: number): number {
  return (ca2 + cs2) / (1 + cs2);
}

/**
 * The distribution of `factor x W` for W on the grid, on the same grid, each cell's mass moved up to the cell its
 * stretched value falls in (so quantiles read off it stay on the safe side). The identity at factor 1.
 */
export function stretched(d: GridDistribution, factor: number): GridDistribution {
  if (factor === 1) {
    return d;
  }
  const cells = d.pmf.length;
  const pmf = new Float64Array(cells);
  for (let k = 0; k < cells; k++) {
    const mass = d.pmf[k];
    if (mass === 0) continue;
    const target = Math.ceil(k * factor - 1e-9);
    // Mass stretched past the grid's end is lost, as the grid loses any mass beyond it: a quantile there reads Infinity.
    if (target < cells) {
      pmf[target] += mass;
    }
  }
  return { delta: d.delta, pmf };
}

/**
 * A generalized Poisson count's parameters (`theta`, `eta`: mean `theta / (1 - eta)`, index of dispersion
 * `1 / (1 - eta)^2`) with the same mean and its index of dispersion multiplied by `ca2`: `1 - eta'` is
 * `(1 - eta) / sqrt(ca2)` and `theta'` is `theta / sqrt(ca2)`. Unchanged at ca2 1.
 */
export function overdispersed(theta: number, eta: number, ca2: number): readonly [number, number] {
  if (ca2 <= 1) {
    return [theta, eta];
  }
  const c = Math.sqrt(ca2);
  return [theta / c, 1 - (1 - eta) / c];
}

/**
 * `P(J >= k)` for the arrivals J in a window that opens with an arrival and grows with each landing arrival's work
 * (`theta = lambda x window`, each arrival's work `eta / lambda`): the larger of the generalized Poisson tail,
 * overdispersed by `ca2` (`overdispersed`), and the renewal count itself: k arrivals land when the k-th comes within
 * the window grown by the k - 1 before it (how the generalized Poisson count arises, with the renewal's own gaps, so a
 * burst lengthens the window it lands in). The generalized Poisson tail itself at ca2 1.
 */
export function burstyCountTails(theta: number, eta: number, lambda: number, bursts: Burstiness): (k: number) => number {
  const dispersed = generalizedPoissonTails(...overdispersed(theta, eta, bursts.dispersion));
  if (bursts.ca2 <= 1) {
    return dispersed;
  }
  const memo = new Map<number, number>();
  return (k) => {
    let p = memo.get(k);
    if (p === undefined) {
      p = Math.max(dispersed(k), bursts.within(k, lambda, (theta + (k - 1) * eta) / lambda));
      memo.set(k, p);
    }
    return p;
  };
}

/** Predecessors whose services a clustered wait adds up (`withClusteredArrivals`): past them Kingman's factor rules. */
const CLUSTER_DEPTH = 32;

/** Cells of the wait's grid between two readings of the clustered-arrivals bound. */
const CLUSTER_STRIDE = 8;

/** Standard normal values at the middle of eight equally likely bins: a sum of services taken as normal, in eight points. */
const SUM_POINTS = [-1.5341, -0.8871, -0.4888, -0.1573, 0.1573, 0.4888, 0.8871, 1.5341];

/**
 * The wait `d` (on its grid) made at least as long, in its tail, as the wait behind the requests just before it: the
 * previous one arrived a gap A earlier and its service S (point masses) still runs, `P(W > t) >= P(S - A > t)`; the
 * k previous ones arrived within the sum of k gaps and still need the sum of their k services,
 * `P(W > t) >= P(S_1 + ... + S_k - (A_1 + ... + A_k) > t)`, the services' sum taken as normal (k of them; its mean
 * and variance are k times one's) over eight equally likely points. Unchanged at ca2 1, where the queue's own
 * distribution is exact.
 */
export function withClusteredArrivals(d: GridDistribution, services: PointMasses, lambda: number, bursts: Burstiness): GridDistribution {
  if (bursts.ca2 <= 1) {
    return d;
  }
  const cells = d.pmf.length;
  const pmf = new Float64Array(cells);
  const mean = services.values.reduce((sum, v, i) => sum + v * services.weights[i], 0);
  const sd = Math.sqrt(Math.max(0, services.values.reduce((sum, v, i) => sum + (v - mean) ** 2 * services.weights[i], 0)));
  // Survival of d at each cell, S_d(k) = P(W > k delta); and of the behind-the-predecessors wait, the larger kept.
  const longest = Math.max(...services.values, CLUSTER_DEPTH * mean + 3 * Math.sqrt(CLUSTER_DEPTH) * sd);
  // The lower bound is read every CLUSTER_STRIDE cells and held until the next: it falls with t, so a held value is
  // on the long side, and the bound costs an eighth of the gamma functions.
  const behindAt = (t: number): number => {
    let behind = 0;
    if (t >= longest) {
      return 0;
    }
    for (let i = 0; i < services.values.length; i++) {
      const s = services.values[i];
      if (s > t) {
        behind += services.weights[i] * bursts.within(1, lambda, s - t);
      }
    }
    for (let n = 2; n <= CLUSTER_DEPTH && n * mean + 3 * Math.sqrt(n) * sd > t; n++) {
      let p = 0;
      for (const z of SUM_POINTS) {
        const work = n * mean + z * Math.sqrt(n) * sd;
        p += work > t ? bursts.within(n, lambda, work - t) / SUM_POINTS.length : 0;
      }
      behind = Math.max(behind, p);
    }
    return behind;
  };
  let above = 1;
  let previous = 1;
  let behind = 0;
  for (let k = 0; k < cells; k++) {
    above -= d.pmf[k];
    if (k % CLUSTER_STRIDE === 0) {
      behind = behindAt(k * d.delta);
    }
    const survival = Math.min(previous, Math.max(above, behind));
    pmf[k] = previous - survival;
    previous = survival;
  }
  return { delta: d.delta, pmf };
}

