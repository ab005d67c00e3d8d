/**
 * Which target a replica misses with no load to speak of, for the rejection that says why a configuration lost, and
 * which target binds a plan whose replicas sit idle (below).
 *
 * The capacity search gives up on a configuration when a trickle (`CAPACITY_PRECISION` of its rate bound) already
 * misses a target; the rejection must name that target. Checking TTFT before the end-to-end target without looking
 * blamed every candidate on TTFT ("misses TTFT p99 2000 ms even alone (385.92 ms)") when the end-to-end target was
 * what no candidate met.
 */
import { instancesFor } from '../planner/candidate';
import { CAPACITY_PRECISION, predictReplica, replicaCapacityRps, replicaRateBound, type ReplicaPrediction } from './continuous-batching';
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

/** A rejection's code and reason. */
export interface MissReason {
  readonly code: 'tpot' | 'ttft' | 'e2e';
  readonly reason: string;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Why a configuration timed by measured rows lost at a trickle. */
export function measuredMissReason(timing: EngineTiming, targets: GenerativeTargets): MissReason {
  const miss = missedAlone(timing, targets);
  if (miss === undefined) {
    return { code: 'ttft', reason: underLoadReason(predictAlone(timing, targets), targets) };
  }
  const { code, alone } = miss;
  if (code === 'tpot') {
    return { code, reason: `decodes at TPOT p99 ${round1(alone.tpotP99Ms)} ms even alone; the target is ${targets.tpotP99Ms} ms: use fewer sequences or more cores per replica` };
  }
  if (code === 'ttft') {
    return { code, reason: `first token at p99 ${round1(alone.ttftP99Ms)} ms even alone (prefill of ${targets.inputTokens.p99 ?? targets.inputTokens.mean} tokens); the target is ${targets.ttftP99Ms} ms: shorten prompts or use more cores` };
  }
  return { code, reason: e2eMissReason(alone, targets) };
}

/** Why a configuration the performance model timed lost at a trickle: its decode step, TPOT, TTFT or end-to-end. */
export function estimatedMissReason(timing: EngineTiming, targets: GenerativeTargets): MissReason {
  const step = timing.stepSeconds * 1000;
  if (step > targets.tpotP99Ms) {
    return { code: 'tpot', reason: `estimated decode step ${round2(step)} ms (with the model's error) exceeds TPOT p99 ${targets.tpotP99Ms} ms even alone` };
  }
  const miss = missedAlone(timing, targets);
  if (miss === undefined) {
    return { code: 'ttft', reason: `estimated: ${underLoadReason(predictAlone(timing, targets), targets)}` };
  }
  if (miss.code === 'tpot') {
    return { code: 'tpot', reason: `estimated TPOT p99 ${round2(miss.alone.tpotP99Ms)} ms even alone (a decode step of ${round2(step)} ms and the prefills that land in a request's decode) exceeds TPOT p99 ${targets.tpotP99Ms} ms` };
  }
  if (miss.code === 'e2e') {
    return { code: 'e2e', reason: e2eMissReason(miss.alone, targets, true) };
  }
  const prefillMs = timing.prefillSeconds(targets.inputTokens.p99 ?? targets.inputTokens.mean) * 1000;
  return { code: 'ttft', reason: `estimated prefill of the prompts misses TTFT p99 ${targets.ttftP99Ms} ms even alone (${round2(prefillMs)} ms at p99 length)` };
}

/*
 * Plans sized by a latency target, not by load: the replicas run almost nothing.
 *
 * A target just above what one request takes alone leaves queueing no room, so each replica may take only a trickle
 * and the fleet grows with the rate divided by that trickle. The plan holds its targets, and no one would run it:
 * Llama 3.1 8B at 2 requests/s with an end-to-end p99 of 6,000 ms plans 156 ml.inf2.48xlarge, each replica 1 % busy,
 * where 8,000 ms plans 6. Such a plan says so: which target binds, how close it is to the alone figure, and what a
 * looser value buys on the same layout (the planner may find a cheaper one still).
 */
/** Below this share of its sequences busy at the target rate, a replica is idle. */
export const IDLE_SHARE = 0.05;

/** Looser values tried for the binding target, as multiples of its alone figure. */
const LOOSER = [1.25, 1.5, 2, 3];

/** What the warning reads of a sized plan. */
export interface IdleReplicasInput {
  readonly timing: EngineTiming;
  readonly targets: GenerativeTargets;
  /** Compiled sequences per replica. */
  readonly sequences: number;
  readonly replicasPerInstance: number;
  readonly instanceCount: number;
  /** The least instances the plan may run (`minInstances`): a floor, not a sign of idle capacity. */
  readonly minInstances: number;
  readonly headroom: number;
}

/** Each target: the plan's field (and the prediction's), its name, and the CLI flag that sets it. */
const TARGETS = [
  { key: 'ttftP99Ms', label: 'TTFT p99', flag: '--ttft-p99' },
  { key: 'tpotP99Ms', label: 'TPOT p99', flag: '--tpot-p99' },
  { key: 'e2eP99Ms', label: 'end-to-end p99', flag: '--e2e-p99' },
] as const;

/**
 * The warning of a plan whose replicas run under {@link IDLE_SHARE} of their sequences while it buys more instances
 * than its floor; undefined otherwise.
 */
export function idleReplicasWarning(input: IdleReplicasInput): string | undefined {
  const { timing, targets, sequences, replicasPerInstance, instanceCount, minInstances, headroom } = input;
  // From the timing, not the plan's meanRunningSequences (rounded to 0.01, too coarse for a replica 1 % busy).
  const meanRunning = predictReplica(timing, targets, targets.requestsPerSecond / (instanceCount * replicasPerInstance)).meanRunning;
  const busy = meanRunning / sequences;
  if (!(busy < IDLE_SHARE) || instanceCount <= Math.max(1, minInstances)) {
    return undefined;
  }
  const alone = predictAlone(timing, targets);
  const binding = TARGETS
    .filter((t) => targets[t.key] !== undefined && alone[t.key] > 0)
    .map((t) => ({ ...t, target: targets[t.key]!, alone: alone[t.key], slack: targets[t.key]! / alone[t.key] }))
    .sort((a, b) => a.slack - b.slack)[0];
  if (binding === undefined) {
    return undefined;
  }
  const fleet = (value: number) => {
    const capacity = replicaCapacityRps(timing, { ...targets, [binding.key]: value });
    return capacity > 0 ? instancesFor(targets.requestsPerSecond, headroom, replicasPerInstance * capacity) : Infinity;
  };
  const looser = LOOSER.map((f) => roundUp(binding.alone * f)).filter((v) => v > binding.target)
    .map((value) => ({ value, instances: fleet(value) })).find((c) => c.instances <= instanceCount / 2);
  const unit = binding.key === 'tpotP99Ms' ? 1 : 0;
  return `replicas run on average ${meanRunning.toFixed(3)} of ${sequences} sequences (${(busy * 100).toFixed(1)} % busy) at `
    + `${targets.requestsPerSecond} requests/s: the ${binding.label} target (${binding.target} ms) is ${binding.slack.toFixed(2)} x what a `
    + `request takes alone (${binding.alone.toFixed(unit)} ms), so queueing has almost no room and the fleet is sized by latency, not load `
    + `(${instanceCount} instances); `
    + (looser !== undefined
      ? `at ${looser.value} ms (${binding.flag} ${looser.value}) this layout needs ${looser.instances}: raise the target if the use allows, or keep it and pay for the idle capacity`
      : 'raise the target if the use allows, or keep it and pay for the idle capacity');
}

/** Up to two significant figures, so a proposed target reads like one a user would set (4,491 -> 4,500). */
function roundUp(ms: number): number {
  const step = 10 ** Math.max(0, Math.floor(Math.log10(ms)) - 1);
  return Math.ceil(ms / step) * step;
}
