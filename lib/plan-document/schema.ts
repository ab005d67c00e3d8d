/**
 * The shape of a single-call plan document, and the parts every plan shares, as zod schemas.
 *
 * Objects are loose: a key the schema does not name passes untouched, so a plan written by a newer planner that
 * added an optional field (`fallbacks`, `evidence`) still reads, and what the consumers read is checked strictly.
 * Every field the published `Plan` type requires is required here; `test/lib/public-types.test.ts` fails when the
 * schema's output stops fitting the type.
 */
import { lazySchema, loadZod } from '../lazy-schema';
import { nonEmptyString, positiveInteger, positiveNumber } from '../profiles/schema';
import { isQuantileTable } from '../traffic/quantiles';
import { QUANTILE_PROBABILITIES } from '../traffic/types';

/** `>= 0` and finite, with the message users read. */
export const nonNegativeNumber = () => loadZod().number({ error: 'expected a number >= 0' }).min(0, { error: 'expected a number >= 0' });
/** A whole number `>= 0`. */
export const nonNegativeInteger = () => loadZod().int({ error: 'expected a whole number >= 0' }).min(0, { error: 'expected a whole number >= 0' });
/** Any string, with the message users read. */
export const text = () => loadZod().string({ error: 'expected a string' });
/** `true` or `false`. */
export const bool = () => loadZod().boolean({ error: 'expected true or false' });
/** One of `values`, naming them. */
export const oneOf = <T extends string>(values: readonly [T, ...T[]]) =>
  loadZod().enum(values, { error: `expected one of ${values.map((v) => `'${v}'`).join(', ')}` });

/** The instance's hardware (`InstanceSpec`). */
/**
 * A distribution as its values at `QUANTILE_PROBABILITIES` (60 points, ascending): a traffic file's lengths or gaps.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const quantileTableSchema = lazySchema((z) => z.array(z.number({ error: 'expected a number' }), { error: 'expected an array of numbers' })
  .refine(isQuantileTable, { error: `expected ${QUANTILE_PROBABILITIES.length} numbers >= 0, one per QUANTILE_PROBABILITIES point, ascending` }));

/**
 * How requests arrive (`ArrivalProcess`): the gaps' SCV and, from a log's timestamps, their quantile table.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const arrivalProcessSchema = lazySchema((z) => z.looseObject({
  scv: positiveNumber(),
  source: text(),
  gapQuantiles: quantileTableSchema().optional(),
}, { error: 'expected an object' }));

export const instanceSpecSchema = lazySchema((z) => z.looseObject({
  name: nonEmptyString(),
  family: nonEmptyString(),
  chips: positiveInteger(),
  coresPerChip: positiveInteger(),
  logicalNeuronCoreConfig: positiveInteger().optional(),
  coreVersion: oneOf(['v1', 'v2', 'v3', 'v4']),
  deviceMemoryPerChipGiB: positiveNumber(),
  vcpus: positiveInteger(),
  memoryGiB: positiveNumber(),
  source: text(),
  unverified: bool(),
}, { error: 'expected an object' }));

/** The price the plan was costed at (`Price`). */
const priceSchema = lazySchema((z) => z.looseObject({
  instanceType: nonEmptyString(),
  region: nonEmptyString(),
  hosting: oneOf(['ec2', 'sagemaker']),
  usdPerHour: nonNegativeNumber(),
  kind: oneOf(['on-demand', 'ri-effective', 'capacity-block']),
  source: text(),
  asOf: text(),
  unverified: bool(),
  estimate: text().optional(),
}, { error: 'expected an object' }));

/** One group of NeuronCores: a process of a single-call plan, a replica of a generative one (`CoreGroupLayout`). */
export const coreGroupSchema = lazySchema((z) => z.looseObject({
  index: nonNegativeInteger(),
  cores: z.array(nonNegativeInteger(), { error: 'expected an array of core indexes' }),
  visibleCores: nonEmptyString(),
  devices: z.array(nonEmptyString(), { error: 'expected an array of device paths' }),
}, { error: 'expected an object' }));

/**
 * The fields of `DeploymentPlan`, which both plan kinds have: spread into each kind's object schema.
 *
 * `planVersion` is checked before the schema runs (a newer version is refused as such, not field by field).
 */
export function deploymentPlanFields() {
  const z = loadZod();
  return {
    planVersion: positiveInteger().optional(),
    profileId: nonEmptyString(),
    region: nonEmptyString(),
    hosting: oneOf(['ec2', 'sagemaker']),
    headroom: nonNegativeNumber(),
    instanceType: nonEmptyString(),
    instance: instanceSpecSchema(),
    instanceCount: positiveInteger(),
    maxInstanceCount: positiveInteger(),
    capacityPerInstanceRps: positiveNumber(),
    capacityRps: positiveNumber(),
    price: priceSchema(),
    hourlyCostUsd: nonNegativeNumber(),
    monthlyCostUsd: nonNegativeNumber(),
    warnings: z.array(text(), { error: 'expected an array of strings' }),
  };
}

/** The measured operating point a single-call plan relies on (`Measurement`). */
const measurementSchema = lazySchema((z) => z.looseObject({
  coreVersion: oneOf(['v1', 'v2', 'v3', 'v4']),
  coresPerProcess: positiveInteger(),
  batchSize: positiveInteger(),
  throughputRps: positiveNumber(),
  p50Ms: positiveNumber(),
  p99Ms: positiveNumber(),
  source: text(),
  instanceType: text().optional(),
  mode: oneOf(['batch', 'real-time']).optional(),
  deviceMemoryGiB: positiveNumber().optional(),
  hostMemoryGiB: positiveNumber().optional(),
  memorySource: text().optional(),
  measuredProcesses: positiveInteger().optional(),
  capacityFactor: positiveNumber().optional(),
}, { error: 'expected an object' }));

/** What every fallback pool says of itself (`PoolSummary`), spread into each plan kind's pool schema. */
export function poolSummaryFields() {
  return {
    priority: positiveInteger(),
    instanceType: nonEmptyString(),
    chip: nonEmptyString(),
    instanceCount: positiveInteger(),
    maxInstanceCount: positiveInteger(),
    hourlyCostUsd: nonNegativeNumber(),
    sharesCompiledModelWith: positiveInteger().optional(),
  };
}

/** What every mixed fleet says (`MixedFleetBase`), spread into each plan kind's mixed-fleet schema. */
export function mixedFleetFields() {
  const z = loadZod();
  return {
    instanceCount: positiveInteger(),
    maxInstanceCount: positiveInteger(),
    boundByPriority: positiveInteger(),
    hourlyCostUsd: nonNegativeNumber(),
    extraCostPercent: z.number({ error: 'expected a number' }),
    worst: z.looseObject({
      priority: positiveInteger(), instanceType: nonEmptyString(), instanceCount: positiveInteger(), hourlyCostUsd: nonNegativeNumber(),
    }, { error: 'expected an object' }),
  };
}

/** A single-call plan without fallback pools: what a pool's own `plan` is. */
const singleCallPlanCoreSchema = lazySchema((z) => z.looseObject({
  ...deploymentPlanFields(),
  targets: z.looseObject({
    throughputRps: positiveNumber(),
    inputsPerRequest: positiveInteger().optional(),
    p99Ms: positiveNumber(),
    peakThroughputRps: positiveNumber().optional(),
    arrivals: arrivalProcessSchema().optional(),
  }, { error: 'expected an object' }),
  processesPerInstance: positiveInteger(),
  frontEndsPerInstance: positiveInteger(),
  coresPerProcess: positiveInteger(),
  idleCoresPerInstance: nonNegativeInteger(),
  batchSize: positiveInteger(),
  processes: z.array(coreGroupSchema(), { error: 'expected an array of process layouts' }),
  visibleCores: z.array(nonEmptyString(), { error: 'expected an array of strings' }),
  inputsPerRequest: positiveInteger(),
  serving: oneOf(['stock', 'batching']),
  server: oneOf(['model-server', 'neuron-dlc']).optional(),
  batching: z.looseObject({ maxBatchSize: positiveInteger(), maxDelayMs: nonNegativeNumber() },
    { error: 'expected an object or null' }).nullable(),
  p50Ms: positiveNumber(),
  p99Ms: positiveNumber(),
  predictedP99Ms: positiveNumber(),
  utilization: nonNegativeNumber(),
  hostCpuMsPerRequest: nonNegativeNumber(),
  costPer1MRequestsUsd: nonNegativeNumber(),
  costPer1MInferencesUsd: nonNegativeNumber(),
  naive: z.looseObject({
    instanceCount: positiveInteger(),
    hourlyCostUsd: nonNegativeNumber(),
    monthlyCostUsd: nonNegativeNumber(),
    savingsPercent: z.number({ error: 'expected a number' }),
  }, { error: 'expected an object' }),
  measurement: measurementSchema(),
  deviceMemoryGiB: positiveNumber(),
  hostMemoryGiB: positiveNumber(),
  vcpuPerProcess: positiveNumber(),
}, { error: 'expected an object' }));

/**
 * A single-call plan (`Plan`), its fallback pools (`fallbacks`, each with its own complete plan) and mixed fleet
 * included.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const singleCallPlanSchema = lazySchema((z) => singleCallPlanCoreSchema().extend({
  fallbacks: z.array(z.looseObject({
    ...poolSummaryFields(),
    layout: z.looseObject({
      processesPerInstance: positiveInteger(),
      coresPerProcess: positiveInteger(),
      batchSize: positiveInteger(),
      serving: oneOf(['stock', 'batching']),
      visibleCores: z.array(nonEmptyString(), { error: 'expected an array of strings' }),
    }, { error: 'expected an object' }),
    capacity: z.looseObject({ perInstanceRps: positiveNumber(), rps: positiveNumber() }, { error: 'expected an object' }),
    plan: singleCallPlanCoreSchema(),
  }, { error: 'expected an object' }), { error: 'expected an array of fallback pools' }).optional(),
  mixedFleet: z.looseObject({ ...mixedFleetFields(), capacityPerInstanceRps: positiveNumber() }, { error: 'expected an object' }).optional(),
}));

/**
 * What a compile job reads of a single-call plan (`PlanForArtifact`): the chip, the core group and the batch.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const planForArtifactSchema = lazySchema((z) => z.looseObject({
  instanceType: nonEmptyString(),
  coresPerProcess: positiveInteger(),
  batchSize: positiveInteger(),
  instance: z.looseObject({ family: nonEmptyString(), coreVersion: oneOf(['v1', 'v2', 'v3', 'v4']) }, { error: 'expected an object' }),
}, { error: 'expected an object' }));
