/**
 * Which feasible generative plan is chosen, beyond the cheapest: levers only with evidence, and the layouts people run.
 *
 * - **Levers only with evidence.** A plan that uses a lever no published row measured on its chip family and serving
 *   stack (`lever-evidence.ts`) is not chosen, nor listed as an alternative, unless the lever was asked for
 *   (`GenerativeLeverOptions.unmeasured`; a stated prefix hit rate asks for prefix caching). The cheapest such plan of
 *   each lever combination is reported beside the plan with what it would save if the lever holds.
 * - **Layouts people run.** Published practice serves data-parallel replicas of the smallest tensor-parallel degree that
 *   fits: Llama 3.1 8B as 3 x TP 8 on inf2.48xlarge and 4 x TP 8 on trn1.32xlarge (huggingface/optimum-neuron
 *   benchmark/vllm/data-parallel/llama3.1-8b/), Llama 3.3 70B at TP 16, four replicas per trn2.48xlarge (vLLM Neuron
 *   plugin, docs/tutorials/tutorial-llama3-70b.md). A plan of a larger degree than the model's rows measured on its
 *   chip, timed by the performance model, wins over a smaller degree's only when it is cheaper by more than the model's
 *   error (`largerDegreeMargin`): the model's collective term is what makes large degrees look cheap, and it is the
 *   least measured. A measured degree needs no margin. The chosen plan says why when a larger degree won.
 */
import { ec2Name } from '../catalog/catalog';
import { chipOf } from '../planner/planner';
import { degreeMargin } from './estimate';
import { unmeasuredLeversOf } from './lever-evidence';
import type { GenerativePlan, GenerativeProfile, GenerativeUnmeasuredLevers, LeverName } from './types';

/** The levers a plan uses that no published row measured on its chip family and stack and nobody asked for. */
export function unaskedLevers(plan: GenerativePlan, asked: readonly LeverName[]): LeverName[] {
  // A stated hit rate is what makes prefix caching a candidate at all: it was asked for.
  return unmeasuredLeversOf(plan.generative.engine.levers, plan.instance.family, plan.profileId)
    .filter((lever) => lever !== 'prefix-caching' && !asked.includes(lever));
}

/** The plans that may be chosen, and those that would need a lever nobody measured there. */
export function splitByEvidence(plans: readonly GenerativePlan[], asked: readonly LeverName[]): { readonly allowed: GenerativePlan[]; readonly unmeasured: GenerativePlan[] } {
  const allowed: GenerativePlan[] = [];
  const unmeasured: GenerativePlan[] = [];
  for (const plan of plans) {
    (unaskedLevers(plan, asked).length === 0 ? allowed : unmeasured).push(plan);
  }
  return { allowed, unmeasured };
}

/** Cost per 1M output tokens at goodput (the hourly cost's, where older plans lack it). */
function costPerToken(plan: GenerativePlan): number {
  return plan.generative.costPer1MOutputTokensAtGoodputUsd ?? plan.generative.costPer1MOutputTokensUsd;
}

/**
 * The cheapest unmeasured plan of each combination of unmeasured levers (cheapest first), against the chosen plan:
 * the share of its cost per 1M output tokens at goodput each would save.
 */
export function unmeasuredAlternatives(unmeasured: readonly GenerativePlan[], chosen: GenerativePlan, asked: readonly LeverName[],
  compare: (a: GenerativePlan, b: GenerativePlan) => number): GenerativeUnmeasuredLevers[] {
  const best = new Map<string, GenerativeUnmeasuredLevers>();
  for (const plan of [...unmeasured].sort(compare)) {
    const levers = unaskedLevers(plan, asked);
    const key = levers.join('+');
    if (!best.has(key)) {
      best.set(key, { levers, plan, saves: Math.round((1 - costPerToken(plan) / costPerToken(chosen)) * 1e4) / 1e4 });
    }
  }
  return [...best.values()];
}

/**
 * The share by which a plan of a larger tensor-parallel degree must be cheaper than a smaller degree's to be chosen:
 * 0 for a plan timed by measured rows, or by the model at a degree no larger than the profile's rows measured on the
 * chip; otherwise, a degree beyond what was measured, the model's error (`degreeMargin`).
 */
export function largerDegreeMargin(plan: GenerativePlan, profile: Pick<GenerativeProfile, 'measurements'>): number {
  if (plan.generative.estimate === undefined) return 0;
  const chip = chipOf(plan.instance.family);
  const measured = profile.measurements
    .filter((r) => chipOf(ec2Name(r.instanceType).split('.')[0]) === chip)
    .map((r) => r.tensorParallelDegree);
  return plan.generative.tensorParallelDegree <= Math.max(0, ...measured) ? 0 : degreeMargin();
}

const pct = (x: number) => `${Math.round(x * 100)} %`;

/**
 * The plan to choose from the feasible ones, cheapest first (`sorted`): the cheapest, unless a plan of a smaller
 * tensor-parallel degree costs no more than the margin above it, repeatedly; and, when a larger degree won, why.
 */
export function preferSmallerDegree(sorted: readonly GenerativePlan[], margin: (plan: GenerativePlan) => number):
  { readonly chosen: GenerativePlan; readonly reason?: string } {
  const tp = (p: GenerativePlan) => p.generative.tensorParallelDegree;
  let chosen = sorted[0];
  for (;;) {
    const m = margin(chosen);
    const smaller = sorted.find((p) => tp(p) < tp(chosen) && chosen.hourlyCostUsd >= p.hourlyCostUsd * (1 - m));
    if (smaller === undefined) break;
    chosen = smaller;
  }
  const smallest = sorted.filter((p) => tp(p) < tp(chosen));
  if (smallest.length === 0) return { chosen };
  const rival = smallest[0];
  const cheaper = 1 - chosen.hourlyCostUsd / rival.hourlyCostUsd;
  const m = margin(chosen);
  const g = rival.generative;
  return {
    chosen,
    reason: `TP ${tp(chosen)} rather than a smaller degree: the cheapest plan at one ` +
      `(${rival.instanceCount} x ${rival.instanceType}, ${g.replicasPerInstance} x TP ${g.tensorParallelDegree}, ${g.maxConcurrentSequences} sequences, ` +
      `$${rival.hourlyCostUsd}/h) costs ${pct(1 / (1 - cheaper) - 1)} more` +
      (m > 0 ? `, beyond the ${pct(m)} the performance model may be off by at a degree no row measured (its decode-step error at the headroom's quantile)`
        : `; its times are ${chosen.generative.estimate ? `the performance model's at a degree no larger than the model's rows measured on ${chipOf(chosen.instance.family)}` : 'measured'}`),
  };
}
