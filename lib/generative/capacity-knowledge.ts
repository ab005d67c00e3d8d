/**
 * What planning has learnt of each estimated configuration's capacity, kept between plans of the same profile.
 */
import { CAPACITY_PRECISION, meetsTargets, predictReplica, replicaCapacityRps, replicaRateBound } from './continuous-batching';
import type { EngineTiming, GenerativeProfile, GenerativeTargets } from './types';
import { plannedArrivalScv } from './bursts';

/**
 * What is known of each estimated configuration's capacity, per profile, by what its timing is made of and the
 * targets that bound it (not the rate: a capacity does not depend on it). The example app and the promotion pipeline
 * plan the same model for several environments, and each plan would search or probe the same configurations again.
 * A replica that holds the targets at a rate holds them at every lower one, so two rates bracket the capacity.
 */
export interface CapacityKnowledge {
  /** The highest rate known to hold the targets (0: none yet). */
  fits: number;
  /** The lowest rate known to miss them (Infinity: none yet). */
  misses: number;
  /** The capacity search's answer, once run. */
  capacity?: number;
}

const knowledge = new WeakMap<GenerativeProfile, Map<string, CapacityKnowledge>>();

/** Configurations kept per profile before starting afresh (`bench:plans` plans thousands of targets). */
const CONFIGURATIONS_KEPT = 2000;

export function knowledgeOf(profile: GenerativeProfile, timingKey: readonly unknown[], targets: GenerativeTargets): CapacityKnowledge {
  // The model reads the arrivals' SCV only (their table is the replay's and the proofs'); the lengths are in the timing key.
  const key = JSON.stringify([timingKey, targets.inputTokens, targets.outputTokens, targets.ttftP99Ms, targets.tpotP99Ms, targets.e2eP99Ms, plannedArrivalScv(targets)]);
  let known = knowledge.get(profile);
  if (!known || known.size >= CONFIGURATIONS_KEPT) {
    known = new Map();
    knowledge.set(profile, known);
  }
  let entry = known.get(key);
  if (!entry) {
    entry = { fits: 0, misses: Infinity };
    known.set(key, entry);
  }
  return entry;
}

/** The capacity of a configuration: searched once (`replicaCapacityRps`), then remembered. */
export function searchedCapacity(entry: CapacityKnowledge, timing: EngineTiming, targets: GenerativeTargets): number {
  if (entry.capacity === undefined) {
    entry.capacity = replicaCapacityRps(timing, targets);
    entry.fits = Math.max(entry.fits, entry.capacity);
    entry.misses = Math.min(entry.misses, entry.capacity + CAPACITY_PRECISION * replicaRateBound(timing, targets));
  }
  return entry.capacity;
}

/** Whether the configuration holds the targets at `rate`: from what is known, else one prediction (then known). */
export function holdsAt(entry: CapacityKnowledge, timing: EngineTiming, targets: GenerativeTargets, rate: number): boolean {
  if (rate <= entry.fits) {
    return true;
  }
  if (rate >= entry.misses) {
    return false;
  }
  const holds = meetsTargets(predictReplica(timing, targets, rate), targets);
  if (holds) {
    entry.fits = rate;
  } else {
    entry.misses = rate;
  }
  return holds;
}
