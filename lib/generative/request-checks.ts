/**
 * Checks of a generative planning request that read more than one field: targets that contradict each other, and
 * lever options that the candidates would drop without a word. Each problem names the field, the value and the fix;
 * `resolveGenerativeRequest` (planner.ts) adds them to the others.
 */
import { hasDraft, SPECULATIVE_TOKENS } from './levers';
import { LEVER_NAMES } from './lever-evidence';
import type { GenerativePlanOptions, GenerativeProfile, GenerativeTargets } from './types';

/**
 * The most tokens a speculative step can keep: the draft's proposals, all accepted, plus the token the target adds
 * itself (the fused draft's 7; an EAGLE3 head proposes 3, and a figure above its 4 leaves speculation out on Trn2 and
 * Trn3, `speculationProblem`). A figure above it times decoding faster than the engine can run
 * (`--accepted-tokens 100` planned a TPOT of 0 ms).
 */
export const MAX_ACCEPTED_TOKENS = SPECULATIVE_TOKENS + 1;

/**
 * Why the lever options cannot all take effect: an accepted-token figure out of range, or one that no candidate would
 * use (speculation turned off, no cited draft, the performance model off or unable to estimate the model); the same
 * for a prefix hit rate. Empty when they can.
 */
export function leverProblems(profile: Pick<GenerativeProfile, 'id' | 'model'>, options: Pick<GenerativePlanOptions, 'levers' | 'estimates'>): string[] {
  const levers = options.levers ?? {};
  const problems: string[] = [];
  const accepted = levers.acceptedTokens;
  if (accepted !== undefined) {
    if (!(Number.isFinite(accepted) && accepted >= 1)) {
      problems.push(`acceptedTokens=${accepted} must be at least 1 (tokens kept per speculative step, the bonus token included); leave it out for the published figure`);
    } else if (accepted > MAX_ACCEPTED_TOKENS) {
      problems.push(`acceptedTokens=${accepted} is above ${MAX_ACCEPTED_TOKENS}: a speculative step keeps at most the draft's ${SPECULATIVE_TOKENS} ` +
        `proposals plus the target's own token; give 1 to ${MAX_ACCEPTED_TOKENS} (the share your draft's proposals are accepted, ` +
        `x ${SPECULATIVE_TOKENS}, + 1), or leave it out for the published figure`);
    }
  }
  // Levers shape only the performance model's candidates: measured rows are timed as they were measured.
  const unused = (what: string): string | undefined => {
    if (levers.speculativeDecoding === false && what === 'acceptedTokens') {
      return 'speculative decoding is off (speculativeDecoding: false, --no-speculative-decoding); drop one of the two';
    }
    if (what === 'acceptedTokens' && !hasDraft(profile)) {
      return `${profile.id} has no cited draft model, so speculative decoding is never a candidate; leave it out`;
    }
    if (options.estimates === false) {
      return 'levers shape only the performance model\'s candidates, and estimates are off (estimates: false, --no-estimates); drop one of the two';
    }
    if (profile.model.architecture !== 'decoder-only') {
      return `the performance model estimates decoder-only models and ${profile.id} is ${profile.model.architecture}: its plans come from its `
        + 'measured rows, which no lever changes; leave it out';
    }
    return undefined;
  };
  for (const lever of levers.unmeasured ?? []) {
    if (!LEVER_NAMES.includes(lever)) {
      problems.push(`levers.unmeasured: '${lever}' is no lever; use ${LEVER_NAMES.join(', ')}`);
    }
  }
  for (const [name, value] of [['acceptedTokens', accepted], ['prefixHitRate', levers.prefixHitRate]] as const) {
    const why = value !== undefined ? unused(name) : undefined;
    if (why !== undefined) {
      problems.push(`${name}=${value} would be ignored: ${why}`);
    }
  }
  return problems;
}

/**
 * Why an end-to-end target contradicts the others, or undefined when it does not: a request's end-to-end time
 * includes its first token, so a target below the TTFT target leaves the TTFT target meaningless and is a slip (a
 * unit, a digit). The message says what the other two targets already allow, for the lengths planned.
 */
export function e2eTargetProblem(targets: Pick<GenerativeTargets, 'e2eP99Ms' | 'ttftP99Ms' | 'tpotP99Ms'>, outputTokensP99: number): string | undefined {
  const { e2eP99Ms: e2e, ttftP99Ms: ttft, tpotP99Ms: tpot } = targets;
  if (e2e === undefined || !(e2e > 0) || !(ttft > 0) || e2e >= ttft) {
    return undefined;
  }
  const allowed = Math.round(ttft + Math.max(0, outputTokensP99 - 1) * tpot);
  return `e2eP99=${e2e} is below ttftP99=${ttft}: a request's end-to-end time includes its first token, so no request could meet both; ` +
    `give an end-to-end target above ${ttft} ms (the TTFT and TPOT targets alone allow up to ${allowed} ms for ${outputTokensP99} output tokens ` +
    `at p99: ${ttft} + ${Math.max(0, outputTokensP99 - 1)} x ${tpot}), or lower ttftP99, or leave e2eP99 out`;
}
