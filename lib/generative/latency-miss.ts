/**
 * Which target a replica misses with no load to speak of, for the rejection that says why a configuration lost.
 *
 * The capacity search gives up on a configuration when a trickle (`CAPACITY_PRECISION` of its rate bound) already
 * misses a target; the rejection must name that target. Checking TTFT before the end-to-end target without looking
 * blamed every candidate on TTFT ("misses TTFT p99 2000 ms even alone (385.92 ms)") when the end-to-end target was
 * what no candidate met.
 */
import { CAPACITY_PRECISION, predictReplica, replicaRateBound, type ReplicaPrediction } from './continuous-batching';
import type { EngineTiming, GenerativeTargets } from './types';

/** The target a trickle misses first (TPOT, then TTFT, then end-to-end), with the trickle's prediction. */
export interface AloneMiss {
  readonly code: 'tpot' | 'ttft' | 'e2e';
  readonly alone: ReplicaPrediction;
}

/** The prediction at the trickle the capacity search starts from. */
export function predictAlone(timing: EngineTiming, targets: GenerativeTargets): ReplicaPrediction {
  return predictReplica(timing, targets, CAPACITY_PRECISION * replicaRateBound(timing, targets));
}

/**
 * The target a trickle of requests misses; undefined when it meets them all (a configuration that still lost missed
 * them only under load).
 */
export function missedAlone(timing: EngineTiming, targets: GenerativeTargets): AloneMiss | undefined {
  const alone = predictAlone(timing, targets);
  if (!(alone.tpotP99Ms <= targets.tpotP99Ms)) return { code: 'tpot', alone };
  if (!(alone.ttftP99Ms <= targets.ttftP99Ms)) return { code: 'ttft', alone };
  if (targets.e2eP99Ms !== undefined && !(alone.e2eP99Ms <= targets.e2eP99Ms)) return { code: 'e2e', alone };
  return undefined;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * `end-to-end p99 9700 ms even alone; the end-to-end target is 3000 ms (TTFT p99 290.1 ms + 729 tokens at TPOT p99
 * 13 ms): raise it, or shorten the outputs`.
 */
export function e2eMissReason(alone: ReplicaPrediction, targets: GenerativeTargets, estimated = false): string {
  const tokens = Math.max(0, (targets.outputTokens.p99 ?? targets.outputTokens.mean) - 1);
  return `${estimated ? 'estimated ' : ''}end-to-end p99 ${Math.round(alone.e2eP99Ms)} ms even alone; the end-to-end target is ${targets.e2eP99Ms} ms ` +
    `(TTFT p99 ${round1(alone.ttftP99Ms)} ms + ${tokens} tokens at TPOT p99 ${round1(alone.tpotP99Ms)} ms): raise it, or shorten the outputs`;
}

/** What a configuration predicts at a trickle when it meets every target there yet has no capacity. */
export function underLoadReason(alone: ReplicaPrediction, targets: GenerativeTargets): string {
  return `meets the targets only at a trickle (TTFT p99 ${round1(alone.ttftP99Ms)} of ${targets.ttftP99Ms} ms, TPOT p99 ` +
    `${round1(alone.tpotP99Ms)} of ${targets.tpotP99Ms} ms${targets.e2eP99Ms !== undefined ? `, end-to-end p99 ${Math.round(alone.e2eP99Ms)} of ${targets.e2eP99Ms} ms` : ''}): ` +
    'loosen the targets or use more cores per replica';
}
