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
 *
 * Arrivals more regular than Poisson (ca2 below 1) are planned as Poisson: a plan does not count on traffic staying
 * as regular as one file showed. `npm run bench:traffic` holds the result against the replay driven by the same
 * bursty arrivals (`simulateGenerativeReplica` with `arrivals`).
 */
import type { GridDistribution } from './queueing';
import type { GenerativeTargets } from './types';

/** The gaps' SCV the model plans with: the workload's, at least 1 (Poisson). */
export function plannedArrivalScv(targets: Pick<GenerativeTargets, 'arrivals'>): number {
  return Math.max(1, targets.arrivals?.scv ?? 1);
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
