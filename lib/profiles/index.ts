/**
 * Model profiles: the reference profiles from the Neuron performance tables, lookup by id, validation of a user's
 * own profile, and self-contradiction checks.
 */
import { InputError } from '../errors';
import { BUILT_IN_GENERATIVE_PROFILES } from './data/generative';
import { BUILT_IN_PROFILES } from './builtin';
import type { ModelProfile } from './types';

export type * from './types';
export { checkProfile, serialThroughputRps, MIN_THROUGHPUT_RATIO, MAX_THROUGHPUT_RATIO } from './check';
export { parseProfile } from './schema';
/** @internal a zod schema: out of the published declarations */
export { profileSchema } from './schema';
export { estimateMemory, BYTES_PER_PARAM } from './memory';
export type { MemoryEstimate, MemoryEstimateInput, ActivationKind, WeightPrecision } from './memory';
export { HOST_CPU_DEFAULTS } from './host-cpu';
export type { HostCpuDefault } from './host-cpu';

const BY_ID: ReadonlyMap<string, ModelProfile> = new Map(BUILT_IN_PROFILES.map((p) => [p.id, p]));

/** Every built-in reference profile, sorted by id. */
export function builtInProfiles(): readonly ModelProfile[] {
  return BUILT_IN_PROFILES;
}

/** The built-in profile with exactly this id (as the Neuron tables write it), if any. */
export function findProfile(id: string): ModelProfile | undefined {
  return BY_ID.get(id);
}

/** Ids of every built-in profile, sorted. */
export function profileIds(): readonly string[] {
  return BUILT_IN_PROFILES.map((p) => p.id);
}

export { editDistance } from '../edit-distance';
import { editDistance } from '../edit-distance';

/** Lower case with separators dropped: `min-instances`, `min_instances` and `minInstances` squash alike. */
function squash(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * The known name `typed` most likely meant, if any: the same but for case and separators, a prefix of at least 3
 * characters either way (`throughputRps` for `throughput`), or within 2 edits (and fewer than a third of its
 * letters, so short names do not match everything). Undefined when nothing is that close: then `typed` is taken
 * to be some other tool's name, not a slip.
 */
export function closestName(typed: string, known: readonly string[]): string | undefined {
  const t = squash(typed);
  if (t.length === 0) return undefined;
  let best: { name: string; distance: number; gap: number } | undefined;
  for (const name of known) {
    const k = squash(name);
    const prefix = Math.min(t.length, k.length) >= 3 && (t.startsWith(k) || k.startsWith(t));
    const distance = t === k || prefix ? 0 : editDistance(t, k);
    // Among equals, the name nearest in length: `llamaInputTokensP9` means `llamaInputTokensP99`.
    const gap = Math.abs(t.length - k.length);
    if (distance <= 2 && distance * 3 < k.length
      && (best === undefined || distance < best.distance || (distance === best.distance && gap < best.gap))) {
      best = { name, distance, gap };
    }
  }
  return best?.name;
}

/** How an id relates to what the user typed: same but for case, starts with it, contains it, or neither. */
function matchTier(wanted: string, candidate: string): number {
  if (candidate === wanted) {
    return 0;
  }
  if (candidate.startsWith(wanted)) {
    return 1;
  }
  return candidate.includes(wanted) || wanted.includes(candidate) ? 2 : 3;
}

/**
 * Every built-in id, the closest to `id` first: same but for case, then ids starting with it, then ids containing it,
 * then the rest; within each group by edit distance, then by name.
 */
export function closestProfileIds(id: string): string[] {
  const wanted = id.toLowerCase();
  return profileIds()
    .map((candidate) => {
      const c = candidate.toLowerCase();
      return { candidate, tier: matchTier(wanted, c), distance: editDistance(wanted, c) };
    })
    .sort((a, b) => a.tier - b.tier || a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .map((s) => s.candidate);
}

/**
 * The built-in profile with this id.
 *
 * @throws InputError `unknown model 'bert-base'; known models: ...` listing every id, the closest matches first;
 *   for a generative id, which lookup and planner take it instead
 */
export function requireProfile(id: string): ModelProfile {
  const profile = findProfile(id);
  if (!profile) {
    // A generative id is not a typo: listing single-call models would send the user looking in the wrong place.
    if (BUILT_IN_GENERATIVE_PROFILES.some((p) => p.id === id)) {
      throw new InputError(
        `'${id}' is a generative model, planned in tokens, not a single-call one: look it up with ` +
          `findGenerativeProfile('${id}') and plan it with planGenerative (CLI: plan --model ${id} with --ttft-p99/--tpot-p99).`,
      );
    }
    throw new InputError(
      `unknown model '${id}'; known models: ${closestProfileIds(id).join(', ')}. ` +
        'Pass one of them with --model, or your own measurements with --profile FILE.',
    );
  }
  return profile;
}
