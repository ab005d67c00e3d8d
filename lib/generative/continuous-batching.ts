/**
 * The planner's model of one continuous-batching replica (vLLM on Neuron) under Poisson arrivals, and its capacity.
 * Burstier arrivals (a log's timestamps, `targets.arrivals`) scale its waits and counts as `bursts.ts` says; lengths
 * are the workload's distributions (`distributionsOf`: lognormal, or a file's own).
 *
 * Semantics (the same the replay in `simulate.ts` (`simulateGenerativeReplica`) executes exactly):
 * 1. A replica runs at most N sequences (`max_num_seqs`). A request waits, first come first served, for a free slot.
 * 2. Admitted, it waits for earlier prefills, then its own prefill runs (TTFT ends with the first token). Unless the
 *    rows ran chunked prefill, a prefill stops decoding for everyone while it runs.
 * 3. Then every decode step gives each running sequence one token; a step takes the compiled batch's step time,
 *    however many run (`engineTiming`, below).
 *
 * Approximations, checked against the replay by `npm run bench:plans` (no plan over target; none holding back more
 * than 25 % of what the replay holds):
 * - prefills form a single-server queue with utilisation rho_p = lambda x mean prefill, so decode gets 1 - rho_p of
 *   the time; the mean number decoding is n = lambda x (mean output - 1) x step / (1 - rho_p) (Little's law), below N;
 * - slots are held for prefill wait + prefill + decode. The share of requests that wait for one is the larger of
 *   Erlang C and P(J >= N), J the sequences holding a slot counted generalized-Poisson (the arrivals over one decode,
 *   a window every arrival's prefill lengthens: bursts lengthen every hold at once); a wait is exponential with the
 *   larger of M/G/N's mean and hold / N x E[J - N + 1 | J >= N];
 * - TTFT is the quantile of the convolution, on a grid (`queueing.ts`), of slot wait, prefill wait (the exact M/G/1
 *   waiting time of the prompts' prefills, Pollaczek-Khinchine), the rest of a decode step in progress (for the share
 *   of time the replica decodes) and the prompt's own prefill. One slot is exact: an M/G/1 queue of prefill + decode
 *   holds, then the own prefill;
 * - TPOT: step x the measured TPOT tail, plus the prefills that land in a request's decode, spread over its tokens,
 *   mixed over output lengths (`tpotQuantileSeconds`). The count is the arrivals during the decode (generalized
 *   Poisson), and no more than the other slots turn over (`queueing.ts`: N - 1 exactly for fixed lengths); their
 *   time together is the sum of that many prompts' prefill times (`landing.ts`);
 * - prefill utilisation from the mean prefill time over the prompt distribution (not the mean prompt's);
 * - both at `predictedQuantile` (99.2 % for one slot, 99.25 % above), a margin for the p99 a finite replay measures;
 * - end-to-end p99 <= TTFT p99 + (p99 output - 1) x TPOT p99.
 */
import { erlangC, largestFitting, waitQuantileSeconds } from '../planner/queueing';
export { normalQuantile } from './lengths';
import { distributionsOf, lengthKey } from './lengths';
import type { EngineTiming, GenerativeMeasurement, GenerativeTargets } from './types';
import { lengthPoints } from './queueing';
import { burstinessOf, overdispersed, stretched, waitScale, withClusteredArrivals } from './bursts';
import type { Burstiness } from './bursts';
import { generalizedPoissonExcess, generalizedPoissonTail } from './landing';
export { generalizedPoissonTail } from './landing';
import type { PointMasses } from './queueing';
import { convolve, gridQuantile, mg1Wait, onGrid, plusAtomExponential } from './queueing';
import type { GridDistribution } from './queueing';
import { predictedQuantile, tpotQuantileSeconds } from './tpot-tail';
import type { ModelledWorkload } from './tpot-tail';
export { predictedQuantile } from './tpot-tail';
export type { ModelledWorkload } from './tpot-tail';

/** What one replica does at an arrival rate. */
export interface ReplicaPrediction {
  /** False when the replica cannot keep up (slots or prefills saturate). */
  readonly stable: boolean;
  readonly ttftP99Ms: number;
  readonly tpotP99Ms: number;
  readonly e2eP99Ms: number;
  /** Mean sequences decoding at once. */
  readonly meanRunning: number;
  /** Share of the replica's time spent in prefill. */
  readonly prefillUtilization: number;
}


/** The lengths a prediction works with. */
interface Lengths {
  readonly inputMean: number;
  readonly inputP99: number;
  readonly outputMean: number;
  readonly outputP99: number;
  /** Squared coefficient of variation of the output length. */
  readonly outputScv: number;
}

function lengths(targets: ModelledWorkload): Lengths {
  return {
    inputMean: targets.inputTokens.mean,
    inputP99: targets.inputTokens.p99 ?? targets.inputTokens.mean,
    outputMean: targets.outputTokens.mean,
    outputP99: targets.outputTokens.p99 ?? targets.outputTokens.mean,
    outputScv: distributionsOf(targets).output.scv,
  };
}

const UNSTABLE: ReplicaPrediction = {
  stable: false, ttftP99Ms: Infinity, tpotP99Ms: Infinity, e2eP99Ms: Infinity, meanRunning: Infinity, prefillUtilization: 1,
};

/** The replica's TTFT, TPOT and end-to-end p99 at `requestsPerSecond` (Poisson, or as `targets.arrivals` says). */
export function predictReplica(
  timing: EngineTiming,
  targets: ModelledWorkload,
  requestsPerSecond: number,
): ReplicaPrediction {
  const len = lengths(targets);
  const lambda = requestsPerSecond;
  const bursts = burstinessOf(targets);
  const ca2 = bursts.ca2;
  // The prompts' mean prefill time and its SCV, over the length distribution: a prefill at the mean length is shorter
  // than the mean prefill (buckets round up, attention grows with the square), which left decode more time than it has.
  const terms = ttftTerms(timing, targets);
  const { prefillMean: prefill, prefillScv } = terms;
  const rhoP = lambda * prefill;
  if (rhoP >= 1) {
    return UNSTABLE;
  }
  const decodeShare = 1 - rhoP;
  const N = timing.maxSequences;
  const decodeTokens = Math.max(0, len.outputMean - 1);
  const stepMean = timing.stepSeconds / decodeShare;
  const n = lambda * decodeTokens * stepMean;
  if (n >= N) {
    return UNSTABLE;
  }
  const decodeSeconds = decodeTokens * stepMean;

  let slotWaits = 0;
  let slotWaitMean = 0;
  let occupancy = 1;
  if (N > 1) {
    // Slots: held from admission to the last token.
    const meanPrefillWait = rhoP / (1 - rhoP) * prefill * (ca2 + prefillScv) / 2;
    const slotHold = meanPrefillWait + prefill + decodeSeconds;
    if (lambda * slotHold >= N) {
      return UNSTABLE;
    }
    // Slot holds are not independent: a burst of arrivals stops decoding with its prefills, so every running
    // sequence holds its slot longer at once. The replay shows slot waits as variable as exponential holds from a few
    // slots up.
    const slotScv = Math.max(len.outputScv, 1 - 1 / N, 0.05);
    occupancy = (lambda * slotHold) / N;
    // How many sequences hold a slot is no Poisson count either: it is the arrivals over one decode, a window that
    // every arrival's prefill lengthens (generalized Poisson, as in the TPOT tail). Its tail beyond N is the share
    // that waits when it exceeds Erlang C's.
    const holding = lambda * (decodeTokens * timing.stepSeconds + prefill + meanPrefillWait);
    // Bursty arrivals: the N arrivals before this one within a hold, as their own renewal process has it (`bursts.ts`).
    const [theta, eta] = overdispersed(holding, rhoP, bursts.dispersion);
    const clustered = ca2 > 1 ? bursts.within(N, lambda, (holding + (N - 1) * rhoP) / lambda) : 0;
    slotWaits = Math.max(erlangC(N, lambda * slotHold), generalizedPoissonTail(theta, eta, N), clustered);
    // A request that finds n >= N ahead waits for n - N + 1 of them to end, one every hold / N: that count, too,
    // follows the generalized Poisson tail, longer than M/G/N's exponential one near the knee.
    slotWaitMean = Math.max((ca2 + slotScv) / (2 * (N / slotHold - lambda)), (slotHold / N) * generalizedPoissonExcess(theta, eta, N));
  }
  // The share of time the replica is in a decode step an arrival must let finish: steps run only while nothing waits
  // to prefill, and each gives at least one token, so it is at most min(1 - rhoP, lambda x decode tokens x step).
  const decoding = Math.min(decodeShare, lambda * decodeTokens * timing.stepSeconds);
  const ttft = ttftQuantileSeconds(timing, terms, lambda, slotWaits, slotWaitMean, bursts, decoding);
  const tpot = tpotQuantileSeconds(timing, targets, terms.prefills, { lambda, rhoP, prefill, prefillP99: timing.prefillSeconds(len.inputP99), occupancy, slotWaits, bursts });
  const e2e = ttft + Math.max(0, len.outputP99 - 1) * tpot;
  return {
    stable: true,
    ttftP99Ms: ttft * 1000,
    tpotP99Ms: tpot * 1000,
    e2eP99Ms: e2e * 1000,
    meanRunning: n,
    prefillUtilization: rhoP,
  };
}

/** Cells of the grid TTFT's distribution is computed on (`queueing.ts`): its quantile is exact to 1/800 of its range. */
const TTFT_GRID_CELLS = 800;

/**
 * The TTFT quantile (`predictedQuantile`) of a request: its slot wait, then its prefill wait, then its own prefill.
 * - One slot: the slot is an M/G/1 queue whose holds are prefill + (output - 1) steps (exact waiting-time
 *   distribution, `mg1Wait`), and nothing else prefills, so TTFT = slot wait + own prefill, as the replay runs it.
 * - N slots: the slot wait is Erlang C's probability of waiting with an exponential tail of mean
 *   `(1 + scv) / (2 (N / hold - lambda))`; prefills are an M/G/1 queue (exact) behind the rest of a decode step in
 *   progress; the three are taken as independent and convolved. A step is in progress at an arrival for the share of
 *   time the replica decodes (`decoding`), and what is left of it is uniform over the step (Poisson arrivals see time
 *   averages). Charging every arrival a whole step, as before, put large-TP replicas with few sequences and long
 *   prompts (a flat TTFT p99, set by the longest prompts' own prefill) a step above the replay's p99, which at a target
 *   set there cost a quarter of their capacity.
 * The prompt's own prefill is multiplied by the measured TTFT p99/p50 (jitter the replay does not draw). Bursty
 * arrivals (`ca2` above 1) stretch the queue's wait by Kingman's factor (`bursts.ts`).
 */
function ttftQuantileSeconds(
  timing: EngineTiming,
  terms: TtftTerms,
  lambda: number,
  slotWaits: number,
  slotWaitMean: number,
  bursts: Burstiness,
  decoding: number,
): number {
  const { own, queue, shift, mean, scv, longestOwn } = terms;
  const ca2 = bursts.ca2;
  // The grid spans the waits' two-moment tails at 1 - 1e-4, far past their 99th percentiles.
  const queueFar = waitQuantileSeconds(lambda, mean, 1, scv, 1 - 1e-4, ca2);
  const slotFar = slotWaits > 1e-4 ? slotWaitMean * Math.log(slotWaits / 1e-4) : 0;
  if (!Number.isFinite(queueFar) || !Number.isFinite(slotFar)) {
    return Infinity;
  }
  const range = slotFar + queueFar + shift + longestOwn;
  const delta = range / TTFT_GRID_CELLS;
  // Each of the (up to three) terms is rounded up to its next cell, so their sum may reach three cells past the range:
  // without them, at a trickle (no queue), the longest prompts' mass fell off the grid and TTFT read as Infinity.
  const cells = TTFT_GRID_CELLS + 3;
  const poissonWait = mg1Wait(lambda, queue, delta, cells);
  if (poissonWait === undefined) {
    return Infinity;
  }
  const queueWait = withClusteredArrivals(stretched(poissonWait, waitScale(ca2, scv)), queue, lambda, bursts);
  let total = convolve(onGrid(own, delta, cells), queueWait);
  if (shift > 0 && decoding > 0) {
    total = convolve(stepResidual(shift, decoding, delta, cells), total);
  }
  if (slotWaits > 0) {
    total = plusAtomExponential(total, slotWaits, slotWaitMean);
  }
  return gridQuantile(total, predictedQuantile(timing.maxSequences));
}

/**
 * The rest of a decode step of `step` seconds an arrival waits for: none with probability `1 - decoding`, else uniform
 * over the step, each cell's mass at its upper end (on the safe side by at most one cell).
 */
function stepResidual(step: number, decoding: number, delta: number, cells: number): GridDistribution {
  const pmf = new Float64Array(cells);
  pmf[0] = 1 - decoding;
  const whole = Math.ceil(step / delta - 1e-9);
  for (let k = 1; k <= whole && k < cells; k++) {
    // The share of [0, step] in cell (k - 1, k] x delta.
    pmf[k] += decoding * (Math.min(step, k * delta) - (k - 1) * delta) / step;
  }
  return { delta, pmf };
}

/** What TTFT adds up that does not depend on the arrival rate: the prompts' prefills, the queue's services. */
interface TtftTerms {
  /** The request's own prefill, jitter included. */
  readonly own: PointMasses;
  readonly longestOwn: number;
  /** The services of the queue a request waits in (prefills; prefill + decode with one slot), their mean and SCV. */
  readonly queue: PointMasses;
  readonly mean: number;
  readonly scv: number;
  /** A decode step in progress (0 with one slot: nothing else runs). */
  readonly shift: number;
  /** The prompts' prefill times (own, without jitter), their mean and squared coefficient of variation. */
  readonly prefills: PointMasses;
  readonly prefillMean: number;
  readonly prefillScv: number;
}

/** Per timing (one compiled configuration), the terms per lengths: a capacity search asks for them at every rate. */
const ttftTermsMemo = new WeakMap<EngineTiming, Map<string, TtftTerms>>();

function ttftTerms(timing: EngineTiming, targets: ModelledWorkload): TtftTerms {
  const { input: inDist, output: outDist } = distributionsOf(targets);
  const key = `${lengthKey(inDist)}|${lengthKey(outDist)}`;
  let byLengths = ttftTermsMemo.get(timing);
  const known = byLengths?.get(key);
  if (known) {
    return known;
  }
  const whole = (tokens: number) => Math.max(1, Math.round(tokens));
  const prompts = lengthPoints(inDist, whole);
  const prefills: PointMasses = { values: prompts.values.map((t) => timing.prefillSeconds(t)), weights: prompts.weights };
  const own: PointMasses = { values: prefills.values.map((p) => p * timing.ttftTail), weights: prefills.weights };
  let queue: PointMasses;
  let shift: number;
  if (timing.maxSequences === 1) {
    const outputs = lengthPoints(outDist, whole);
    const values: number[] = [];
    const weights: number[] = [];
    prefills.values.forEach((p, i) => outputs.values.forEach((o, j) => {
      values.push(p + (o - 1) * timing.stepSeconds);
      weights.push(prefills.weights[i] * outputs.weights[j]);
    }));
    queue = { values, weights };
    shift = 0;
  } else {
    queue = prefills;
    shift = timing.stepSeconds;
  }
  const moments = (m: PointMasses) => {
    const mean = m.values.reduce((sum, v, i) => sum + v * m.weights[i], 0);
    const second = m.values.reduce((sum, v, i) => sum + v * v * m.weights[i], 0);
    return { mean, scv: mean > 0 ? Math.max(0, second / (mean * mean) - 1) : 0 };
  };
  const { mean, scv } = moments(queue);
  const prefillMoments = moments(prefills);
  const terms: TtftTerms = {
    own, longestOwn: Math.max(...own.values), queue, mean, scv, shift, prefills, prefillMean: prefillMoments.mean, prefillScv: prefillMoments.scv,
  };
  if (!byLengths) {
    byLengths = new Map();
    ttftTermsMemo.set(timing, byLengths);
  }
  byLengths.set(key, terms);
  return terms;
}

/** True when the prediction meets every target. */
export function meetsTargets(p: ReplicaPrediction, targets: GenerativeTargets): boolean {
  return (
    p.stable &&
    p.ttftP99Ms <= targets.ttftP99Ms &&
    p.tpotP99Ms <= targets.tpotP99Ms &&
    (targets.e2eP99Ms === undefined || p.e2eP99Ms <= targets.e2eP99Ms)
  );
}

/** The capacity search's precision, a share of `replicaRateBound`. */
export const CAPACITY_PRECISION = 1e-4;

/** The most requests per second a replica could take: every slot decoding flat out, or prefills back to back. */
export function replicaRateBound(timing: EngineTiming, targets: ModelledWorkload): number {
  return Math.min(
    timing.maxSequences / (Math.max(1, targets.outputTokens.mean) * timing.stepSeconds),
    1 / timing.prefillSeconds(targets.inputTokens.mean),
  );
}

/**
 * Requests per second one replica holds with every predicted p99 within the targets; 0 when even a trickle (one
 * `CAPACITY_PRECISION` of `replicaRateBound`) misses. Exact to that precision.
 */
export function replicaCapacityRps(timing: EngineTiming, targets: GenerativeTargets): number {
  const upper = replicaRateBound(timing, targets);
  const fits = (rps: number) => meetsTargets(predictReplica(timing, targets, rps), targets);
  // A configuration too slow even for a trickle (a prompt's own prefill past TTFT, a step past TPOT) is settled by one
  // prediction, not a search down to 0.
  if (!(upper > 0) || !fits(CAPACITY_PRECISION * upper)) {
    return 0;
  }
  return largestFitting(upper, fits, CAPACITY_PRECISION);
}

/*
 * How long a continuous-batching engine's steps take, read from measured rows of one compiled configuration
 * (chip, tensor-parallel degree, Neuron SDK, chunked prefill or not).
 *
 * - A decode step gives every running sequence one token (its time per output token: `perOutputTokenMs`). On Neuron the decode graph is compiled for a fixed batch
 *   (`max_num_seqs`) and runs padded to it whatever the number of running sequences (static shapes: AWS Neuron docs,
 *   NxD Inference feature guide, "bucketing" covers sequence lengths), so a step takes the TPOT p50 measured at the
 *   compiled batch size: a row measured with one request in flight on a batch-32 artifact gives the batch-32 step.
 * - A prefill (context encoding) of `L` prompt tokens takes the TTFT p50 of the configuration's smallest-batch row,
 *   scaled by `L / row input tokens` when `L` is longer (prefill is compute-bound, linear in tokens) and never below
 *   the measured value (its fixed costs). A row with no TTFT (the Neuron encoder-decoder rows state per-token latency
 *   only) is charged one decode step per 128 prompt tokens, an ESTIMATE the plan warns about.
 */
/** Prompt tokens one decode step's time is charged per, where a row states no TTFT (ESTIMATE). */
export const PREFILL_TOKENS_PER_STEP_ESTIMATE = 128;

/**
 * The timings of a configuration compiled for `maxSequences`, from rows of the same chip, tensor-parallel degree, SDK
 * and prefill mode: the decode step from the rows at `maxSequences` (the slowest, when several), the prefill from the
 * smallest batch at or below it.
 *
 * @throws Error when no row has a batch size of `maxSequences` (the planner only asks for measured batch sizes)
 */
export function engineTiming(rows: readonly GenerativeMeasurement[], maxSequences: number): EngineTiming {
  const atBatch = rows.filter((r) => r.batchSize === maxSequences);
  if (atBatch.length === 0) {
    throw new Error(`no measured row at batch ${maxSequences}`);
  }
  const slowest = atBatch.reduce((a, b) => (perOutputTokenMs(b) > perOutputTokenMs(a) ? b : a));
  const prefillRow = rows.filter((r) => r.batchSize <= maxSequences).sort((a, b) => a.batchSize - b.batchSize)[0];
  const stepSeconds = perOutputTokenMs(slowest) / 1000;
  const measuredTtft = prefillRow.ttftP50Ms;
  const prefillEstimated = measuredTtft === undefined;
  return {
    maxSequences,
    stepSeconds,
    prefillSeconds: measuredTtft === undefined
      ? (tokens: number) => Math.max(1, Math.ceil(tokens / PREFILL_TOKENS_PER_STEP_ESTIMATE)) * stepSeconds
      : (tokens: number) => (measuredTtft / 1000) * Math.max(1, tokens / prefillRow.inputTokens),
    tpotTail: (slowest.tpotP99Ms ?? slowest.tpotP50Ms) / slowest.tpotP50Ms,
    ttftTail: measuredTtft === undefined ? 1 : (prefillRow.ttftP99Ms ?? measuredTtft) / measuredTtft,
    chunkedPrefill: rows.every((r) => r.chunkedPrefill === true),
    prefillEstimated,
  };
}

/**
 * A row's TPOT p50 per output token: as stated, or, where the source divides by input and output tokens together,
 * the request's whole time (`tpot x (input + output)`) spread over its output tokens.
 */
export function perOutputTokenMs(row: GenerativeMeasurement): number {
  return row.latencyCounts === 'input-and-output'
    ? (row.tpotP50Ms * (row.inputTokens + row.outputTokens)) / row.outputTokens
    : row.tpotP50Ms;
}
