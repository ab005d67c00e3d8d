/**
 * Engine timings of configurations nobody measured, from the performance model (`model/`: physics terms times
 * coefficients fitted per chip and stack, recorded in `model/coefficients.ts`), and the engine's buckets chosen from
 * the length distribution.
 *
 * Buckets: NxD Inference compiles one context-encoding graph per prompt bucket and one token-generation graph per
 * sequence bucket, and runs a prompt or a step in the smallest bucket that holds it (AWS Neuron docs, NxD Inference
 * feature guide, "Bucketing": `context_encoding_buckets`, `token_generation_buckets`). The planner picks the
 * buckets at the prompt distribution's 50th, 90th and 99th percentiles (rounded up to 128 tokens) and the model
 * length, so padding costs at most the gap to the next quantile; each bucket is a compiled graph that holds device
 * memory (`BUCKET_MEMORY_GIB_PER_RANK` in `estimate.ts`). A prefill is timed at its bucket; a decode step at the
 * sequence bucket that holds the longest of the batch's running sequences (the graph reads the KV cache up to it for
 * every slot).
 *
 * Estimated times carry headroom for the model's held-out error on extrapolations like theirs (`model/evidence.ts`):
 * a configuration of a model measured on its chip takes that class's error, a new model on a chip nobody measured
 * takes that one's.
 */
import type { EngineTiming, GenerativeProfile } from './types';
import { lengthQuantile } from './lengths';
import type { WorkloadLengths } from './lengths';
import { decodeStepSeconds, dot, FEATURE_NAMES, prefillFeatures, prefillSeconds } from './model/physics';
import type { ChipFigures, ModelConfiguration, PerformanceCoefficients } from './model/physics';
import { RECORDED_COEFFICIENTS } from './model/coefficients';
import { RECORDED_ERROR_REPORT } from './model/error-report';
import { anchorOf, jointCoefficientsFor, observations, splitJoint } from './model/fit';
import type { CoefficientLevel, FittedCoefficients } from './model/fit';
import { extrapolationFor, headroomFor, heldOutErrorOf } from './model/evidence';
import type { Headroom, HeldOutError } from './model/evidence';
import type { ErrorReport } from './model/report';
import { knownRows } from './model/dataset';
import { architectureKey, deployedStack } from './model/rows';

/** The share of a class's held-out predictions an estimated plan's headroom covers (`model/report.ts`). */
export const ESTIMATE_ERROR_QUANTILE = RECORDED_ERROR_REPORT.quantile;

/** The compute terms of a feature vector (`FEATURE_NAMES`): what a cached prefix saves. */
const MATMUL = FEATURE_NAMES.indexOf('matmul');
const ATTENTION = FEATURE_NAMES.indexOf('attention');

/** NxD Inference bucket granularity, tokens. */
const BUCKET_STEP = 128;

/** The fitted model and its held-out error. */
export interface PerformanceModel {
  readonly coefficients: FittedCoefficients;
  readonly report: ErrorReport;
}

/** The recorded fit and error report (`npm run fit:llm-model`): plans load them and never refit. */
export function builtInPerformanceModel(): PerformanceModel {
  return { coefficients: RECORDED_COEFFICIENTS, report: RECORDED_ERROR_REPORT };
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
  /** The headroom the times carry, and the extrapolation class it comes from. */
  readonly headroom: Headroom;
  /** The model's anchors for this profile on this chip (1 without rows of its own). */
  readonly anchors: { readonly tpot: number; readonly ttft: number };
  /** Which coefficients the times use: the chip and stack's own, the chip's, or the shared ones. */
  readonly coefficientLevel: CoefficientLevel;
}

/** What a configuration's times rest on apart from its batch and lengths: coefficients, anchors, headroom. */
interface Basis {
  readonly coefficients: PerformanceCoefficients;
  readonly level: CoefficientLevel;
  readonly anchors: { readonly tpot: number; readonly ttft: number };
  readonly headroom: Headroom;
}

const bases = new WeakMap<GenerativeProfile, WeakMap<PerformanceModel['coefficients'], Map<string, Basis>>>();

/** The basis of a profile on a chip at a degree (memoized: the planner asks for every batch and lever set). */
function basisOf(profile: GenerativeProfile, chip: ChipFigures, tp: number, model: PerformanceModel): Basis {
  const byModel = bases.get(profile) ?? new WeakMap();
  bases.set(profile, byModel);
  const byKey = byModel.get(model.coefficients) ?? new Map<string, Basis>();
  byModel.set(model.coefficients, byKey);
  const key = `${chip.chip}|${tp}`;
  const cached = byKey.get(key);
  if (cached) {
    return cached;
  }
  const stack = deployedStack(chip.chip);
  const known = knownRows(profile);
  const { joint, level } = jointCoefficientsFor(model.coefficients, chip.chip, stack);
  const architecture = architectureKey(profile.model);
  const own = observations(known.filter((r) => r.architecture === architecture));
  const basis: Basis = {
    coefficients: splitJoint(joint),
    level,
    anchors: {
      tpot: anchorOf(model.coefficients, own, architecture, chip.chip, 'tpot').factor,
      ttft: anchorOf(model.coefficients, own, architecture, chip.chip, 'ttft').factor,
    },
    headroom: headroomFor(extrapolationFor({ architecture, chip: chip.chip, stack, tensorParallelDegree: tp }, known), model.report),
  };
  byKey.set(key, basis);
  return basis;
}

/**
 * The held-out error of the model where it would estimate `profile` at `tensorParallelDegree` on `chip` (its
 * extrapolation class's, e.g. `same model, same chip, TP beyond measured`): the margin by which the model must favour
 * an estimated layout over a measured one before a plan should believe it.
 */
export function modelErrorFor(profile: GenerativeProfile, chip: ChipFigures, tensorParallelDegree: number, model: PerformanceModel = builtInPerformanceModel()): HeldOutError | undefined {
  const known = knownRows(profile);
  const e = extrapolationFor({ architecture: architectureKey(profile.model), chip: chip.chip, stack: deployedStack(chip.chip), tensorParallelDegree }, known);
  return heldOutErrorOf(e, model.report);
}

/** The timing the model predicts for a configuration, with the held-out error of its extrapolation class as headroom. */
export function estimatedTiming(input: EstimateInput, model: PerformanceModel = builtInPerformanceModel()): EstimatedTiming {
  const { profile, chip, lengths, buckets } = input;
  const cfg: ModelConfiguration = {
    model: profile.model, chip, coresPerChip: chip.coresPerChip, tensorParallelDegree: input.tensorParallelDegree,
    batch: input.maxSequences, ...(input.weightDtype ? { weightDtype: input.weightDtype } : {}), ...(input.kvDtype ? { kvDtype: input.kvDtype } : {}),
  };
  const { coefficients, level, anchors, headroom } = basisOf(profile, chip, input.tensorParallelDegree, model);
  // The longest of N running sequences: the prompt quantile 1 - 1/(2N), plus the mean output.
  const q = input.maxSequences === 1 ? 0.5 : 1 - 1 / (2 * input.maxSequences);
  const context = bucketFor(buckets.tokenGeneration, lengthQuantile(lengths.input, q) + lengths.output.mean);
  const plain = decodeStepSeconds(coefficients, cfg, context);
  const step = (input.decodeScale ? input.decodeScale(cfg, context, coefficients) : plain) * anchors.tpot;
  const hit = input.prefixHitRate ?? 0;
  const prefill = (tokens: number) => {
    const bucket = bucketFor(buckets.contextEncoding, tokens);
    // A cached prefix is read, not computed: the compute term scales with the uncached share.
    const f = prefillFeatures({ ...cfg, batch: 1 }, bucket);
    const seconds = hit > 0 ? dot(coefficients.prefill, f.map((v, k) => (k === MATMUL || k === ATTENTION ? v * (1 - hit) : v))) : prefillSeconds(coefficients, cfg, bucket);
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
    coefficientLevel: level,
  };
}
