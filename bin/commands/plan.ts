/**
 * `cdk-inferentia plan`: the cheapest Neuron deployment for a model and its targets, with the alternatives and
 * the reasons every other option lost.
 */
import Table from 'cli-table3';
import { Command, Option } from 'commander';
import { HOSTINGS, PRICING_KINDS } from '../../lib/catalog/types';
import type { Hosting, PricingKind } from '../../lib/catalog/types';
import { planReport } from '../../lib/planner';
import type { PlanReport, Rejection } from '../../lib/planner';
import { loadCatalog } from './catalog';
import type { CliIo } from './io';
import { list, nonNegativeNumber, oneOf, positiveInteger, positiveNumber } from './parse';
import { loadProfile } from './profiles';

interface PlanFlags {
  readonly model?: string;
  readonly profile?: string;
  readonly throughput: number;
  readonly p99: number;
  readonly peak?: number;
  readonly region: string;
  readonly hosting: Hosting;
  readonly minInstances?: number;
  readonly maxInstances?: number;
  readonly headroom?: number;
  readonly processes?: number;
  readonly instanceTypes?: string[];
  readonly pricing?: PricingKind;
  readonly prices?: string;
  readonly alternatives: number;
  readonly json?: boolean;
}

/** Registers `plan` on the program. */
export function registerPlanCommand(program: Command, io: CliIo): void {
  program
    .command('plan')
    .description('Pick the cheapest instance type, NeuronCore layout and instance count that meet the targets')
    .addOption(new Option('--model <id>', 'a built-in model profile (see `cdk-inferentia profiles`)').conflicts('profile'))
    .addOption(new Option('--profile <file>', 'your own model profile as JSON'))
    .requiredOption('--throughput <rps>', 'steady requests per second to serve', positiveNumber)
    .requiredOption('--p99 <ms>', 'highest acceptable p99 latency in milliseconds', positiveNumber)
    .option('--peak <rps>', 'peak requests per second autoscaling must reach', positiveNumber)
    .requiredOption('--region <region>', 'AWS region, e.g. us-east-1')
    .addOption(new Option('--hosting <hosting>', 'EC2 instances or a SageMaker endpoint').choices(HOSTINGS).makeOptionMandatory())
    .option('--min-instances <n>', 'fewest instances, for availability (default 1)', positiveInteger)
    .option('--max-instances <n>', 'most instances allowed (quota or budget)', positiveInteger)
    .option('--headroom <fraction>', 'spare capacity above the target, 0.2 = 20 % (default 0.2)', nonNegativeNumber)
    .option('--processes <n>', 'pin model processes per instance; must divide its NeuronCores', positiveInteger)
    .option('--instance-types <list>', 'consider only these instance types, comma-separated', list)
    .option('--pricing <kind>', `price to optimise: ${PRICING_KINDS.join(' or ')} (default on-demand)`, oneOf(PRICING_KINDS))
    .option('--prices <file>', 'a price file that overrides or extends the built-in prices')
    .option('--alternatives <n>', 'how many alternatives to show', positiveInteger, 5)
    .option('--json', 'print { request, chosen, alternatives, rejected } as JSON')
    .action((flags: PlanFlags) => {
      const { profile, warnings } = loadProfile({ model: flags.model, profile: flags.profile });
      const catalog = loadCatalog(flags.prices);
      const report = planReport(
        profile,
        { throughputRps: flags.throughput, p99Ms: flags.p99, ...(flags.peak !== undefined ? { peakThroughputRps: flags.peak } : {}) },
        {
          region: flags.region,
          hosting: flags.hosting,
          minInstances: flags.minInstances,
          maxInstances: flags.maxInstances,
          headroom: flags.headroom,
          processesPerInstance: flags.processes,
          instanceTypes: flags.instanceTypes,
          pricing: flags.pricing,
        },
        catalog,
      );
      if (flags.json) {
        io.stdout(JSON.stringify(report, null, 2) + '\n');
        return;
      }
      io.stdout(formatPlanReport(report, flags.alternatives));
      const notes = [...warnings.map((w) => w.message), ...report.chosen.warnings];
      for (const note of notes) {
        io.stderr(`warning: ${note}\n`);
      }
    });
}

const usd = (n: number, digits = 2) => `$${n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
const percent = (n: number) => `${Math.round(n * 100)} %`;

/** The chosen plan, its layout, the next alternatives and the rejected candidates, as terminal tables. */
export function formatPlanReport(report: PlanReport, alternatives: number): string {
  const { chosen: p, request } = report;
  const out: string[] = [];
  out.push(
    `Plan for ${p.profileId}: ${p.targets.throughputRps} rps at p99 <= ${p.targets.p99Ms} ms, ` +
      `${p.hosting} in ${p.region}, headroom ${percent(p.headroom)}, ${request.options.pricing} prices\n`,
  );

  const summary = new Table({ style: { head: [], border: [] }, wordWrap: true, colWidths: [26, 100] });
  summary.push(
    { 'instance type': `${p.instanceType} (${p.instance.coreVersion === 'v1' ? 'NeuronCore-v1' : 'NeuronCore-v2'}, ${p.instance.chips * p.instance.coresPerChip} cores)` },
    { instances: p.maxInstanceCount > p.instanceCount ? `${p.instanceCount} (autoscaling up to ${p.maxInstanceCount})` : `${p.instanceCount}` },
    { 'processes / instance': `${p.processesPerInstance} x ${p.coresPerProcess} NeuronCore${p.coresPerProcess > 1 ? 's' : ''}, batch ${p.batchSize}` },
    { 'idle NeuronCores': `${p.idleCoresPerInstance} per instance` },
    { 'expected latency': `p50 ${p.p50Ms} ms, p99 ${p.p99Ms} ms` },
    { capacity: `${round1(p.capacityRps)} rps (${round1(p.capacityPerInstanceRps)} per instance), utilisation ${percent(p.utilization)} at target` },
    { cost: `${usd(p.hourlyCostUsd)}/h, ${usd(p.monthlyCostUsd, 0)}/month, ${usd(p.costPer1MInferencesUsd, 3)} per 1M inferences` },
    { price: `${usd(p.price.usdPerHour, 4)}/h ${p.price.kind}${p.price.unverified ? ' UNVERIFIED' : ''} (${p.price.source}, ${p.price.asOf})` },
    {
      'one process per instance': `${p.naive.instanceCount} instances, ${usd(p.naive.hourlyCostUsd)}/h: packing NeuronCores saves ${Math.round(p.naive.savingsPercent)} %`,
    },
    { measurement: p.measurement.source },
  );
  out.push(summary.toString() + '\n');

  const layout = new Table({ head: ['process', 'NEURON_RT_VISIBLE_CORES', 'devices'], style: { head: [], border: [] } });
  for (const proc of p.processes) {
    layout.push([proc.index, proc.visibleCores, proc.devices.join(' ')]);
  }
  out.push(`Layout on every instance:\n${layout.toString()}\n`);

  if (report.alternatives.length > 0) {
    const shown = report.alternatives.slice(0, alternatives);
    const table = new Table({
      head: ['instance type', 'count', 'processes x cores', 'batch', 'p99 ms', '$/hour', '$/1M', 'utilisation'],
      style: { head: [], border: [] },
    });
    for (const a of shown) {
      table.push([
        a.instanceType + (a.price.unverified ? ' *' : ''),
        a.instanceCount,
        `${a.processesPerInstance} x ${a.coresPerProcess}`,
        a.batchSize,
        a.p99Ms,
        usd(a.hourlyCostUsd),
        usd(a.costPer1MInferencesUsd, 3),
        percent(a.utilization),
      ]);
    }
    out.push(`Alternatives (${shown.length} of ${report.alternatives.length}, * = UNVERIFIED price):\n${table.toString()}\n`);
  }

  if (report.rejected.length > 0) {
    const table = new Table({ head: ['instance type', 'why it lost'], style: { head: [], border: [] }, wordWrap: true, colWidths: [18, 100] });
    for (const [instanceType, reasons] of groupRejections(report.rejected)) {
      table.push([instanceType, reasons.join('\n')]);
    }
    out.push(`Rejected:\n${table.toString()}\n`);
  }
  return out.join('\n');
}

/** One entry per instance type, each reason once, prefixed with its measurement when it has one. */
function groupRejections(rejected: readonly Rejection[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const r of rejected) {
    const line = r.measurement ? `${r.measurement}: ${r.reason}` : r.reason;
    const lines = groups.get(r.instanceType) ?? [];
    if (!lines.includes(line)) {
      lines.push(line);
    }
    groups.set(r.instanceType, lines);
  }
  return groups;
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
