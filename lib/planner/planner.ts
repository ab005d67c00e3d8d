/**
 * The sizing planner: from a model profile and request-level targets to the cheapest deployment that meets them.
 *
 * Targets are requests per second as users send them, each carrying `inputsPerRequest` inputs, with queueing
 * included. Every (instance type, measurement, serving mode) of the catalog is a candidate: its processes per
 * instance are the most the NeuronCores, host memory and vCPUs allow (more processes only add servers to the
 * instance's queue, so the most is the best), each serving mode is sized by the largest arrival rate an instance
 * holds within the p99 target (`serving.ts`, `queueing.ts`), batching over a small grid of delays, and the fleet is
 * priced. The cheapest feasible candidate wins; ties go to lower predicted p99, then fewer instances, then the name.
 */
import { noPriceReason } from './no-price';
import { Catalog, deviceMemoryPerCoreGiB, ec2Name, neuronCores, sageMakerName } from '../catalog/catalog';
import { unknownInstanceProblems } from '../catalog/instance-type';
import { isAwsRegion } from '../catalog/regions';
import { HOSTINGS, PRICING_KINDS } from '../catalog/types';
import type { Hosting, InstanceSpec, PricingKind } from '../catalog/types';
import { InfeasibleError, InputError } from '../errors';
import { checkProfile } from '../profiles/check';
import { closestName } from '../profiles';
import type { Measurement, ModelProfile } from '../profiles/types';
import { DEFAULT_HOST_CPU_MS_PER_REQUEST, HOST_MEMORY_USABLE_FRACTION, HOST_WORK_FIX, hostWorkOrigin, round, sizeCandidate } from './candidate';
import type { ResolvedRequest } from './candidate';
import { chipOf } from './chip';
import { fallbacksProblems, withFallbackPools } from './pools';
import { plannedArrivals } from '../traffic/arrivals';
import { SERVING_MODES, SERVING_SERVERS } from './serving';
import type { DeploymentOptions, Plan, PlanOptions, PlanReport, PlanTargets, Rejection, ResolvedDeploymentOptions } from './types';

export { chipOf } from './chip';

/** Spare capacity above the target when the caller gives none. */
export const DEFAULT_HEADROOM = 0.2;

/**
 * The cheapest plan that meets the targets.
 *
 * @throws InputError for invalid targets or options, InfeasibleError when no instance meets the targets
 */
export function plan(profile: ModelProfile, targets: PlanTargets, options: PlanOptions, catalog?: Catalog): Plan {
  return planReport(profile, targets, options, catalog).chosen;
}

/**
 * The chosen plan, the best plan of every other instance type, measurement and serving mode (cheapest first), and
 * every rejected candidate with its reason.
 *
 * @param catalog instances and prices @default Catalog.builtIn()
 * @throws InputError for invalid targets or options, InfeasibleError when no instance meets the targets (its
 *   `rejected` lists every candidate and why it lost)
 */
export function planReport(
  profile: ModelProfile,
  targets: PlanTargets,
  options: PlanOptions,
  catalog: Catalog = Catalog.builtIn(),
): PlanReport {
  const request = resolveRequest(profile, targets, options, catalog);
  refuseHostWorkOverTarget(profile, request);
  const instances = candidateInstances(request, catalog);
  const warningsByMeasurement = measurementWarnings(profile);

  const feasible: Plan[] = [];
  const rejected: Rejection[] = excludedInstances(request, catalog);
  for (const instance of instances) {
    const outcome = evaluateInstance(profile, request, instance, catalog, warningsByMeasurement);
    feasible.push(...outcome.plans);
    rejected.push(...outcome.rejections);
  }

  const ranked = rankPlans(request, feasible, rejected, comparePlans, () => {
    const inputs = request.targets.inputsPerRequest;
    return {
      headline: `No ${request.options.hosting} deployment of ${profile.id} meets ${request.targets.throughputRps} requests/s` +
        `${inputs > 1 ? ` of ${inputs} inputs` : ''} at p99 ${request.targets.p99Ms} ms in ${request.options.region} ` +
        `(${servingWords(request.options)}):`,
      reasons: explainInfeasible(profile, request, instances, rejected, catalog),
    };
  });
  return withFallbackPools(ranked, request.options.fallbacks ?? 0);
}

/** No device helps when the host work of one request alone takes the whole p99 target: one reason, and the fix. */
function refuseHostWorkOverTarget(profile: ModelProfile, request: ResolvedRequest): void {
  const { p99Ms, inputsPerRequest, throughputRps } = request.targets;
  const hostMs = (profile.hostCpuMsPerRequest ?? DEFAULT_HOST_CPU_MS_PER_REQUEST) * inputsPerRequest;
  if (hostMs < p99Ms) {
    return;
  }
  const fastestCallMs = Math.min(...profile.measurements.map((m) => m.p99Ms));
  throw new InfeasibleError(
    `No ${request.options.hosting} deployment of ${profile.id} meets ${throughputRps} requests/s at p99 ${p99Ms} ms in ` +
      `${request.options.region}: host work alone exceeds the target.`,
    [
      `${round(hostMs, 2)} ms of host CPU per request (${hostWorkOrigin(profile)}${inputsPerRequest > 1 ? `, x ${inputsPerRequest} inputs` : ''}) ` +
        `is at least the p99 target of ${p99Ms} ms before any device time, so no instance type can meet it`,
      `${HOST_WORK_FIX}; otherwise raise the p99 target above ${round(hostMs + fastestCallMs, 1)} ms ` +
        `(the host work plus the fastest measured call, ${fastestCallMs} ms)`,
    ],
    { request, rejected: [] },
  );
}

/** Lowest hourly cost first; ties go to lower predicted p99, then fewer instances, then the instance name. */
export function comparePlans(a: Plan, b: Plan): number {
  return (
    a.hourlyCostUsd - b.hourlyCostUsd ||
    a.predictedP99Ms - b.predictedP99Ms ||
    a.instanceCount - b.instanceCount ||
    a.instance.name.localeCompare(b.instance.name) ||
    a.batchSize - b.batchSize ||
    a.coresPerProcess - b.coresPerProcess ||
    a.serving.localeCompare(b.serving)
  );
}

/** `stock serving on the model server`, `stock or batching serving on the model server`: the request's serving, for headlines. */
function servingWords(options: ResolvedRequest['options']): string {
  const modes = options.serving === 'any' ? (options.server === 'neuron-dlc' ? 'stock' : 'stock or batching') : options.serving;
  return `${modes} serving ${options.server === 'neuron-dlc' ? "on a Neuron DLC's stock toolkit" : 'on the model server'}`;
}

/** Serving-mode choices a request may name: one mode, or `any`. */
const SERVING_CHOICES: readonly string[] = [...SERVING_MODES, 'any'];

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

  problems.push(...unknownInstanceProblems(profile.id, profile.measurements, catalog));
  positive('throughput', targets.throughputRps, 'give the steady requests per second to serve, e.g. 500');
  positive('p99', targets.p99Ms, 'give the highest acceptable p99 latency in milliseconds, e.g. 50');
  positive('peakThroughput', targets.peakThroughputRps, 'give the peak requests per second, or leave it out');
  wholeAtLeastOne('inputsPerRequest', targets.inputsPerRequest);
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

  const serving = options.serving ?? 'stock';
  if (!SERVING_CHOICES.includes(serving)) {
    problems.push(`serving='${serving}' is not supported; use one of: ${SERVING_CHOICES.join(', ')}`);
  }
  const server = options.server ?? 'model-server';
  if (!(SERVING_SERVERS as readonly string[]).includes(server)) {
    problems.push(`server='${server}' is not supported; use one of: ${SERVING_SERVERS.join(', ')}`);
  } else if (server === 'neuron-dlc' && serving === 'batching') {
    problems.push(
      "serving='batching' with server='neuron-dlc': a Neuron DLC's stock toolkit makes one device call per request and " +
        "cannot batch; plan for the model server (server: 'model-server', --server model-server), which batches, or " +
        "with serving: 'stock' (--serving stock)",
    );
  }
  wholeAtLeastOne('processesPerInstance', options.processesPerInstance);
  const arrivals = plannedArrivals(targets.arrivals, problems);
  const deployment = resolveDeploymentOptions(options, catalog, problems);
  InputError.throwIfAny(problems);

  return {
    profileId: profile.id,
    targets: { ...targets, inputsPerRequest: targets.inputsPerRequest ?? 1, ...(targets.arrivals !== undefined ? { arrivals } : {}) },
    // Key order as `--json` has always printed it.
    options: {
      region: deployment.region,
      hosting: deployment.hosting,
      minInstances: deployment.minInstances,
      headroom: deployment.headroom,
      pricing: deployment.pricing,
      serving,
      server,
      ...(deployment.maxInstances !== undefined ? { maxInstances: deployment.maxInstances } : {}),
      ...(options.processesPerInstance !== undefined ? { processesPerInstance: options.processesPerInstance } : {}),
      ...(deployment.instanceTypes !== undefined ? { instanceTypes: deployment.instanceTypes } : {}),
      ...(deployment.fallbacks !== undefined ? { fallbacks: deployment.fallbacks } : {}),
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

/** Sizes every measurement of the instance's chip on the instance. */
function evaluateInstance(
  profile: ModelProfile,
  request: ResolvedRequest,
  instance: InstanceSpec,
  catalog: Catalog,
  warningsByMeasurement: Map<number, string[]>,
): InstanceOutcome {
  const { region, hosting, pricing } = request.options;
  const instanceType = hostedName(instance, hosting);
  const price = catalog.price(instance.name, region, hosting, pricing);
  if (!price) {
    return { plans: [], rejections: [{ instanceType, code: 'no-price', reason: noPriceReason(catalog, [{ ec2Name: instance.name, shown: instanceType }], region, hosting, pricing) }] };
  }
  const indexed = profile.measurements.map((m, index) => ({ m, index })).filter(({ m }) => measurementApplies(m, instance));
  if (indexed.length === 0) {
    return {
      plans: [],
      rejections: [
        { instanceType, code: 'no-measurement', reason: `${profile.id} has no measurement on ${chipName(instance)} (${coreVersionLabel(instance)})` },
      ],
    };
  }

  const plans: Plan[] = [];
  const rejections: Rejection[] = [];
  for (const { m, index } of indexed) {
    const outcome = sizeCandidate({ profile, request, instance, instanceType, price, m, measurementNotes: warningsByMeasurement.get(index) ?? [] });
    plans.push(...outcome.plans);
    rejections.push(...outcome.rejections.map((r) => ({ instanceType, measurement: describeMeasurement(m), ...r })));
  }
  return { plans, rejections };
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
    // The reasons that stopped the most promising candidates first: latency and size limits before price gaps.
    const codes = [...new Set(familyRejections.map((r) => r.code))].sort((a, b) => CODE_ORDER.indexOf(a) - CODE_ORDER.indexOf(b));
    const reasons = codes.map((code) => familyReason(code, profile, request, members, familyRejections, catalog));
    return `${family}: ${reasons.join('; ')}`;
  });
}

const CODE_ORDER: readonly Rejection['code'][] = [
  'latency', 'max-instances', 'inputs', 'device-memory', 'host-memory', 'vcpu', 'cores', 'layout', 'no-measurement', 'no-price', 'excluded',
];

function familyReason(
  code: Rejection['code'],
  profile: ModelProfile,
  request: ResolvedRequest,
  members: readonly InstanceSpec[],
  rejections: readonly Rejection[],
  catalog: Catalog,
): string {
  const { region, hosting, pricing } = request.options;
  const version = members[0];
  const ofCode = rejections.filter((r) => r.code === code);
  const distinct = (list: readonly Rejection[]) => [...new Set(list.map((r) => (r.measurement ? `${r.measurement}: ${r.reason}` : r.reason)))];
  switch (code) {
    case 'latency':
    case 'inputs':
    case 'cores':
    case 'layout':
    case 'vcpu':
      return distinct(ofCode).join('; ');
    case 'device-memory': {
      const measured = profile.measurements.filter((m) => measurementApplies(m, version));
      const largest = Math.max(
        ...members.flatMap((i) =>
          measured.filter((m) => m.coresPerProcess <= neuronCores(i)).map((m) => m.coresPerProcess * deviceMemoryPerCoreGiB(i)),
        ),
      );
      return `${distinct(ofCode)[0]}; the largest core group measured holds ${largest} GiB`;
    }
    case 'host-memory': {
      const priced = members.filter((i) => !rejections.some((r) => r.code === 'no-price' && ec2Name(r.instanceType) === i.name));
      const largest = [...priced].sort((a, b) => b.memoryGiB - a.memoryGiB)[0] ?? members[0];
      const perProcess = Math.min(...profile.measurements.filter((m) => measurementApplies(m, version)).map((m) => m.hostMemoryGiB ?? profile.hostMemoryGiB));
      return (
        `one process needs ${perProcess} GiB of host memory; the largest priced ${version.family} instance ` +
        `(${largest.name}) allows ${round(HOST_MEMORY_USABLE_FRACTION * largest.memoryGiB, 1)} GiB`
      );
    }
    case 'max-instances': {
      const fewest = Math.min(...ofCode.map((r) => r.instancesNeeded ?? Infinity));
      const best = ofCode.find((r) => r.instancesNeeded === fewest);
      return best ? `${best.instanceType} ${best.measurement ?? ''}: ${best.reason}`.replace('  ', ' ') : 'too many instances';
    }
    case 'no-measurement':
      return `${profile.id} has no measurement on ${chipName(version)} (${coreVersionLabel(version)})`;
    case 'no-price':
      return noPriceReason(catalog, ofCode.map((r) => ({ ec2Name: ec2Name(r.instanceType), shown: r.instanceType })), region, hosting, pricing);
    case 'excluded':
      return 'excluded by the request';
  }
}

/*
 * What every planner shares, whatever the workload (the generative planner uses these too): the deployment options
 * checked against the catalog, and the last step that ranks feasible plans or explains why none fits.
 */

/**
 * Checks the deployment options against the catalog, adding every problem to `problems` (each naming the field, the
 * value and the fix), and returns them with their defaults. The region's prices are checked last, and only when
 * `problems` is still empty: a missing price is worth saying only about an otherwise valid request.
 */
export function resolveDeploymentOptions(options: DeploymentOptions, catalog: Catalog, problems: string[]): ResolvedDeploymentOptions {
  const wholeAtLeastOne = (name: string, value: number | undefined) => {
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
      problems.push(`${name}=${value} must be a whole number, at least 1`);
    }
  };
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
  if (!(Number.isFinite(headroom) && headroom >= 0 && headroom <= 1)) {
    problems.push(
      `headroom=${headroom} must be a fraction from 0 to 1 (0.2 keeps 20 % spare capacity)` +
        (headroom > 1 && headroom <= 100 ? `; for ${headroom} % give ${headroom / 100}` : ''),
    );
  }
  if (options.instanceTypes !== undefined && options.instanceTypes.length === 0) {
    problems.push('instanceTypes is empty; name at least one instance type, or leave it out to consider every one');
  }
  for (const name of options.instanceTypes ?? []) {
    if (!catalog.instance(name)) {
      const known = catalog.instances.map((i) => i.name);
      const near = closestName(ec2Name(name), known);
      problems.push(
        `instance type '${name}' is not in the catalog; ${near !== undefined ? `did you mean ${near}? ` : ''}known: ${known.join(', ')} ` +
          '(add others with a price file)',
      );
    }
  }
  problems.push(...fallbacksProblems(options.fallbacks, hosting));
  if (problems.length === 0 && !catalog.regionsWithPrices(hosting, pricing).includes(region)) {
    problems.push(noPricesProblem(region, hosting, pricing, catalog));
  }
  return {
    region,
    hosting,
    minInstances,
    headroom,
    pricing,
    ...(options.maxInstances !== undefined ? { maxInstances: options.maxInstances } : {}),
    ...(options.instanceTypes !== undefined ? { instanceTypes: options.instanceTypes.map(ec2Name) } : {}),
    // Absent at 0, as before pools existed: a plan document without them reads the same.
    ...(options.fallbacks ? { fallbacks: options.fallbacks } : {}),
  };
}

function noPricesProblem(region: string, hosting: Hosting, pricing: PricingKind, catalog: Catalog): string {
  const known = catalog.regionsWithPrices(hosting, pricing);
  const ec2HasKind = catalog.regionsWithPrices('ec2', pricing);
  return (
    `the catalog has no ${pricing} ${hosting} prices for region ${region} (it has: ${known.join(', ') || 'none'}); ` +
    (pricing !== 'on-demand' && known.length === 0
      // The kind is what is missing, wherever the region: say so rather than blame the region.
      ? `no source has ${pricing} rates for ${hosting === 'sagemaker' ? 'SageMaker hosting' : 'EC2'} in any region` +
        (hosting === 'sagemaker' && ec2HasKind.length > 0 ? ` (the RI-effective rates built in are the Neuron performance pages' EC2 ones)` : '') +
        '; '
      : hosting === 'sagemaker' && pricing === 'on-demand' && ec2HasKind.includes(region)
        ? 'it has EC2 prices there, but none for an instance type whose SageMaker/EC2 ratio is known in us-east-1, so no ' +
          'SageMaker price could be estimated; '
        : '') +
    (pricing === 'on-demand'
      ? `write a price file with 'cdk-inferentia catalog refresh --regions ${region} --out prices.json', then plan with it: ` +
        `the catalog argument Catalog.builtIn().withPriceFile(parsePriceFile(json, 'prices.json')), or --prices prices.json on the CLI` +
        (hosting === 'sagemaker' ? ', or plan for EC2 (--hosting ec2, hosting: \'ec2\')' : '')
      : `plan with --pricing on-demand (pricing: 'on-demand')` +
        (hosting === 'sagemaker' && ec2HasKind.includes(region) ? `, or for EC2 with ${pricing} (--hosting ec2)` : '') +
        `, or write a price file with kind "${pricing}" entries for ${region} (catalog refresh fetches on-demand prices only) and plan ` +
        'with it (the catalog argument Catalog.builtIn().withPriceFile(...), or --prices on the CLI)')
  );
}

/**
 * Every planner's last step: the cheapest feasible plan and the others best first, or, with none, an InfeasibleError
 * with the headline and the reasons (and the request and rejections as its details).
 */
export function rankPlans<Q, P, R>(
  request: Q,
  feasible: readonly P[],
  rejected: readonly R[],
  compare: (a: P, b: P) => number,
  infeasible: () => { readonly headline: string; readonly reasons: string[] },
): { readonly request: Q; readonly chosen: P; readonly alternatives: readonly P[]; readonly rejected: readonly R[] } {
  if (feasible.length === 0) {
    const { headline, reasons } = infeasible();
    throw new InfeasibleError(headline, reasons, { request, rejected });
  }
  const sorted = [...feasible].sort(compare);
  return { request, chosen: sorted[0], alternatives: sorted.slice(1), rejected };
}
