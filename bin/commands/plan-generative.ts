/**
 * `cdk-inferentia plan` for generative models: the flags in tokens, the planner call and the report in the units users
 * judge a generative service by (TTFT, TPOT, output tokens per second, cost per 1M output tokens).
 */
import { engineSummary } from '../../lib/generative/engine-image';
import Table from 'cli-table3';
import type { Catalog } from '../../lib/catalog/catalog';
import type { Hosting, PricingKind } from '../../lib/catalog/types';
import { InfeasibleError, InputError } from '../../lib/errors';
import { planGenerativeReport } from '../../lib/generative';
import type { GenerativePlan, GenerativePlanReport, GenerativeProfile, GenerativeRejection, GenerativeTargets } from '../../lib/generative';
import type { CliIo } from './io';

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
  let report: GenerativePlanReport;
  try {
    report = planGenerativeReport(profile, targets, {
      region: flags.region,
      hosting: flags.hosting,
      minInstances: flags.minInstances,
      maxInstances: flags.maxInstances,
      headroom: flags.headroom,
      instanceTypes: flags.instanceTypes,
      pricing: flags.pricing,
    }, catalog);
  } catch (e) {
    if (flags.json && e instanceof InfeasibleError) {
      io.stdout(JSON.stringify({ ...e.details, chosen: null, reasons: e.reasons }, null, 2) + '\n');
    }
    throw e;
  }
  if (flags.json) {
    io.stdout(JSON.stringify(report, null, 2) + '\n');
    return;
  }
  io.stdout(formatGenerativeReport(report, flags.alternatives ?? 5));
  for (const note of report.chosen.warnings) {
    io.stderr(`warning: ${note}\n`);
  }
}

const usd = (n: number, digits = 2) => `$${n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
const length = (l: { mean: number; p99?: number }) => `${l.mean}${l.p99 !== undefined ? ` (p99 ${l.p99})` : ''}`;

/** The chosen plan with its memory breakdown and layout, the alternatives and the rejections. */
export function formatGenerativeReport(report: GenerativePlanReport, alternatives: number): string {
  const p = report.chosen;
  const g = p.generative;
  const t = p.targets;
  const out: string[] = [];
  out.push(
    `Plan for ${p.profileId}: ${t.requestsPerSecond} requests/s of ${length(t.inputTokens)} input and ${length(t.outputTokens)} output tokens, ` +
      `TTFT p99 <= ${t.ttftP99Ms} ms, TPOT p99 <= ${t.tpotP99Ms} ms${t.e2eP99Ms ? `, end-to-end p99 <= ${t.e2eP99Ms} ms` : ''}; ` +
      `${p.hosting} in ${p.region}, headroom ${Math.round(p.headroom * 100)} %, ${report.request.options.pricing} prices\n`,
  );
  const m = g.memoryGiB;
  const summary = new Table({ style: { head: [], border: [] }, wordWrap: true, colWidths: [26, 100] });
  summary.push(
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
    { price: `${usd(p.price.usdPerHour, 4)}/h ${p.price.kind}${p.price.unverified ? ' UNVERIFIED' : ''} (${p.price.source}, ${p.price.asOf})` },
    { measurement: g.measurement.map((r) => r.source).join('\n') },
  );
  out.push(summary.toString() + '\n');
  const layout = new Table({ head: ['replica', 'NEURON_RT_VISIBLE_CORES', 'devices'], style: { head: [], border: [] } });
  for (const r of g.replicas) {
    layout.push([r.index, r.visibleCores, r.devices.join(' ')]);
  }
  out.push(`Layout on every instance:\n${layout.toString()}\n`);
  if (report.alternatives.length > 0) {
    const shown = report.alternatives.slice(0, alternatives);
    const table = new Table({
      head: ['instance type', 'count', 'replicas x TP', 'seqs', 'SDK', 'TTFT p99', 'TPOT p99', '$/hour', '$/1M out tokens'],
      style: { head: [], border: [] },
    });
    for (const a of shown) {
      table.push([
        a.instanceType + (a.price.unverified ? ' *' : ''), a.instanceCount, `${a.generative.replicasPerInstance} x ${a.generative.tensorParallelDegree}`,
        a.generative.maxConcurrentSequences, a.generative.measurement[0].neuronSdkVersion, a.generative.predictedTtftP99Ms,
        a.generative.predictedTpotP99Ms, usd(a.hourlyCostUsd), usd(a.generative.costPer1MOutputTokensUsd),
      ]);
    }
    out.push(`Alternatives (${shown.length} of ${report.alternatives.length}, * = UNVERIFIED price):\n${table.toString()}\n`);
  }
  if (report.rejected.length > 0) {
    const table = new Table({ head: ['instance type', 'why it lost'], style: { head: [], border: [] }, wordWrap: true, colWidths: [20, 100] });
    for (const [instanceType, reasons] of groupRejections(report.rejected)) {
      table.push([instanceType, reasons.join('\n')]);
    }
    out.push(`Rejected:\n${table.toString()}\n`);
  }
  return out.join('\n');
}

function groupRejections(rejected: readonly GenerativeRejection[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const r of rejected) {
    const line = r.configuration ? `${r.configuration}: ${r.reason}` : r.reason;
    const lines = groups.get(r.instanceType) ?? [];
    if (!lines.includes(line)) {
      lines.push(line);
    }
    groups.set(r.instanceType, lines);
  }
  return groups;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export type { GenerativePlan };
