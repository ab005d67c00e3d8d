/**
 * `cdk-inferentia plan`: the cheapest Neuron deployment for a model and its targets, with the alternatives and
 * the reasons every other option lost.
 */
import { Command, Option } from 'commander';
import { HOSTINGS, PRICING_KINDS } from '../../lib/catalog/types';
import { describeCalibration } from '../../lib/calibration/describe';
import { InputError } from '../../lib/errors';
import { LEVER_NAMES } from '../../lib/generative/lever-evidence';
import { DEFAULT_HOST_CPU_MS_PER_REQUEST, hostWorkOrigin, INF1_END_OF_SUPPORT, MAX_FALLBACKS, planReport, SERVING_MODES, SERVING_SERVERS, SERVING_SUPPORT } from '../../lib/planner';
import type { ModelProfile } from '../../lib/profiles/types';
import type { Plan, PlanReport, Rejection, ServingMode, ServingServer } from '../../lib/planner';
import { loadCatalog } from './catalog';
import type { CliIo } from './io';
import { addOnceOptions, once, onceParsed } from './once';
import { list, nonNegativeNumber, oneOf, positiveInteger, positiveNumber } from './parse';
import { runGenerativePlan, GENERATIVE_ONLY, GENERATIVE_ONLY_SWITCHES, type GenerativePlanFlags } from './plan-generative';
import { describeArrivals, readLengthsFrom, singleCallTraffic, throughputFromTraffic } from './plan-traffic';
import { WORKLOAD_PRESET_NAMES } from '../../lib/generative/workloads';
import { formatPlanOutput, poolsShape, priceLine, printPlan, round, usd } from './plan-output';
import { loadAnyProfile } from './profiles';

/** The flags of both workloads; the generative ones are read by `plan-generative.ts`. */
interface PlanFlags extends GenerativePlanFlags {
  readonly model?: string;
  readonly profile?: string;
  readonly serving?: ServingMode | 'any';
  readonly server?: ServingServer;
  readonly prices?: string;
}

const SERVING_CHOICES = [...SERVING_MODES, 'any'] as const;

/**
 * Registers `plan` on the program.
 *
 * @param options.isTTY stderr is a terminal: a generative plan longer than a second draws its progress there (never
 * with `--json`) @default false
 */
export function registerPlanCommand(program: Command, io: CliIo, options: { readonly isTTY?: boolean } = {}): void {
  addOnceOptions(program.command('plan'), [
    new Option('--model <id>', 'a built-in model profile (see `cdk-inferentia profiles`)').conflicts('profile').argParser(once('--model')),
    ['--profile <file>', 'your own model profile as JSON (format: docs/profile-format.md)'],
    ['--throughput <rps>', 'steady requests per second to serve, as users send them (required)', positiveNumber],
    ['--throughput-per-minute <rpm>', 'generative models: steady requests per minute, instead of --throughput', positiveNumber],
    ['--p99 <ms>', 'single-call models: highest acceptable p99 latency of a request in milliseconds, queueing included (required)', positiveNumber],
    ['--input-tokens <n>', 'generative models: mean prompt tokens per request (required)', positiveInteger],
    ['--input-tokens-p99 <n>', 'generative models: 99th percentile prompt tokens (default: 3.59 x the mean, the spread of a public chat trace; see --fixed-lengths)', positiveInteger],
    ['--output-tokens <n>', 'generative models: mean generated tokens per request (required)', positiveInteger],
    ['--output-tokens-p99 <n>', 'generative models: 99th percentile generated tokens (default: 2.85 x the mean, the spread of a public chat trace)', positiveInteger],
    new Option('--fixed-lengths', "generative models: every request at the mean lengths, instead of the default spread (a benchmark's shape, not traffic's)"),
    new Option(
      '--workload <preset>',
      'generative models: the spread of lengths without a p99, from a public Azure trace: chat (default) or code; alone, it also plans that ' +
        "trace's mean lengths",
    ).argParser(onceParsed('--workload', oneOf(WORKLOAD_PRESET_NAMES))),
    [
      '--lengths-from <file>',
      'your own traffic: a CSV (input_tokens,output_tokens[,timestamp]), JSON lines with OpenAI-style usage (a gateway log, Bedrock ' +
        'invocation logs, AIPerf) or a vllm bench serve / guidellm / LLMPerf export. Generative models plan its own length distribution; ' +
        'with timestamps, both kinds plan its burstiness, and its mean rate when --throughput is not given',
    ],
    new Option('--no-estimates', "generative models: plan from measured rows only, without the performance model's estimates"),
    new Option('--no-speculative-decoding', 'generative models: leave speculative decoding out of the candidates'),
    ['--accepted-tokens <n>', 'generative models: tokens kept per speculative step (default: the published chat-like figure for the draft the chip\'s engine runs)', positiveNumber],
    new Option('--no-fp8', 'generative models: leave FP8 weights and KV cache out of the candidates'),
    [
      '--unmeasured-levers <list>',
      `generative models: also plan these levers (${LEVER_NAMES.join(', ')}, comma-separated) where no published row measured them on the ` +
        "candidate's chip and serving stack; without it they are only priced beside the plan",
      (value: string) => list(value).map(oneOf(LEVER_NAMES)),
    ],
    ['--prefix-hit-rate <fraction>', 'generative models: share of prompt tokens the prefix cache serves; makes prefix caching a candidate', nonNegativeNumber],
    ['--ttft-p99 <ms>', 'generative models: highest acceptable p99 time to first token, queueing included (required)', positiveNumber],
    ['--tpot-p99 <ms>', 'generative models: highest acceptable p99 time per output token (required)', positiveNumber],
    ['--e2e-p99 <ms>', 'generative models: highest acceptable p99 end-to-end latency', positiveNumber],
    ['--peak <rps>', 'peak requests per second autoscaling must reach', positiveNumber],
    ['--inputs-per-request <n>', 'inputs (sentences, images) each request carries (default 1)', positiveInteger],
    [
      '--host-ms-per-request <ms>',
      'CPU milliseconds one input costs your handler outside the device call (JSON, tokenizing or decoding, the answer); ' +
        "default: the profile's hostCpuMsPerRequest, measured by kind of input (see `cdk-inferentia profiles`)",
      positiveNumber,
    ],
    new Option(
      '--serving <mode>',
      `how requests become device calls (default stock). stock: ${SERVING_SUPPORT.stock}. batching: ${SERVING_SUPPORT.batching}. ` +
        'any: the cheaper of the two',
    ).argParser(onceParsed('--serving', oneOf(SERVING_CHOICES))),
    new Option(
      '--server <server>',
      'the server the plan is for (default model-server). model-server: the cdk-inferentia model server ' +
        '(NeuronSageMakerEndpoint with ModelImage.fromServer, NeuronEcsService), whose workers overlap host work with ' +
        "device calls, stock or batching. neuron-dlc: a Neuron DLC's stock SageMaker toolkit (ModelImage.fromNeuronDlc), " +
        'stock only, host work and device call one after the other',
    ).argParser(onceParsed('--server', oneOf(SERVING_SERVERS))),
    new Option('--region <region>', 'AWS region, e.g. us-east-1').argParser(once('--region')).makeOptionMandatory(),
    new Option('--hosting <hosting>', `EC2 instances or a SageMaker endpoint: ${HOSTINGS.join(' or ')}`)
      .argParser(onceParsed('--hosting', oneOf(HOSTINGS)))
      .makeOptionMandatory(),
    ['--min-instances <n>', 'fewest instances, for availability (default 1)', positiveInteger],
    ['--max-instances <n>', 'most instances allowed (quota or budget)', positiveInteger],
    ['--headroom <fraction>', 'spare capacity above the target, a fraction from 0 to 1: 0.2 = 20 % (default 0.2)', nonNegativeNumber],
    ['--processes <n>', 'pin model processes per instance; they must fit its NeuronCores', positiveInteger],
    ['--instance-types <list>', 'consider only these instance types, comma-separated', list],
    ['--pricing <kind>', `price to optimise: ${PRICING_KINDS.join(' or ')} (default on-demand)`, oneOf(PRICING_KINDS)],
    ['--prices <file>', 'a price file that overrides or extends the built-in prices'],
    ['--alternatives <n>', 'how many alternatives to show (default 5)', positiveInteger],
    [
      '--fallbacks <n>',
      `SageMaker only: also plan up to n fallback instance pools (0-${MAX_FALLBACKS}), the cheapest other instance types that meet ` +
        'the targets, provisioned in priority order when capacity runs out, and the fleet that holds the targets on any mix of them (default 0)',
      nonNegativeNumber,
    ],
  ])
    .description(
      'Pick the cheapest instance type, NeuronCore layout, serving mode and instance count that meet the targets; ' +
        'for generative models (see `cdk-inferentia profiles`), the tensor-parallel degree, replicas and concurrent sequences, in tokens',
    )
    .option('--json', 'print { request, chosen, alternatives, rejected, profileWarnings } as JSON; with no plan, chosen is null and reasons say why')
    .action(async (flags: PlanFlags) => {
      const loaded = loadAnyProfile({ model: flags.model, profile: flags.profile });
      const catalog = loadCatalog(flags.prices);
      const traffic = await readLengthsFrom(flags);
      if (loaded.kind === 'generative') {
        runGenerativePlan(loaded.profile, flags, catalog, io, options.isTTY === true, traffic);
        return;
      }
      const { warnings } = loaded;
      const profile = withHostWork(loaded.profile, flags.hostMsPerRequest);
      const hostWork = { msPerRequest: profile.hostCpuMsPerRequest ?? DEFAULT_HOST_CPU_MS_PER_REQUEST, source: hostWorkOrigin(profile) };
      const misplaced = [
        ...GENERATIVE_ONLY.filter(([key]) => (flags as unknown as Record<string, unknown>)[key] !== undefined),
        ...GENERATIVE_ONLY_SWITCHES.filter(([key]) => flags[key] === false),
      ].map(([, name]) => name);
      const { arrivals } = singleCallTraffic(flags, traffic);
      // The file's mean rate stands in for --throughput; --throughput-per-minute is a generative flag (refused above).
      const throughput = flags.throughput ?? (arrivals !== undefined ? throughputFromTraffic({}, traffic) : undefined);
      const missing = [
        ...(throughput === undefined ? ['--throughput <requests/s>'] : []),
        ...(flags.p99 === undefined ? ['--p99 <ms>'] : []),
      ];
      InputError.throwIfAny([
        ...(misplaced.length > 0 ? [`${profile.id} is a single-call model: ${misplaced.join(', ')} apply to generative models only`] : []),
        ...(missing.length > 0 ? [`give ${missing.join(' and ')}`] : []),
      ]);
      const profileWarnings = warnings.map((w) => w.message);
      // A calibrated profile says so in every output: which report and when the plan's numbers were measured.
      const calibration = profile.calibration !== undefined ? { calibration: profile.calibration } : {};
      const targets = {
        throughputRps: throughput as number,
        p99Ms: flags.p99 as number,
        ...(arrivals !== undefined ? { arrivals } : {}),
        ...(flags.peak !== undefined ? { peakThroughputRps: flags.peak } : {}),
        ...(flags.inputsPerRequest !== undefined ? { inputsPerRequest: flags.inputsPerRequest } : {}),
      };
      printPlan(io, () => planReport(profile, targets, {
        region: flags.region,
        hosting: flags.hosting,
        minInstances: flags.minInstances,
        maxInstances: flags.maxInstances,
        headroom: flags.headroom,
        processesPerInstance: flags.processes,
        instanceTypes: flags.instanceTypes,
        pricing: flags.pricing,
        serving: flags.serving,
        server: flags.server,
        ...(flags.fallbacks !== undefined ? { fallbacks: flags.fallbacks } : {}),
      }, catalog), {
        json: flags.json,
        extra: { hostWork, profileWarnings, ...calibration },
        format: (report) => {
          const calibratedFrom = describeCalibration(profile);
          return (calibratedFrom !== undefined ? `${calibratedFrom}\n` : '') + formatPlanReport(report, flags.alternatives ?? 5, hostWork.source);
        },
        warnings: (report) => {
          const uncalibrated = uncalibratedChoice(profile, report.chosen);
          // The chosen plan's warnings already name its own measurement's problems; add the profile's others once.
          const chosenRow = report.chosen.measurement;
          const others = warnings.filter((w) => profile.measurements[w.measurementIndex] !== chosenRow).map((w) => `${profile.id}: ${w.message}`);
          return [...(uncalibrated !== undefined ? [uncalibrated] : []), ...report.chosen.warnings, ...others];
        },
      });
    });
}

const percent = (n: number) => `${Math.round(n * 100)} %`;

/**
 * When a calibrated profile's plan rests on a row the proof did not measure (another instance type or layout), or
 * was made for another server than the proof's plan, what that means; `undefined` otherwise.
 */
export function uncalibratedChoice(profile: ModelProfile, chosen: Plan): string | undefined {
  const c = profile.calibration;
  if (c === undefined) {
    return undefined;
  }
  const measuredServer = c.plan.server ?? 'model-server';
  const server = chosen.server ?? 'model-server';
  if (measuredServer !== server) {
    // A capacity factor corrects the queueing model of the server the proof ran: one overlaps host work, one does not.
    return `the plan is made for ${server}; the calibration measured a plan made for ${measuredServer}, whose workers ` +
      `${measuredServer === 'neuron-dlc' ? 'do not overlap' : 'overlap'} host work with device calls: the calibrated capacity ` +
      `corrects that server's model, not this one's; prove this plan on staging and calibrate again (or plan with --server ${measuredServer})`;
  }
  if (chosen.measurement.capacityFactor !== undefined) {
    return undefined;
  }
  const same = chosen.instanceType === c.plan.instanceType && chosen.batchSize === c.plan.batchSize && chosen.coresPerProcess === c.plan.coresPerProcess;
  return same
    ? undefined
    : `the plan chose ${chosen.instanceType} g=${chosen.coresPerProcess} b=${chosen.batchSize}; the calibration measured ` +
        `${c.plan.instanceType} g=${c.plan.coresPerProcess} b=${c.plan.batchSize}: this plan's capacity is the model's, corrected for device ` +
        'time only; prove it on staging and calibrate again (or pin --instance-types to the measured one)';
}

/**
 * The profile with `--host-ms-per-request` in place of its own host work, labelled as coming from the flag.
 */
export function withHostWork(profile: ModelProfile, hostMsPerRequest: number | undefined): ModelProfile {
  return hostMsPerRequest === undefined
    ? profile
    : { ...profile, hostCpuMsPerRequest: hostMsPerRequest, hostCpuSource: `--host-ms-per-request ${hostMsPerRequest}` };
}

/**
 * The chosen plan, its layout, the next alternatives and the rejected candidates, as terminal tables.
 *
 * @param hostWorkSource where the host work per request comes from @default - not shown
 */
export function formatPlanReport(report: PlanReport, alternatives: number, hostWorkSource?: string): string {
  const { chosen: p, request } = report;
  const inputs = p.inputsPerRequest === 1 ? '' : ` of ${p.inputsPerRequest} inputs`;
  return formatPlanOutput({
    heading: `Plan for ${p.profileId}: ${p.targets.throughputRps} requests/s${inputs} at p99 <= ${p.targets.p99Ms} ms, ` +
      `${p.hosting} in ${p.region}, headroom ${percent(p.headroom)}, ${request.options.pricing} prices`,
    summary: [
      { 'instance type': `${p.instanceType} (${p.instance.coreVersion === 'v1' ? 'NeuronCore-v1' : 'NeuronCore-v2'}, ${p.instance.chips * p.instance.coresPerChip} cores)` },
      { instances: p.maxInstanceCount > p.instanceCount ? `${p.instanceCount} (autoscaling up to ${p.maxInstanceCount})` : `${p.instanceCount}` },
      { 'processes / instance': `${p.processesPerInstance} x ${p.coresPerProcess} NeuronCore${p.coresPerProcess > 1 ? 's' : ''}, model compiled for batch ${p.batchSize}` },
      { serving: servingSummary(p) },
      { 'idle NeuronCores': `${p.idleCoresPerInstance} per instance` },
      {
        latency: `predicted p99 ${round(p.predictedP99Ms, 2)} ms at the target rate (queueing included); one device call: p50 ${p.p50Ms} ms, p99 ${p.p99Ms} ms`,
      },
      ...(hostWorkSource !== undefined
        ? [{ 'host work': `${p.hostCpuMsPerRequest} ms of one vCPU per request, in the model process (${hostWorkSource}); change it with --host-ms-per-request` }]
        : []),
      ...(p.targets.arrivals !== undefined ? [{ arrivals: describeArrivals(p.targets.arrivals) }] : []),
      {
        capacity: `${round(p.capacityRps, 1)} requests/s within p99 ${p.targets.p99Ms} ms (${round(p.capacityPerInstanceRps, 1)} per instance` +
          `${p.measurement.capacityFactor !== undefined ? `, x ${p.measurement.capacityFactor} as calibrated` : ''}); ` +
          `model processes ${percent(p.utilization)} busy at the target`,
      },
      { cost: `${usd(p.hourlyCostUsd)}/h, ${usd(p.monthlyCostUsd, 0)}/month, ${usd(p.costPer1MRequestsUsd, 3)} per 1M requests` },
      ...(p.instance.family === 'inf1' ? [{ 'Inf1 support': INF1_END_OF_SUPPORT }] : []),
      { price: priceLine(p.price) },
      {
        'one process per instance': `${p.naive.instanceCount} instances, ${usd(p.naive.hourlyCostUsd)}/h: packing NeuronCores saves ${Math.round(p.naive.savingsPercent)} %`,
      },
      { measurement: p.measurement.source },
    ],
    layout: { unit: 'process', rows: p.processes },
    pools: poolsShape(p, {
      head: ['processes x cores', 'serving', 'batch', 'requests/s per instance'],
      cells: (plan) => [`${plan.processesPerInstance} x ${plan.coresPerProcess}`, plan.serving, plan.batchSize, round(plan.capacityPerInstanceRps, 1)],
    }, p.mixedFleet && `Mixed fleet: ${p.mixedFleet.instanceCount} instance(s)${p.mixedFleet.maxInstanceCount > p.mixedFleet.instanceCount
      ? `, up to ${p.mixedFleet.maxInstanceCount} at the peak,` : ''} hold the targets whichever pools they come from: autoscaling holds every `
      + `instance to ${round(p.mixedFleet.capacityPerInstanceRps, 1)} requests/s, what priority ${p.mixedFleet.boundByPriority} holds, the least of any pool.`),
    alternatives: {
      head: ['instance type', 'count', 'processes x cores', 'serving', 'batch', 'delay ms', 'requests/s per instance', 'p99 ms', '$/hour', '$/1M requests'],
      rows: report.alternatives.slice(0, alternatives).map((a) => [
        a.instanceType + (a.price.unverified ? ' *' : ''),
        a.instanceCount,
        `${a.processesPerInstance} x ${a.coresPerProcess}`,
        a.serving,
        a.batchSize,
        a.batching ? a.batching.maxDelayMs : '-',
        round(a.capacityPerInstanceRps, 1),
        round(a.predictedP99Ms, 2),
        usd(a.hourlyCostUsd),
        usd(a.costPer1MRequestsUsd, 3),
      ]),
      total: report.alternatives.length,
    },
    rejected: {
      instanceTypeWidth: 18,
      lines: report.rejected.map((r: Rejection) => ({ instanceType: r.instanceType, qualifier: r.measurement, reason: r.reason })),
    },
  });
}

/**
 * `stock on the model server: one device call per request, ...` or `batching on the model server: up to 8 inputs a
 * call, ...`: the serving mode, the server the plan is for (a plan without one is the model server's) and what it does.
 */
function servingSummary(p: Plan): string {
  const server = p.server === 'neuron-dlc'
    ? "on a Neuron DLC's toolkit (host work and device call one after the other)"
    : 'on the model server (host work overlapped with device calls)';
  return p.batching
    ? `batching ${server}: up to ${p.batching.maxBatchSize} inputs a device call, a batch waits at most ${p.batching.maxDelayMs} ms to fill`
    : `stock ${server}: one device call per request${p.batchSize > 1 ? `, padded to batch ${p.batchSize}` : ''}`;
}
