/**
 * The sizing planner: from a model profile and throughput/latency targets to the cheapest deployment that meets them.
 *
 * Every (instance type, measurement) pair of the catalog is a candidate. A candidate is sized, checked against the
 * memory, vCPU and latency limits, priced, and either kept (feasible) or rejected with a reason a person can act on.
 * The cheapest feasible candidate wins; ties go to lower p99, then fewer instances, then the instance name.
 */
import { Catalog, deviceMemoryPerCoreGiB, ec2Name, neuronCores, sageMakerName } from '../catalog/catalog';
import { isAwsRegion } from '../catalog/regions';
import { HOSTINGS, PRICING_KINDS } from '../catalog/types';
import type { Hosting, InstanceSpec, Price, PricingKind } from '../catalog/types';
import { InfeasibleError, InputError } from '../errors';
import { checkProfile } from '../profiles/check';
import type { Measurement, ModelProfile } from '../profiles/types';
import { coreLayout, divisors } from './layout';
import type { Plan, PlanOptions, PlanReport, PlanTargets, Rejection } from './types';

/** Share of host memory model processes may use; the rest is left to the OS, the runtime and the model server. */
export const HOST_MEMORY_USABLE_FRACTION = 0.9;
/** Spare capacity above the target when the caller gives none. */
export const DEFAULT_HEADROOM = 0.2;
/** Hours in the month used for monthly costs (AWS pricing pages use 730). */
export const HOURS_PER_MONTH = 730;

/** The request with every default applied. */
type ResolvedRequest = PlanReport['request'];

/**
 * The cheapest plan that meets the targets.
 *
 * @throws InputError for invalid targets or options, InfeasibleError when no instance meets the targets
 */
export function plan(profile: ModelProfile, targets: PlanTargets, options: PlanOptions, catalog?: Catalog): Plan {
  return planReport(profile, targets, options, catalog).chosen;
}

/**
 * The chosen plan, every other feasible plan (cheapest first) and every rejected candidate with its reason.
 *
 * @param catalog instances and prices @default Catalog.builtIn()
 * @throws InputError for invalid targets or options, InfeasibleError when no instance meets the targets
 */
export function planReport(
  profile: ModelProfile,
  targets: PlanTargets,
  options: PlanOptions,
  catalog: Catalog = Catalog.builtIn(),
): PlanReport {
  const request = resolveRequest(profile, targets, options, catalog);
  const instances = candidateInstances(request, catalog);
  const warningsByMeasurement = measurementWarnings(profile);

  const feasible: Plan[] = [];
  const rejected: Rejection[] = excludedInstances(request, catalog);
  for (const instance of instances) {
    const outcome = evaluateInstance(profile, request, instance, catalog, warningsByMeasurement);
    feasible.push(...outcome.plans);
    rejected.push(...outcome.rejections);
  }

  if (feasible.length === 0) {
    throw new InfeasibleError(
      `No ${request.options.hosting} deployment of ${profile.id} meets ${targets.throughputRps} rps at p99 ` +
        `${targets.p99Ms} ms in ${request.options.region}:`,
      explainInfeasible(profile, request, instances, rejected, catalog),
    );
  }
  const sorted = [...feasible].sort(comparePlans);
  return { request, chosen: sorted[0], alternatives: sorted.slice(1), rejected };
}

/** Lowest hourly cost first; ties go to lower p99, then fewer instances, then the instance name. */
export function comparePlans(a: Plan, b: Plan): number {
  return (
    a.hourlyCostUsd - b.hourlyCostUsd ||
    a.p99Ms - b.p99Ms ||
    a.instanceCount - b.instanceCount ||
    a.instance.name.localeCompare(b.instance.name) ||
    a.batchSize - b.batchSize ||
    a.coresPerProcess - b.coresPerProcess
  );
}

/** Validates targets and options, naming each bad field, its value and the fix; applies defaults. */
function resolveRequest(profile: ModelProfile, targets: PlanTargets, options: PlanOptions, catalog: Catalog): ResolvedRequest {
  const problems: string[] = [];
  const positive = (name: string, value: number | undefined, fix: string) => {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      problems.push(`${name}=${value} must be a positive number; ${fix}`);
    }
  };
  const wholeAtLeastOne = (name: string, value: number | undefined) => {
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
      problems.push(`${name}=${value} must be a whole number, at least 1`);
    }
  };

  positive('throughput', targets.throughputRps, 'give the steady requests per second to serve, e.g. 500');
  positive('p99', targets.p99Ms, 'give the highest acceptable p99 latency in milliseconds, e.g. 50');
  positive('peakThroughput', targets.peakThroughputRps, 'give the peak requests per second, or leave it out');
  if (
    targets.peakThroughputRps !== undefined &&
    targets.peakThroughputRps > 0 &&
    targets.throughputRps > 0 &&
    targets.peakThroughputRps < targets.throughputRps
  ) {
    problems.push(
      `peakThroughput=${targets.peakThroughputRps} is below throughput=${targets.throughputRps}; ` +
        'the peak must be at least the steady target',
    );
  }

  const { region, hosting } = options;
  if (!isAwsRegion(region)) {
    problems.push(`region='${region}' is not an AWS region code; use one such as us-east-1 or eu-west-1`);
  }
  if (!HOSTINGS.includes(hosting)) {
    problems.push(`hosting='${hosting}' is not supported; use one of: ${HOSTINGS.join(', ')}`);
  }
  const pricing: PricingKind = options.pricing ?? 'on-demand';
  if (!PRICING_KINDS.includes(pricing)) {
    problems.push(`pricing='${pricing}' is not supported; use one of: ${PRICING_KINDS.join(', ')}`);
  }
  const minInstances = options.minInstances ?? 1;
  wholeAtLeastOne('minInstances', minInstances);
  wholeAtLeastOne('maxInstances', options.maxInstances);
  if (options.maxInstances !== undefined && Number.isInteger(options.maxInstances) && options.maxInstances < minInstances) {
    problems.push(`maxInstances=${options.maxInstances} is below minInstances=${minInstances}; raise it or lower minInstances`);
  }
  const headroom = options.headroom ?? DEFAULT_HEADROOM;
  if (!(Number.isFinite(headroom) && headroom >= 0)) {
    problems.push(`headroom=${headroom} must be 0 or more (a fraction: 0.2 keeps 20 % spare capacity)`);
  }
  wholeAtLeastOne('processesPerInstance', options.processesPerInstance);
  for (const name of options.instanceTypes ?? []) {
    if (!catalog.instance(name)) {
      problems.push(
        `instance type '${name}' is not in the catalog; known: ${catalog.instances.map((i) => i.name).join(', ')} ` +
          '(add others with a price file)',
      );
    }
  }
  if (problems.length === 0 && HOSTINGS.includes(hosting) && !catalog.regionsWithPrices(hosting, pricing).includes(region)) {
    const known = catalog.regionsWithPrices(hosting, pricing);
    problems.push(
      `the catalog has no ${pricing} ${hosting} prices for region ${region} (it has: ${known.join(', ') || 'none'}); ` +
        `run 'cdk-inferentia catalog refresh --regions ${region} --out prices.json' and pass --prices prices.json`,
    );
  }
  InputError.throwIfAny(problems);

  return {
    profileId: profile.id,
    targets,
    options: {
      region,
      hosting,
      minInstances,
      headroom,
      pricing,
      ...(options.maxInstances !== undefined ? { maxInstances: options.maxInstances } : {}),
      ...(options.processesPerInstance !== undefined ? { processesPerInstance: options.processesPerInstance } : {}),
      ...(options.instanceTypes !== undefined ? { instanceTypes: options.instanceTypes.map(ec2Name) } : {}),
    },
  };
}

function candidateInstances(request: ResolvedRequest, catalog: Catalog): InstanceSpec[] {
  const only = request.options.instanceTypes;
  return catalog.instances.filter((i) => only === undefined || only.includes(i.name));
}

function excludedInstances(request: ResolvedRequest, catalog: Catalog): Rejection[] {
  const only = request.options.instanceTypes;
  return only === undefined
    ? []
    : catalog.instances
        .filter((i) => !only.includes(i.name))
        .map((i) => ({
          instanceType: hostedName(i, request.options.hosting),
          code: 'excluded' as const,
          reason: `not among the requested instance types (${only.join(', ')})`,
        }));
}

function measurementWarnings(profile: ModelProfile): Map<number, string[]> {
  const byIndex = new Map<number, string[]>();
  for (const w of checkProfile(profile)) {
    byIndex.set(w.measurementIndex, [...(byIndex.get(w.measurementIndex) ?? []), w.message]);
  }
  return byIndex;
}

/** Hosting-qualified instance type name. */
function hostedName(instance: InstanceSpec, hosting: Hosting): string {
  return hosting === 'sagemaker' ? sageMakerName(instance.name) : instance.name;
}

/** `g=1 b=8` style summary of a measurement. */
export function describeMeasurement(m: Measurement): string {
  return `g=${m.coresPerProcess} b=${m.batchSize}${m.mode ? ` ${m.mode}` : ''}`;
}

/**
 * The accelerator chip of an instance family: Inf1 has Inferentia, Inf2 Inferentia2, Trn1 and Trn1n Trainium.
 * Families with the same chip run a compiled model at the same speed per NeuronCore.
 */
export function chipOf(family: string): string {
  return family === 'trn1n' ? 'trn1' : family;
}

function chipName(instance: Pick<InstanceSpec, 'family'>): string {
  return { inf1: 'Inferentia (inf1)', inf2: 'Inferentia2 (inf2)', trn1: 'Trainium (trn1, trn1n)' }[chipOf(instance.family)] ?? instance.family;
}

/**
 * Whether a measurement predicts performance on an instance: same NeuronCore version and, when the measurement
 * names the instance it ran on, the same chip. Inf2 and Trn1 share NeuronCore-v2 but not clocks, memory bandwidth
 * or the batch sizes that were compiled and measured, so a Trn1 row says nothing reliable about Inf2.
 */
export function measurementApplies(m: Measurement, instance: Pick<InstanceSpec, 'family' | 'coreVersion'>): boolean {
  if (m.coreVersion !== instance.coreVersion) {
    return false;
  }
  return m.instanceType === undefined || chipOf(ec2Name(m.instanceType).split('.')[0]) === chipOf(instance.family);
}

function coreVersionLabel(instance: Pick<InstanceSpec, 'coreVersion'>): string {
  return `NeuronCore-${instance.coreVersion}`;
}

interface InstanceOutcome {
  readonly plans: Plan[];
  readonly rejections: Rejection[];
}

/** Sizes every measurement of the instance's core version on the instance. */
function evaluateInstance(
  profile: ModelProfile,
  request: ResolvedRequest,
  instance: InstanceSpec,
  catalog: Catalog,
  warningsByMeasurement: Map<number, string[]>,
): InstanceOutcome {
  const { region, hosting, pricing, processesPerInstance: pinned } = request.options;
  const instanceType = hostedName(instance, hosting);
  const reject = (code: Rejection['code'], reason: string, m?: Measurement): Rejection => ({
    instanceType,
    ...(m ? { measurement: describeMeasurement(m) } : {}),
    code,
    reason,
  });

  const price = catalog.price(instance.name, region, hosting, pricing);
  if (!price) {
    return { plans: [], rejections: [reject('no-price', `no ${pricing} ${hosting} price for ${instanceType} in ${region}`)] };
  }
  const cores = neuronCores(instance);
  if (pinned !== undefined && cores % pinned !== 0) {
    return {
      plans: [],
      rejections: [
        reject(
          'divisor',
          `processesPerInstance=${pinned} does not divide the ${cores} NeuronCores of ${instance.name}; ` +
            `valid values: ${divisors(cores).join(', ')}`,
        ),
      ],
    };
  }
  const indexed = profile.measurements.map((m, index) => ({ m, index })).filter(({ m }) => measurementApplies(m, instance));
  if (indexed.length === 0) {
    return {
      plans: [],
      rejections: [
        reject('no-measurement', `${profile.id} has no measurement on ${chipName(instance)} (${coreVersionLabel(instance)})`),
      ],
    };
  }

  const plans: Plan[] = [];
  const rejections: Rejection[] = [];
  for (const { m, index } of indexed) {
    const result = sizeCandidate(profile, request, instance, price, m, warningsByMeasurement.get(index) ?? []);
    if ('code' in result) {
      rejections.push({ ...reject(result.code, result.reason, m), ...(result.instancesNeeded ? { instancesNeeded: result.instancesNeeded } : {}) });
    } else {
      plans.push(result);
    }
  }
  return { plans, rejections };
}

type CandidateResult = Plan | Pick<Rejection, 'code' | 'reason' | 'instancesNeeded'>;

/** Sizes one measurement on one instance: the core layout, the limits, the count and the cost. */
function sizeCandidate(
  profile: ModelProfile,
  request: ResolvedRequest,
  instance: InstanceSpec,
  price: Price,
  m: Measurement,
  measurementNotes: readonly string[],
): CandidateResult {
  const { targets } = request;
  const { hosting, headroom, minInstances, maxInstances, processesPerInstance: pinned } = request.options;
  const cores = neuronCores(instance);
  const g = m.coresPerProcess;
  const vcpuPerProcess = profile.vcpuPerProcess ?? 1;
  const warnings: string[] = [];

  if (g > cores) {
    return { code: 'cores', reason: `the measured core group of ${g} NeuronCores exceeds the ${cores} of ${instance.name}` };
  }
  const groupMemory = g * deviceMemoryPerCoreGiB(instance);
  if (profile.deviceMemoryGiB > groupMemory) {
    return {
      code: 'device-memory',
      reason:
        `needs ${profile.deviceMemoryGiB} GiB of device memory per process; ${g} ${coreVersionLabel(instance)} ` +
        `core(s) hold ${groupMemory} GiB`,
    };
  }

  // Processes must divide the NeuronCores (Cortex rule). Unpinned, take the most that fit the cores, then step down
  // through the divisors while host memory or vCPUs run short: fewer processes beat no plan.
  const hostLimit = HOST_MEMORY_USABLE_FRACTION * instance.memoryGiB;
  const fitsHost = (p: number) => p * profile.hostMemoryGiB <= hostLimit + 1e-9;
  const fitsVcpu = (p: number) => p * vcpuPerProcess <= instance.vcpus;
  let processes: number;
  if (pinned !== undefined) {
    if (pinned * g > cores) {
      return {
        code: 'cores',
        reason: `processesPerInstance=${pinned} x ${g} NeuronCores needs ${pinned * g} but ${instance.name} has ${cores}`,
      };
    }
    processes = pinned;
  } else {
    const byCores = divisors(cores).filter((p) => p * g <= cores);
    const mostByCores = byCores[byCores.length - 1];
    const fitting = byCores.filter((p) => fitsHost(p) && fitsVcpu(p));
    processes = fitting.length > 0 ? fitting[fitting.length - 1] : 1;
    if (fitting.length > 0 && processes < mostByCores) {
      warnings.push(
        `runs ${processes} instead of ${mostByCores} processes per instance: host memory or vCPUs limit it ` +
          `(${profile.hostMemoryGiB} GiB, ${vcpuPerProcess} vCPU per process)`,
      );
    }
  }
  if (!fitsHost(processes)) {
    return {
      code: 'host-memory',
      reason:
        `${processes} process(es) x ${profile.hostMemoryGiB} GiB of host memory exceed ${round(hostLimit, 1)} GiB ` +
        `(${HOST_MEMORY_USABLE_FRACTION * 100} % of ${instance.memoryGiB} GiB)`,
    };
  }
  if (!fitsVcpu(processes)) {
    return {
      code: 'vcpu',
      reason: `${processes} process(es) x ${vcpuPerProcess} vCPU exceed the ${instance.vcpus} vCPUs of ${instance.name}`,
    };
  }
  if (m.p99Ms > targets.p99Ms) {
    return { code: 'latency', reason: `measured p99 ${m.p99Ms} ms exceeds the target ${targets.p99Ms} ms` };
  }

  const capacityPerInstance = processes * m.throughputRps;
  const instanceCount = Math.max(minInstances, instancesFor(targets.throughputRps, headroom, capacityPerInstance));
  if (maxInstances !== undefined && instanceCount > maxInstances) {
    return {
      code: 'max-instances',
      instancesNeeded: instanceCount,
      reason:
        `needs ${instanceCount} instances (${round(capacityPerInstance, 1)} rps each) but maxInstances is ${maxInstances}`,
    };
  }
  let maxInstanceCount = instanceCount;
  if (targets.peakThroughputRps !== undefined) {
    const forPeak = Math.max(instanceCount, instancesFor(targets.peakThroughputRps, headroom, capacityPerInstance));
    maxInstanceCount = maxInstances !== undefined ? Math.min(forPeak, maxInstances) : forPeak;
    if (forPeak > maxInstanceCount) {
      warnings.push(`the peak of ${targets.peakThroughputRps} rps needs ${forPeak} instances; maxInstances limits it to ${maxInstanceCount}`);
    }
  }

  const idleCoresPerInstance = cores - processes * g;
  if (idleCoresPerInstance > 0) {
    warnings.push(`${idleCoresPerInstance} of ${cores} NeuronCores per instance stay idle`);
  }
  if (price.unverified) {
    warnings.push(`price $${price.usdPerHour}/h is UNVERIFIED (${price.source}); confirm it or pass --prices`);
  }
  warnings.push(...measurementNotes.map((note) => `measurement ${describeMeasurement(m)}: ${note}`));

  const layout = coreLayout(instance, g, processes);
  const capacityRps = instanceCount * capacityPerInstance;
  const hourlyCostUsd = instanceCount * price.usdPerHour;
  const naiveCount = Math.max(minInstances, instancesFor(targets.throughputRps, headroom, m.throughputRps));
  const naiveHourly = naiveCount * price.usdPerHour;

  return {
    profileId: profile.id,
    region: request.options.region,
    hosting,
    targets,
    headroom,
    instanceType: hostedName(instance, hosting),
    instance,
    instanceCount,
    maxInstanceCount,
    processesPerInstance: processes,
    coresPerProcess: g,
    idleCoresPerInstance,
    batchSize: m.batchSize,
    processes: layout,
    visibleCores: layout.map((proc) => proc.visibleCores),
    p50Ms: m.p50Ms,
    p99Ms: m.p99Ms,
    throughputPerProcessRps: m.throughputRps,
    capacityPerInstanceRps: capacityPerInstance,
    capacityRps,
    utilization: targets.throughputRps / capacityRps,
    price,
    hourlyCostUsd,
    monthlyCostUsd: hourlyCostUsd * HOURS_PER_MONTH,
    costPer1MInferencesUsd: costPer1MInferences(hourlyCostUsd, targets.throughputRps),
    naive: {
      instanceCount: naiveCount,
      hourlyCostUsd: naiveHourly,
      monthlyCostUsd: naiveHourly * HOURS_PER_MONTH,
      savingsPercent: (1 - hourlyCostUsd / naiveHourly) * 100,
    },
    measurement: m,
    deviceMemoryGiB: profile.deviceMemoryGiB,
    hostMemoryGiB: profile.hostMemoryGiB,
    vcpuPerProcess,
    warnings,
  };
}

/** Instances needed to serve `rps` with `headroom` spare at `capacityPerInstance` each. */
export function instancesFor(rps: number, headroom: number, capacityPerInstance: number): number {
  // The epsilon keeps 1000 * 1.2 / 600 = 2.0000000000000004 from becoming 3 instances.
  return Math.ceil((rps * (1 + headroom)) / capacityPerInstance - 1e-9);
}

/**
 * Cost of one million inferences at a steady rate: `hourly / (rps * 3600) * 1e6`.
 *
 * The Neuron performance pages compute their "cost per 1M inferences" column the same way
 * (shared/reference/inferentia-facts.md §2a: `(1e6 / throughput) * (hourly_rate / 3600)`).
 */
export function costPer1MInferences(hourlyUsd: number, rps: number): number {
  return (hourlyUsd / (rps * 3600)) * 1e6;
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * One reason per instance family, in the user's terms: what the family would need and what it offers.
 */
function explainInfeasible(
  profile: ModelProfile,
  request: ResolvedRequest,
  instances: readonly InstanceSpec[],
  rejected: readonly Rejection[],
  catalog: Catalog,
): string[] {
  const families = [...new Set(instances.map((i) => i.family))];
  return families.map((family) => {
    const members = instances.filter((i) => i.family === family);
    const names = new Set(members.map((i) => hostedName(i, request.options.hosting)));
    const familyRejections = rejected.filter((r) => names.has(r.instanceType));
    const codes = [...new Set(familyRejections.map((r) => r.code))];
    const reasons = codes.map((code) => familyReason(code, profile, request, members, familyRejections, catalog));
    return `${family}: ${reasons.join('; ')}`;
  });
}

function familyReason(
  code: Rejection['code'],
  profile: ModelProfile,
  request: ResolvedRequest,
  members: readonly InstanceSpec[],
  rejections: readonly Rejection[],
  catalog: Catalog,
): string {
  const { targets } = request;
  const { region, hosting, pricing } = request.options;
  const version = members[0];
  const measured = profile.measurements.filter((m) => measurementApplies(m, version));
  switch (code) {
    case 'latency': {
      const fastest = [...measured].sort((a, b) => a.p99Ms - b.p99Ms)[0];
      return (
        `p99 target ${targets.p99Ms} ms is below the fastest measured p99 of ${profile.id} ` +
        `(${fastest.p99Ms} ms on ${coreVersionLabel(version)}, batch ${fastest.batchSize})`
      );
    }
    case 'device-memory': {
      const largest = Math.max(
        ...members.flatMap((i) =>
          measured.filter((m) => m.coresPerProcess <= neuronCores(i)).map((m) => m.coresPerProcess * deviceMemoryPerCoreGiB(i)),
        ),
      );
      return `needs ${profile.deviceMemoryGiB} GiB of device memory; the largest core group measured holds ${largest} GiB`;
    }
    case 'host-memory': {
      const tried = new Set(rejections.filter((r) => r.code === 'host-memory').map((r) => ec2Name(r.instanceType)));
      const largest = [...members].filter((i) => tried.has(i.name)).sort((a, b) => b.memoryGiB - a.memoryGiB)[0];
      return (
        `one process needs ${profile.hostMemoryGiB} GiB of host memory; the largest priced ${version.family} instance ` +
        `(${largest.name}) allows ${round(HOST_MEMORY_USABLE_FRACTION * largest.memoryGiB, 1)} GiB`
      );
    }
    case 'vcpu':
      return `one process needs ${profile.vcpuPerProcess ?? 1} vCPUs; more than the ${version.family} instances have`;
    case 'max-instances': {
      const fewest = Math.min(...rejections.map((r) => r.instancesNeeded ?? Infinity));
      return `needs at least ${fewest} instances but maxInstances is ${request.options.maxInstances}`;
    }
    case 'cores':
      return rejections.find((r) => r.code === 'cores')?.reason ?? 'too few NeuronCores';
    case 'divisor':
      return rejections
        .filter((r) => r.code === 'divisor')
        .map((r) => r.reason)
        .join('; ');
    case 'no-measurement':
      return `${profile.id} has no measurement on ${chipName(version)} (${coreVersionLabel(version)})`;
    case 'no-price':
      return (
        `no ${pricing} ${hosting} price in ${region} for ` +
        rejections
          .filter((r) => r.code === 'no-price')
          .map((r) => r.instanceType)
          .join(', ') +
        (catalog.regionsWithPrices(hosting, pricing).includes(region) ? '' : '; pass --prices with one')
      );
    case 'excluded':
      return 'excluded by the request';
  }
}
