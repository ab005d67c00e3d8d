/**
 * Sizing one measurement of a model on one instance type: how many processes fit, how each serving mode turns
 * requests into device calls, how many requests per second an instance holds within the p99 target, and what the
 * fleet costs. The planner (`planner.ts`) runs this for every candidate and keeps the cheapest.
 */
import { deviceMemoryPerCoreGiB, neuronCores } from '../catalog/catalog';
import type { InstanceSpec, Price } from '../catalog/types';
import type { Measurement, ModelProfile } from '../profiles/types';
import { coreLayout, deviceCountProblem, supportedGroupSizes } from './layout';
import { capacity, capacityRps, FRONT_END_MAX_UTILIZATION, predictedP99Seconds, processUtilization, saturationPerProcessRps, servingModel } from './serving';
import type { ServingMode, ServingModel } from './serving';
import type { Plan, PlanReport, Rejection } from './types';
import { PLAN_VERSION, SERVING_SUPPORT } from './types';

/** Share of host memory model processes may use; the rest is left to the OS, the runtime and the model server. */
export const HOST_MEMORY_USABLE_FRACTION = 0.9;
/** Hours in the month used for monthly costs (AWS pricing pages use 730). */
export const HOURS_PER_MONTH = 730;

/**
 * vCPUs kept off the model processes for at least one HTTP front end (the SageMaker model server's frontend, or the
 * batching server's event loop), so request handling never competes with a process feeding its NeuronCores. The
 * vCPUs beyond the processes' are the room for more front ends ({@link frontEndChoices}).
 */
export const FRONT_END_VCPUS = 1;

/**
 * The front-end counts an instance can run for `processes` model processes: each front end owns an even share of
 * the processes (a divisor of their count) and takes one vCPU of its own beside the processes' vCPUs.
 */
export function frontEndChoices(processes: number, vcpuPerProcess: number, vcpus: number): number[] {
  const room = vcpus - processes * vcpuPerProcess;
  const choices: number[] = [];
  for (let frontEnds = 1; frontEnds <= Math.min(processes, room); frontEnds++) {
    if (processes % frontEnds === 0) {
      choices.push(frontEnds);
    }
  }
  return choices.length > 0 ? choices : [1];
}

/**
 * Host CPU milliseconds a single-input request costs when the profile does not say: HTTP, JSON and a tokenizer or
 * image decoder in Python. Conservative by intent: a fast tokenizer on one short sentence takes a fraction of a
 * millisecond, JSON encoding of one embedding about as much again; 1 ms covers both with room. Measure your own
 * (the model server's metrics report it) and put it in your profile as `hostCpuMsPerRequest`.
 */
export const DEFAULT_HOST_CPU_MS_PER_REQUEST = 1;

/**
 * Batching delays tried for each measurement, as fractions of the latency budget left after the call and its host
 * work: longer delays fill batches at lower load but leave less room for queueing.
 */
export const BATCHING_DELAY_FRACTIONS = [0.1, 0.25, 0.5] as const;

/** Beyond this many instances a plan is not a deployment: the target is reported as out of reach. */
export const MAX_PLANNED_INSTANCES = 10_000;

/**
 * Above this many instances the plan warns about quotas: new accounts often have a quota of 0 to a few Neuron
 * instances for SageMaker endpoints and for EC2 On-Demand Inf/Trn vCPUs.
 */
export const QUOTA_WARNING_INSTANCES = 10;

/**
 * The last software that runs on Inf1: the Neuron SDK ended Inf1 support with 2.27 (announcement of 2025-12-18);
 * DLAMIs from 2.26.1 on do not support Inf1 (AWS Neuron docs, deploy/environments/dlami.rst); the last Inf1 PyTorch
 * DLC is `pytorch-inference-neuron:1.13.1-neuron-py310-sdk2.20.2-ubuntu20.04` (aws-neuron/deep-learning-containers
 * README).
 */
export const INF1_END_OF_SUPPORT =
  'Inf1 is past Neuron end of support: the last Neuron SDK for Inf1 is 2.26, the last DLAMI is ' +
  '/aws/service/neuron/dlami/pytorch-1.13-inf1/ubuntu-22.04 (SDK 2.26), the last DLC is ' +
  'pytorch-inference-neuron:1.13.1-neuron-py310-sdk2.20.2-ubuntu20.04; no fixes or new models will come for it';

/** The request with every default applied, as the planner resolved it. */
export type ResolvedRequest = PlanReport['request'] & {
  readonly targets: PlanReport['request']['targets'] & { readonly inputsPerRequest: number };
};

/** What sizing one measurement on one instance produced: the best plan of each serving mode, or why none fits. */
export interface CandidateOutcome {
  readonly plans: Plan[];
  readonly rejections: Array<Pick<Rejection, 'code' | 'reason' | 'instancesNeeded'>>;
}

/** One serving mode at one batching delay, sized. */
interface SizedMode {
  readonly model: ServingModel;
  readonly capacityPerInstance: number;
}

/** One measurement of a model on one priced instance type: what the planner sizes. */
export interface Candidate {
  readonly profile: ModelProfile;
  readonly request: ResolvedRequest;
  readonly instance: InstanceSpec;
  /** Instance type as the hosting names it (`ml.` for SageMaker). */
  readonly instanceType: string;
  readonly price: Price;
  readonly m: Measurement;
  /** The profile check's warnings about this measurement. */
  readonly measurementNotes: readonly string[];
}

/** Sizes one measurement on one instance, trying every serving mode the request allows and every batching delay. */
export function sizeCandidate(candidate: Candidate): CandidateOutcome {
  const { profile, request, instance, m } = candidate;
  const rejections: CandidateOutcome['rejections'] = [];
  const reject = (code: Rejection['code'], reason: string): CandidateOutcome => ({ plans: [], rejections: [{ code, reason }] });

  const limits = processLimits(profile, request, instance, m);
  if ('code' in limits) {
    return reject(limits.code, limits.reason);
  }

  const { targets } = request;
  const inputs = targets.inputsPerRequest;
  const hostMs = (profile.hostCpuMsPerRequest ?? DEFAULT_HOST_CPU_MS_PER_REQUEST) * inputs;
  const { server } = request.options;
  // A Neuron DLC's stock toolkit makes one call per request: `any` means stock there (batching with it is refused up front).
  const modes: ServingMode[] = request.options.serving === 'any' ? (server === 'neuron-dlc' ? ['stock'] : ['stock', 'batching']) : [request.options.serving];
  const plans: Plan[] = [];
  for (const mode of modes) {
    const requestsPerBatch = mode === 'stock' ? 1 : Math.floor(m.batchSize / inputs);
    if (mode === 'stock' && m.batchSize < inputs) {
      rejections.push({
        code: 'inputs',
        reason:
          `a stock server makes one device call per request: requests of ${inputs} inputs need a model compiled for ` +
          `batch ${inputs} or more, this one is batch ${m.batchSize}`,
      });
      continue;
    }
    if (mode === 'batching' && requestsPerBatch < 1) {
      rejections.push({
        code: 'inputs',
        reason: `requests of ${inputs} inputs do not fit one batch of ${m.batchSize}; the server never splits a request`,
      });
      continue;
    }
    if (mode === 'batching' && requestsPerBatch === 1 && modes.includes('stock')) {
      continue; // One request per batch is stock serving plus a delay: it can only lose.
    }
    const callP99Ms = servingModel(m, { mode, processes: 1, hostMsPerRequest: 0, requestsPerBatch: 1, maxDelayMs: 0 }).callP99Seconds * 1000;
    const budgetMs = targets.p99Ms - callP99Ms - hostMs;
    if (budgetMs <= 0) {
      rejections.push({
        code: 'latency',
        reason:
          (round(callP99Ms, 2) > m.p99Ms ? `a call's p99 of ${round(callP99Ms, 2)} ms (measured ${m.p99Ms} ms, longer calls implied by the throughput)` : `measured p99 ${m.p99Ms} ms`) +
          ` + ${round(hostMs, 2)} ms of host work per request ` +
          `exceeds the target ${targets.p99Ms} ms` + hostWorkAdvice(profile, hostMs, callP99Ms, targets.p99Ms),
      });
      continue;
    }
    const delaysMs = mode === 'stock' || requestsPerBatch === 1 ? [0] : batchingDelaysMs(budgetMs);
    let best: SizedMode | undefined;
    // The fewest front ends that carry the most: a front end more splits the queue (each front end's processes
    // pool only its share of the arrivals), so it is added only where the front ends, not the processes, bound.
    for (const frontEnds of frontEndChoices(limits.processes, limits.vcpuPerProcess, instance.vcpus)) {
      for (const delayMs of delaysMs) {
        const choice = { mode, server, processes: limits.processes, hostMsPerRequest: hostMs, requestsPerBatch, maxDelayMs: delayMs, frontEnds, arrivalScv: targets.arrivals?.scv };
        const model = servingModel(m, choice);
        // A calibrated row carries what its deployment held against what this model predicted (calibrate).
        const capacityPerInstance = capacityRps(model, targets.p99Ms / 1000) * (m.capacityFactor ?? 1);
        if (capacityPerInstance > 0 && (!best || capacityPerInstance > best.capacityPerInstance * (1 + 1e-9))) {
          best = { model, capacityPerInstance };
        }
      }
    }
    if (!best) {
      rejections.push({
        code: 'latency',
        reason: `${servingPhrase(mode, m.batchSize, delaysMs)} no load meets the target ${targets.p99Ms} ms: the call's p99 ` +
          `${m.p99Ms} ms plus queueing and host work already exceed it`,
      });
      continue;
    }
    const sized = buildPlan(candidate, limits, best);
    if ('code' in sized) {
      rejections.push(sized);
    } else {
      plans.push(sized);
    }
  }
  return { plans, rejections };
}

/** Where the host work per request comes from, in a few words: the first clause of the profile's `hostCpuSource`. */
export function hostWorkOrigin(profile: ModelProfile): string {
  if (profile.hostCpuMsPerRequest === undefined) {
    return `the planner's default of ${DEFAULT_HOST_CPU_MS_PER_REQUEST} ms`;
  }
  const first = (profile.hostCpuSource ?? 'the profile\'s hostCpuMsPerRequest').split(';')[0].trim();
  return first.length > 140 ? `${first.slice(0, 137)}...` : first;
}

/** How to change the host work a plan counts, for messages. */
export const HOST_WORK_FIX = 'if a request costs less on your host, measure it (npm run bench:host-work, npm run bench:serving-overhead, ' +
  'or the model server\'s metrics) and pass --host-ms-per-request to plan or set hostCpuMsPerRequest in the profile';

/** When host work tips a latency rejection over (the call alone fits), why and what to change. */
function hostWorkAdvice(profile: ModelProfile, hostMs: number, callP99Ms: number, p99Ms: number): string {
  return callP99Ms < p99Ms
    ? `: the call alone fits, the host work (${round(hostMs, 2)} ms from ${hostWorkOrigin(profile)}) does not; ` +
        `if yours is less, pass --host-ms-per-request (or hostCpuMsPerRequest in the profile), or raise the p99 target above ` +
        `${round(hostMs + callP99Ms, 1)} ms`
    : '';
}

/** The processes one instance runs for this measurement, or why it runs none. */
interface ProcessCount {
  readonly processes: number;
  /** Processes the NeuronCores alone would allow. */
  readonly byCores: number;
  /** The count is the request's `processesPerInstance`, not the host's limit. */
  readonly pinned: boolean;
  readonly deviceMemoryGiB: number;
  readonly hostMemoryGiB: number;
  readonly vcpuPerProcess: number;
}

function processLimits(
  profile: ModelProfile,
  request: ResolvedRequest,
  instance: InstanceSpec,
  m: Measurement,
): ProcessCount | Pick<Rejection, 'code' | 'reason'> {
  const cores = neuronCores(instance);
  const g = m.coresPerProcess;
  if (g > cores) {
    return { code: 'cores', reason: `the measured core group of ${g} NeuronCores exceeds the ${cores} of ${instance.name}` };
  }
  const sizes = supportedGroupSizes(instance);
  if (sizes && !sizes.includes(g)) {
    return {
      code: 'layout',
      reason: `a ${g}-core group is not a NeuronCore group size the Neuron SDK supports on ${instance.family} ` +
        `(${sizes.filter((s) => s <= cores).join(', ')})`,
    };
  }
  const topology = deviceCountProblem(instance, g);
  if (topology !== undefined) {
    return { code: 'layout', reason: `the measured core group: ${topology}` };
  }
  const deviceMemoryGiB = m.deviceMemoryGiB ?? profile.deviceMemoryGiB;
  const groupMemory = g * deviceMemoryPerCoreGiB(instance);
  if (deviceMemoryGiB > groupMemory) {
    return {
      code: 'device-memory',
      reason: `needs ${deviceMemoryGiB} GiB of device memory per process; ${g} NeuronCore-${instance.coreVersion} core(s) hold ${groupMemory} GiB`,
    };
  }
  const hostMemoryGiB = m.hostMemoryGiB ?? profile.hostMemoryGiB;
  const vcpuPerProcess = profile.vcpuPerProcess ?? 1;
  const hostLimit = HOST_MEMORY_USABLE_FRACTION * instance.memoryGiB;
  const byCores = Math.floor(cores / g);
  const byHost = Math.floor((hostLimit + 1e-9) / hostMemoryGiB);
  const byVcpu = Math.floor((instance.vcpus - FRONT_END_VCPUS) / vcpuPerProcess);
  const pinned = request.options.processesPerInstance;
  const processes = pinned ?? Math.min(byCores, byHost, byVcpu);
  if (processes > byCores) {
    return { code: 'cores', reason: `processesPerInstance=${pinned} x ${g} NeuronCores needs ${processes * g} but ${instance.name} has ${cores}` };
  }
  if (processes > byVcpu || byVcpu < 1) {
    return {
      code: 'vcpu',
      reason: `${Math.max(processes, 1)} process(es) x ${vcpuPerProcess} vCPU + ${FRONT_END_VCPUS} for the front end exceed the ` +
        `${instance.vcpus} vCPUs of ${instance.name}`,
    };
  }
  if (processes > byHost || byHost < 1) {
    return {
      code: 'host-memory',
      reason:
        `${Math.max(processes, 1)} process(es) x ${hostMemoryGiB} GiB of host memory exceed ${round(hostLimit, 1)} GiB ` +
        `(${HOST_MEMORY_USABLE_FRACTION * 100} % of ${instance.memoryGiB} GiB)`,
    };
  }
  return { processes, byCores, pinned: pinned !== undefined, deviceMemoryGiB, hostMemoryGiB, vcpuPerProcess };
}

/** The delays tried for a batching plan: fractions of the budget, rounded down to 0.1 ms, distinct and positive. */
export function batchingDelaysMs(budgetMs: number): number[] {
  const delays = BATCHING_DELAY_FRACTIONS.map((f) => Math.floor(budgetMs * f * 10) / 10).filter((d) => d > 0);
  return [...new Set(delays)];
}

/** `batch 8 without server batching:` or `batch 8 with server batching (delays 0.4-2 ms):`, for reasons. */
function servingPhrase(mode: ServingMode, batchSize: number, delaysMs: readonly number[]): string {
  return mode === 'stock'
    ? `batch ${batchSize} without server batching:`
    : `batch ${batchSize} with server batching (delays ${delaysMs.join(', ')} ms):`;
}

/** Counts, costs and warnings of the fleet for one sized serving mode; a rejection when the fleet is too large. */
function buildPlan(
  candidate: Candidate,
  limits: ProcessCount,
  sized: SizedMode,
): Plan | Pick<Rejection, 'code' | 'reason' | 'instancesNeeded'> {
  const { profile, request, instance, instanceType, price, m, measurementNotes } = candidate;
  const { targets } = request;
  const { hosting, headroom, minInstances, maxInstances } = request.options;
  const { model, capacityPerInstance } = sized;
  const perProcess = round(saturationPerProcessRps(model), 1);
  const inputsWord = targets.inputsPerRequest === 1 ? 'single-input' : `${targets.inputsPerRequest}-input`;
  const servingFacts =
    model.mode === 'stock'
      ? `batch ${m.batchSize} without server batching serves at most ${perProcess} ${inputsWord} requests/s per process`
      : `batch ${m.batchSize} with server batching (${model.requestsPerBatch} requests a call, up to ` +
        `${round(model.maxDelaySeconds * 1000, 1)} ms wait) serves at most ${perProcess} ${inputsWord} requests/s per process`;

  const instanceCount = Math.max(minInstances, instancesFor(targets.throughputRps, headroom, capacityPerInstance));
  if (instanceCount > MAX_PLANNED_INSTANCES || (maxInstances !== undefined && instanceCount > maxInstances)) {
    const limit = maxInstances !== undefined && maxInstances < MAX_PLANNED_INSTANCES ? `maxInstances is ${maxInstances}` : `more than ${MAX_PLANNED_INSTANCES.toLocaleString('en-US')} instances is not a plan`;
    return {
      code: 'max-instances',
      instancesNeeded: instanceCount,
      reason: `needs ${instanceCount.toLocaleString('en-US')} instances (${round(capacityPerInstance, 1)} requests/s each within p99 ` +
        `${targets.p99Ms} ms; ${servingFacts}) but ${limit}`,
    };
  }

  const warnings: string[] = [];
  let maxInstanceCount = instanceCount;
  if (targets.peakThroughputRps !== undefined) {
    const forPeak = Math.max(instanceCount, instancesFor(targets.peakThroughputRps, headroom, capacityPerInstance));
    maxInstanceCount = maxInstances !== undefined ? Math.min(forPeak, maxInstances) : forPeak;
    if (forPeak > maxInstanceCount) {
      warnings.push(`the peak of ${targets.peakThroughputRps} requests/s needs ${forPeak} instances; maxInstances limits it to ${maxInstanceCount}`);
    }
  }
  if (model.mode === 'stock' && m.batchSize > 1) {
    warnings.push(`${servingFacts}: every request is one padded batch-${m.batchSize} call`);
  }
  if (targets.arrivals !== undefined && targets.arrivals.scv !== 1) {
    warnings.push(`arrivals planned burstier than Poisson: the gaps' squared coefficient of variation is ${targets.arrivals.scv} (1 is Poisson), from ${targets.arrivals.source.split(';')[0]}`);
  }
  if (model.mode === 'batching' && hosting === 'sagemaker') {
    // A SageMaker endpoint on a Neuron DLC's stock toolkit refuses this plan at synth; say which image holds it.
    warnings.push(`server batching needs ${SERVING_SUPPORT.batching} (a Neuron DLC's stock toolkit cannot run this plan)`);
  }
  if (model.mode === 'stock' && model.overlapsHostWork && hosting === 'sagemaker') {
    // The same refusal for a stock plan that counts on the model server's overlap of host work and device calls.
    warnings.push(
      'planned for the cdk-inferentia model server (ModelImage.fromServer), whose workers overlap host work with the device ' +
        "call; a Neuron DLC's stock toolkit runs them one after the other and is refused at synth: to serve with one, " +
        "re-plan with server 'neuron-dlc' (--server neuron-dlc)",
    );
  }
  if (limits.processes < limits.byCores && limits.pinned) {
    warnings.push(`runs ${limits.processes} of the ${limits.byCores} processes the NeuronCores allow, as processesPerInstance=${limits.processes} asks`);
  } else if (limits.processes < limits.byCores) {
    warnings.push(
      `runs ${limits.processes} of the ${limits.byCores} processes the NeuronCores allow: host memory (${limits.hostMemoryGiB} GiB per process) ` +
        `or vCPUs (${limits.vcpuPerProcess} per process + ${FRONT_END_VCPUS} for the front end) limit it`,
    );
  }
  const frontEnds = model.frontEnds ?? 1;
  if (capacity(model, targets.p99Ms / 1000).limitedBy === 'front-end') {
    const room = instance.vcpus - limits.processes * limits.vcpuPerProcess;
    warnings.push(
      `${round(capacityPerInstance, 1)} requests/s per instance is what the model server's ${frontEnds === 1 ? 'single front end carries' : `${frontEnds} front ends carry`} at ` +
        `${FRONT_END_MAX_UTILIZATION * 100} % of a core each, below what the NeuronCores hold within the p99 target ` +
        (frontEnds < limits.processes
          ? `(the ${room} vCPU(s) beside the processes' leave room for no more front ends that share the processes evenly)`
          : '(one front end per process already)'),
    );
  }
  const cores = neuronCores(instance);
  const idleCoresPerInstance = cores - limits.processes * m.coresPerProcess;
  if (idleCoresPerInstance > 0) {
    warnings.push(`${idleCoresPerInstance} of ${cores} NeuronCores per instance stay idle`);
  }
  if (maxInstanceCount > QUOTA_WARNING_INSTANCES) {
    warnings.push(
      `up to ${maxInstanceCount} ${instanceType} instances: check your quota first (new accounts often have 0 to a few ` +
        'Neuron instances); blue/green updates need twice the count',
    );
  }
  if (instance.family === 'inf1') {
    warnings.push(INF1_END_OF_SUPPORT);
  }
  if (price.estimate !== undefined) {
    warnings.push(estimateWarning(price));
  } else if (price.unverified) {
    warnings.push(`price $${price.usdPerHour}/h is UNVERIFIED (${price.source}); confirm it or plan with a price file (Catalog.withPriceFile, or --prices on the CLI)`);
  }
  warnings.push(...measurementNotes.map((note) => `measurement g=${m.coresPerProcess} b=${m.batchSize}: ${note}`));

  const perInstanceRate = targets.throughputRps / instanceCount;
  const layout = coreLayout(instance, m.coresPerProcess, limits.processes);
  const hourlyCostUsd = instanceCount * price.usdPerHour;
  const naiveCapacity =
    limits.processes === 1 ? capacityPerInstance : capacityRps({ ...model, processes: 1, frontEnds: 1 }, targets.p99Ms / 1000) * (m.capacityFactor ?? 1);
  const naiveCount = Math.max(minInstances, instancesFor(targets.throughputRps, headroom, naiveCapacity));
  const naiveHourly = naiveCount * price.usdPerHour;
  const costPer1MRequestsUsd = costPer1MRequests(hourlyCostUsd, targets.throughputRps);

  return {
    planVersion: PLAN_VERSION,
    profileId: profile.id,
    region: request.options.region,
    hosting,
    targets,
    headroom,
    instanceType,
    instance,
    instanceCount,
    maxInstanceCount,
    processesPerInstance: limits.processes,
    frontEndsPerInstance: frontEnds,
    coresPerProcess: m.coresPerProcess,
    idleCoresPerInstance,
    batchSize: m.batchSize,
    processes: layout,
    visibleCores: layout.map((proc) => proc.visibleCores),
    inputsPerRequest: targets.inputsPerRequest,
    serving: model.mode,
    server: request.options.server,
    batching: model.mode === 'batching' ? { maxBatchSize: m.batchSize, maxDelayMs: round(model.maxDelaySeconds * 1000, 1) } : null,
    p50Ms: m.p50Ms,
    p99Ms: m.p99Ms,
    predictedP99Ms: round(predictedP99Seconds(model, perInstanceRate) * 1000, 3),
    capacityPerInstanceRps: round(capacityPerInstance, 1),
    capacityRps: round(instanceCount * capacityPerInstance, 1),
    utilization: processUtilization(model, perInstanceRate),
    hostCpuMsPerRequest: model.hostSecondsPerRequest * 1000,
    price,
    hourlyCostUsd,
    monthlyCostUsd: hourlyCostUsd * HOURS_PER_MONTH,
    costPer1MRequestsUsd,
    costPer1MInferencesUsd: costPer1MRequestsUsd / targets.inputsPerRequest,
    naive: {
      instanceCount: naiveCount,
      hourlyCostUsd: naiveHourly,
      monthlyCostUsd: naiveHourly * HOURS_PER_MONTH,
      savingsPercent: (1 - hourlyCostUsd / naiveHourly) * 100,
    },
    measurement: m,
    deviceMemoryGiB: limits.deviceMemoryGiB,
    hostMemoryGiB: limits.hostMemoryGiB,
    vcpuPerProcess: limits.vcpuPerProcess,
    warnings,
  };
}

/**
 * The queueing model a plan was sized with, to replay it (`simulateInstance`) or re-evaluate it at another rate. A
 * plan without `server` (written before plans carried it, or by hand) is read as made for the model server.
 */
export function planServingModel(plan: Plan): ServingModel {
  return servingModel(plan.measurement, {
    mode: plan.serving,
    server: plan.server,
    processes: plan.processesPerInstance,
    hostMsPerRequest: plan.hostCpuMsPerRequest,
    requestsPerBatch: plan.batching ? Math.floor(plan.batching.maxBatchSize / plan.inputsPerRequest) : 1,
    maxDelayMs: plan.batching?.maxDelayMs ?? 0,
    frontEnds: plan.frontEndsPerInstance,
    arrivalScv: plan.targets.arrivals?.scv,
  });
}

/** Instances needed to serve `rps` with `headroom` spare at `capacityPerInstance` each. */
export function instancesFor(rps: number, headroom: number, capacityPerInstance: number): number {
  // The epsilon keeps 1000 * 1.2 / 600 = 2.0000000000000004 from becoming 3 instances.
  return Math.ceil((rps * (1 + headroom)) / capacityPerInstance - 1e-9);
}

/**
 * Cost of one million requests at a steady rate: `hourly / (rps x 3600) x 1e6`, the formula of the Neuron
 * performance pages' "cost per 1M inferences" column (`(1e6 / throughput) x (hourly_rate / 3600)`).
 */
export function costPer1MRequests(hourlyUsd: number, rps: number): number {
  return (hourlyUsd / (rps * 3600)) * 1e6;
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** What a plan priced with an estimate says: the method, and how to replace it with a listed price. */
export function estimateWarning(price: Price): string {
  return `price $${price.usdPerHour}/h is an ESTIMATE (${price.estimate}): no readable source lists it; replace it with a ` +
    `listed price: cdk-inferentia catalog refresh --regions ${price.region} --out prices.json, then --prices prices.json ` +
    '(Catalog.withPriceFile)';
}
