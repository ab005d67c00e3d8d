/**
 * The configurations nobody measured, as planning candidates: every tensor-parallel degree the chip supports, every
 * power-of-two number of concurrent sequences that fits, with every combination of levers (`levers.ts`), timed by
 * the performance model (`estimate.ts`). Measured configurations (the planner's rows) win: a (degree, sequences)
 * measured at the needed length without levers is not estimated.
 */
import { deviceMemoryPerCoreGiB, neuronCores } from '../catalog/catalog';
import type { InstanceSpec } from '../catalog/types';
import { HOST_MEMORY_USABLE_FRACTION, instancesFor } from '../planner/candidate';
import { supportedGroupSizes } from '../planner/layout';
import { chipOf } from '../planner/planner';
import { replicaCapacityRps } from './continuous-batching';
import { BUCKET_MEMORY_GIB_PER_RANK, chooseBuckets, estimatedTiming } from './estimate';
import type { Buckets, EstimatedTiming } from './estimate';
import { engineTiming } from './engine-timing';
import type { EngineTiming } from './engine-timing';
import { workloadLengths } from './lengths';
import type { WorkloadLengths } from './lengths';
import { describeLevers, draftWeightsGiB, leverSets, speculativeDecodeScale } from './levers';
import type { GenerativeLeverOptions, LeverSet } from './levers';
import { kvCachePerSequenceGiB, replicaMemory } from './memory';
import { CHIP_FIGURES } from './perf-model';
import type { GenerativeMeasurement, GenerativeMemory, GenerativePlan, GenerativeProfile, GenerativeRejection, GenerativeTargets } from './types';

/**
 * Sequences an estimated configuration may run at once: powers of two up to 32, the most any published row ran (the
 * queueing model's capacity search also grows costly past it: 20 s a configuration at 64).
 */
export const ESTIMATED_SEQUENCES = [1, 2, 4, 8, 16, 32] as const;

/** One estimated candidate, sized for one replica. */
export interface EstimatedConfiguration {
  readonly tp: number;
  readonly seqs: number;
  readonly levers: LeverSet;
  readonly memory: GenerativeMemory;
  readonly timing: EstimatedTiming;
  /** Requests per second one replica holds within the targets. */
  readonly capacity: number;
  readonly buckets: Buckets;
}

/** Why an estimated (degree, levers) lost, for the rejection list. */
export interface EstimateRejection {
  readonly configuration: string;
  readonly code: 'device-memory' | 'tpot' | 'ttft' | 'engine';
  readonly reason: string;
}

/** What the estimates need from the request. */
export interface EstimateRequest {
  readonly targets: GenerativeTargets;
  readonly lengths: WorkloadLengths;
  readonly maxModelLength: number;
  readonly levers?: GenerativeLeverOptions;
  /** Prune by cost: the candidate's price, headroom and minimum instances, and the cheapest hourly cost found so far per lever set. */
  readonly prune?: { readonly usdPerHour: number; readonly headroom: number; readonly minInstances: number; readonly best: Map<string, number> };
}

/**
 * The memory of a replica with levers: FP8 halves weights and cache, the draft adds its weights, each compiled bucket
 * adds its graph's memory per rank.
 */
export function leverMemory(profile: GenerativeProfile, instance: InstanceSpec, tp: number, seqs: number, maxModelLength: number, levers: LeverSet, buckets: Buckets): GenerativeMemory {
  const model = levers.fp8Weights ? { ...profile.model, dtype: 'fp8' as const } : profile.model;
  const base = replicaMemory(model, tp, deviceMemoryPerCoreGiB(instance), seqs, maxModelLength);
  const extraWeights = draftWeightsGiB(levers);
  const extraReserve = (buckets.contextEncoding.length + buckets.tokenGeneration.length) * BUCKET_MEMORY_GIB_PER_RANK * tp;
  const weights = base.weights + extraWeights;
  const reserve = base.reserve + extraReserve;
  const perSequence = kvCachePerSequenceGiB(model, tp, maxModelLength);
  const spare = base.available - weights - reserve;
  return {
    ...base,
    weights: round(weights),
    reserve: round(reserve),
    maxConcurrencyThatFits: spare > 0 ? Math.floor(spare / perSequence) : 0,
  };
}

/**
 * Every estimated candidate of the instance that holds the targets, and why the others lost.
 *
 * @param measured `tp|seqs` keys of configurations measured at the needed length (not estimated without levers)
 */
export function estimatedConfigurations(
  profile: GenerativeProfile,
  request: EstimateRequest,
  instance: InstanceSpec,
  measured: ReadonlySet<string>,
): { configs: EstimatedConfiguration[]; rejections: EstimateRejection[] } {
  const chip = CHIP_FIGURES[chipOf(instance.family)];
  const configs: EstimatedConfiguration[] = [];
  const rejections: EstimateRejection[] = [];
  if (!chip || profile.model.architecture !== 'decoder-only') {
    return { configs, rejections };
  }
  const cores = neuronCores(instance);
  const buckets = chooseBuckets(request.lengths, request.maxModelLength);
  const degrees = (supportedGroupSizes(instance) ?? [cores]).filter((d) => d <= cores);
  // Pass 1: every configuration that fits, timed, with a cost no plan of it can beat (every slot decoding flat out,
  // or prefills back to back). Pass 2, cheapest bound first: the capacity search (the costly part) only for
  // configurations whose bound beats the cheapest plan found so far with the same levers.
  const prune = request.prune;
  const candidates: { tp: number; seqs: number; levers: LeverSet; key: string; timing: EstimatedTiming; bound: number }[] = [];
  for (const levers of leverSets(profile, request.levers)) {
    const key = describeLevers(levers);
    const plain = key === 'none';
    for (const tp of degrees) {
      const fitting = leverMemory(profile, instance, tp, 1, request.maxModelLength, levers, buckets);
      const replicas = Math.floor(cores / tp);
      for (const seqs of ESTIMATED_SEQUENCES.filter((n) => n <= fitting.maxConcurrencyThatFits && !(plain && measured.has(`${tp}|${n}`)))) {
        const timing = estimatedTiming({
          profile, chip, tensorParallelDegree: tp, maxSequences: seqs, lengths: request.lengths, buckets,
          ...(levers.fp8Weights ? { weightDtype: 'fp8' as const, kvDtype: 'fp8' as const } : {}),
          ...(levers.speculation ? { decodeScale: speculativeDecodeScale(levers, profile.model) } : {}),
          ...(levers.prefixHitRate !== undefined ? { prefixHitRate: levers.prefixHitRate } : {}),
        });
        if (timing.stepSeconds * 1000 > request.targets.tpotP99Ms) {
          if (seqs === 1) {
            rejections.push(latencyReason(tp, timing, request.targets));
          }
          break;
        }
        const upper = Math.min(seqs / (Math.max(1, request.targets.outputTokens.mean) * timing.stepSeconds), 1 / timing.prefillSeconds(request.targets.inputTokens.mean));
        const bound = prune ? prune.usdPerHour * Math.max(prune.minInstances, instancesFor(request.targets.requestsPerSecond, prune.headroom, replicas * upper)) : 0;
        candidates.push({ tp, seqs, levers, key, timing, bound });
      }
    }
  }
  for (const c of candidates.sort((a, b) => a.bound - b.bound || a.seqs - b.seqs)) {
    if (prune && c.bound >= (prune.best.get(c.key) ?? Infinity)) {
      continue;
    }
    const capacity = replicaCapacityRps(c.timing, request.targets);
    if (capacity <= 0) {
      if (c.seqs === 1) {
        rejections.push(latencyReason(c.tp, c.timing, request.targets));
      }
      continue;
    }
    if (prune) {
      const replicas = Math.floor(cores / c.tp);
      const hourly = prune.usdPerHour * Math.max(prune.minInstances, instancesFor(request.targets.requestsPerSecond, prune.headroom, replicas * capacity));
      prune.best.set(c.key, Math.min(prune.best.get(c.key) ?? Infinity, hourly));
    }
    configs.push({ tp: c.tp, seqs: c.seqs, levers: c.levers, memory: leverMemory(profile, instance, c.tp, c.seqs, request.maxModelLength, c.levers, buckets), timing: c.timing, capacity, buckets });
  }
  return { configs, rejections };
}

function latencyReason(tp: number, timing: EstimatedTiming, targets: GenerativeTargets): EstimateRejection {
  const step = timing.stepSeconds * 1000;
  return step > targets.tpotP99Ms
    ? { configuration: `tp=${tp} (ESTIMATE)`, code: 'tpot', reason: `estimated decode step ${round(step)} ms (with the model's error) exceeds TPOT p99 ${targets.tpotP99Ms} ms even alone` }
    : { configuration: `tp=${tp} (ESTIMATE)`, code: 'ttft', reason: `estimated prefill of the prompts misses TTFT p99 ${targets.ttftP99Ms} ms even alone (${round(timing.prefillSeconds(targets.inputTokens.p99 ?? targets.inputTokens.mean) * 1000)} ms at p99 length)` };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

const pruning = new WeakMap<object, Map<string, number>>();

/** The cheapest hourly cost found so far per lever set, shared by every instance of one planning request. */
export function pruningBounds(request: object): Map<string, number> {
  let best = pruning.get(request);
  if (!best) {
    best = new Map();
    pruning.set(request, best);
  }
  return best;
}

/** What `evaluateEstimates` adds its plans and rejections to. */
export interface EstimateOutcome {
  readonly plans: GenerativePlan[];
  readonly rejections: Omit<GenerativeRejection, 'instanceType'>[];
}

/**
 * Adds the performance model's candidates of the instance to `outcome`, each sized into a plan by `size`; false when
 * the model cannot estimate there (no chip figures, or not decoder-only).
 */
export function evaluateEstimates(
  profile: GenerativeProfile,
  request: EstimateRequest & { readonly maxInstances: number },
  instance: InstanceSpec,
  onChip: readonly GenerativeMeasurement[],
  outcome: EstimateOutcome,
  size: (config: EstimatedConfiguration, replicas: number) => GenerativePlan,
): boolean {
  const measured = new Set(onChip
    .filter((r) => r.chunkedPrefill !== true && (r.sequenceLength ?? r.inputTokens + r.outputTokens) >= request.maxModelLength)
    .map((r) => `${r.tensorParallelDegree}|${r.batchSize}`));
  const { configs, rejections } = estimatedConfigurations(profile, request, instance, measured);
  outcome.rejections.push(...rejections);
  for (const config of configs) {
    const replicas = Math.floor(neuronCores(instance) / config.tp);
    const label = `tp=${config.tp} seqs=${config.seqs} ESTIMATE, levers: ${describeLevers(config.levers)}`;
    // NxD Inference reads the checkpoint on the host to shard it (planner.ts, HOST_MEMORY_PER_WEIGHT = 1).
    const hostNeed = replicas * config.memory.weights;
    if (hostNeed > HOST_MEMORY_USABLE_FRACTION * instance.memoryGiB) {
      outcome.rejections.push({ configuration: label, code: 'host-memory', reason: `${replicas} replica(s) need ${round(hostNeed)} GiB of host memory to load (ESTIMATE)` });
      continue;
    }
    const plan = size(config, replicas);
    if (plan.instanceCount > request.maxInstances) {
      outcome.rejections.push({ configuration: label, code: 'max-instances', reason: `needs ${plan.instanceCount} instances; the most is ${request.maxInstances}` });
      continue;
    }
    outcome.plans.push(plan);
  }
  return CHIP_FIGURES[chipOf(instance.family)] !== undefined && profile.model.architecture === 'decoder-only';
}

/**
 * The engine timing a plan was sized with: its measured rows' (`engineTiming`), or, for an ESTIMATE plan, the
 * performance model's for its chip, degree, sequences, buckets and levers. The replay (`bench:plans`) runs it.
 */
export function planTiming(profile: GenerativeProfile, plan: GenerativePlan): EngineTiming {
  const g = plan.generative;
  if (!g.estimate) {
    return engineTiming(g.measurement, g.maxConcurrentSequences);
  }
  const chip = CHIP_FIGURES[chipOf(plan.instance.family)];
  const levers = g.engine.levers ?? {};
  const lengths = g.lengths ?? workloadLengths(plan.targets);
  return estimatedTiming({
    profile, chip, tensorParallelDegree: g.tensorParallelDegree, maxSequences: g.maxConcurrentSequences, lengths,
    buckets: { contextEncoding: g.engine.contextEncodingBuckets ?? [g.maxModelLength], tokenGeneration: g.engine.tokenGenerationBuckets ?? [g.maxModelLength] },
    ...(levers.fp8Weights ? { weightDtype: 'fp8' as const, kvDtype: 'fp8' as const } : {}),
    ...(levers.speculation ? { decodeScale: speculativeDecodeScale(levers, profile.model) } : {}),
    ...(levers.prefixHitRate !== undefined ? { prefixHitRate: levers.prefixHitRate } : {}),
  });
}
