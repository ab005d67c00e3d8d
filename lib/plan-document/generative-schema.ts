/**
 * The shape of a generative plan document (`GenerativePlan`) as a zod schema: loose objects, every field the type
 * requires required (see ./schema.ts for why).
 */
import { WORKLOAD_PRESET_NAMES } from '../generative/workloads';
import { lazySchema } from '../lazy-schema';
import { nonEmptyString, positiveInteger, positiveNumber } from '../profiles/schema';
import {
  arrivalProcessSchema, bool, coreGroupSchema, deploymentPlanFields, mixedFleetFields, nonNegativeInteger, nonNegativeNumber, oneOf,
  poolSummaryFields, quantileTableSchema, text,
} from './schema';

const object = { error: 'expected an object' };

/** A length target: its mean and, when lengths vary, a p99 (`TokenLength`). */
const tokenLengthSchema = lazySchema((z) => z.looseObject({ mean: positiveNumber(), p99: positiveNumber().optional() }, object));

/** One length distribution the plan was made for (`LengthDistribution`): lognormal, or a file's quantile table. */
const lengthDistributionSchema = lazySchema((z) => z.looseObject({
  spread: oneOf(['stated', 'default', 'fixed', 'empirical']),
  mean: positiveNumber(),
  p99: positiveNumber(),
  mu: z.number({ error: 'expected a number' }),
  sigma: nonNegativeNumber(),
  scv: nonNegativeNumber(),
  max: positiveNumber().optional(),
  quantiles: quantileTableSchema().optional(),
  source: text(),
}, object));

/** The input and output length distributions of a workload (`WorkloadLengths`). */
const workloadLengthsSchema = lazySchema((z) => z.looseObject({
  input: lengthDistributionSchema(),
  output: lengthDistributionSchema(),
  correlation: z.number({ error: 'expected a number' }).min(-1, { error: 'expected a correlation from -1 to 1' })
    .max(1, { error: 'expected a correlation from -1 to 1' }).optional(),
  totalP99: positiveNumber().optional(),
}, object));

/** `{ median, worst }` relative errors of the performance model. */
const errorSchema = lazySchema((z) => z.looseObject({ median: nonNegativeNumber(), worst: nonNegativeNumber() }, object));

/** A draft model for speculative decoding (`DraftModel`). */
const draftSchema = lazySchema((z) => z.looseObject({
  id: nonEmptyString(),
  huggingFaceId: nonEmptyString(),
  parametersBillions: positiveNumber(),
  acceptedTokens: positiveNumber(),
  source: text(),
  // How the engine runs the draft: the plugin renders only EAGLE3, NxD Inference only its fused draft (engine-config.ts).
  method: oneOf(['fused', 'eagle3']).optional(),
  stepCost: positiveNumber().optional(),
}, object));

/**
 * The engine settings the plan implies (`EngineSettings`): what the compile job compiles and the engine runs.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const engineSettingsSchema = lazySchema((z) => z.looseObject({
  tensorParallelSize: positiveInteger(),
  maxNumSeqs: positiveInteger(),
  maxModelLen: positiveInteger(),
  logicalNeuronCoreConfig: positiveInteger(),
  contextEncodingBuckets: z.array(positiveInteger(), { error: 'expected an array of token counts' }).optional(),
  tokenGenerationBuckets: z.array(positiveInteger(), { error: 'expected an array of token counts' }).optional(),
  levers: z.looseObject({
    speculation: z.looseObject({
      draft: draftSchema(),
      speculativeTokens: positiveInteger(),
      acceptedTokens: positiveNumber(),
    }, object).optional(),
    fp8Weights: bool().optional(),
    fp8KvCache: bool().optional(),
    prefixHitRate: nonNegativeNumber().max(1, { error: 'expected a share from 0 to 1' }).optional(),
  }, object).optional(),
}, object));

/** One measured row a generative plan's times come from (`GenerativeMeasurement`). */
const generativeMeasurementSchema = lazySchema((z) => z.looseObject({
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
  latencyCounts: oneOf(['output', 'input-and-output']).optional(),
  tokensPerSecond: positiveNumber().optional(),
  throughputCounts: oneOf(['output', 'input-and-output']).optional(),
  chunkedPrefill: bool().optional(),
  source: text(),
  unverified: bool().optional(),
}, object));

/** A generative plan without fallback pools: what a pool's own `plan` is. */
const generativePlanCoreSchema = lazySchema((z) => z.looseObject({
  kind: z.literal('generative', { error: "expected 'generative'" }),
  ...deploymentPlanFields(),
  targets: z.looseObject({
    requestsPerSecond: positiveNumber(),
    inputTokens: tokenLengthSchema(),
    outputTokens: tokenLengthSchema(),
    ttftP99Ms: positiveNumber(),
    tpotP99Ms: positiveNumber(),
    e2eP99Ms: positiveNumber().optional(),
    peakRequestsPerSecond: positiveNumber().optional(),
    fixedLengths: bool().optional(),
    workload: oneOf(WORKLOAD_PRESET_NAMES).optional(),
    lengths: workloadLengthsSchema().optional(),
    arrivals: arrivalProcessSchema().optional(),
  }, object),
  generative: z.looseObject({
    architecture: oneOf(['decoder-only', 'encoder-decoder']),
    tensorParallelDegree: positiveInteger(),
    replicasPerInstance: positiveInteger(),
    maxConcurrentSequences: positiveInteger(),
    maxModelLength: positiveInteger(),
    lengths: workloadLengthsSchema().optional(),
    memoryGiB: z.looseObject({
      weights: nonNegativeNumber(),
      kvCache: nonNegativeNumber(),
      reserve: nonNegativeNumber(),
      available: positiveNumber(),
      kvHeadsPerRank: positiveInteger(),
      kvSharding: oneOf(['shard', 'replicate', 'convert-to-mha']),
      maxConcurrencyThatFits: nonNegativeInteger(),
    }, object),
    predictedTtftP99Ms: positiveNumber(),
    predictedTpotP99Ms: positiveNumber(),
    predictedE2eP99Ms: positiveNumber(),
    outputTokensPerSecond: positiveNumber(),
    capacityOutputTokensPerSecondPerReplica: positiveNumber(),
    capacityPerReplicaRps: positiveNumber(),
    meanRunningSequences: nonNegativeNumber(),
    costPer1MOutputTokensUsd: nonNegativeNumber(),
    goodputRps: nonNegativeNumber().optional(),
    costPer1MOutputTokensAtGoodputUsd: nonNegativeNumber().optional(),
    estimate: z.looseObject({
      tpotError: errorSchema(),
      ttftError: errorSchema(),
      headroom: z.looseObject({ tpot: positiveNumber(), ttft: positiveNumber() }, object),
      stepMs: positiveNumber(),
      prefillMs: positiveNumber(),
      anchors: z.looseObject({ tpot: positiveNumber(), ttft: positiveNumber() }, object),
    }, object).optional(),
    engine: engineSettingsSchema(),
    replicas: z.array(coreGroupSchema(), { error: 'expected an array of replica layouts' }),
    measurement: z.array(generativeMeasurementSchema(), { error: 'expected an array of measurements' }),
  }, object),
}, object));

/**
 * A generative plan (`GenerativePlan`), its fallback pools (`fallbacks`, each with its own complete plan) and mixed
 * fleet included.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const generativePlanSchema = lazySchema((z) => generativePlanCoreSchema().extend({
  fallbacks: z.array(z.looseObject({
    ...poolSummaryFields(),
    layout: z.looseObject({
      tensorParallelDegree: positiveInteger(),
      replicasPerInstance: positiveInteger(),
      maxConcurrentSequences: positiveInteger(),
      maxModelLength: positiveInteger(),
      visibleCores: z.array(nonEmptyString(), { error: 'expected an array of strings' }),
    }, object),
    capacity: z.looseObject({
      perInstanceRps: positiveNumber(), rps: positiveNumber(), perReplicaRps: positiveNumber(), outputTokensPerSecondPerReplica: positiveNumber(),
    }, object),
    plan: generativePlanCoreSchema(),
  }, object), { error: 'expected an array of fallback pools' }).optional(),
  mixedFleet: z.looseObject({
    ...mixedFleetFields(), copies: positiveInteger(), maxCopies: positiveInteger(), capacityPerCopyRps: positiveNumber(),
  }, object).optional(),
}));

/**
 * What a compile job reads of a generative plan (`GenerativePlanForArtifact`): the instance and the engine settings.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const generativePlanForArtifactSchema = lazySchema((z) => z.looseObject({
  instanceType: nonEmptyString(),
  instance: z.looseObject({ family: nonEmptyString() }, object),
  generative: z.looseObject({ engine: engineSettingsSchema() }, object),
}, object));
