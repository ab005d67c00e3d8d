/**
 * The configurations nobody measured, as planning candidates, timed by the performance model
 * (`estimated-timing.ts`), and what a plan reports beyond its sizing.
 */
import type { EngineTiming } from './types';
import { chooseBuckets, estimatedTiming, modelErrorFor } from './estimated-timing';
import type { Buckets, EstimatedTiming } from './estimated-timing';
import { deviceMemoryPerCoreGiB, neuronCores } from '../catalog/catalog';
import type { Hosting, InstanceSpec } from '../catalog/types';
import { HOST_MEMORY_USABLE_FRACTION, instancesFor } from '../planner/candidate';
import { deviceCountProblem, supportedGroupSizes } from '../planner/layout';
import { chipOf } from '../planner/planner';
import { knowledgeOf, holdsAt, searchedCapacity } from './capacity-knowledge';
import type { CapacityKnowledge } from './capacity-knowledge';
import { engineTiming } from './continuous-batching';
import { estimatedMissReason } from './latency-miss';
import { workloadLengths } from './lengths';
import type { WorkloadLengths } from './lengths';
import { engineRunsLevers, pluginPrefillBuckets, vllmEngineOf } from './engine-config';
import { describeLevers, draftWeightsGiB, leverSets, speculationProblem, speculativeDecodeScale } from './levers';
import type { GenerativeLeverOptions, LeverSet } from './types';
import { kvCachePerSequenceGiB, replicaHostMemoryGiB, replicaMemory } from './memory';
import { CHIP_FIGURES } from './model/physics';
import type { GenerativeLeverWorth, GenerativeMeasurement, GenerativeMemory, GenerativePlan, GenerativeProfile, GenerativeRejection, GenerativeTargets } from './types';

export { bucketFor, builtInPerformanceModel, chooseBuckets, ESTIMATE_ERROR_QUANTILE, estimatedTiming, modelErrorFor } from './estimated-timing';
export type { Buckets, EstimatedTiming, EstimateInput, PerformanceModel } from './estimated-timing';

/** Device memory one compiled bucket's graph holds per rank. ESTIMATE (UNVERIFIED): no AWS source states it. */
export const BUCKET_MEMORY_GIB_PER_RANK = 0.05;

/*

 * The configurations nobody measured, as planning candidates: every tensor-parallel degree the chip supports, every
 * power-of-two number of concurrent sequences that fits, with every combination of levers (`levers.ts`), timed by
 * the performance model (`estimate.ts`). Measured configurations (the planner's rows) win: a (degree, sequences)
 * measured at the needed length without levers is not estimated.
 */

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
  readonly code: 'device-memory' | 'tpot' | 'ttft' | 'e2e' | 'engine' | 'tensor-parallel';
  readonly reason: string;
}

/** What the estimates need from the request. */
export interface EstimateRequest {
  readonly targets: GenerativeTargets;
  readonly lengths: WorkloadLengths;
  readonly maxModelLength: number;
  readonly levers?: GenerativeLeverOptions;
  /** Prune by cost: the candidate's price, headroom and minimum instances, and the cheapest hourly cost found so far per lever set. */
  readonly prune?: { readonly usdPerHour: number; readonly headroom: number; readonly minInstances: number; readonly best: Map<string, CheapestSoFar> };
}

/** The cheapest hourly cost found so far for a lever set, and its tensor-parallel degree. */
export interface CheapestSoFar {
  readonly usd: number;
  readonly tp: number;
  /** The share a smaller degree may cost more and still be chosen over it (`degreeMargin`). */
  readonly margin: number;
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
  const chosen = chooseBuckets(request.lengths, request.maxModelLength);
  // The vLLM Neuron plugin (Trn2, Trn3) compiles its own prefill buckets (engine-config.ts): time prefills at those.
  const buckets = vllmEngineOf(instance.family) === 'vllm-neuron-plugin'
    ? { ...chosen, contextEncoding: pluginPrefillBuckets(request.maxModelLength) } : chosen;
  const supported = (supportedGroupSizes(instance) ?? [cores]).filter((d) => d <= cores);
  // A degree whose copy would span a chip count the instance's topology refuses is not a candidate (layout.ts).
  const degrees = supported.filter((tp) => {
    const topology = deviceCountProblem(instance, tp);
    if (topology !== undefined) {
      rejections.push({ configuration: `tp=${tp} (ESTIMATE)`, code: 'tensor-parallel', reason: topology });
    }
    return topology === undefined;
  });
  // Pass 1: every configuration that fits, timed, with a cost no plan of it can beat (every slot decoding flat out,
  // or prefills back to back). Pass 2, cheapest bound first: the capacity search (the costly part) only for
  // configurations whose bound beats the cheapest plan found so far with the same levers.
  const prune = request.prune;
  const candidates: { tp: number; seqs: number; levers: LeverSet; key: string; timing: EstimatedTiming; bound: number }[] = [];
  const speculation = speculationProblem(profile, request.levers ?? {}, instance.family);
  if (speculation !== undefined) {
    rejections.push({ configuration: 'speculation (ESTIMATE)', code: 'engine', reason: speculation });
  }
  for (const levers of leverSets(profile, request.levers ?? {}, instance.family).filter((l) => engineRunsLevers(instance.family, l))) {
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
    const known = knowledgeOf(profile, [chip.chip, c.tp, c.seqs, c.levers, request.lengths, buckets], request.targets);
    if (prune && !mayBeatBest(c, prune, request.targets, cores, known)) {
      continue;
    }
    const capacity = searchedCapacity(known, c.timing, request.targets);
    if (capacity <= 0) {
      if (c.seqs === 1) {
        rejections.push(latencyReason(c.tp, c.timing, request.targets));
      }
      continue;
    }
    if (prune) {
      const replicas = Math.floor(cores / c.tp);
      const hourly = prune.usdPerHour * Math.max(prune.minInstances, instancesFor(request.targets.requestsPerSecond, prune.headroom, replicas * capacity));
      const best = prune.best.get(c.key);
      if (best === undefined || hourly < best.usd || (hourly === best.usd && c.tp < best.tp)) {
        prune.best.set(c.key, { usd: hourly, tp: c.tp, margin: degreeMargin(profile, instance.family, c.tp) });
      }
    }
    configs.push({ tp: c.tp, seqs: c.seqs, levers: c.levers, memory: leverMemory(profile, instance, c.tp, c.seqs, request.maxModelLength, c.levers, buckets), timing: c.timing, capacity, buckets });
  }
  return { configs, rejections };
}

const margins = new WeakMap<GenerativeProfile, Map<string, number>>();

/**
 * The share by which a plan of `profile` at degree `tp` on the family's chip, timed by the performance model, must be
 * cheaper than a smaller degree's to be chosen (`choice.ts`): the model's held-out TPOT error on extrapolations of its
 * class (`modelErrorFor`, e.g. `same model, same chip, TP beyond measured`), the larger of the class's median error and
 * the error at the quantile its headroom covers (`bench:llm-model` prints both). 0 where the model has no such class.
 */
export function degreeMargin(profile: GenerativeProfile, family: string, tp: number): number {
  const byKey = margins.get(profile) ?? new Map<string, number>();
  margins.set(profile, byKey);
  const key = `${family}|${tp}`;
  let margin = byKey.get(key);
  if (margin === undefined) {
    const chip = CHIP_FIGURES[chipOf(family)];
    const error = chip === undefined ? undefined : modelErrorFor(profile, chip, tp);
    margin = error === undefined ? 0 : Math.max(0, error.tpot.median, error.tpot.ratioAtQuantile - 1);
    byKey.set(key, margin);
  }
  return margin;
}

/**
 * Whether a candidate can be chosen over the cheapest plan found so far with its levers: cost less, or, at a smaller
 * tensor-parallel degree, no more than the degree margin above it (`choice.ts` prefers smaller degrees by that much;
 * one margin, not a chain of them). Its bound must be within that, and one replica must hold the rate the largest
 * fleet within it would need of it: one prediction at that rate instead of the capacity search (a dozen predictions),
 * and the same verdict, since the largest rate that holds the targets is below any rate that misses them.
 */
function mayBeatBest(
  c: { readonly tp: number; readonly key: string; readonly timing: EstimatedTiming; readonly bound: number },
  prune: NonNullable<EstimateRequest['prune']>,
  targets: GenerativeTargets,
  cores: number,
  entry: CapacityKnowledge,
): boolean {
  const best = prune.best.get(c.key);
  if (best === undefined) {
    return true;
  }
  const smaller = c.tp < best.tp;
  const limit = smaller ? best.usd / (1 - Math.min(0.9, best.margin)) : best.usd;
  if (smaller ? c.bound > limit : c.bound >= limit) {
    return false;
  }
  const cheaperInstances = smaller ? Math.floor(limit / prune.usdPerHour + 1e-9) : Math.ceil(limit / prune.usdPerHour) - 1;
  if (cheaperInstances < Math.max(1, prune.minInstances)) {
    return false;
  }
  const replicas = Math.floor(cores / c.tp);
  const needed = (targets.requestsPerSecond * (1 + prune.headroom)) / ((cheaperInstances + 1e-9) * replicas);
  return holdsAt(entry, c.timing, targets, needed);
}

function latencyReason(tp: number, timing: EstimatedTiming, targets: GenerativeTargets): EstimateRejection {
  return { configuration: `tp=${tp} (ESTIMATE)`, ...estimatedMissReason(timing, targets) };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

const pruning = new WeakMap<object, Map<string, CheapestSoFar>>();

/** The cheapest hourly cost found so far per lever set, shared by every instance of one planning request. */
export function pruningBounds(request: object): Map<string, CheapestSoFar> {
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
  request: EstimateRequest & { readonly maxInstances: number; readonly hosting: Hosting },
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
    const hostNeed = replicas * replicaHostMemoryGiB(config.memory.weights, request.hosting);
    if (hostNeed > HOST_MEMORY_USABLE_FRACTION * instance.memoryGiB) {
      outcome.rejections.push({ configuration: label, code: 'host-memory', reason: `${replicas} replica(s) need ${round(hostNeed)} GiB of host memory to load, with the engine (ESTIMATE)` });
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

/*
 * What a plan reports beyond its sizing: goodput, and what each lever of the chosen plan was worth (the estimate and
 * the evidence its times rest on: `plan-evidence.ts`).
 */

/**
 * Goodput of a fleet at its capacity (vLLM `bench serve --goodput`: requests/s meeting every target together): each
 * p99 holds there, so at most 1 % of requests miss each target, and at least 1 - 1 % x targets meet all of them.
 */
export function goodputOf(capacityRps: number, targets: GenerativeTargets): number {
  const slos = targets.e2eP99Ms !== undefined ? 3 : 2;
  return capacityRps * (1 - 0.01 * slos);
}

/** Each lever the chosen plan (the first) uses, against the cheapest plan without it. */
export function leverWorth(sorted: readonly GenerativePlan[]): GenerativeLeverWorth[] {
  const chosen = sorted[0];
  const levers = chosen?.generative.engine.levers;
  if (!levers) {
    return [];
  }
  const uses = {
    'speculative-decoding': (p: GenerativePlan) => p.generative.engine.levers?.speculation !== undefined,
    fp8: (p: GenerativePlan) => p.generative.engine.levers?.fp8Weights === true,
    'prefix-caching': (p: GenerativePlan) => p.generative.engine.levers?.prefixHitRate !== undefined,
  } as const;
  return (Object.keys(uses) as (keyof typeof uses)[])
    .filter((lever) => uses[lever](chosen))
    .map((lever) => {
      const without = sorted.find((p) => !uses[lever](p));
      return { lever, ...(without ? { without } : {}) };
    });
}
