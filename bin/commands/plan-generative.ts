/**
 * `cdk-inferentia plan` for generative models: the flags in tokens, the planner call and the report in the units users
 * judge a generative service by (TTFT, TPOT, output tokens per second, cost per 1M output tokens).
 */
import Table from 'cli-table3';
import type { Catalog } from '../../lib/catalog/catalog';
import { engineSummary } from '../../lib/generative/engine-image';
import type { Hosting, PricingKind } from '../../lib/catalog/types';
import { InputError } from '../../lib/errors';
import { describeEvidence, describeLevers, planGenerativeReport, vllmEngineOf } from '../../lib/generative';
import { stackName } from '../../lib/generative/lever-evidence';
import type { GenerativePlan, GenerativePlanReport, GenerativeProfile, GenerativeRejection, GenerativeTargets, LeverName } from '../../lib/generative';
import type { TrafficSummary } from '../../lib/traffic/types';
import type { WorkloadPresetName } from '../../lib/generative/workloads';
import type { CliIo } from './io';
import { formatPlanOutput, poolsShape, priceLine, printPlan, round, usd } from './plan-output';
import { describeArrivals, generativeTraffic, throughputFromTraffic } from './plan-traffic';
import { planProgressBar } from './progress';

/** The flags a generative plan reads. */
export interface GenerativePlanFlags {
  readonly throughput?: number;
  readonly throughputPerMinute?: number;
  readonly peak?: number;
  readonly inputTokens?: number;
  readonly inputTokensP99?: number;
  readonly outputTokens?: number;
  readonly outputTokensP99?: number;
  readonly fixedLengths?: boolean;
  /** `--workload`: the preset whose spread lengths without a p99 take. */
  readonly workload?: WorkloadPresetName;
  /** `--lengths-from`: a log or benchmark export of the user's own requests. */
  readonly lengthsFrom?: string;
  /** `--no-speculative-decoding` sets it false. */
  readonly speculativeDecoding?: boolean;
  readonly acceptedTokens?: number;
  /** `--no-fp8` sets it false. */
  readonly fp8?: boolean;
  /** `--unmeasured-levers`: levers to plan where no published row measured them. */
  readonly unmeasuredLevers?: LeverName[];
  readonly prefixHitRate?: number;
  /** `--no-estimates` sets it false. */
  readonly estimates?: boolean;
  readonly ttftP99?: number;
  readonly tpotP99?: number;
  readonly e2eP99?: number;
  readonly region: string;
  readonly hosting: Hosting;
  readonly minInstances?: number;
  readonly maxInstances?: number;
  readonly headroom?: number;
  readonly instanceTypes?: string[];
  readonly pricing?: PricingKind;
  readonly alternatives?: number;
  /** Fallback instance pools to plan (`--fallbacks`). */
  readonly fallbacks?: number;
  readonly json?: boolean;
  /** Single-call flags, refused here. */
  readonly p99?: number;
  readonly inputsPerRequest?: number;
  readonly serving?: string;
  readonly server?: string;
  readonly processes?: number;
  readonly hostMsPerRequest?: number;
}

/** Flags that only single-call models take, and flags that only generative models take, for refusals. */
export const SINGLE_CALL_ONLY: readonly (readonly [keyof GenerativePlanFlags, string])[] = [
  ['p99', '--p99 (use --ttft-p99 and --tpot-p99)'],
  ['inputsPerRequest', '--inputs-per-request'],
  ['serving', '--serving (generative models run on vLLM with continuous batching)'],
  ['server', '--server (generative models run on vLLM)'],
  ['processes', '--processes (replicas follow from the tensor-parallel degree)'],
  ['hostMsPerRequest', '--host-ms-per-request (the measured TTFT and TPOT include the engine\'s host work)'],
];
export const GENERATIVE_ONLY: readonly (readonly [string, string])[] = [
  ['inputTokens', '--input-tokens'], ['inputTokensP99', '--input-tokens-p99'], ['outputTokens', '--output-tokens'],
  ['outputTokensP99', '--output-tokens-p99'], ['ttftP99', '--ttft-p99'], ['tpotP99', '--tpot-p99'], ['e2eP99', '--e2e-p99'],
  ['throughputPerMinute', '--throughput-per-minute'], ['fixedLengths', '--fixed-lengths'], ['acceptedTokens', '--accepted-tokens'],
  ['prefixHitRate', '--prefix-hit-rate'], ['workload', '--workload'], ['unmeasuredLevers', '--unmeasured-levers'],
];
/** The `--no-...` switches of generative models: commander sets them true unless given, so given means false. */
export const GENERATIVE_ONLY_SWITCHES: readonly (readonly [keyof GenerativePlanFlags, string])[] = [
  ['estimates', '--no-estimates'], ['speculativeDecoding', '--no-speculative-decoding'], ['fp8', '--no-fp8'],
];

/**
 * The targets from the flags and, with `--lengths-from`, the file's traffic; every missing or misplaced flag named at
 * once.
 */
export function generativeTargets(profile: GenerativeProfile, flags: GenerativePlanFlags, traffic?: TrafficSummary): GenerativeTargets {
  const problems: string[] = [];
  const fromTraffic = generativeTraffic(flags, traffic);
  const throughput = throughputFromTraffic(flags, traffic);
  const inputTokens = fromTraffic.inputTokens ?? (flags.inputTokens !== undefined ? { mean: flags.inputTokens } : undefined);
  const outputTokens = fromTraffic.outputTokens ?? (flags.outputTokens !== undefined ? { mean: flags.outputTokens } : undefined);
  const misplaced = SINGLE_CALL_ONLY.filter(([key]) => flags[key] !== undefined).map(([, name]) => name);
  if (misplaced.length > 0) {
    problems.push(`${profile.id} is a generative model: ${misplaced.join(', ')} apply to single-call models only`);
  }
  if (flags.throughput !== undefined && flags.throughputPerMinute !== undefined) {
    problems.push('--throughput and --throughput-per-minute both given; pass one');
  }
  const required: [unknown, string][] = [
    [throughput, '--throughput <requests/s> (or --throughput-per-minute)'],
    [inputTokens, '--input-tokens <mean prompt tokens>'],
    [outputTokens, '--output-tokens <mean output tokens>'],
    [flags.ttftP99, '--ttft-p99 <ms>'],
    [flags.tpotP99, '--tpot-p99 <ms>'],
  ];
  const missing = required.filter(([value]) => value === undefined).map(([, name]) => name);
  if (missing.length > 0) {
    // A file or a preset gives what the flags would: say so where they would do.
    const alternatives = [...(inputTokens === undefined ? ['--lengths-from FILE or --workload give the lengths'] : []),
      ...(throughput === undefined ? ['--lengths-from a log with timestamps gives its rate'] : [])];
    problems.push(`${profile.id} is a generative model; give ${missing.join(', ')}${alternatives.length > 0 ? ` (${alternatives.join('; ')})` : ''}`);
  }
  InputError.throwIfAny(problems);
  return {
    requestsPerSecond: throughput as number,
    inputTokens: { ...(inputTokens as GenerativeTargets['inputTokens']), ...(flags.inputTokensP99 !== undefined ? { p99: flags.inputTokensP99 } : {}) },
    outputTokens: { ...(outputTokens as GenerativeTargets['outputTokens']), ...(flags.outputTokensP99 !== undefined ? { p99: flags.outputTokensP99 } : {}) },
    ...(fromTraffic.lengths !== undefined ? { lengths: fromTraffic.lengths } : {}),
    ...(fromTraffic.arrivals !== undefined ? { arrivals: fromTraffic.arrivals } : {}),
    ...(fromTraffic.workload !== undefined ? { workload: fromTraffic.workload } : {}),
    ttftP99Ms: flags.ttftP99 as number,
    tpotP99Ms: flags.tpotP99 as number,
    ...(flags.e2eP99 !== undefined ? { e2eP99Ms: flags.e2eP99 } : {}),
    ...(flags.peak !== undefined ? { peakRequestsPerSecond: flags.peak } : {}),
    ...(flags.fixedLengths === true ? { fixedLengths: true } : {}),
  };
}

/**
 * Plans a generative profile and prints the report (or JSON).
 *
 * @param isTTY stderr is a terminal: a plan that runs for more than a second draws its progress there, unless `--json`
 * @default false
 * @param traffic the file of `--lengths-from`, read @default - none
 */
export function runGenerativePlan(
  profile: GenerativeProfile, flags: GenerativePlanFlags, catalog: Catalog, io: CliIo, isTTY = false, traffic?: TrafficSummary,
): void {
  const targets = generativeTargets(profile, flags, traffic);
  const progress = isTTY && flags.json !== true ? planProgressBar(io, profile.id) : undefined;
  printPlan(io, () => planGenerativeReport(profile, targets, {
    region: flags.region,
    hosting: flags.hosting,
    minInstances: flags.minInstances,
    maxInstances: flags.maxInstances,
    headroom: flags.headroom,
    instanceTypes: flags.instanceTypes,
    pricing: flags.pricing,
    ...(flags.fallbacks !== undefined ? { fallbacks: flags.fallbacks } : {}),
    ...(flags.estimates === false ? { estimates: false } : {}),
    levers: {
      ...(flags.speculativeDecoding === false ? { speculativeDecoding: false } : {}),
      ...(flags.fp8 === false ? { fp8: false } : {}),
      ...(flags.acceptedTokens !== undefined ? { acceptedTokens: flags.acceptedTokens } : {}),
      ...(flags.prefixHitRate !== undefined ? { prefixHitRate: flags.prefixHitRate } : {}),
      ...(flags.unmeasuredLevers !== undefined ? { unmeasured: flags.unmeasuredLevers } : {}),
    },
    ...(progress !== undefined ? { onProgress: progress.onProgress } : {}),
  }, catalog), {
    json: flags.json,
    planned: progress?.stop,
    format: (report) => formatGenerativeReport(report, flags.alternatives ?? 5),
    warnings: (report) => report.chosen.warnings,
  });
}

const length = (l: { mean: number; p99?: number }) => `${l.mean}${l.p99 !== undefined && l.p99 !== l.mean ? ` (p99 ${l.p99})` : ''}`;

/** The chosen plan with its memory breakdown and layout, the alternatives and the rejections. */
export function formatGenerativeReport(report: GenerativePlanReport, alternatives: number): string {
  const p = report.chosen;
  const g = p.generative;
  const t = p.targets;
  const m = g.memoryGiB;
  const output = formatPlanOutput({
    heading: `Plan for ${p.profileId}: ${t.requestsPerSecond} requests/s of ${length(t.inputTokens)} input and ${length(t.outputTokens)} output tokens, ` +
      `TTFT p99 <= ${t.ttftP99Ms} ms, TPOT p99 <= ${t.tpotP99Ms} ms${t.e2eP99Ms ? `, end-to-end p99 <= ${t.e2eP99Ms} ms` : ''}; ` +
      `${p.hosting} in ${p.region}, headroom ${Math.round(p.headroom * 100)} %, ${report.request.options.pricing} prices`,
    summary: [
      { 'instance type': `${p.instanceType} (${p.instance.chips * p.instance.coresPerChip} NeuronCores${p.instance.logicalNeuronCoreConfig ? `, logical at LNC=${p.instance.logicalNeuronCoreConfig}` : ''})` },
      { instances: p.maxInstanceCount > p.instanceCount ? `${p.instanceCount} (autoscaling up to ${p.maxInstanceCount})` : `${p.instanceCount}` },
      { replicas: `${g.replicasPerInstance} per instance, each tensor parallel over ${g.tensorParallelDegree} NeuronCores` },
      { lengths: (g.lengths ? describeLengths(g.lengths) : 'as the targets state them') + (g.lengthCut ? `. ${describeCut(g.lengthCut)}` : '') },
      { arrivals: describeArrivals(report.request.arrivals ?? t.arrivals) },
      {
        engine: engineSummary(p) +
          (g.engine.contextEncodingBuckets && vllmEngineOf(p.instance.family) === 'nxd-inference'
            ? `; buckets: prompts ${g.engine.contextEncodingBuckets.join(', ')}, sequences ${g.engine.tokenGenerationBuckets?.join(', ')} tokens` : ''),
      },
      { levers: g.engine.levers ? `${describeLevers(g.engine.levers)}${describeLeverEvidence(g)}` : 'none' },
      ...(g.tensorParallelReason ? [{ layout: g.tensorParallelReason }] : []),
      {
        'memory / replica': `weights ${m.weights} + KV cache ${m.kvCache} + reserve ${m.reserve} = ${round(m.weights + m.kvCache + m.reserve, 2)} of ${m.available} GiB ` +
          `(KV heads ${m.kvSharding === 'shard' ? 'sharded' : m.kvSharding === 'replicate' ? 'replicated to the degree' : 'converted to multi-head'}, ${m.kvHeadsPerRank} per rank; up to ${m.maxConcurrencyThatFits} sequences of ${g.maxModelLength} tokens fit)`,
      },
      { latency: `predicted at the target rate: TTFT p99 ${g.predictedTtftP99Ms} ms, TPOT p99 ${g.predictedTpotP99Ms} ms, end-to-end p99 ${g.predictedE2eP99Ms} ms (queueing included)` },
      ...(g.sensitivity ? [{ 'watch on first deploy': describeSensitivity(p, g.sensitivity) }] : []),
      {
        capacity: `${round(p.capacityRps, 2)} requests/s within the targets (${round(g.capacityPerReplicaRps, 3)} per replica, ${g.capacityOutputTokensPerSecondPerReplica} output tokens/s); ` +
          `${g.outputTokensPerSecond} output tokens/s at the target, ${g.meanRunningSequences} sequences decoding per replica on average`,
      },
      { cost: `${usd(p.hourlyCostUsd)}/h, ${usd(p.monthlyCostUsd, 0)}/month, ${usd(g.costPer1MOutputTokensUsd, 2)} per 1M output tokens at the target rate` },
      ...(g.goodputRps !== undefined
        ? [{ goodput: `${g.goodputRps} requests/s meeting TTFT, TPOT${t.e2eP99Ms ? ' and end-to-end' : ''} together at capacity; ${usd(g.costPer1MOutputTokensAtGoodputUsd ?? 0, 2)} per 1M output tokens at it` }]
        : []),
      { price: priceLine(p.price) },
      { measurement: g.estimate ? p.warnings.find((w) => w.startsWith('ESTIMATE')) ?? 'ESTIMATE' : g.measurement.map((r) => r.source).join('\n') },
      ...(g.evidence ? [{ evidence: describeEvidence(g.evidence) }] : []),
    ],
    layout: { unit: 'replica', rows: g.replicas },
    pools: poolsShape(p, {
      head: ['replicas x TP', 'seqs', 'levers', 'requests/s per copy'],
      cells: (plan) => [`${plan.generative.replicasPerInstance} x ${plan.generative.tensorParallelDegree}`, plan.generative.maxConcurrentSequences,
        shortLevers(plan), round(plan.generative.capacityPerReplicaRps, 3)],
    }, p.mixedFleet && `Mixed fleet: ${p.mixedFleet.copies} copies${p.mixedFleet.maxCopies > p.mixedFleet.copies ? `, up to ${p.mixedFleet.maxCopies} at the peak,` : ''} `
      + `hold the targets whichever pools they land on: sized at ${round(p.mixedFleet.capacityPerCopyRps, 3)} requests/s per copy, what priority `
      + `${p.mixedFleet.boundByPriority} holds, the least of any pool; managed instance scaling places them on up to ${p.mixedFleet.maxInstanceCount} instances.`),
    alternatives: {
      head: ['instance type', 'count', 'replicas x TP', 'seqs', 'SDK', 'levers', 'TTFT p99', 'TPOT p99', '$/hour', '$/1M out tokens'],
      rows: report.alternatives.slice(0, alternatives).map((a) => [
        a.instanceType + (a.price.unverified ? ' *' : ''), a.instanceCount, `${a.generative.replicasPerInstance} x ${a.generative.tensorParallelDegree}`,
        a.generative.maxConcurrentSequences, a.generative.measurement[0]?.neuronSdkVersion ?? 'ESTIMATE', shortLevers(a), a.generative.predictedTtftP99Ms,
        a.generative.predictedTpotP99Ms, usd(a.hourlyCostUsd), usd(a.generative.costPer1MOutputTokensUsd),
      ]),
      total: report.alternatives.length,
    },
    rejected: {
      instanceTypeWidth: 20,
      lines: report.rejected.map((r: GenerativeRejection) => ({ instanceType: r.instanceType, qualifier: r.configuration, reason: r.reason })),
    },
  });
  const levers = leverTable(report);
  return output.includes('Rejected:\n') ? output.replace('Rejected:\n', `${levers}Rejected:\n`) : output + levers;
}


/** `prompts lognormal, mean 1000, p99 3590 tokens; outputs ...; default spread of ...`, or a file's own. */
function describeLengths(lengths: NonNullable<GenerativePlan['generative']['lengths']>): string {
  const one = (name: string, d: typeof lengths.input) => d.spread === 'fixed'
    ? `${name} fixed at ${d.mean} tokens`
    : d.spread === 'empirical'
      ? `${name} mean ${d.mean}, p99 ${d.p99} tokens (the file's own distribution)`
      : `${name} lognormal, mean ${d.mean}, p99 ${d.p99} tokens (${d.spread === 'default' ? `${round(d.p99 / d.mean, 2)} x, ${d.source.split(' (')[0]}` : 'p99 as stated'})`;
  if (lengths.input.spread === 'empirical') {
    return `${one('prompts', lengths.input)}; ${one('outputs', lengths.output)}; from ${lengths.input.source}` +
      `${lengths.correlation !== undefined ? `, prompt and output drawn with correlation ${lengths.correlation}` : ', prompt and output independent'}` +
      `${lengths.totalP99 !== undefined ? `; p99 of prompt + output ${lengths.totalP99} tokens` : ''}`;
  }
  const defaults = [lengths.input, lengths.output].filter((d) => d.spread === 'default').map((d) => d.source);
  return `${one('prompts', lengths.input)}; ${one('outputs', lengths.output)}` +
    (defaults.length > 0 ? `. Spread of ${defaults[0].replace(/^[a-z ]*spread \(p99 [0-9.]+ x the mean\): /, '')} (--workload for another, --fixed-lengths for fixed lengths)` : '');
}

/** `max_model_len 4096, a published row's: 0.8 % of requests are cut (p99 input + p99 output is 4407)`. */
function describeCut(cut: NonNullable<GenerativePlan['generative']['lengthCut']>): string {
  return `max_model_len ${cut.measuredLength}, the length a published row was compiled for, not the ${cut.requestedLength} the lengths need at p99: ` +
    `${round(cut.cutShare * 100, 1)} % of requests are longer and have their output cut to fit`;
}

/** `; evidence: speculation measured (...), FP8 UNMEASURED (...)`. */
function describeLeverEvidence(g: GenerativePlan['generative']): string {
  const levers = g.evidence?.levers;
  if (!levers) return '';
  return `; evidence: ${Object.entries(levers).map(([key, e]) => `${key} ${e.measured ? 'measured' : 'UNMEASURED'}: ${e.source}`).join('; ')}`;
}

/** The one line a reader watches on the first deploy. */
function describeSensitivity(plan: GenerativePlan, s: NonNullable<GenerativePlan['generative']['sensitivity']>): string {
  const slower = Math.round((s.stepSlowdownToMissTarget - 1) * 100);
  const steps = slower > 0
    ? `a p99 target misses at ${plan.targets.requestsPerSecond} requests/s if decode steps and prefills run ${slower} % slower than the plan's timings ` +
      `(x${s.stepSlowdownToMissTarget}); compare the token proof's TPOT and TTFT p50 with them`
    : 'the plan is at its limit: any slower decode step or prefill misses a p99 target at the target rate';
  const planned = plan.generative.engine.levers?.speculation?.acceptedTokens;
  const accepted = s.acceptedTokensToMissTarget === undefined || planned === undefined ? ''
    : s.acceptedTokensToMissTarget <= 1
      ? '; speculation holds the targets even if no drafted token is accepted'
      : `; speculation must keep at least ${s.acceptedTokensToMissTarget} tokens per step (planned ${planned}): check the engine's acceptance length`;
  return steps + accepted;
}

/** `spec+fp8`, or `-`. */
function shortLevers(plan: GenerativePlan): string {
  const l = plan.generative.engine.levers;
  const names = [...(l?.speculation ? ['spec'] : []), ...(l?.fp8Weights ? ['fp8'] : []), ...(l?.prefixHitRate !== undefined ? ['prefix'] : [])];
  return names.length > 0 ? names.join('+') : '-';
}

/**
 * The cheapest plan of every lever combination, side by side: what each lever is worth; a lever no published row
 * measured on the plan's chip and stack is marked unmeasured, with what it would save if it holds.
 */
function leverTable(report: GenerativePlanReport): string {
  const best = new Map<string, GenerativePlan>();
  for (const plan of [report.chosen, ...report.alternatives]) {
    const key = shortLevers(plan);
    if (!best.has(key)) {
      best.set(key, plan);
    }
  }
  const unmeasured = report.unmeasuredLevers ?? [];
  if (best.size + unmeasured.length < 2) {
    return '';
  }
  const table = new Table({
    head: ['levers', 'cheapest configuration', 'TPOT p99', 'TTFT p99', 'goodput req/s', '$/hour', '$/1M out tokens at goodput'],
    style: { head: [], border: [] },
  });
  const rows = [
    ...[...best.entries()].map(([key, plan]) => ({ key, plan })),
    ...unmeasured.map((u) => ({ key: `${shortLevers(u.plan)} (unmeasured)`, plan: u.plan })),
  ];
  for (const { key, plan: a } of rows.sort((x, y) => x.plan.hourlyCostUsd - y.plan.hourlyCostUsd)) {
    const g = a.generative;
    table.push([
      key, `${a.instanceCount} x ${a.instanceType}, ${g.replicasPerInstance} x TP ${g.tensorParallelDegree}, ${g.maxConcurrentSequences} seqs`,
      g.predictedTpotP99Ms, g.predictedTtftP99Ms, g.goodputRps ?? '', usd(a.hourlyCostUsd), usd(g.costPer1MOutputTokensAtGoodputUsd ?? 0),
    ]);
  }
  const notes = unmeasured.map((u) => `${u.levers.join(' + ')}: unmeasured on ${u.plan.instance.family} with ${stackName(vllmEngineOf(u.plan.instance.family))}: ` +
    (u.saves > 0
      ? `saves ${round(u.saves * 100, 1)} % per 1M output tokens at goodput if it holds; prove it with a token proof (--unmeasured-levers ${u.levers.join(',')})`
      : `would not save: costs ${round(-u.saves * 100, 1)} % more per 1M output tokens at goodput`));
  return `Levers (the cheapest plan of each combination; spec = speculative decoding, fp8 = FP8 weights and KV cache):\n${table.toString()}\n` +
    notes.map((n) => `${n}\n`).join('') + '\n';
}

export type { GenerativePlan };
