/**
 * Engine timings of configurations nobody measured, from the performance model (`perf-model.ts`, fitted in
 * `perf-model.ts`), and the engine's buckets chosen from the length distribution.
 *
 * Buckets: NxD Inference compiles one context-encoding graph per prompt bucket and one token-generation graph per
 * sequence bucket, and runs a prompt or a step in the smallest bucket that holds it (AWS Neuron docs, NxD Inference
 * feature guide, "Bucketing": `context_encoding_buckets`, `token_generation_buckets`). The planner picks the
 * buckets at the prompt distribution's 50th, 90th and 99th percentiles (rounded up to 128 tokens) and the model
 * length, so padding costs at most the gap to the next quantile; each bucket is a compiled graph that holds device
 * memory (`BUCKET_MEMORY_GIB_PER_RANK`). A prefill is timed at its bucket; a decode step at the sequence bucket that
 * holds the longest of the batch's running sequences (the graph reads the KV cache up to it for every slot).
 *
 * Estimated times carry headroom for the model's measured error: they are multiplied by 1 + the leave-one-out error
 * at `ESTIMATE_ERROR_QUANTILE` over the published rows.
 */
import { BUILT_IN_GENERATIVE_PROFILES } from '../profiles/data/generative';
import type { EngineTiming } from './types';
import { lengthQuantile } from './lengths';
import type { WorkloadLengths } from './lengths';
import { anchor, errorSummary, fitCoefficients, fitPoints, leaveOneOut } from './perf-model';
import type { FitPoint } from './perf-model';
import { decodeStepSeconds, dot, prefillFeatures, prefillSeconds } from './perf-model';
import type { ChipFigures, ModelConfiguration, PerformanceCoefficients } from './perf-model';
import { deviceMemoryPerCoreGiB, neuronCores } from '../catalog/catalog';
import type { InstanceSpec } from '../catalog/types';
import { HOST_MEMORY_USABLE_FRACTION, instancesFor } from '../planner/candidate';
import { deviceCountProblem, supportedGroupSizes } from '../planner/layout';
import { chipOf } from '../planner/planner';
import { knowledgeOf, holdsAt, searchedCapacity } from './capacity-knowledge';
import type { CapacityKnowledge } from './capacity-knowledge';
import { engineTiming } from './continuous-batching';
import { workloadLengths } from './lengths';
import { engineRunsLevers, pluginPrefillBuckets, vllmEngineOf } from './engine-config';
import { describeLevers, draftWeightsGiB, leverSets, speculationProblem, speculativeDecodeScale } from './levers';
import type { GenerativeLeverOptions, LeverSet } from './types';
import { kvCachePerSequenceGiB, replicaMemory } from './memory';
import { CHIP_FIGURES } from './perf-model';
import type { GenerativeEstimate, GenerativeLeverWorth, GenerativeMeasurement, GenerativeMemory, GenerativePlan, GenerativeProfile, GenerativeRejection, GenerativeTargets } from './types';

/** The share of leave-one-out errors the headroom covers: estimated times are raised by this quantile's error (`p75`). */
export const ESTIMATE_ERROR_QUANTILE = 0.75;

/** Device memory one compiled bucket's graph holds per rank. ESTIMATE (UNVERIFIED): no AWS source states it. */
export const BUCKET_MEMORY_GIB_PER_RANK = 0.05;

/** NxD Inference bucket granularity, tokens. */
const BUCKET_STEP = 128;

/** The fitted model with its measured error. */
export interface PerformanceModel {
  readonly coefficients: PerformanceCoefficients;
  readonly points: readonly FitPoint[];
  /** Leave-one-out relative errors on the published rows. */
  readonly error: {
    readonly tpot: ReturnType<typeof errorSummary>;
    readonly ttft: ReturnType<typeof errorSummary>;
  };
}

let builtIn: PerformanceModel | undefined;

/** The model fitted to the built-in profiles' published rows (fitted once, on first use). */
export function builtInPerformanceModel(): PerformanceModel {
  builtIn ??= performanceModel(BUILT_IN_GENERATIVE_PROFILES);
  return builtIn;
}

/** The model fitted to these profiles' rows, with its leave-one-out error. */
export function performanceModel(profiles: readonly GenerativeProfile[]): PerformanceModel {
  const points = fitPoints(profiles);
  const loo = leaveOneOut(points);
  return {
    coefficients: fitCoefficients(points),
    points,
    error: {
      tpot: errorSummary(loo.filter((r) => r.point.kind === 'tpot').map((r) => r.error)),
      ttft: errorSummary(loo.filter((r) => r.point.kind === 'ttft').map((r) => r.error)),
    },
  };
}

/** The headroom factors estimated times are multiplied by. */
export function estimateHeadroom(model: PerformanceModel): { readonly tpot: number; readonly ttft: number } {
  return { tpot: 1 + model.error.tpot.p75, ttft: 1 + model.error.ttft.p75 };
}

/** Prompt and sequence buckets of a workload, tokens, ascending; the last is the model length. */
export interface Buckets {
  readonly contextEncoding: readonly number[];
  readonly tokenGeneration: readonly number[];
}

const roundUp = (tokens: number) => Math.ceil(tokens / BUCKET_STEP) * BUCKET_STEP;

/** Buckets at the prompt distribution's p50, p90, p99 and the model length. */
export function chooseBuckets(lengths: WorkloadLengths, maxModelLength: number): Buckets {
  const prompts = [0.5, 0.9, 0.99].map((q) => roundUp(lengthQuantile(lengths.input, q)));
  const sequences = [0.5, 0.9, 0.99].map((q) => roundUp(lengthQuantile(lengths.input, q) + lengths.output.mean));
  const within = (values: number[]) => [...new Set([...values.filter((v) => v < maxModelLength), maxModelLength])].sort((a, b) => a - b);
  return { contextEncoding: within(prompts), tokenGeneration: within(sequences) };
}

/** The smallest bucket holding `tokens` (the largest when none does). */
export function bucketFor(buckets: readonly number[], tokens: number): number {
  return buckets.find((b) => b >= tokens) ?? buckets[buckets.length - 1];
}

/** What an estimated configuration runs. */
export interface EstimateInput {
  readonly profile: GenerativeProfile;
  readonly chip: ChipFigures;
  readonly tensorParallelDegree: number;
  readonly maxSequences: number;
  readonly lengths: WorkloadLengths;
  readonly buckets: Buckets;
  readonly weightDtype?: ModelConfiguration['weightDtype'];
  readonly kvDtype?: ModelConfiguration['kvDtype'];
  /** Speculative decoding: divides decode time as `speculation.ts` computes. @default - none */
  readonly decodeScale?: (cfg: ModelConfiguration, contextTokens: number, coefficients: PerformanceCoefficients) => number;
  /** Share of prompt tokens a prefix cache serves (prefill runs the rest). @default 0 */
  readonly prefixHitRate?: number;
}

/** An estimated engine timing, with what it rests on. */
export interface EstimatedTiming extends EngineTiming {
  /** Decode step and prefill of a mean prompt before headroom, ms: for the plan's text. */
  readonly rawStepMs: number;
  readonly rawPrefillMs: number;
  readonly headroom: { readonly tpot: number; readonly ttft: number };
  /** The model's anchors for this profile on this chip (1 without rows there). */
  readonly anchors: { readonly tpot: number; readonly ttft: number };
}

/** The timing the model predicts for a configuration, with the model's error as headroom. */
export function estimatedTiming(input: EstimateInput, model: PerformanceModel = builtInPerformanceModel()): EstimatedTiming {
  const { profile, chip, lengths, buckets } = input;
  const cfg: ModelConfiguration = {
    model: profile.model, chip, coresPerChip: chip.coresPerChip, tensorParallelDegree: input.tensorParallelDegree,
    batch: input.maxSequences, ...(input.weightDtype ? { weightDtype: input.weightDtype } : {}), ...(input.kvDtype ? { kvDtype: input.kvDtype } : {}),
  };
  const own = fitPoints([profile]);
  const points = own.length > 0 && !model.points.some((p) => p.profileId === profile.id) ? [...model.points, ...own] : model.points;
  const anchors = {
    tpot: anchor(points, model.coefficients, profile.id, chip.chip, 'tpot'),
    ttft: anchor(points, model.coefficients, profile.id, chip.chip, 'ttft'),
  };
  const headroom = estimateHeadroom(model);
  // The longest of N running sequences: the prompt quantile 1 - 1/(2N), plus the mean output.
  const q = input.maxSequences === 1 ? 0.5 : 1 - 1 / (2 * input.maxSequences);
  const context = bucketFor(buckets.tokenGeneration, lengthQuantile(lengths.input, q) + lengths.output.mean);
  const plain = decodeStepSeconds(model.coefficients, cfg, context);
  const step = (input.decodeScale ? input.decodeScale(cfg, context, model.coefficients) : plain) * anchors.tpot;
  const hit = input.prefixHitRate ?? 0;
  const prefill = (tokens: number) => {
    const bucket = bucketFor(buckets.contextEncoding, tokens);
    // A cached prefix is read, not computed: the compute term scales with the uncached share.
    const f = prefillFeatures({ ...cfg, batch: 1 }, bucket);
    const seconds = hit > 0 ? dot(model.coefficients.prefill, [f[0], f[1] * (1 - hit), f[2], f[3]]) : prefillSeconds(model.coefficients, cfg, bucket);
    return seconds * anchors.ttft;
  };
  return {
    maxSequences: input.maxSequences,
    stepSeconds: step * headroom.tpot,
    prefillSeconds: (tokens: number) => prefill(tokens) * headroom.ttft,
    tpotTail: 1,
    ttftTail: 1,
    chunkedPrefill: false,
    prefillEstimated: false,
    rawStepMs: step * 1000,
    rawPrefillMs: prefill(lengths.input.mean) * 1000,
    headroom,
    anchors,
  };
}

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
  readonly code: 'device-memory' | 'tpot' | 'ttft' | 'engine' | 'tensor-parallel';
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
        prune.best.set(c.key, { usd: hourly, tp: c.tp });
      }
    }
    configs.push({ tp: c.tp, seqs: c.seqs, levers: c.levers, memory: leverMemory(profile, instance, c.tp, c.seqs, request.maxModelLength, c.levers, buckets), timing: c.timing, capacity, buckets });
  }
  return { configs, rejections };
}

/**
 * The share by which a plan of a larger tensor-parallel degree than the profile's rows measured must be cheaper than a
 * smaller degree's to be chosen (`choice.ts`): the model's decode-step error at the quantile its headroom covers.
 */
export function degreeMargin(): number {
  return estimateHeadroom(builtInPerformanceModel()).tpot - 1;
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
  const limit = smaller ? best.usd / (1 - degreeMargin()) : best.usd;
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
  const step = timing.stepSeconds * 1000;
  return step > targets.tpotP99Ms
    ? { configuration: `tp=${tp} (ESTIMATE)`, code: 'tpot', reason: `estimated decode step ${round(step)} ms (with the model's error) exceeds TPOT p99 ${targets.tpotP99Ms} ms even alone` }
    : { configuration: `tp=${tp} (ESTIMATE)`, code: 'ttft', reason: `estimated prefill of the prompts misses TTFT p99 ${targets.ttftP99Ms} ms even alone (${round(timing.prefillSeconds(targets.inputTokens.p99 ?? targets.inputTokens.mean) * 1000)} ms at p99 length)` };
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

/*
 * What a plan reports beyond its sizing: the estimate its times rest on, goodput, and what each lever of the chosen
 * plan was worth.
 */

const pct = (x: number) => `${Math.round(x * 100)} %`;

/** The estimate's figures, for the plan's JSON. */
export function estimateDetails(config: EstimatedConfiguration): GenerativeEstimate {
  const { error } = builtInPerformanceModel();
  const t = config.timing;
  return {
    tpotError: { median: round(error.tpot.median), worst: round(error.tpot.worst) },
    ttftError: { median: round(error.ttft.median), worst: round(error.ttft.worst) },
    headroom: { tpot: round(t.headroom.tpot), ttft: round(t.headroom.ttft) },
    stepMs: round(t.rawStepMs),
    prefillMs: round(t.rawPrefillMs),
    anchors: { tpot: round(t.anchors.tpot), ttft: round(t.anchors.ttft) },
  };
}

/** The warning an estimated plan carries. */
export function estimateWarning(config: EstimatedConfiguration): string {
  const { error } = builtInPerformanceModel();
  const t = config.timing;
  return `ESTIMATE: no published row measures tp=${config.tp} seqs=${config.seqs} (levers: ${describeLevers(config.levers)}) at this length; ` +
    `the performance model predicts a decode step of ${round(t.rawStepMs)} ms and a mean prefill of ${round(t.rawPrefillMs)} ms. ` +
    `Its leave-one-out error on the published rows is median ${pct(error.tpot.median)}, worst ${pct(error.tpot.worst)} for TPOT and median ` +
    `${pct(error.ttft.median)}, worst ${pct(error.ttft.worst)} for TTFT; the plan raises both by their ${Math.round(ESTIMATE_ERROR_QUANTILE * 100)}th-percentile ` +
    `error (x${round(t.headroom.tpot)} and x${round(t.headroom.ttft)}). Prove it with the token proof and calibrate from its report.`;
}

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
