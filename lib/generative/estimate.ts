/**
 * Engine timings of configurations nobody measured, from the performance model (`perf-model.ts`, fitted in
 * `perf-fit.ts`), and the engine's buckets chosen from the length distribution.
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
import type { EngineTiming } from './engine-timing';
import { lengthQuantile } from './lengths';
import type { WorkloadLengths } from './lengths';
import { anchor, errorSummary, fitCoefficients, fitPoints, leaveOneOut } from './perf-fit';
import type { FitPoint } from './perf-fit';
import { decodeStepSeconds, dot, prefillFeatures, prefillSeconds } from './perf-model';
import type { ChipFigures, ModelConfiguration, PerformanceCoefficients } from './perf-model';
import type { GenerativeProfile } from './types';

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
