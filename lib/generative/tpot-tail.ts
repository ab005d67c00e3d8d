/**
 * The TPOT tail of a continuous-batching replica (`continuous-batching.ts` predicts the rest): the p99 over requests
 * of their time per output token, with the prefills that land in their decode, and the quantile every prediction is
 * made at.
 */
import { distributionsOf, lengthKey } from './lengths';
import type { EngineTiming, GenerativeTargets } from './types';
import { lengthPoints, slotTurnoverTails } from './queueing';
import type { PointMasses } from './queueing';
import { burstyCountTails } from './bursts';
import type { Burstiness } from './bursts';
import { prefillSums, SUMMED_PREFILLS } from './landing';

/**
 * The quantile TTFT and TPOT are predicted at, for the 99th-percentile targets. Not the 99th itself: the p99 a
 * replay (or a deployment) measures over 20,000 requests scatters around the true one (about 7 % in the count of
 * requests past it), and a plan exactly at its capacity would miss its target half the time. One slot is modelled
 * exactly (an M/G/1 queue) and keeps 0.2 % of margin; more slots are modelled with independent waits and a
 * generalized Poisson count of slot holders, and keep 0.25 %: the least, in steps of 0.05 %, at which no plan of
 * `npm run bench:plans` misses in its replays at its target rate or at its claimed capacity (at 0.2 % one did: Qwen3
 * 32B at 32 slots, at capacity; at 0.3 % six plans held back 29 % of what the replay holds). Near the point where
 * P(wait > 0) crosses 1 %, the tail grows in proportion to the load, so this margin costs about that share of
 * capacity (20 to 25 %).
 */
export function predictedQuantile(slots: number): number {
  return slots === 1 ? 0.992 : 0.9925;
}

/** What the model reads of a workload: its lengths (stated, or whole) and how its requests arrive. */
export type ModelledWorkload = Pick<GenerativeTargets, 'inputTokens' | 'outputTokens' | 'lengths' | 'arrivals'>;

/**
 * The p99 over requests of TPOT, `(last token - first token) / (output - 1)`: every step of a request's decode, plus
 * the prefills of every arrival during its decode (J generalized-Poisson over its step time; their time the sum of
 * J prompts' prefill times, up to 32, beyond that one p99 prompt and the rest at the mean), spread over its tokens.
 * Short outputs suffer most, so the tail mixes over the output length distribution (`lengthPoints`, finely cut in its
 * lower tail). Chunked prefill spreads the same prefill time over the steps it shares, which smooths single gaps but
 * not a request's average, so it is charged the same.
 */
export function tpotQuantileSeconds(
  timing: EngineTiming,
  targets: ModelledWorkload,
  prefills: PointMasses,
  load: { lambda: number; rhoP: number; prefill: number; prefillP99: number; occupancy: number; slotWaits: number; bursts: Burstiness },
): number {
  const { lambda, rhoP, prefill, prefillP99, occupancy, slotWaits, bursts } = load;
  const step = timing.stepSeconds * timing.tpotTail;
  const { input: inDist, output: dist } = distributionsOf(targets);
  const drawn = lengthPoints(dist, (tokens) => Math.max(1, Math.round(tokens)) - 1);
  // Single-token outputs have no TPOT.
  const kept = drawn.values.map((gap, i) => ({ gap, weight: drawn.weights[i] })).filter((p) => p.gap >= 1);
  const gaps = kept.map((p) => p.gap);
  const keptWeight = kept.reduce((sum, p) => sum + p.weight, 0);
  if (gaps.length === 0) {
    return step;
  }
  const N = timing.maxSequences;
  const turnover = slotTurnoverTails(dist, N, gaps, Math.max(0, 1 - occupancy));
  const turnoverFull = slotTurnoverTails(dist, N, gaps, 0);
  const arrivalTails = gaps.map((gap) => burstyCountTails(lambda * (gap * timing.stepSeconds + prefill), rhoP, lambda, bursts));
  // P(at least k prefills land in its decode), per gap and k: the search below asks for the same k again and again.
  const landing = gaps.map(() => new Map<number, number>());
  const atLeast = (g: number, k: number): number => {
    let p = landing[g].get(k);
    if (p === undefined) {
      // Prompts that arrive during its decode, or its own prefill (served before its first decode step)...
      const arrivals = arrivalTails[g](k);
      // ...land only in slots that turn over (`queueing.ts`); future arrivals are independent of which slots are
      // free now. Prompts already queued for a slot (P(wait) = slotWaits) land as slots turn over, every slot busy.
      const slots = turnover[g](k);
      const queued = slotWaits * turnoverFull[g](k);
      p = Math.min(arrivals, slots, arrivals * slots + queued);
      landing[g].set(k, p);
    }
    return p;
  };
  // The prefills that land are drawn from the prompts' prefill times: up to SUMMED_PREFILLS of them, their sum's
  // distribution decides (`prefillSums`); beyond, each is taken at the mean after one p99 prompt (conservative). One
  // prefill time (fixed lengths) gives the exact count either way.
  const sums = prefillSums(timing, lengthKey(inDist), prefills, prefill);
  // With the sums: P(J >= j) for j = 1..SUMMED_PREFILLS + 1 per gap, read once here (the bisection below asks for the
  // same values at every x), up to the first below 1e-12, past which the sum adds nothing.
  const counts = sums === undefined ? [] : gaps.map((_, g) => {
    const above: number[] = [];
    for (let j = 1; j <= SUMMED_PREFILLS + 1; j++) {
      above.push(atLeast(g, j));
      if (above[j - 1] <= 1e-12) {
        break;
      }
    }
    return above;
  });
  const exceeding = new Float64Array(SUMMED_PREFILLS);
  const tail = (x: number): number => {
    let sum = 0;
    for (let g = 0; g < gaps.length; g++) {
      const budget = (x - step) * gaps[g];
      // Smallest count of prefills (one of the p99 prompt, the rest the mean) that pushes this request's TPOT above x.
      const k = budget < prefillP99 ? 1 : 1 + Math.floor((budget - prefillP99) / prefill) + 1;
      let p: number;
      if (sums === undefined) {
        p = atLeast(g, k);
      } else {
        // P(S_J > budget) = sum over j of P(J = j) P(S_j > budget), j up to SUMMED_PREFILLS; the rest by the count.
        p = atLeast(g, Math.max(SUMMED_PREFILLS + 1, k));
        const above = counts[g];
        const terms = Math.min(SUMMED_PREFILLS, above.length - 1);
        sums.exceedsEach(budget, terms, exceeding);
        for (let j = 1; j <= terms; j++) {
          p += (above[j - 1] - above[j]) * exceeding[j - 1];
        }
      }
      sum += kept[g].weight * p;
    }
    return sum / keptWeight;
  };
  let low = step;
  let high = step + prefillP99 + 1;
  const allowed = 1 - predictedQuantile(timing.maxSequences);
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
