/**
 * Fallback pools: the chosen plan's ranked alternatives on other instance types, deployed as SageMaker instance pools
 * of one production variant, and the fleet that holds the targets whichever pools its instances come from.
 *
 * SageMaker provisions a variant's instances from its pools in priority order, moving to the next pool when one hits
 * an insufficient-capacity error, for up to five pools (priority 1 to 5), each may name its own model
 * (`ModelNameOverride`) ("Deploy to multiple instance types with instance pools", SageMaker Developer Guide). The
 * planner already sized every other instance type for the same targets: a pool is the cheapest of them per type.
 * Pools may share a chip family (an inf2.8xlarge behind an inf2.xlarge loads the same compiled model); a pool on
 * another chip needs its own compile, which `sharesCompiledModelWith` tells.
 *
 * The variant scales on one per-instance target whatever its instances are, so it must be the least any pool holds:
 * the fleet then runs as many instances as that pool needs, which `MixedFleetBase` prices against the chosen plan.
 *
 * @see https://docs.aws.amazon.com/sagemaker/latest/dg/realtime-endpoints-heterogeneous.html
 */
import type { Hosting } from '../catalog/types';
import { chipOf } from './chip';
import type { DeploymentPlan, FallbackPool, MixedFleetBase, Plan, PoolSummary } from './types';

/** Most fallback pools: SageMaker takes five instance pools per production variant, and the chosen type is the first. */
export const MAX_FALLBACKS = 4;

/** Every problem with a `fallbacks` option, each naming the value and the fix. */
export function fallbacksProblems(fallbacks: number | undefined, hosting: Hosting): string[] {
  if (fallbacks === undefined) {
    return [];
  }
  if (!(Number.isInteger(fallbacks) && fallbacks >= 0 && fallbacks <= MAX_FALLBACKS)) {
    return [`fallbacks=${fallbacks} must be a whole number from 0 to ${MAX_FALLBACKS} (SageMaker takes five instance pools per `
      + 'variant, the chosen instance type being the first)'];
  }
  if (fallbacks > 0 && hosting !== 'sagemaker') {
    return [`fallbacks=${fallbacks} with hosting '${hosting}': instance pools are a SageMaker endpoint feature; plan for SageMaker `
      + "(--hosting sagemaker, hosting: 'sagemaker'), or on ECS run a second service on the other family (docs/ecs.md)"];
  }
  return [];
}

/** The accelerator chip of a plan's instance type (`inf2`, `trn1`): the family a compiled model is bound to. */
export function poolChip(plan: Pick<DeploymentPlan, 'instance'>): string {
  return chipOf(plan.instance.family);
}

/**
 * The pools' plans: the best plan of each instance type other than the chosen one, in the alternatives' order (the
 * planners rank them cheapest first), at most `count`. With two or more pools, at least one is on another chip than
 * the chosen type's when any plan there meets the targets: a shortage of a chip tends to reach every size of it in a
 * zone (the sizes share the chips' supply), so a fallback on another chip is the one that still provisions. The
 * cheapest such plan then takes the last place the cheapest-first order gave to a type of the same chip.
 */
export function pickPoolPlans<P extends DeploymentPlan>(chosen: P, alternatives: readonly P[], count: number): P[] {
  // The alternatives are ranked, so the first plan of each type is its best.
  const bestPerType = alternatives.filter((plan, i) => plan.instanceType !== chosen.instanceType
    && alternatives.findIndex((p) => p.instanceType === plan.instanceType) === i);
  const picked = bestPerType.slice(0, count);
  const chip = poolChip(chosen);
  if (count >= 2 && picked.length === count && picked.every((plan) => poolChip(plan) === chip)) {
    const otherChip = bestPerType.find((plan) => poolChip(plan) !== chip);
    if (otherChip !== undefined) {
      picked[count - 1] = otherChip;
    }
  }
  return picked;
}

/**
 * For each of `plans` (the chosen plan first, then the pools in priority order), the priority of the first earlier
 * plan whose compiled model it loads as is: the same chip and the same `compiledShape`; undefined for the first and
 * for a plan that needs its own compile.
 */
export function sharedCompiles<P extends DeploymentPlan>(plans: readonly P[], compiledShape: (plan: P) => string): (number | undefined)[] {
  const key = (plan: P) => `${poolChip(plan)}|${compiledShape(plan)}`;
  return plans.map((plan, i) => {
    const j = plans.slice(0, i).findIndex((earlier) => key(earlier) === key(plan));
    return j < 0 ? undefined : j + 1;
  });
}

/** What a pool of this plan says of itself at `priority`. */
export function poolSummary(plan: DeploymentPlan, priority: number, sharesCompiledModelWith: number | undefined): PoolSummary {
  return {
    priority,
    instanceType: plan.instanceType,
    chip: poolChip(plan),
    instanceCount: plan.instanceCount,
    maxInstanceCount: plan.maxInstanceCount,
    hourlyCostUsd: plan.hourlyCostUsd,
    ...(sharesCompiledModelWith !== undefined ? { sharesCompiledModelWith } : {}),
  };
}

/**
 * What a mixed fleet costs: `instanceCount` of the chosen type against its own plan, and the pool whose instances
 * cost the most when the fleet runs `instancesOn[i]` of pool `i + 1`.
 *
 * @param plans the chosen plan, then the pools in priority order
 * @param instancesOn instances the fleet runs when all come from each pool, in the same order
 */
export function mixedFleetCost(
  plans: readonly DeploymentPlan[],
  fleet: { readonly instanceCount: number; readonly maxInstanceCount: number; readonly boundByPriority: number },
  instancesOn: readonly number[],
): MixedFleetBase {
  const chosen = plans[0];
  const hourlyCostUsd = round(fleet.instanceCount * chosen.price.usdPerHour, 4);
  const costs = plans.map((plan, i) => instancesOn[i] * plan.price.usdPerHour);
  const worst = costs.reduce((best, cost, i) => (cost > costs[best] ? i : best), 0);
  return {
    ...fleet,
    hourlyCostUsd,
    extraCostPercent: round((hourlyCostUsd / chosen.hourlyCostUsd - 1) * 100, 1),
    worst: {
      priority: worst + 1,
      instanceType: plans[worst].instanceType,
      instanceCount: instancesOn[worst],
      hourlyCostUsd: round(costs[worst], 4),
    },
  };
}

/** The warning of a plan that got fewer pools than asked. */
export function fewerPoolsWarning(asked: number, found: number): string {
  const others = found === 0 ? 'no other instance type meets' : `only ${found} other instance type${found === 1 ? ' meets' : 's meet'}`;
  return `fallbacks=${asked} asked for ${asked} fallback pool${asked === 1 ? '' : 's'}; ${others} the targets in the catalog `
    + '(see the alternatives and the rejected candidates)';
}

/**
 * The chosen single-call plan with up to `count` fallback pools and the mixed fleet they imply; the report unchanged
 * when `count` is 0.
 */
export function withFallbackPools<R extends { readonly chosen: Plan; readonly alternatives: readonly Plan[] }>(report: R, count: number): R {
  if (count <= 0) {
    return report;
  }
  const { chosen } = report;
  const pools = pickPoolPlans(chosen, report.alternatives, count);
  const all = [chosen, ...pools];
  const shares = sharedCompiles(all, (p) => `g=${p.coresPerProcess} b=${p.batchSize}`);
  const fallbacks: FallbackPool[] = pools.map((plan, i) => ({
    ...poolSummary(plan, i + 2, shares[i + 1]),
    layout: {
      processesPerInstance: plan.processesPerInstance,
      coresPerProcess: plan.coresPerProcess,
      batchSize: plan.batchSize,
      serving: plan.serving,
      visibleCores: plan.visibleCores,
    },
    capacity: { perInstanceRps: plan.capacityPerInstanceRps, rps: plan.capacityRps },
    plan,
  }));
  const warnings = pools.length < count ? [...chosen.warnings, fewerPoolsWarning(count, pools.length)] : chosen.warnings;
  if (pools.length === 0) {
    return { ...report, chosen: { ...chosen, warnings, fallbacks } };
  }
  // The least any pool holds per instance sets the target; ties go to the higher priority.
  const bound = all.reduce((least, plan, i) => (plan.capacityPerInstanceRps < all[least].capacityPerInstanceRps ? i : least), 0);
  // Each pool's own count is what the targets need on that pool alone: the largest is what they need on any mix.
  const instanceCount = Math.max(...all.map((p) => p.instanceCount));
  const maxInstanceCount = Math.max(...all.map((p) => p.maxInstanceCount));
  const mixedFleet = {
    ...mixedFleetCost(all, { instanceCount, maxInstanceCount, boundByPriority: bound + 1 }, all.map(() => instanceCount)),
    capacityPerInstanceRps: all[bound].capacityPerInstanceRps,
  };
  return { ...report, chosen: { ...chosen, warnings, fallbacks, mixedFleet } };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
