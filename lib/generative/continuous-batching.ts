/**
 * The planner's model of one continuous-batching replica (vLLM on Neuron) under Poisson arrivals, and its capacity.
 *
 * Semantics (the same the replay in `simulate.ts` executes exactly):
 * 1. A replica runs at most N sequences (`max_num_seqs`). A request waits, first come first served, for a free slot.
 * 2. Admitted, it waits for earlier prefills, then its own prefill runs (TTFT ends with the first token). Unless the
 *    rows ran chunked prefill, a prefill stops decoding for everyone while it runs.
 * 3. Then every decode step gives each running sequence one token; a step takes the compiled batch's step time,
 *    however many run (`engine-timing.ts`).
 *
 * Approximations, each on the safe side and checked against the replay by `npm run bench:plans`:
 * - prefills form a single-server queue with utilisation rho_p = lambda x mean prefill, so decode gets 1 - rho_p of
 *   the time;
 * - the mean number decoding is n = lambda x (mean output - 1) x step / (1 - rho_p) (Little's law), below N;
 * - a slot is held for prefill wait + prefill + decode, and slots form an M/G/N queue (`waitQuantileSeconds`) whose
 *   holds vary at least as exponential ones from a few slots up (bursts of prefills lengthen every hold at once); one
 *   slot is an M/G/1 queue with no prefill queue of its own (exact M/D/1 waits for fixed lengths);
 * - TTFT p99 = slot wait + prefill wait (each at the 99.5th percentile) + the p99 prompt's prefill + one step;
 * - TPOT p99: step x the measured TPOT tail, plus the prefills that land in a request's decode (Poisson) spread
 *   over its tokens, at the p99 of the mixture over output lengths (`tpotQuantileSeconds`);
 * - end-to-end p99 <= TTFT p99 + (p99 output - 1) x TPOT p99.
 */
import { largestFitting, waitQuantileSeconds, WAIT_QUANTILE } from '../planner/queueing';
import type { EngineTiming } from './engine-timing';
import { lengthDistribution } from './engine-timing';
import type { GenerativeTargets } from './types';

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

function lengths(targets: Pick<GenerativeTargets, 'inputTokens' | 'outputTokens'>): Lengths {
  return {
    inputMean: targets.inputTokens.mean,
    inputP99: targets.inputTokens.p99 ?? targets.inputTokens.mean,
    outputMean: targets.outputTokens.mean,
    outputP99: targets.outputTokens.p99 ?? targets.outputTokens.mean,
    outputScv: lengthDistribution(targets.outputTokens).scv,
  };
}

const UNSTABLE: ReplicaPrediction = {
  stable: false, ttftP99Ms: Infinity, tpotP99Ms: Infinity, e2eP99Ms: Infinity, meanRunning: Infinity, prefillUtilization: 1,
};

/** The replica's TTFT, TPOT and end-to-end p99 at `requestsPerSecond` Poisson arrivals. */
export function predictReplica(
  timing: EngineTiming,
  targets: Pick<GenerativeTargets, 'inputTokens' | 'outputTokens'>,
  requestsPerSecond: number,
): ReplicaPrediction {
  const len = lengths(targets);
  const lambda = requestsPerSecond;
  const prefill = timing.prefillSeconds(len.inputMean);
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

  let slotWait: number;
  let prefillWait: number;
  if (N === 1) {
    // One slot: a request is admitted only when the previous one finished, so prefills never queue behind each
    // other; the slot is an M/G/1 queue whose holds are prefill + decode.
    prefillWait = 0;
    slotWait = singleSlotWaitQuantile(lambda, prefill + decodeSeconds, len.outputScv, WAIT_QUANTILE);
  } else {
    // Prefills queue on one server.
    const prefillScv = lengthDistribution(targets.inputTokens).scv;
    prefillWait = waitQuantileSeconds(lambda, prefill, 1, prefillScv, WAIT_QUANTILE);
    // Slots: held from admission to the last token.
    const meanPrefillWait = rhoP / (1 - rhoP) * prefill * (1 + prefillScv) / 2;
    const slotHold = meanPrefillWait + prefill + decodeSeconds;
    if (lambda * slotHold >= N) {
      return UNSTABLE;
    }
    // Slot holds are not independent: a burst of arrivals stops decoding with its prefills, so every running
    // sequence holds its slot longer at once. The replay shows slot waits as variable as exponential holds from a few
    // slots up.
    const slotScv = Math.max(len.outputScv, 1 - 1 / N, 0.05);
    slotWait = waitQuantileSeconds(lambda, slotHold, N, slotScv, WAIT_QUANTILE);
  }
  if (!Number.isFinite(slotWait) || !Number.isFinite(prefillWait)) {
    return UNSTABLE;
  }
  const ttft = slotWait + prefillWait + timing.prefillSeconds(len.inputP99) * timing.ttftTail + timing.stepSeconds;

  const tpot = tpotQuantileSeconds(timing, targets, lambda, rhoP, prefill, timing.prefillSeconds(len.inputP99));
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

/** The standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
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
 * P(J >= k) for J generalized-Poisson (Consul): `P(J = j) = theta (theta + j eta)^(j-1) e^-(theta + j eta) / j!`, the
 * number of arrivals in a period that starts as `theta / lambda` seconds and grows by each arrival's own work of
 * `eta / lambda` seconds (arrivals during arrivals' prefills also count).
 */
export function generalizedPoissonTail(theta: number, eta: number, k: number): number {
  if (k <= 0) {
    return 1;
  }
  if (theta <= 0) {
    return 0;
  }
  const mean = theta / Math.max(1e-9, 1 - eta);
  let cdf = Math.exp(-theta);
  let logFactorial = 0;
  for (let j = 1; j < k; j++) {
    logFactorial += Math.log(j);
    const term = Math.exp(Math.log(theta) + (j - 1) * Math.log(theta + j * eta) - theta - j * eta - logFactorial);
    cdf += term;
    if (j > mean && term < 1e-15) {
      return 0;
    }
  }
  return Math.max(0, 1 - cdf);
}

/** Output lengths the TPOT tail mixes over: quantiles of the output length distribution. */
const OUTPUT_QUANTILES = 64;

/**
 * The p99 over requests of TPOT, `(last token - first token) / (output - 1)`: every step of a request's decode, plus
 * the prefills of every arrival during its decode, prefills included (J generalized-Poisson over its step time; one
 * of the p99 prompt's length, the rest the mean), spread over its tokens. Short outputs suffer most, so the tail mixes over the
 * output length distribution (OUTPUT_QUANTILES quantiles). Chunked prefill spreads the same prefill time over the steps it shares,
 * which smooths single gaps but not a request's average, so it is charged the same.
 */
function tpotQuantileSeconds(
  timing: EngineTiming,
  targets: Pick<GenerativeTargets, 'outputTokens'>,
  lambda: number,
  rhoP: number,
  prefill: number,
  prefillP99: number,
): number {
  const step = timing.stepSeconds * timing.tpotTail;
  const dist = lengthDistribution(targets.outputTokens);
  const points = dist.sigma === 0 ? 1 : OUTPUT_QUANTILES;
  const gaps = Array.from({ length: points }, (_, i) => Math.round(Math.exp(dist.mu + dist.sigma * (points === 1 ? 0 : normalQuantile((i + 0.5) / points)))) - 1)
    .filter((gap) => gap >= 1);
  if (gaps.length === 0) {
    return step;
  }
  const tail = (x: number): number => {
    let sum = 0;
    for (const gap of gaps) {
      // Smallest count of prefills (one of the p99 prompt, the rest the mean) that pushes this request's TPOT above x.
      const budget = (x - step) * gap;
      const k = budget < prefillP99 ? 1 : 1 + Math.floor((budget - prefillP99) / prefill) + 1;
      // Prompts that arrived during its own prefill wait too: they are served before its first decode step.
      sum += generalizedPoissonTail(lambda * (gap * timing.stepSeconds + prefill), rhoP, k);
    }
    return sum / gaps.length;
  };
  let low = step;
  let high = step + prefillP99 + 1;
  // At the 99.5th percentile, as queueing waits are (WAIT_QUANTILE): the replay showed the 99th running 1-2 % short,
  // the busy periods' own spread not being modelled.
  const allowed = 1 - WAIT_QUANTILE;
  if (tail(low) <= allowed) {
    return step;
  }
  while (tail(high) > allowed) {
    high *= 2;
  }
  while (high - low > 1e-4 * high) {
    const mid = (low + high) / 2;
    if (tail(mid) > allowed) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return high;
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

/** True when the prediction meets every target. */
export function meetsTargets(p: ReplicaPrediction, targets: GenerativeTargets): boolean {
  return (
    p.stable &&
    p.ttftP99Ms <= targets.ttftP99Ms &&
    p.tpotP99Ms <= targets.tpotP99Ms &&
    (targets.e2eP99Ms === undefined || p.e2eP99Ms <= targets.e2eP99Ms)
  );
}

/**
 * Requests per second one replica holds with every predicted p99 within the targets; 0 when even a trickle misses.
 */
export function replicaCapacityRps(timing: EngineTiming, targets: GenerativeTargets): number {
  const outputMean = Math.max(1, targets.outputTokens.mean);
  // Upper bound: every slot decoding flat out.
  const upper = Math.min(
    timing.maxSequences / (outputMean * timing.stepSeconds),
    1 / timing.prefillSeconds(targets.inputTokens.mean),
  );
  return largestFitting(upper, (rps) => meetsTargets(predictReplica(timing, targets, rps), targets), 1e-4);
}
