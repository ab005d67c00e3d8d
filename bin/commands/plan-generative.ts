/**
 * `cdk-inferentia plan` for generative models: the flags in tokens, the planner call and the report in the units users
 * judge a generative service by (TTFT, TPOT, output tokens per second, cost per 1M output tokens).
 */
import type { Catalog } from '../../lib/catalog/catalog';
import { engineSummary } from '../../lib/generative/engine-image';
import type { Hosting, PricingKind } from '../../lib/catalog/types';
import { InputError } from '../../lib/errors';
import { planGenerativeReport } from '../../lib/generative';
import type { GenerativePlan, GenerativePlanReport, GenerativeProfile, GenerativeRejection, GenerativeTargets } from '../../lib/generative';
import type { CliIo } from './io';
import { formatPlanOutput, priceLine, printPlan, round, usd } from './plan-output';

/** The flags a generative plan reads. */
export interface GenerativePlanFlags {
  readonly throughput?: number;
  readonly throughputPerMinute?: number;
  readonly peak?: number;
  readonly inputTokens?: number;
  readonly inputTokensP99?: number;
  readonly outputTokens?: number;
  readonly outputTokensP99?: number;
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
  readonly json?: boolean;
  /** Single-call flags, refused here. */
  readonly p99?: number;
  readonly inputsPerRequest?: number;
  readonly serving?: string;
  readonly processes?: number;
  readonly hostMsPerRequest?: number;
}

/** Flags that only single-call models take, and flags that only generative models take, for refusals. */
export const SINGLE_CALL_ONLY: readonly (readonly [keyof GenerativePlanFlags, string])[] = [
  ['p99', '--p99 (use --ttft-p99 and --tpot-p99)'],
  ['inputsPerRequest', '--inputs-per-request'],
  ['serving', '--serving (generative models run on vLLM with continuous batching)'],
  ['processes', '--processes (replicas follow from the tensor-parallel degree)'],
  ['hostMsPerRequest', '--host-ms-per-request (the measured TTFT and TPOT include the engine\'s host work)'],
];
export const GENERATIVE_ONLY: readonly (readonly [string, string])[] = [
  ['inputTokens', '--input-tokens'], ['inputTokensP99', '--input-tokens-p99'], ['outputTokens', '--output-tokens'],
  ['outputTokensP99', '--output-tokens-p99'], ['ttftP99', '--ttft-p99'], ['tpotP99', '--tpot-p99'], ['e2eP99', '--e2e-p99'],
  ['throughputPerMinute', '--throughput-per-minute'],
];

/** The targets from the flags; every missing or misplaced flag named at once. */
export function generativeTargets(profile: GenerativeProfile, flags: GenerativePlanFlags): GenerativeTargets {
  const problems: string[] = [];
  const misplaced = SINGLE_CALL_ONLY.filter(([key]) => flags[key] !== undefined).map(([, name]) => name);
  if (misplaced.length > 0) {
    problems.push(`${profile.id} is a generative model: ${misplaced.join(', ')} apply to single-call models only`);
  }
  if (flags.throughput !== undefined && flags.throughputPerMinute !== undefined) {
    problems.push('--throughput and --throughput-per-minute both given; pass one');
  }
  const required: [unknown, string][] = [
    [flags.throughput ?? flags.throughputPerMinute, '--throughput <requests/s> (or --throughput-per-minute)'],
    [flags.inputTokens, '--input-tokens <mean prompt tokens>'],
    [flags.outputTokens, '--output-tokens <mean output tokens>'],
    [flags.ttftP99, '--ttft-p99 <ms>'],
    [flags.tpotP99, '--tpot-p99 <ms>'],
  ];
  const missing = required.filter(([value]) => value === undefined).map(([, name]) => name);
  if (missing.length > 0) {
    problems.push(`${profile.id} is a generative model; give ${missing.join(', ')}`);
  }
  InputError.throwIfAny(problems);
  const perSecond = flags.throughput ?? (flags.throughputPerMinute as number) / 60;
  return {
    requestsPerSecond: perSecond,
    inputTokens: { mean: flags.inputTokens as number, ...(flags.inputTokensP99 !== undefined ? { p99: flags.inputTokensP99 } : {}) },
    outputTokens: { mean: flags.outputTokens as number, ...(flags.outputTokensP99 !== undefined ? { p99: flags.outputTokensP99 } : {}) },
    ttftP99Ms: flags.ttftP99 as number,
    tpotP99Ms: flags.tpotP99 as number,
    ...(flags.e2eP99 !== undefined ? { e2eP99Ms: flags.e2eP99 } : {}),
    ...(flags.peak !== undefined ? { peakRequestsPerSecond: flags.peak } : {}),
  };
}

/** Plans a generative profile and prints the report (or JSON). */
export function runGenerativePlan(profile: GenerativeProfile, flags: GenerativePlanFlags, catalog: Catalog, io: CliIo): void {
  const targets = generativeTargets(profile, flags);
  printPlan(io, () => planGenerativeReport(profile, targets, {
    region: flags.region,
    hosting: flags.hosting,
    minInstances: flags.minInstances,
    maxInstances: flags.maxInstances,
    headroom: flags.headroom,
    instanceTypes: flags.instanceTypes,
    pricing: flags.pricing,
  }, catalog), {
    json: flags.json,
    format: (report) => formatGenerativeReport(report, flags.alternatives ?? 5),
    warnings: (report) => report.chosen.warnings,
  });
}

const length = (l: { mean: number; p99?: number }) => `${l.mean}${l.p99 !== undefined ? ` (p99 ${l.p99})` : ''}`;

/** The chosen plan with its memory breakdown and layout, the alternatives and the rejections. */
export function formatGenerativeReport(report: GenerativePlanReport, alternatives: number): string {
  const p = report.chosen;
  const g = p.generative;
  const t = p.targets;
  const m = g.memoryGiB;
  return formatPlanOutput({
    heading: `Plan for ${p.profileId}: ${t.requestsPerSecond} requests/s of ${length(t.inputTokens)} input and ${length(t.outputTokens)} output tokens, ` +
      `TTFT p99 <= ${t.ttftP99Ms} ms, TPOT p99 <= ${t.tpotP99Ms} ms${t.e2eP99Ms ? `, end-to-end p99 <= ${t.e2eP99Ms} ms` : ''}; ` +
      `${p.hosting} in ${p.region}, headroom ${Math.round(p.headroom * 100)} %, ${report.request.options.pricing} prices`,
    summary: [
      { 'instance type': `${p.instanceType} (${p.instance.chips * p.instance.coresPerChip} NeuronCores${p.instance.logicalNeuronCoreConfig ? `, logical at LNC=${p.instance.logicalNeuronCoreConfig}` : ''})` },
      { instances: p.maxInstanceCount > p.instanceCount ? `${p.instanceCount} (autoscaling up to ${p.maxInstanceCount})` : `${p.instanceCount}` },
      { replicas: `${g.replicasPerInstance} per instance, each tensor parallel over ${g.tensorParallelDegree} NeuronCores` },
      { engine: engineSummary(p) },
      {
        'memory / replica': `weights ${m.weights} + KV cache ${m.kvCache} + reserve ${m.reserve} = ${round(m.weights + m.kvCache + m.reserve, 2)} of ${m.available} GiB ` +
          `(KV heads ${m.kvSharding === 'shard' ? 'sharded' : m.kvSharding === 'replicate' ? 'replicated to the degree' : 'converted to multi-head'}, ${m.kvHeadsPerRank} per rank; up to ${m.maxConcurrencyThatFits} sequences of ${g.maxModelLength} tokens fit)`,
      },
      { latency: `predicted at the target rate: TTFT p99 ${g.predictedTtftP99Ms} ms, TPOT p99 ${g.predictedTpotP99Ms} ms, end-to-end p99 ${g.predictedE2eP99Ms} ms (queueing included)` },
      {
        capacity: `${round(p.capacityRps, 2)} requests/s within the targets (${round(g.capacityPerReplicaRps, 3)} per replica, ${g.capacityOutputTokensPerSecondPerReplica} output tokens/s); ` +
          `${g.outputTokensPerSecond} output tokens/s at the target, ${g.meanRunningSequences} sequences decoding per replica on average`,
      },
      { cost: `${usd(p.hourlyCostUsd)}/h, ${usd(p.monthlyCostUsd, 0)}/month, ${usd(g.costPer1MOutputTokensUsd, 2)} per 1M output tokens` },
      { price: priceLine(p.price) },
      { measurement: g.measurement.map((r) => r.source).join('\n') },
    ],
    layout: { unit: 'replica', rows: g.replicas },
    alternatives: {
      head: ['instance type', 'count', 'replicas x TP', 'seqs', 'SDK', 'TTFT p99', 'TPOT p99', '$/hour', '$/1M out tokens'],
      rows: report.alternatives.slice(0, alternatives).map((a) => [
        a.instanceType + (a.price.unverified ? ' *' : ''), a.instanceCount, `${a.generative.replicasPerInstance} x ${a.generative.tensorParallelDegree}`,
        a.generative.maxConcurrentSequences, a.generative.measurement[0].neuronSdkVersion, a.generative.predictedTtftP99Ms,
        a.generative.predictedTpotP99Ms, usd(a.hourlyCostUsd), usd(a.generative.costPer1MOutputTokensUsd),
      ]),
      total: report.alternatives.length,
    },
    rejected: {
      instanceTypeWidth: 20,
      lines: report.rejected.map((r: GenerativeRejection) => ({ instanceType: r.instanceType, qualifier: r.configuration, reason: r.reason })),
    },
  });
}

export type { GenerativePlan };
