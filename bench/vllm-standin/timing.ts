/**
 * The stand-in's timings from what the planner uses: a plan's measured rows, read through the planner's own
 * `engineTiming` (lib/generative/continuous-batching.ts), so the stand-in runs the very step and prefill times the plan
 * predicted from, with no second copy of the model.
 */
import { engineTiming, findGenerativeProfile, planTiming, type EngineTiming, type GenerativeMeasurement, type GenerativePlan } from '../../lib/generative';
import type { StandinTiming } from './engine';

/** A prompt long enough that the prefill's fixed floor no longer matters, to read the per-token slope. */
const SLOPE_PROBE_TOKENS = 1_000_000;

/**
 * The stand-in timing of an engine timing: decode step as is; prefill as `max(floor, perToken x L)`, the floor being
 * the prefill of one token and the slope the time per token of a very long prompt. For measured TTFT rows this is
 * exactly the planner's prefill; for rows without TTFT (one step per 128 prompt tokens, rounded up) it is the same
 * line without the rounding.
 */
export function standinTimingOf(timing: EngineTiming, slowdown = 1): StandinTiming {
  return {
    maxNumSeqs: timing.maxSequences,
    stepMs: timing.stepSeconds * 1000,
    prefillFloorMs: timing.prefillSeconds(1) * 1000,
    prefillMsPerToken: (timing.prefillSeconds(SLOPE_PROBE_TOKENS) * 1000) / SLOPE_PROBE_TOKENS,
    slowdown,
  };
}

/**
 * The stand-in timing of the engine a plan priced (`planTiming`): its measured rows, or for an ESTIMATE the
 * performance model's decode step and its prefill per compiled prompt bucket (the engine runs a prompt in the smallest
 * bucket that holds it), so the stand-in's prefills are the plan's, prompt by prompt.
 */
export function standinTimingOfPlan(plan: GenerativePlan, slowdown = 1): StandinTiming {
  const profile = findGenerativeProfile(plan.profileId);
  if (profile === undefined) {
    throw new Error(`no built-in generative profile ${plan.profileId}`);
  }
  const timing = planTiming(profile, plan);
  if (plan.generative.estimate === undefined) {
    return standinTimingOf(timing, slowdown);
  }
  const mean = plan.generative.lengths?.input.mean ?? plan.targets.inputTokens.mean;
  const buckets = plan.generative.engine.contextEncodingBuckets ?? [];
  return {
    maxNumSeqs: timing.maxSequences,
    stepMs: timing.stepSeconds * 1000,
    prefillFloorMs: 0,
    prefillMsPerToken: (timing.prefillSeconds(mean) * 1000) / mean,
    ...(buckets.length > 0 ? { prefillBuckets: buckets.map((tokens) => ({ tokens, ms: timing.prefillSeconds(tokens) * 1000 })) } : {}),
    slowdown,
  };
}

/** The stand-in timing of a plan's measured rows at its `max_num_seqs`. */
export function standinTimingOfRows(rows: readonly GenerativeMeasurement[], maxNumSeqs: number, slowdown = 1): StandinTiming {
  return standinTimingOf(engineTiming(rows, maxNumSeqs), slowdown);
}

/**
 * The stand-in timing of a built-in profile's rows on one instance type and tensor-parallel degree.
 *
 * @throws Error naming what exists when the profile, or a row at that instance, degree and batch, is missing
 */
export function standinTimingOfProfile(profileId: string, instanceType: string, tensorParallelDegree: number, maxNumSeqs: number, slowdown = 1): StandinTiming {
  const profile = findGenerativeProfile(profileId);
  if (profile === undefined) {
    throw new Error(`--profile ${profileId}: no built-in generative profile has that id`);
  }
  const rows = profile.measurements.filter((r) => r.instanceType === instanceType && r.tensorParallelDegree === tensorParallelDegree);
  if (!rows.some((r) => r.batchSize === maxNumSeqs)) {
    const have = profile.measurements.map((r) => `${r.instanceType} tp=${r.tensorParallelDegree} seqs=${r.batchSize}`);
    throw new Error(`--profile ${profileId}: no row at ${instanceType} tp=${tensorParallelDegree} seqs=${maxNumSeqs}; rows: ${[...new Set(have)].join(', ')}`);
  }
  return standinTimingOfRows(rows, maxNumSeqs, slowdown);
}
