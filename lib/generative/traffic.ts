/**
 * The workload a generative plan is made for: its length distributions (a preset's spread, stated p99s, or a file's
 * own), how its requests arrive, the `max_model_len` that covers them, and what the plan must say it assumed.
 */
import { plannedArrivals } from '../traffic/arrivals';
import { isQuantileTable } from '../traffic/quantiles';
import { QUANTILE_PROBABILITIES } from '../traffic/types';
import type { ArrivalProcess } from '../traffic/types';
import { MAX_LOGNORMAL_P99_OVER_MEAN, workloadLengths } from './lengths';
import type { GenerativeLengthCut, GenerativePlanReport, GenerativeTargets, LengthDistribution, TokenLength, WorkloadLengths } from './types';
import { WORKLOAD_PRESET_NAMES, WORKLOAD_PRESETS } from './workloads';

export type ResolvedGenerativeRequest = GenerativePlanReport['request'] & {
  /** The length distributions planned for; `targets` carries their p99s. */
  readonly lengths: WorkloadLengths;
  /** How requests arrive, as planned (Poisson unless the targets say otherwise). */
  readonly arrivals: ArrivalProcess;
  /**
   * Prompt plus output tokens the engine must accept (vLLM's `max_model_len`): p99 input + p99 output, or a file's p99
   * of the two together, or a measured row's sequence length a little below either (`lengthCut`).
   */
  readonly maxModelLength: number;
  /** Present when the model length was snapped down to a measured row's (`length-snap.ts`). @default - not snapped */
  readonly lengthCut?: GenerativeLengthCut;
  /** What the plan assumed of the workload and should say: a preset stretched past its trace, a cut context. */
  readonly notes: readonly string[];
};

/** The longest sequence the targets imply: p99 input + p99 output tokens, rounded up to whole tokens. */
export function maxModelLengthFor(targets: Pick<GenerativeTargets, 'inputTokens' | 'outputTokens'>): number {
  return Math.ceil((targets.inputTokens.p99 ?? targets.inputTokens.mean) + (targets.outputTokens.p99 ?? targets.outputTokens.mean));
}

/**
 * The targets as a plan shows them: the length distributions are left out (`generative.lengths` and
 * `request.lengths` carry them once), the arrivals kept when the workload stated them.
 */
export function publicTargets({ lengths: _lengths, ...rest }: GenerativeTargets): GenerativeTargets {
  return rest;
}

/**
 * The request as the report shows it: its targets as plans show them; its notes are every plan's warnings already, and
 * its length cut every plan's `generative.lengthCut`.
 */
export function shownRequest({ notes: _notes, lengthCut: _cut, ...shown }: ResolvedGenerativeRequest): Omit<ResolvedGenerativeRequest, 'notes' | 'lengthCut'> {
  return { ...shown, targets: publicTargets(shown.targets) };
}

/**
 * The problem with a stated p99 no lognormal holds (more than {@link MAX_LOGNORMAL_P99_OVER_MEAN} times the mean), as
 * `name` (`inputTokens`) states it; none when the lengths are given whole, where a file's tail is planned as it is.
 */
export function lognormalProblems(name: string, length: TokenLength, targets: Pick<GenerativeTargets, 'lengths'>): string[] {
  if (targets.lengths !== undefined || length.p99 === undefined || !(length.p99 > length.mean * MAX_LOGNORMAL_P99_OVER_MEAN)) {
    return [];
  }
  const most = Math.floor(length.mean * MAX_LOGNORMAL_P99_OVER_MEAN);
  return [
    `${name}P99=${length.p99} is ${Math.round((length.p99 / length.mean) * 10) / 10} x the mean (${length.mean}); no lognormal holds a p99 above ` +
      `${MAX_LOGNORMAL_P99_OVER_MEAN.toFixed(2)} x its mean (${most} here), so lengths that spread cannot be planned from a mean and a p99: ` +
      'give the lengths whole (plan --lengths-from FILE: a log or benchmark export of your requests, planned as its own distribution), ' +
      `or a p99 of at most ${most}`,
  ];
}

/** The workload resolved for planning. */
export interface ResolvedTraffic {
  readonly lengths: WorkloadLengths;
  /** As planned: more regular than Poisson is planned as Poisson. */
  readonly arrivals: ArrivalProcess;
  readonly maxModelLength: number;
  readonly notes: readonly string[];
}

/**
 * The workload of the targets, each problem pushed onto `problems` naming the field, the value and the fix; undefined
 * when the lengths cannot be resolved (a problem was found).
 */
export function resolveTraffic(
  targets: GenerativeTargets,
  profile: { readonly id: string; readonly model: { readonly maxContextTokens: number } },
  problems: string[],
): ResolvedTraffic | undefined {
  const maxContextTokens = profile.model.maxContextTokens;
  const notes: string[] = [];
  if (targets.workload !== undefined && !WORKLOAD_PRESET_NAMES.includes(targets.workload)) {
    problems.push(`workload=${String(targets.workload)} is no preset; give ${WORKLOAD_PRESET_NAMES.join(' or ')}`);
  }
  if (targets.lengths !== undefined) {
    lengthsProblems(targets, problems);
  }
  const arrivals = plannedArrivals(targets.arrivals, problems);
  // Lengths are only drawn from valid targets: a mean below 1 or a p99 no lognormal holds was reported already.
  if (problems.length > 0) {
    return undefined;
  }
  const lengths = workloadLengths(targets, maxContextTokens);
  notes.push(...presetNotes(targets, lengths));
  let maxModelLength = lengths.totalP99 ?? Math.ceil(lengths.input.p99 + lengths.output.p99);
  if (maxModelLength > maxContextTokens) {
    if (lengths.totalP99 === undefined) {
      problems.push(
        `input plus output tokens at p99 (${maxModelLength}) exceed ${profile.id}'s context of ${maxContextTokens} tokens; ` +
          'shorten the prompts or the outputs',
      );
      return undefined;
    }
    notes.push(
      `max_model_len is cut to ${profile.id}'s context of ${maxContextTokens} tokens: the traffic's p99 of prompt plus output is ` +
        `${maxModelLength} tokens, so more than 1 % of its requests are longer than the model takes and the engine refuses them ` +
        '(the replay and the proofs cut them to the context)',
    );
    maxModelLength = maxContextTokens;
  }
  if (arrivals.scv !== 1) {
    notes.push(`arrivals planned burstier than Poisson: the gaps' squared coefficient of variation is ${arrivals.scv} (1 is Poisson), from ${arrivals.source.split(';')[0]}`);
  }
  return { lengths, arrivals, maxModelLength, notes };
}

function lengthsProblems(targets: GenerativeTargets, problems: string[]): void {
  const lengths = targets.lengths as WorkloadLengths;
  if (targets.fixedLengths === true || targets.workload !== undefined) {
    problems.push(`lengths are given whole; leave out ${targets.fixedLengths === true ? 'fixedLengths' : 'workload'}, which sets a spread the lengths already have`);
  }
  for (const [role, dist, stated] of [['input', lengths.input, targets.inputTokens], ['output', lengths.output, targets.outputTokens]] as const) {
    const name = `lengths.${role}`;
    if (!(dist.mean >= 1) || !(dist.p99 >= dist.mean)) {
      problems.push(`${name} has mean ${dist.mean} and p99 ${dist.p99}; a length distribution needs a mean of at least 1 token and a p99 at least the mean`);
    }
    if (dist.quantiles !== undefined && !isQuantileTable(dist.quantiles)) {
      problems.push(`${name}.quantiles must hold ${QUANTILE_PROBABILITIES.length} token counts, one per QUANTILE_PROBABILITIES point, from the smallest to the largest`);
    }
    if (stated.mean !== dist.mean) {
      problems.push(`${role}Tokens.mean=${stated.mean} differs from lengths.${role}.mean=${dist.mean}; give the distribution's mean (or leave lengths out)`);
    }
  }
  if (lengths.correlation !== undefined && !(Math.abs(lengths.correlation) <= 1)) {
    problems.push(`lengths.correlation=${lengths.correlation} must be from -1 to 1`);
  }
}


/** Notes on a preset's spread applied to a mean its trace never held. */
function presetNotes(targets: GenerativeTargets, lengths: WorkloadLengths): string[] {
  const preset = WORKLOAD_PRESETS[targets.workload ?? 'chat'];
  const note = (dist: LengthDistribution, role: 'prompt' | 'output', count: typeof preset.input, flag: string): string[] => {
    if (dist.spread !== 'default' || (dist.mean >= count.p5 && dist.mean <= count.p95)) {
      return [];
    }
    return [
      `the mean ${role} of ${dist.mean} tokens is outside the ${preset.name} trace's ${role}s (p5 ${count.p5} to p95 ${count.p95} tokens): ` +
        `its spread (p99 ${(dist.p99 / dist.mean).toFixed(2)} x the mean) is assumed here, measured on other lengths than yours; ` +
        `state ${flag}, or give your own traffic with --lengths-from`,
    ];
  };
  return [...note(lengths.input, 'prompt', preset.input, '--input-tokens-p99'), ...note(lengths.output, 'output', preset.output, '--output-tokens-p99')];
}
