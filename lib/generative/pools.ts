/**
 * Fallback pools of a generative plan: the planners' shared selection (`lib/planner/pools.ts`) with what a generative
 * pool carries (its replicas, engine settings and per-copy capacity) and the copies a mixed inference component runs.
 */
import { canonicalJson } from '../compile/hash';
import { compiledSettingsOf } from '../compile/generative-check';
import { instancesFor } from '../planner/candidate';
import { fewerPoolsWarning, mixedFleetCost, pickPoolPlans, poolSummary, sharedCompiles } from '../planner/pools';
import type { GenerativeFallbackPool, GenerativePlan } from './types';

/**
 * The chosen generative plan with up to `count` fallback pools and the mixed fleet they imply; the report unchanged
 * when `count` is 0. Two pools share a compiled model when they compile the same settings (`compiledSettingsOf`:
 * chip, degree, sequences, length, LNC, buckets and levers): vLLM's compiled graphs depend on nothing else of the plan.
 */
export function withGenerativeFallbackPools<R extends { readonly chosen: GenerativePlan; readonly alternatives: readonly GenerativePlan[] }>(
  report: R,
  count: number,
): R {
  if (count <= 0) {
    return report;
  }
  const { chosen } = report;
  const pools = pickPoolPlans(chosen, report.alternatives, count);
  const all = [chosen, ...pools];
  const shares = sharedCompiles(all, (p) => canonicalJson(compiledSettingsOf(p)));
  const fallbacks: GenerativeFallbackPool[] = pools.map((plan, i) => ({
    ...poolSummary(plan, i + 2, shares[i + 1]),
    layout: {
      tensorParallelDegree: plan.generative.tensorParallelDegree,
      replicasPerInstance: plan.generative.replicasPerInstance,
      maxConcurrentSequences: plan.generative.maxConcurrentSequences,
      maxModelLength: plan.generative.maxModelLength,
      visibleCores: plan.generative.replicas.map((r) => r.visibleCores),
    },
    capacity: {
      perInstanceRps: plan.capacityPerInstanceRps,
      rps: plan.capacityRps,
      perReplicaRps: plan.generative.capacityPerReplicaRps,
      outputTokensPerSecondPerReplica: plan.generative.capacityOutputTokensPerSecondPerReplica,
    },
    plan,
  }));
  const warnings = pools.length < count ? [...chosen.warnings, fewerPoolsWarning(count, pools.length)] : chosen.warnings;
  if (pools.length === 0) {
    return { ...report, chosen: { ...chosen, warnings, fallbacks } };
  }
  const replicas = all.map((p) => p.generative.replicasPerInstance);
  const { requestsPerSecond, peakRequestsPerSecond } = chosen.targets;
  // Copies are what the component scales, not instances: a pool needs the copies its per-copy capacity implies,
  // whole instances or not; the chosen type keeps the copies its own plan fills its instances with.
  const copiesAt = (rate: number, fill: number) => Math.max(fill,
    ...all.map((p) => instancesFor(rate, chosen.headroom, p.generative.capacityPerReplicaRps)));
  const copies = copiesAt(requestsPerSecond, replicas[0] * chosen.instanceCount);
  const maxCopies = Math.max(copies, copiesAt(peakRequestsPerSecond ?? requestsPerSecond, replicas[0] * chosen.maxInstanceCount));
  const bound = all.reduce((least, p, i) => (p.generative.capacityPerReplicaRps < all[least].generative.capacityPerReplicaRps ? i : least), 0);
  const instancesOn = (n: number) => all.map((_, i) => Math.ceil(n / replicas[i]));
  const mixedFleet = {
    ...mixedFleetCost(all, {
      // The chosen type's instances for the copies; a fallback's come from managed instance scaling as copies need them.
      instanceCount: Math.max(chosen.instanceCount, instancesOn(copies)[0]),
      maxInstanceCount: Math.max(...instancesOn(maxCopies)),
      boundByPriority: bound + 1,
    }, instancesOn(copies)),
    copies,
    maxCopies,
    capacityPerCopyRps: all[bound].generative.capacityPerReplicaRps,
  };
  return { ...report, chosen: { ...chosen, warnings, fallbacks, mixedFleet } };
}
