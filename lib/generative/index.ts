/**
 * Generative models planned in tokens: profiles with architecture and measured rows, memory (weights + KV cache),
 * a model of continuous batching, its replay, and the planner.
 */
import { BUILT_IN_GENERATIVE_PROFILES } from '../profiles/data/generative';
import type { GenerativeProfile } from './types';
import { z } from 'zod';
import { InputError } from '../errors';
import { formatPath, formatValue, valueAt } from '../profiles/schema';

export type * from './types';
export { DTYPE_BYTES, RUNTIME_RESERVE_FRACTION, kvCachePerSequenceGiB, kvSharding, replicaMemory, weightsGiB } from './memory';
export { engineTiming, lengthDistribution, perOutputTokenMs, PREFILL_TOKENS_PER_STEP_ESTIMATE } from './engine-timing';
export type { EngineTiming } from './engine-timing';
export { generalizedPoissonTail, meetsTargets, normalQuantile, predictReplica, replicaCapacityRps, singleSlotWaitQuantile } from './continuous-batching';
export type { ReplicaPrediction } from './continuous-batching';
export { DEFAULT_LENGTH_SPREAD, lengthDistributionOf, lengthQuantile, lengthSampler, lognormalLength, sampleLength, sampleWorkload, workloadLengths } from './lengths';
export type { LengthDistribution, LengthSpread, WorkloadLengths } from './lengths';
export { acceptedTokensFrom, describeLevers, draftFor, leverSets, SPECULATIVE_TOKENS } from './perf-model';
export type { DraftModel, GenerativeLeverOptions, LeverSet } from './perf-model';
export { CHIP_FIGURES } from './perf-model';
export type { ChipFigures } from './perf-model';
export { builtInPerformanceModel, chooseBuckets, ESTIMATE_ERROR_QUANTILE, estimatedTiming, performanceModel } from './estimate';
export type { Buckets, EstimatedTiming, PerformanceModel } from './estimate';
export { planTiming } from './estimate';
export { simulateGenerativeReplica } from './queueing';
export type { GenerativeSimulationInput, GenerativeSimulationResult } from './queueing';
export { compareGenerativePlans, describeConfiguration, HOST_MEMORY_PER_WEIGHT, maxModelLengthFor, planGenerative, planGenerativeReport } from './planner';
export { VLLM_DEFAULT_PORT, VLLM_ENV, vllmReplicaConfigs, vllmServeCommand } from './engine-config';
export type { VllmEngineOptions, VllmReplicaConfig } from './engine-config';
export { parseVllmDlcTag, SAGEMAKER_ENVIRONMENT_VALUE_MAX, VLLM_DLC_PINS, VLLM_DLC_REPOSITORY, VLLM_IMAGE_ENV, vllmContainerEnvironment, vllmDlcTagProblems } from './engine-image';
export type { EngineMetricsTarget, VllmDlcPin, VllmDlcTag } from './engine-image';
export { DEFAULT_ENGINE_METRICS_NAMESPACE, ENGINE_COUNTERS, ENGINE_EXPORTER_COUNTERS, ENGINE_GAUGES, ENGINE_METRICS_DIMENSION, ENGINE_PERCENTILES } from './engine-image';
export type { EngineMetricName } from './engine-image';

/** Every built-in generative profile, sorted by id. */
export function builtInGenerativeProfiles(): readonly GenerativeProfile[] {
  return BUILT_IN_GENERATIVE_PROFILES;
}

/** The built-in generative profile with this id, if any. */
export function findGenerativeProfile(id: string): GenerativeProfile | undefined {
  return BUILT_IN_GENERATIVE_PROFILES.find((p) => p.id === id);
}

/*

 * Validation of a user's generative profile file (`plan --profile FILE` with `"kind": "generative"`): every problem
 * at once, each naming the field, the value and what is expected. docs/profile-format.md documents the format.
 */

const POSITIVE_NUMBER = 'expected a positive number';
const POSITIVE_INTEGER = 'expected a positive integer';
const NON_EMPTY_STRING = 'expected a non-empty string';

const positiveNumber = () => z.number({ error: POSITIVE_NUMBER }).positive({ error: POSITIVE_NUMBER });
const positiveInteger = () => z.int({ error: POSITIVE_INTEGER }).positive({ error: POSITIVE_INTEGER });
const nonEmptyString = () =>
  z.string({ error: NON_EMPTY_STRING }).refine((s) => s.trim().length > 0, { error: NON_EMPTY_STRING });

const generativeModelSchema = z.strictObject({
  architecture: z.enum(['decoder-only', 'encoder-decoder'], { error: "expected 'decoder-only' or 'encoder-decoder'" }),
  parametersBillions: positiveNumber(),
  dtype: z.enum(['fp32', 'bf16', 'fp16', 'fp8', 'int8'], { error: "expected one of 'fp32', 'bf16', 'fp16', 'fp8', 'int8'" }),
  layers: positiveInteger(),
  attentionHeads: positiveInteger(),
  kvHeads: positiveInteger(),
  headDim: positiveInteger(),
  vocabulary: positiveInteger(),
  maxContextTokens: positiveInteger(),
  source: nonEmptyString(),
});

const generativeMeasurementSchema = z.strictObject({
  instanceType: nonEmptyString(),
  tensorParallelDegree: positiveInteger(),
  batchSize: positiveInteger(),
  inputTokens: positiveInteger(),
  outputTokens: positiveInteger(),
  sequenceLength: positiveInteger().optional(),
  neuronSdkVersion: nonEmptyString(),
  ttftP50Ms: positiveNumber().optional(),
  ttftP99Ms: positiveNumber().optional(),
  tpotP50Ms: positiveNumber(),
  tpotP99Ms: positiveNumber().optional(),
  latencyCounts: z.enum(['output', 'input-and-output'], { error: "expected 'output' or 'input-and-output'" }).optional(),
  tokensPerSecond: positiveNumber().optional(),
  throughputCounts: z.enum(['output', 'input-and-output'], { error: "expected 'output' or 'input-and-output'" }).optional(),
  chunkedPrefill: z.boolean({ error: 'expected true or false' }).optional(),
  source: nonEmptyString(),
  unverified: z.boolean({ error: 'expected true or false' }).optional(),
});

/**
 * The JSON shape of a generative profile; `parseGenerativeProfile` adds the cross-field rules.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const generativeProfileSchema = z.strictObject({
  kind: z.literal('generative', { error: "expected 'generative'" }),
  id: nonEmptyString(),
  huggingFaceId: nonEmptyString().optional(),
  description: z.string({ error: 'expected a string' }).optional(),
  model: generativeModelSchema,
  measurements: z
    .array(generativeMeasurementSchema, { error: 'expected an array of measurements' })
    .min(1, { error: 'expected at least one measurement' }),
});

function describeIssue(json: unknown, issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const where = issue.path.length > 0 ? `${formatPath(issue.path)}: ` : '';
    return `${where}unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}; remove or rename ${issue.keys.length > 1 ? 'them' : 'it'}`;
  }
  if (issue.path.length === 0) {
    return `expected a JSON object with kind "generative", id, model and measurements, got ${formatValue(json)}`;
  }
  return `${formatPath(issue.path)}: ${issue.message}, got ${formatValue(valueAt(json, issue.path))}`;
}

/** Checks across fields: p50 <= p99, sequence length covers the row's lengths, KV heads divide the query heads. */
function crossFieldProblems(profile: z.infer<typeof generativeProfileSchema>): string[] {
  const problems: string[] = [];
  const { model } = profile;
  if (model.attentionHeads % model.kvHeads !== 0) {
    problems.push(`model.kvHeads: expected a divisor of attentionHeads (${model.attentionHeads}), got ${model.kvHeads}`);
  }
  profile.measurements.forEach((m, i) => {
    const at = `measurements[${i}]`;
    if (m.ttftP99Ms !== undefined && m.ttftP50Ms !== undefined && m.ttftP99Ms < m.ttftP50Ms) {
      problems.push(`${at}.ttftP99Ms: expected a value >= ttftP50Ms (${m.ttftP50Ms}), got ${m.ttftP99Ms}`);
    }
    if (m.tpotP99Ms !== undefined && m.tpotP99Ms < m.tpotP50Ms) {
      problems.push(`${at}.tpotP99Ms: expected a value >= tpotP50Ms (${m.tpotP50Ms}), got ${m.tpotP99Ms}`);
    }
    if (m.sequenceLength !== undefined && m.sequenceLength < m.inputTokens + m.outputTokens) {
      problems.push(
        `${at}.sequenceLength: expected at least inputTokens + outputTokens (${m.inputTokens + m.outputTokens}), got ${m.sequenceLength}`,
      );
    }
    if ((m.sequenceLength ?? m.inputTokens + m.outputTokens) > model.maxContextTokens) {
      problems.push(`${at}: its sequence length exceeds model.maxContextTokens (${model.maxContextTokens})`);
    }
  });
  return problems;
}

/**
 * The generative profile in `json`, read from `origin` (a file name for messages).
 *
 * @throws InputError listing every problem, each as `origin: field: what is wrong, got value`
 */
export function parseGenerativeProfile(json: unknown, origin: string): GenerativeProfile {
  const result = generativeProfileSchema.safeParse(json);
  if (!result.success) {
    throw new InputError(result.error.issues.map((issue) => `${origin}: ${describeIssue(json, issue)}`));
  }
  InputError.throwIfAny(crossFieldProblems(result.data).map((p) => `${origin}: ${p}`));
  return result.data as GenerativeProfile;
}
