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
import { vllmEngineOf } from './engine-config';
import { degreeMargin, leverWorth, planTiming } from './estimate';
import { stackName, unmeasuredLeversOf } from './lever-evidence';
import { idleReplicasWarning } from './latency-miss';
import { describeLevers } from './levers';
import { planSensitivity } from './sensitivity';
import type { GenerativePlan, GenerativePlanReport, GenerativeProfile, GenerativeRejection, GenerativeUnmeasuredLevers, LeverName } from './types';

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

/**
 * The feasible plans split by evidence (`splitByEvidence`), and, when none may be chosen, why each that met the targets
 * was not: the lever nobody measured there and the flag that plans it.
 */
export function splitFeasible(plans: readonly GenerativePlan[], asked: readonly LeverName[]):
  { readonly allowed: GenerativePlan[]; readonly unmeasured: GenerativePlan[]; readonly rejections: GenerativeRejection[] } {
  const { allowed, unmeasured } = splitByEvidence(plans, asked);
  return { allowed, unmeasured, rejections: allowed.length === 0 ? unmeasured.map((p) => unmeasuredRejection(p, asked)) : [] };
}

/** Why a plan that meets the targets was not planned: a lever nobody measured there, not asked for. */
function unmeasuredRejection(plan: GenerativePlan, asked: readonly LeverName[]): GenerativeRejection {
  const levers = unaskedLevers(plan, asked);
  const g = plan.generative;
  return {
    instanceType: plan.instanceType,
    configuration: `tp=${g.tensorParallelDegree} seqs=${g.maxConcurrentSequences}${g.estimate ? ' ESTIMATE' : ''}, levers: ${describeLevers(g.engine.levers ?? {})}`,
    code: 'unmeasured-lever',
    reason: `meets the targets only with ${levers.join(' and ')}, which no published row measured on ${chipOf(plan.instance.family)} with ` +
      `${stackName(vllmEngineOf(plan.instance.family))}: plan it with --unmeasured-levers ${levers.join(',')} and prove it with the token proof`,
  };
}

/**
 * The report's choice among the ranked plans (cheapest first): the smallest tensor-parallel degree unless a larger one
 * is cheaper by more than the model's error (`preferSmallerDegree`), with its sensitivity (`sensitivity.ts`), what
 * each lever was worth, and the plans that would need an unmeasured lever beside it.
 */
export function chooseAmongFeasible<R extends Pick<GenerativePlanReport, 'chosen' | 'alternatives'>>(
  profile: GenerativeProfile,
  ranked: R,
  unmeasured: readonly GenerativePlan[],
  asked: readonly LeverName[],
  compare: (a: GenerativePlan, b: GenerativePlan) => number,
  minInstances = 1,
): R & Pick<GenerativePlanReport, 'leverWorth' | 'unmeasuredLevers'> {
  const sorted = [ranked.chosen, ...ranked.alternatives];
  const { chosen: preferred, reason } = preferSmallerDegree(sorted, (p) => largerDegreeMargin(p, profile));
  const timing = planTiming(profile, preferred);
  const sensitivity = planSensitivity(preferred, timing, preferred.generative.engine.levers?.speculation
    ? (acceptedTokens) => planTiming(profile, withAcceptedTokens(preferred, acceptedTokens)) : undefined);
  // Only the chosen plan is judged for idle replicas: what a looser target would need costs capacity searches.
  const idle = idleReplicasWarning({
    timing, targets: preferred.targets, sequences: preferred.generative.maxConcurrentSequences,
    replicasPerInstance: preferred.generative.replicasPerInstance,
    instanceCount: preferred.instanceCount, minInstances, headroom: preferred.headroom,
  });
  const chosen: GenerativePlan = {
    ...preferred,
    generative: { ...preferred.generative, sensitivity, ...(reason !== undefined ? { tensorParallelReason: reason } : {}) },
    ...(idle !== undefined ? { warnings: [...preferred.warnings, idle] } : {}),
  };
  const alternatives = sorted.filter((p) => p !== preferred);
  const others = unmeasuredAlternatives(unmeasured, chosen, asked, compare);
  return {
    ...ranked,
    chosen,
    alternatives,
    leverWorth: leverWorth([chosen, ...alternatives]),
    ...(others.length > 0 ? { unmeasuredLevers: others } : {}),
  };
}

/** The plan with speculation keeping `acceptedTokens` per step. */
function withAcceptedTokens(plan: GenerativePlan, acceptedTokens: number): GenerativePlan {
  const levers = plan.generative.engine.levers;
  if (!levers?.speculation) return plan;
  return {
    ...plan,
    generative: { ...plan.generative, engine: { ...plan.generative.engine, levers: { ...levers, speculation: { ...levers.speculation, acceptedTokens } } } },
  };
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
 * chip; otherwise, a degree beyond what was measured, the model's held-out error there (`degreeMargin`).
 */
export function largerDegreeMargin(plan: GenerativePlan, profile: GenerativeProfile): number {
  if (plan.generative.estimate === undefined) return 0;
  const chip = chipOf(plan.instance.family);
  const measured = profile.measurements
    .filter((r) => chipOf(ec2Name(r.instanceType).split('.')[0]) === chip)
    .map((r) => r.tensorParallelDegree);
  const tp = plan.generative.tensorParallelDegree;
  return tp <= Math.max(0, ...measured) ? 0 : degreeMargin(profile, plan.instance.family, tp);
}

const pct = (x: number) => `${Math.round(x * 100)} %`;

/**
 * The plan to choose from the feasible ones, cheapest first (`sorted`): the cheapest, unless a plan of a smaller
 * tensor-parallel degree costs no more than the margin above it (and, over a measured plan, an estimate costs less),
 * repeatedly; and, when a larger degree won, why.
 */
export function preferSmallerDegree(sorted: readonly GenerativePlan[], margin: (plan: GenerativePlan) => number):
  { readonly chosen: GenerativePlan; readonly reason?: string } {
  const tp = (p: GenerativePlan) => p.generative.tensorParallelDegree;
  let chosen = sorted[0];
  for (;;) {
    const m = margin(chosen);
    // A measured plan gives way to a smaller degree's estimate only when the estimate is cheaper: at the same cost
    // the measurement is the better bet.
    const smaller = sorted.find((p) => tp(p) < tp(chosen) && chosen.hourlyCostUsd >= p.hourlyCostUsd * (1 - m)
      && (chosen.generative.estimate !== undefined || p.generative.estimate === undefined || p.hourlyCostUsd < chosen.hourlyCostUsd));
    if (smaller === undefined) break;
    chosen = smaller;
  }
  const smallest = sorted.filter((p) => tp(p) < tp(chosen));
  if (smallest.length === 0) return { chosen };
  const rival = smallest[0];
  const m = margin(chosen);
  const g = rival.generative;
  const more = rival.hourlyCostUsd / chosen.hourlyCostUsd - 1;
  const plan = `the cheapest plan at one (${rival.instanceCount} x ${rival.instanceType}, ${g.replicasPerInstance} x TP ${g.tensorParallelDegree}, ` +
    `${g.maxConcurrentSequences} sequences, $${rival.hourlyCostUsd}/h)`;
  return {
    chosen,
    reason: `TP ${tp(chosen)} rather than a smaller degree: ` + (more <= 0
      // Only a measured plan keeps its degree against an estimate of the same cost.
      ? `${plan} costs the same, and its times are the performance model's ESTIMATE where these are measured`
      : `${plan} costs ${pct(more)} more` +
        (m > 0 ? `, beyond the ${pct(m)} the performance model may be off by at a degree no row measured (its held-out decode-step error there)`
          : `; its times are ${chosen.generative.estimate ? `the performance model's at a degree no larger than the model's rows measured on ${chipOf(chosen.instance.family)}` : 'measured'}`)),
  };
}
