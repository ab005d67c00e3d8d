/**
 * The engine timing a generative plan was sized with, for the benches that replay it (`generative-plans.ts`) or run
 * it in the stand-in (`generative.ts`): its measured rows read through the planner's `engineTiming` where the plan's
 * configuration was measured; for an ESTIMATE (no row at its sequences), the performance model's decode step and
 * mean prefill the plan states (`generative.estimate`, raised by the headroom the plan added), the prefill taken as
 * linear in prompt tokens through that mean, which the model's bucketed prefill is close to over the distribution.
 */
import { engineTiming, type EngineTiming, type GenerativePlan } from '../lib/generative';

/** The plan's engine timing, from its rows or its estimate. */
export function planEngineTiming(plan: GenerativePlan): EngineTiming {
  const g = plan.generative;
  if (g.measurement.some((r) => r.batchSize === g.maxConcurrentSequences) || g.estimate === undefined) {
    return engineTiming(g.measurement, g.maxConcurrentSequences);
  }
  const e = g.estimate;
  const meanInput = g.lengths?.input.mean ?? plan.targets.inputTokens.mean;
  const prefillPerToken = (e.prefillMs * e.headroom.ttft) / 1000 / meanInput;
  return {
    maxSequences: g.maxConcurrentSequences,
    stepSeconds: (e.stepMs * e.headroom.tpot) / 1000,
    prefillSeconds: (tokens: number) => prefillPerToken * Math.max(1, tokens),
    tpotTail: 1,
    ttftTail: 1,
    chunkedPrefill: false,
    prefillEstimated: false,
  };
}
