/**
 * Drawing arrivals from an {@link ArrivalProcess}: the replays and the proofs send what the plan assumed.
 *
 * Gaps come from the process's own table (a file's gaps) or, without one, from a gamma distribution of shape
 * 1 / scv, which is how `vllm bench serve --burstiness` spaces its requests (burstiness = 1 / scv; 1 is Poisson).
 * Every draw takes its uniform numbers from the `next` the caller seeds, so a seed repeats a run.
 *
 * @see https://github.com/vllm-project/vllm/blob/main/vllm/benchmarks/serve.py (`get_request`: gamma intervals of
 *   shape `burstiness`)
 */
import { isQuantileTable, quantileAt, tableMean } from './quantiles';
import { QUANTILE_PROBABILITIES } from './types';
import type { ArrivalProcess, TrafficSummary } from './types';

/** Poisson arrivals: exponential gaps (scv 1), what the planner assumes when no timestamps are given. */
export const POISSON_ARRIVALS: ArrivalProcess = { scv: 1, source: 'Poisson arrivals (independent users; no timestamps given)' };

/** True when the process is Poisson: exponential gaps, no table of its own. */
export function isPoisson(process: ArrivalProcess | undefined): boolean {
  return process === undefined || (process.scv === 1 && process.gapQuantiles === undefined);
}

/**
 * The arrivals to plan with, each problem with the given ones pushed onto `problems`: Poisson when none are given,
 * and when they are more regular than Poisson (a file may show a benchmark's even beat; a plan does not count on
 * traffic staying that regular, and the proofs then send Poisson arrivals too).
 */
export function plannedArrivals(given: ArrivalProcess | undefined, problems: string[]): ArrivalProcess {
  if (given === undefined) {
    return POISSON_ARRIVALS;
  }
  if (!(Number.isFinite(given.scv) && given.scv > 0)) {
    problems.push(`arrivals.scv=${given.scv} must be a positive number (1 for Poisson arrivals, above 1 for bursty ones)`);
    return POISSON_ARRIVALS;
  }
  if (given.gapQuantiles !== undefined && !isQuantileTable(given.gapQuantiles)) {
    problems.push(`arrivals.gapQuantiles must hold ${QUANTILE_PROBABILITIES.length} gaps relative to their mean, one per QUANTILE_PROBABILITIES point, ascending`);
    return POISSON_ARRIVALS;
  }
  if (given.scv < 1) {
    return { scv: 1, source: `${given.source}; its gaps' SCV of ${given.scv} is more regular than Poisson, planned as Poisson` };
  }
  return given;
}

/**
 * A source of gaps of mean 1 (multiply by the mean gap): the process's table, scaled so its draws average exactly 1,
 * or gamma gaps of shape 1 / scv. With a Poisson process it draws `-ln(1 - u)`, one uniform a gap, as the replays
 * always have, so their seeded figures do not move.
 */
export function gapSampler(process: ArrivalProcess | undefined, next: () => number): () => number {
  if (process?.gapQuantiles !== undefined) {
    const table = process.gapQuantiles;
    const mean = tableMean(table);
    return () => quantileAt(table, next()) / mean;
  }
  const scv = process?.scv ?? 1;
  if (scv === 1) {
    return () => -Math.log(1 - next());
  }
  const shape = 1 / scv;
  return () => gamma(shape, next) / shape;
}

/**
 * One sender's share of a process that `of` senders drive together: the arrivals `index`, `index + of`,
 * `index + 2 of`, ... of the one sequence they all draw from the same seed. Together they send exactly the planned
 * process; independent bursty senders would not (their merge tends to Poisson as their number grows). Poisson needs
 * no share: independent Poisson senders merge into Poisson.
 */
export interface ArrivalShare {
  readonly process: ArrivalProcess;
  /** This sender, from 0. */
  readonly index: number;
  /** Senders in all. */
  readonly of: number;
}

/**
 * A source of one sender's gaps, in units of its own mean gap (`of` x the process's): the first reaches its first
 * arrival (`index + 1` of the process's gaps), each next one spans `of` of them.
 */
export function shareGaps(share: ArrivalShare, next: () => number): () => number {
  const gap = gapSampler(share.process, next);
  let first = true;
  return () => {
    const count = first ? share.index + 1 : share.of;
    first = false;
    let sum = 0;
    for (let i = 0; i < count; i++) {
      sum += gap();
    }
    return sum / share.of;
  };
}

/**
 * A gamma variate of the shape and scale 1 (Marsaglia and Tsang, 2000; shapes below 1 by `G(a + 1) U^(1/a)`).
 *
 * @see https://doi.org/10.1145/358407.358414
 */
function gamma(shape: number, next: () => number): number {
  if (shape < 1) {
    return gamma(shape + 1, next) * Math.pow(1 - next(), 1 / shape);
  }
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      // Box-Muller: a standard normal from two uniforms.
      x = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - next();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) {
      return d * v;
    }
  }
}

/**
 * The arrival process a traffic file's timestamps show, with its evidence in `source`; undefined when the file has
 * too few timestamps to measure it (planned as Poisson).
 */
export function arrivalProcessOf(traffic: TrafficSummary): ArrivalProcess | undefined {
  const a = traffic.arrivals;
  if (a === undefined) {
    return undefined;
  }
  const evidence = [
    `${traffic.file}: ${a.timestamps.toLocaleString('en-US')} arrival times (${a.field}${a.spreadOver !== undefined ? `; arrivals sharing one spread over ${a.spreadOver}` : ''}) ` +
      `over ${a.durationSeconds} s, ${a.meanRps} requests/s`,
    `gaps against the mean gap of the minute around each: SCV ${a.scv}, ${a.scvRange[0]} to ${a.scvRange[1]} over the file's tenths`,
    ...(a.busiestMinuteOverMean !== undefined ? [`busiest minute ${a.busiestMinuteOverMean} x the mean rate (size --peak for it)`] : []),
  ];
  return { scv: a.scv, source: evidence.join('; '), gapQuantiles: a.gapQuantiles };
}
