/**
 * How far a generative plan's timings may be off before a target misses: what its reader should watch on the first
 * deploy. Both figures come from the queueing model that sized the plan (`continuous-batching.ts`), at the target rate
 * spread over the plan's own instances and replicas.
 *
 * - `stepSlowdownToMissTarget`: the largest factor by which every decode step and every prefill may both be slower
 *   than the plan's timings (for an ESTIMATE, those already carry its headroom) with every p99 still within its target.
 * - `acceptedTokensToMissTarget` (speculative plans): the fewest tokens kept per verification step that still hold the
 *   targets; below it one misses.
 */
import { meetsTargets, predictReplica } from './continuous-batching';
import type { EngineTiming, GenerativePlan, GenerativeSensitivity } from './types';

/** Relative precision of both searches. */
const PRECISION = 0.005;

/** The slowdown searched up to: a plan that holds its targets 64 times slower is bounded by nothing a deploy shows. */
const MOST_SLOWDOWN = 64;

/** The plan's timing with every decode step and prefill `factor` times as long. */
export function slowedTiming(timing: EngineTiming, factor: number): EngineTiming {
  return { ...timing, stepSeconds: timing.stepSeconds * factor, prefillSeconds: (tokens: number) => timing.prefillSeconds(tokens) * factor };
}

/** Requests per second each replica of the plan takes at the target rate. */
export function perReplicaRate(plan: GenerativePlan): number {
  return plan.targets.requestsPerSecond / (plan.instanceCount * plan.generative.replicasPerInstance);
}

/**
 * The sensitivity of a plan whose replicas run `timing`; `speculativeTiming(a)` times the plan with `a` tokens kept
 * per step (speculative plans only).
 */
export function planSensitivity(
  plan: GenerativePlan,
  timing: EngineTiming,
  speculativeTiming?: (acceptedTokens: number) => EngineTiming,
): GenerativeSensitivity {
  const rate = perReplicaRate(plan);
  const holds = (t: EngineTiming) => meetsTargets(predictReplica(t, plan.targets, rate), plan.targets);
  const slowdown = largestHolding(1, MOST_SLOWDOWN, (f) => holds(slowedTiming(timing, f)));
  const planned = plan.generative.engine.levers?.speculation?.acceptedTokens;
  const accepted = planned !== undefined && speculativeTiming !== undefined
    ? smallestHolding(1, planned, (a) => holds(speculativeTiming(a)))
    : undefined;
  return {
    stepSlowdownToMissTarget: Math.floor(slowdown * 100) / 100,
    ...(accepted !== undefined ? { acceptedTokensToMissTarget: Math.ceil(accepted * 100) / 100 } : {}),
  };
}

/** The largest x in [low, high] at which `holds` is true (low when it is false there), to `PRECISION`. */
function largestHolding(low: number, high: number, holds: (x: number) => boolean): number {
  if (!holds(low)) return low;
  let lo = low;
  let hi = low * 2;
  while (hi < high && holds(hi)) {
    lo = hi;
    hi = Math.min(high, hi * 2);
  }
  if (hi >= high && holds(high)) return high;
  while (hi - lo > PRECISION * lo) {
    const mid = (lo + hi) / 2;
    if (holds(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** The smallest x in [low, high] at which `holds` is true, given it holds at high (low when it holds there too). */
function smallestHolding(low: number, high: number, holds: (x: number) => boolean): number {
  if (holds(low)) return low;
  let lo = low;
  let hi = high;
  while (hi - lo > PRECISION * hi) {
    const mid = (lo + hi) / 2;
    if (holds(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
