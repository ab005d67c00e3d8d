/**
 * The generative planner: from a generative profile and token-level targets to the cheapest deployment that meets
 * them.
 *
 * Every (instance type, measured tensor-parallel degree, measured maximum of concurrent sequences) of the catalog is
 * a candidate. A candidate must have a price, rows measured on its chip, a degree NxD Inference supports on the chip
 * that fits its cores, rows compiled for a sequence at least as long as the targets need, and the weights, KV cache
 * and reserve in the HBM of the cores a replica spans (`memory.ts`). Each replica's capacity is the largest request
 * rate at which the continuous-batching model (`continuous-batching.ts`) keeps every p99 within its target; an
 * instance holds `cores / degree` replicas; the fleet is priced. The cheapest feasible candidate wins; ties go to the
 * lower predicted TTFT, then fewer instances, then the name.
 */
import { Catalog, deviceMemoryPerCoreGiB, ec2Name, neuronCores, sageMakerName } from '../catalog/catalog';
import { unknownInstanceProblems } from '../catalog/instance-type';
import type { Hosting, InstanceSpec, Price, PricingKind } from '../catalog/types';
import { InputError } from '../errors';
import { estimateWarning as priceEstimateWarning, HOST_MEMORY_USABLE_FRACTION, HOURS_PER_MONTH, instancesFor, MAX_PLANNED_INSTANCES, round } from '../planner/candidate';
import { coreLayout, deviceCountProblem, supportedGroupSizes } from '../planner/layout';
import { chipOf, rankPlans, resolveDeploymentOptions } from '../planner/planner';
import { noPriceReason } from '../planner/no-price';
import { PLAN_VERSION } from '../planner/types';
import { engineTiming, predictReplica } from './continuous-batching';
import type { WorkloadLengths } from './lengths';
import { lognormalProblems, publicTargets, resolveTraffic, shownRequest } from './traffic';
import type { ResolvedGenerativeRequest } from './traffic';
import { replicaHostMemoryGiB, replicaMemory, weightsGiB } from './memory';
import { evaluateEstimates, goodputOf, pruningBounds } from './estimate';
import { estimateDetails, estimatedEvidence, estimateWarning, measuredEvidence, otherStackWarning } from './plan-evidence';
import type { CheapestSoFar, EstimatedConfiguration } from './estimate';
import { describeLevers } from './levers';
import { leverEvidence } from './lever-evidence';
import { chooseAmongFeasible, splitFeasible } from './choice';
import { lengthCutWarning, snapToMeasuredLength } from './length-snap';
import { explain, latencyRejection, memoryReason } from './rejections';
import { knowledgeOf, searchedCapacity } from './capacity-knowledge';
import { rememberedReport } from './plan-memo';
import { withGenerativeFallbackPools } from './pools';
import { e2eTargetProblem, leverProblems } from './request-checks';
import type {
  GenerativeMeasurement, GenerativePlan, GenerativePlanOptions, GenerativePlanReport, GenerativeProfile, GenerativeRejection,
  GenerativeTargets, TokenLength,
} from './types';

/**
 * Host memory one replica needs while it loads, as a multiple of the model's weights: NxD Inference reads the
 * checkpoint on the host to shard it over the ranks. ESTIMATE (UNVERIFIED); replicas are assumed to load at once.
 */
export const HOST_MEMORY_PER_WEIGHT = 1;

/**
 * Neuron 2.29 release notes (aws-neuron/aws-neuron-sdk release-notes/components/nxd-inference.rst, 2026-04-09,
 * "Breaking Changes"): NxD Inference models are supported only on Trn2 and newer from 2.29; Inf2 and Trn1 users pin
 * 2.28.
 */
export const NXDI_LAST_SDK_FOR_INF2_TRN1 = '2.28';

/**
 * The cheapest generative plan that meets the targets.
 *
 * @throws InputError for invalid targets or options, InfeasibleError when no instance meets the targets
 */
export function planGenerative(
  profile: GenerativeProfile,
  targets: GenerativeTargets,
  options: GenerativePlanOptions,
  catalog?: Catalog,
): GenerativePlan {
  return planGenerativeReport(profile, targets, options, catalog).chosen;
}

/**
 * The chosen plan, the best plan of every other candidate (cheapest first) and every rejected candidate with its
 * reason.
 *
 * @param catalog instances and prices @default Catalog.builtIn()
 * @throws InputError for invalid targets or options, InfeasibleError when nothing fits (its `rejected` says why)
 */
export function planGenerativeReport(
  profile: GenerativeProfile,
  targets: GenerativeTargets,
  options: GenerativePlanOptions,
  catalog: Catalog = Catalog.builtIn(),
): GenerativePlanReport {
  // The progress callback is not an input: a remembered report is returned at once.
  const inputs = { profile, targets, options: { ...options, onProgress: undefined } };
  return rememberedReport(catalog, inputs, () => reportOf(profile, targets, options, catalog));
}

function reportOf(profile: GenerativeProfile, targets: GenerativeTargets, options: GenerativePlanOptions, catalog: Catalog): GenerativePlanReport {
  const request = resolveGenerativeRequest(profile, targets, options, catalog);
  const only = request.options.instanceTypes;
  const feasible: GenerativePlan[] = [];
  const rejected: GenerativeRejection[] = [];
  for (const [index, instance] of catalog.instances.entries()) {
    const instanceType = hostedName(instance, request.options.hosting);
    if (only !== undefined && !only.includes(instance.name)) {
      rejected.push({ instanceType, code: 'excluded', reason: `not among the requested instance types (${only.join(', ')})` });
    } else {
      const outcome = evaluateInstance(profile, request, instance, catalog);
      feasible.push(...outcome.plans);
      rejected.push(...outcome.rejections.map((r) => ({ instanceType, ...r })));
    }
    options.onProgress?.({ done: index + 1, total: catalog.instances.length, instanceType });
  }
  // Levers only with evidence: a plan resting on a lever nobody measured on its chip and stack is priced, not planned.
  const { allowed, unmeasured, rejections } = splitFeasible(feasible, request.options.levers?.unmeasured ?? []);
  rejected.push(...rejections);
  const ranked = rankPlans(shownRequest(request), allowed, rejected, compareGenerativePlans, () => {
    const { targets: t, options: o } = request;
    return {
      headline: `No ${o.hosting} deployment of ${profile.id} meets ${t.requestsPerSecond} requests/s of ${t.inputTokens.mean} input and ` +
        `${t.outputTokens.mean} output tokens at TTFT p99 ${t.ttftP99Ms} ms and TPOT p99 ${t.tpotP99Ms} ms` +
        `${t.e2eP99Ms !== undefined ? ` and end-to-end p99 ${t.e2eP99Ms} ms` : ''} in ${o.region}:`,
      reasons: explain(rejected),
    };
  });
  const report = chooseAmongFeasible(profile, ranked, unmeasured, request.options.levers?.unmeasured ?? [], compareGenerativePlans,
    request.options.minInstances);
  return withGenerativeFallbackPools(report, request.options.fallbacks ?? 0);
}

/*
 * Validation of a generative planning request: every bad target or option at once, each naming the field, the value
 * and the fix; defaults applied.
 */

export type { ResolvedGenerativeRequest } from './traffic';
export { maxModelLengthFor } from './traffic';

export function resolveGenerativeRequest(
  profile: GenerativeProfile,
  targets: GenerativeTargets,
  options: GenerativePlanOptions,
  catalog: Catalog,
): ResolvedGenerativeRequest {
  const problems: string[] = [];
  const positive = (name: string, value: number | undefined, fix: string) => {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      problems.push(`${name}=${value} must be a positive number; ${fix}`);
    }
  };
  const tokens = (name: string, length: TokenLength | undefined) => {
    if (length === undefined || !(Number.isFinite(length.mean) && length.mean >= 1)) {
      problems.push(`${name}=${length?.mean} must be at least 1 token; give the mean ${name.replace('Tokens', '')} length in tokens, e.g. 512`);
      return;
    }
    if (length.p99 !== undefined && !(Number.isFinite(length.p99) && length.p99 >= length.mean)) {
      problems.push(`${name}P99=${length.p99} must be at least the mean (${length.mean}); give the 99th percentile length, or leave it out for fixed lengths`);
    } else {
      problems.push(...lognormalProblems(name, length, targets));
    }
  };
  positive('throughput', targets.requestsPerSecond, 'give the steady requests per second to serve, e.g. 2');
  positive('ttftP99', targets.ttftP99Ms, 'give the highest acceptable p99 time to first token in milliseconds, e.g. 2000');
  positive('tpotP99', targets.tpotP99Ms, 'give the highest acceptable p99 time per output token in milliseconds, e.g. 60');
  positive('e2eP99', targets.e2eP99Ms, 'give the highest acceptable p99 end-to-end latency in milliseconds, or leave it out');
  positive('peakThroughput', targets.peakRequestsPerSecond, 'give the peak requests per second, or leave it out');
  tokens('inputTokens', targets.inputTokens);
  tokens('outputTokens', targets.outputTokens);
  if (targets.peakRequestsPerSecond !== undefined && targets.peakRequestsPerSecond < targets.requestsPerSecond) {
    problems.push(`peakThroughput=${targets.peakRequestsPerSecond} is below throughput=${targets.requestsPerSecond}; the peak must be at least the steady target`);
  }
  const traffic = resolveTraffic(targets, profile, problems);
  const lengths = traffic?.lengths;
  const planned: GenerativeTargets = traffic === undefined ? targets : {
    ...targets,
    inputTokens: { mean: traffic.lengths.input.mean, p99: traffic.lengths.input.p99 },
    outputTokens: { mean: traffic.lengths.output.mean, p99: traffic.lengths.output.p99 },
    lengths: traffic.lengths,
    ...(targets.arrivals !== undefined ? { arrivals: traffic.arrivals } : {}),
  };
  // Measured rows used: a row compiled a few per cent shorter than the length the traffic needs plans, when it holds 99 %.
  const lengthCut = traffic === undefined ? undefined
    : snapToMeasuredLength(profile.measurements.filter((r) => r.chunkedPrefill !== true), traffic.lengths, traffic.maxModelLength);
  const maxModelLength = lengthCut?.measuredLength ?? traffic?.maxModelLength ?? 0;

  const e2e = lengths === undefined ? undefined : e2eTargetProblem(targets, lengths.output.p99);
  if (e2e !== undefined) {
    problems.push(e2e);
  }
  const levers = options.levers ?? {};
  problems.push(...leverProblems(profile, options), ...unknownInstanceProblems(profile.id, profile.measurements, catalog));
  if (levers.prefixHitRate !== undefined && !(Number.isFinite(levers.prefixHitRate) && levers.prefixHitRate >= 0 && levers.prefixHitRate < 1)) {
    problems.push(`prefixHitRate=${levers.prefixHitRate} must be a fraction from 0 to below 1 (0.5: half the prompt tokens are in the prefix cache)`);
  }
  const deployment = resolveDeploymentOptions(options, catalog, problems);
  InputError.throwIfAny(problems);
  return {
    profileId: profile.id,
    targets: planned,
    lengths: lengths as WorkloadLengths,
    arrivals: (traffic as NonNullable<typeof traffic>).arrivals,
    maxModelLength,
    ...(lengthCut !== undefined ? { lengthCut } : {}),
    notes: traffic?.notes ?? [],
    options: {
      ...deployment,
      ...(options.levers !== undefined ? { levers: options.levers } : {}),
      ...(options.estimates === false ? { estimates: false } : {}),
    },
  };
}

/**
 * Lowest hourly cost first; then a plan timed by measured rows before the performance model's estimate (which carries
 * the model's error), lower predicted TTFT p99, fewer instances, the name, the degree.
 */
export function compareGenerativePlans(a: GenerativePlan, b: GenerativePlan): number {
  return (
    a.hourlyCostUsd - b.hourlyCostUsd ||
    Number(a.generative.estimate !== undefined) - Number(b.generative.estimate !== undefined) ||
    a.generative.predictedTtftP99Ms - b.generative.predictedTtftP99Ms ||
    a.instanceCount - b.instanceCount ||
    a.instance.name.localeCompare(b.instance.name) ||
    a.generative.tensorParallelDegree - b.generative.tensorParallelDegree ||
    a.generative.maxConcurrentSequences - b.generative.maxConcurrentSequences
  );
}

function hostedName(instance: InstanceSpec, hosting: Hosting): string {
  return hosting === 'sagemaker' ? sageMakerName(instance.name) : instance.name;
}

/**
 * The price a plan pays: the kind asked for, or, for on-demand plans, the EC2 Capacity Block rate of a type AWS sells
 * that way where it has no on-demand price (the plan then says the capacity is reserved ahead).
 */
function priceOf(catalog: Catalog, instance: InstanceSpec, region: string, hosting: Hosting, pricing: PricingKind): Price | undefined {
  return catalog.price(instance.name, region, hosting, pricing)
    ?? (pricing === 'on-demand' ? catalog.price(instance.name, region, hosting, 'capacity-block') : undefined);
}

/** `tp=8 seqs=4 sdk 2.18.0` */
export function describeConfiguration(tp: number, seqs: number, sdk: string): string {
  return `tp=${tp} seqs=${seqs} sdk ${sdk}`;
}

type Outcome = { plans: GenerativePlan[]; rejections: Omit<GenerativeRejection, 'instanceType'>[] };

function evaluateInstance(profile: GenerativeProfile, request: ResolvedGenerativeRequest, instance: InstanceSpec, catalog: Catalog): Outcome {
  const { region, hosting, pricing } = request.options;
  const price = priceOf(catalog, instance, region, hosting, pricing);
  if (!price) {
    return { plans: [], rejections: [{ code: 'no-price', reason: noPriceReason(catalog, [{ ec2Name: instance.name, shown: hostedName(instance, hosting) }], region, hosting, pricing) }] };
  }
  const tooSmall = memoryOnlyRejection(profile, request, instance);
  if (tooSmall) {
    return { plans: [], rejections: [tooSmall] };
  }
  const onChip = profile.measurements.filter((m) => chipOf(ec2Name(m.instanceType).split('.')[0]) === chipOf(instance.family));
  const outcome: Outcome = { plans: [], rejections: [] };
  // Candidates that cannot beat the cheapest plan so far are skipped; with fallback pools every type needs its own
  // cheapest plan (a pool is the best of its type), so the bound is then kept per instance type.
  const bounds = (request.options.fallbacks ?? 0) > 0 ? new Map<string, CheapestSoFar>() : pruningBounds(request);
  const prune = { usdPerHour: price.usdPerHour, headroom: request.options.headroom, minInstances: request.options.minInstances, best: bounds };
  const estimated = request.options.estimates !== false && evaluateEstimates(profile, { ...request, ...(request.options.levers ? { levers: request.options.levers } : {}), maxInstances: request.options.maxInstances ?? MAX_PLANNED_INSTANCES, hosting: request.options.hosting, prune }, instance, onChip, outcome,
    (config, replicas) => sizePlan(profile, request, instance, price, [], { ...config, replicas, estimate: config }));
  if (onChip.length === 0 && !estimated) {
    return { plans: [], rejections: [{ code: 'no-measurement', reason: `${profile.id} has no measurement on ${instance.family} (chip ${chipOf(instance.family)})${request.options.estimates === false ? ' (estimates are off)' : ', and the performance model has no figures for the chip'}` }] };
  }
  const groups = new Map<string, GenerativeMeasurement[]>();
  for (const m of onChip) {
    const key = `${m.tensorParallelDegree}|${m.neuronSdkVersion}|${m.chunkedPrefill === true}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  for (const rows of groups.values()) {
    if (rows[0].chunkedPrefill === true) {
      outcome.rejections.push({
        configuration: describeConfiguration(rows[0].tensorParallelDegree, Math.max(...rows.map((r) => r.batchSize)), rows[0].neuronSdkVersion),
        code: 'engine',
        reason: 'measured with chunked prefill, which the engine deployed (vLLM with NxD Inference) does not run: "Chunked prefill is not supported on Neuron" '
          + '(AWS Neuron docs, vLLM User Guide for NxD Inference, Known Issues); its timings are not what the deployment would do',
      });
      continue;
    }
    evaluateGroup(profile, request, instance, price, rows, outcome);
  }
  return outcome;
}

/**
 * The device-memory rejection of an instance that cannot hold one sequence of the model at the largest
 * tensor-parallel degree it offers, whatever was measured; undefined when it can.
 */
function memoryOnlyRejection(
  profile: GenerativeProfile,
  request: ResolvedGenerativeRequest,
  instance: InstanceSpec,
): Omit<GenerativeRejection, 'instanceType'> | undefined {
  const cores = neuronCores(instance);
  const degrees = (supportedGroupSizes(instance) ?? [cores]).filter((d) => d <= cores);
  const largest = Math.max(...degrees);
  const memory = replicaMemory(profile.model, largest, deviceMemoryPerCoreGiB(instance), 1, request.maxModelLength);
  if (memory.maxConcurrencyThatFits >= 1) {
    return undefined;
  }
  return {
    configuration: `tp=${largest} (the most ${instance.name} offers)`,
    code: 'device-memory',
    reason: `does not fit: ${memoryReason(memory, 1, largest, request.maxModelLength).replace('use a higher tensor-parallel degree (more cores)', 'use an instance with more NeuronCores')}`,
    memoryGiB: memory,
  };
}

/** Sizes every measured concurrency of one (degree, SDK) group on the instance. */
function evaluateGroup(
  profile: GenerativeProfile,
  request: ResolvedGenerativeRequest,
  instance: InstanceSpec,
  price: Price,
  allRows: readonly GenerativeMeasurement[],
  outcome: Outcome,
): void {
  const tp = allRows[0].tensorParallelDegree;
  const sdk = allRows[0].neuronSdkVersion;
  const cores = neuronCores(instance);
  const degrees = supportedGroupSizes(instance);
  const configuration = describeConfiguration(tp, Math.max(...allRows.map((r) => r.batchSize)), sdk);
  if (tp > cores || (degrees !== undefined && !degrees.includes(tp))) {
    const fitting = (degrees ?? []).filter((d) => d <= cores);
    outcome.rejections.push({
      configuration,
      code: 'tensor-parallel',
      reason: tp > cores
        ? `tensor-parallel degree ${tp} needs ${tp} NeuronCores; ${instance.name} has ${cores}`
        : `NxD Inference does not support tensor-parallel degree ${tp} on ${instance.family} (it supports ${fitting.join(', ')} here)`,
    });
    return;
  }
  const topology = deviceCountProblem(instance, tp);
  if (topology !== undefined) {
    outcome.rejections.push({ configuration, code: 'tensor-parallel', reason: topology });
    return;
  }
  const rows = allRows.filter((r) => (r.sequenceLength ?? r.inputTokens + r.outputTokens) >= request.maxModelLength);
  if (rows.length === 0) {
    const longest = Math.max(...allRows.map((r) => r.sequenceLength ?? r.inputTokens + r.outputTokens));
    outcome.rejections.push({
      configuration,
      code: 'sequence-length',
      reason: `measured for sequences of at most ${longest} tokens; the targets need ${request.maxModelLength} (p99 input + p99 output): ` +
        'measure at that length, or shorten the prompts or outputs',
    });
    return;
  }
  const replicas = Math.floor(cores / tp);
  const hostNeed = replicas * replicaHostMemoryGiB(HOST_MEMORY_PER_WEIGHT * weightsGiB(profile.model), request.options.hosting);
  const hostUsable = HOST_MEMORY_USABLE_FRACTION * instance.memoryGiB;
  for (const seqs of [...new Set(rows.map((r) => r.batchSize))].sort((a, b) => a - b)) {
    const config = describeConfiguration(tp, seqs, sdk);
    const memory = replicaMemory(profile.model, tp, deviceMemoryPerCoreGiB(instance), seqs, request.maxModelLength);
    if (seqs > memory.maxConcurrencyThatFits) {
      outcome.rejections.push({ configuration: config, code: 'device-memory', reason: memoryReason(memory, seqs, tp, request.maxModelLength), memoryGiB: memory });
      continue;
    }
    if (hostNeed > hostUsable) {
      outcome.rejections.push({
        configuration: config,
        code: 'host-memory',
        reason: `${replicas} replica(s) loading ${round(weightsGiB(profile.model), 1)} GiB of weights each need ${round(hostNeed, 1)} GiB of host memory with the engine (ESTIMATE); ` +
          `${instance.name} allows ${round(hostUsable, 1)} GiB`,
      });
      continue;
    }
    const timing = engineTiming(rows, seqs);
    // Every size of a chip plans from the same rows: the capacity is searched once per rows and targets.
    const capacity = searchedCapacity(knowledgeOf(profile, ['measured', rows.filter((r) => r.batchSize <= seqs), seqs], request.targets), timing, request.targets);
    if (capacity <= 0) {
      outcome.rejections.push(latencyRejection(config, timing, request.targets));
      continue;
    }
    const plan = sizePlan(profile, request, instance, price, rows.filter((r) => r.batchSize <= seqs), { tp, seqs, replicas, capacity, memory, timing });
    if (plan.instanceCount > (request.options.maxInstances ?? MAX_PLANNED_INSTANCES)) {
      outcome.rejections.push({
        configuration: config,
        code: 'max-instances',
        reason: `needs ${plan.instanceCount} instances; ${request.options.maxInstances !== undefined ? `maxInstances is ${request.options.maxInstances}` : `more than ${MAX_PLANNED_INSTANCES} is not a plan`}`,
      });
      continue;
    }
    outcome.plans.push(plan);
  }
}

interface Sized {
  readonly tp: number;
  readonly seqs: number;
  readonly replicas: number;
  readonly capacity: number;
  readonly memory: ReturnType<typeof replicaMemory>;
  readonly timing: ReturnType<typeof engineTiming>;
  /** Present for the performance model's candidates. */
  readonly estimate?: EstimatedConfiguration;
}

function sizePlan(
  profile: GenerativeProfile,
  request: ResolvedGenerativeRequest,
  instance: InstanceSpec,
  price: Price,
  rows: readonly GenerativeMeasurement[],
  sized: Sized,
): GenerativePlan {
  const { targets, options } = request;
  const { tp, seqs, replicas, capacity, memory, timing, estimate } = sized;
  const perInstance = replicas * capacity;
  const instanceCount = Math.max(options.minInstances, instancesFor(targets.requestsPerSecond, options.headroom, perInstance));
  const peak = targets.peakRequestsPerSecond ?? targets.requestsPerSecond;
  const maxInstanceCount = Math.max(instanceCount, instancesFor(peak, options.headroom, perInstance));
  const atTarget = predictReplica(timing, targets, targets.requestsPerSecond / (instanceCount * replicas));
  const hourly = price.usdPerHour * instanceCount;
  const outputTokensPerSecond = targets.requestsPerSecond * targets.outputTokens.mean;
  const planEvidence = estimate ? estimatedEvidence(profile, instance, estimate, targets) : measuredEvidence(profile, rows);
  const otherStack = otherStackWarning(planEvidence, instance);
  const warnings = [
    ...(price.estimate !== undefined ? [priceEstimateWarning(price)] : []),
    ...(price.kind === 'capacity-block'
      ? [`${hostedName(instance, options.hosting)} is priced as an EC2 Capacity Block for ML (${price.usdPerHour} USD per instance-hour): `
        + 'the capacity is reserved ahead for whole days or weeks, paid up front, in one Availability Zone; buy it before deploying '
        + '(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html)']
      : []),
    ...(price.estimate === undefined && price.unverified ? [`price ${price.usdPerHour} USD/h for ${hostedName(instance, options.hosting)} is UNVERIFIED (${price.source})`] : []),
    ...rows.filter((r) => r.unverified).map((r) => `measurement ${describeConfiguration(r.tensorParallelDegree, r.batchSize, r.neuronSdkVersion)} is UNVERIFIED (${r.source})`),
    ...(timing.prefillEstimated ? ['the rows state no TTFT: prefill is estimated as one decode step per 128 prompt tokens'] : []),
    ...(rows.some((r) => !r.instanceType.startsWith(instance.name)) ? [`measured on ${[...new Set(rows.map((r) => r.instanceType))].join(', ')}, same chip as ${instance.name}`] : []),
    ...(['inf2', 'trn1', 'trn1n'].includes(instance.family)
      ? [`vLLM on Neuron (NxD Inference) supports ${instance.family} only up to Neuron SDK ${NXDI_LAST_SDK_FOR_INF2_TRN1} (2.29 release notes): pin a serving image of that SDK or older`]
      : []),
    `device memory reserve is an ESTIMATE (${Math.round((memory.reserve / memory.available) * 100)} % of HBM); weights and KV cache are computed from the model's config`,
    ...(estimate ? [estimateWarning(estimate)] : []),
    ...request.notes,
    ...(request.lengthCut !== undefined ? [lengthCutWarning(request.lengthCut)] : []),
    ...(otherStack !== undefined ? [otherStack] : []),
  ];
  const levers = estimate && describeLevers(estimate.levers) !== 'none' ? estimate.levers : undefined;
  const evidence = leverEvidence(levers, instance.family, profile.id);
  const goodput = goodputOf(perInstance * instanceCount, targets);
  return {
    kind: 'generative',
    planVersion: PLAN_VERSION,
    profileId: profile.id,
    region: options.region,
    hosting: options.hosting,
    targets: publicTargets(targets),
    headroom: options.headroom,
    instanceType: hostedName(instance, options.hosting),
    instance,
    instanceCount,
    maxInstanceCount,
    capacityPerInstanceRps: round(perInstance, 4),
    capacityRps: round(perInstance * instanceCount, 4),
    price,
    hourlyCostUsd: round(hourly, 4),
    monthlyCostUsd: round(hourly * HOURS_PER_MONTH, 2),
    generative: {
      architecture: profile.model.architecture,
      tensorParallelDegree: tp,
      replicasPerInstance: replicas,
      maxConcurrentSequences: seqs,
      maxModelLength: request.maxModelLength,
      lengths: request.lengths,
      memoryGiB: memory,
      predictedTtftP99Ms: round(atTarget.ttftP99Ms, 1),
      predictedTpotP99Ms: round(atTarget.tpotP99Ms, 2),
      predictedE2eP99Ms: round(atTarget.e2eP99Ms, 0),
      outputTokensPerSecond: round(outputTokensPerSecond, 2),
      capacityOutputTokensPerSecondPerReplica: round(capacity * targets.outputTokens.mean, 2),
      capacityPerReplicaRps: round(capacity, 4),
      meanRunningSequences: round(atTarget.meanRunning, 2),
      costPer1MOutputTokensUsd: round((hourly / (outputTokensPerSecond * 3600)) * 1e6, 4),
      goodputRps: round(goodput, 4),
      costPer1MOutputTokensAtGoodputUsd: round((hourly / (goodput * targets.outputTokens.mean * 3600)) * 1e6, 4),
      ...(estimate ? { estimate: estimateDetails(estimate) } : {}),
      evidence: {
        ...planEvidence,
        ...(evidence !== undefined ? { levers: evidence } : {}),
      },
      ...(request.lengthCut !== undefined ? { lengthCut: request.lengthCut } : {}),
      engine: {
        tensorParallelSize: tp,
        maxNumSeqs: seqs,
        maxModelLen: request.maxModelLength,
        logicalNeuronCoreConfig: instance.logicalNeuronCoreConfig ?? 1,
        ...(estimate ? {
          contextEncodingBuckets: estimate.buckets.contextEncoding,
          tokenGenerationBuckets: estimate.buckets.tokenGeneration,
          ...(levers !== undefined ? { levers } : {}),
        } : {}),
      },
      replicas: coreLayout(instance, tp, replicas),
      measurement: rows,
    },
    warnings,
  };
}
