/**
 * What `plan` prints, for every workload: the report's shape (heading, summary, layout, alternatives, rejections) and
 * the JSON or table output with its warnings. A workload gives only its rows (`plan.ts` for single-call models,
 * `plan-generative.ts` for generative ones).
 */
import Table from 'cli-table3';
import type { Price } from '../../lib/catalog/types';
import { poolSummary } from '../../lib/planner/pools';
import type { DeploymentPlan, MixedFleetBase, PoolSummary } from '../../lib/planner/types';
import { InfeasibleError } from '../../lib/errors';
import type { CliIo } from './io';

/** `$1,234.56`. */
export const usd = (n: number, digits = 2) => `$${n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;

/** A plan's price as the report prints it: flagged ESTIMATE (with its method) or UNVERIFIED, with its source. */
export function priceLine(price: Price): string {
  const flag = price.estimate !== undefined ? ' ESTIMATE' : price.unverified ? ' UNVERIFIED' : '';
  return `${usd(price.usdPerHour, 4)}/h ${price.kind}${flag} (${price.estimate ?? price.source}, ${price.asOf})`;
}

/** `n` rounded to `digits` decimals. */
export function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** A rejected candidate: its instance type, what it was (a measurement or a configuration), and why it lost. */
export interface RejectionLine {
  readonly instanceType: string;
  readonly qualifier?: string;
  readonly reason: string;
}

/** The report of one workload, as rows; {@link formatPlanOutput} lays them out. */
export interface PlanOutputShape {
  /** The first line: the model, the targets, the hosting. */
  readonly heading: string;
  /** The chosen plan, one `{ label: text }` a row. */
  readonly summary: ReadonlyArray<Record<string, string>>;
  /** What one instance runs (`process` or `replica`) and on which NeuronCores. */
  readonly layout: {
    readonly unit: string;
    readonly rows: ReadonlyArray<{ readonly index: number; readonly visibleCores: string; readonly devices: readonly string[] }>;
  };
  /**
   * The chosen type and its fallback pools, one row each (priority first), and what the mixed fleet holds and costs.
   *
   * @default - planned without fallback pools
   */
  readonly pools?: { readonly head: string[]; readonly rows: ReadonlyArray<ReadonlyArray<string | number>>; readonly notes: readonly string[] };
  /** The alternatives shown (already cut to the number asked for) out of `total`. */
  readonly alternatives: { readonly head: string[]; readonly rows: ReadonlyArray<ReadonlyArray<string | number>>; readonly total: number };
  readonly rejected: { readonly instanceTypeWidth: number; readonly lines: readonly RejectionLine[] };
}

/** The chosen plan, its layout, the alternatives and the rejected candidates, as terminal tables. */
export function formatPlanOutput(shape: PlanOutputShape): string {
  const out: string[] = [`${shape.heading}\n`];
  const summary = new Table({ style: { head: [], border: [] }, wordWrap: true, colWidths: [26, 100] });
  summary.push(...shape.summary);
  out.push(summary.toString() + '\n');

  const layout = new Table({ head: [shape.layout.unit, 'NEURON_RT_VISIBLE_CORES', 'devices'], style: { head: [], border: [] } });
  for (const row of shape.layout.rows) {
    layout.push([row.index, row.visibleCores, row.devices.join(' ')]);
  }
  out.push(`Layout on every instance:\n${layout.toString()}\n`);

  if (shape.pools !== undefined) {
    const table = new Table({ head: shape.pools.head, style: { head: [], border: [] } });
    table.push(...shape.pools.rows.map((row) => [...row]));
    out.push(`Instance pools (SageMaker provisions priority 1 first, then the next on insufficient capacity):\n${table.toString()}\n`
      + shape.pools.notes.map((note) => `${note}\n`).join(''));
  }

  const { alternatives, rejected } = shape;
  if (alternatives.total > 0) {
    const table = new Table({ head: alternatives.head, style: { head: [], border: [] } });
    table.push(...alternatives.rows.map((row) => [...row]));
    out.push(`Alternatives (${alternatives.rows.length} of ${alternatives.total}, * = UNVERIFIED price):\n${table.toString()}\n`);
  }

  if (rejected.lines.length > 0) {
    const table = new Table({
      head: ['instance type', 'why it lost'], style: { head: [], border: [] }, wordWrap: true, colWidths: [rejected.instanceTypeWidth, 100],
    });
    for (const [instanceType, reasons] of groupRejections(rejected.lines)) {
      table.push([instanceType, reasons.join('\n')]);
    }
    out.push(`Rejected:\n${table.toString()}\n`);
  }
  return out.join('\n');
}

/** One entry per instance type, each reason once, prefixed with its qualifier when it has one. */
function groupRejections(rejected: readonly RejectionLine[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const r of rejected) {
    const line = r.qualifier ? `${r.qualifier}: ${r.reason}` : r.reason;
    const lines = groups.get(r.instanceType) ?? [];
    if (!lines.includes(line)) {
      lines.push(line);
    }
    groups.set(r.instanceType, lines);
  }
  return groups;
}

/** A plan that may carry fallback pools, each with its own plan of the same workload. */
type PooledPlan<P> = DeploymentPlan & {
  readonly fallbacks?: ReadonlyArray<PoolSummary & { readonly plan: P }>;
  readonly mixedFleet?: MixedFleetBase;
};

/**
 * The pools table of a plan with fallback pools: priority, type, chip and the pool's own count, then the workload's
 * `columns`, then the pool's own cost and its compiled model; and the notes, `fleet` (what the mixed fleet holds, in
 * the workload's units) then its cost. Undefined without pools.
 */
export function poolsShape<P extends PooledPlan<P>>(p: P, columns: { readonly head: readonly string[]; readonly cells: (plan: P) => ReadonlyArray<string | number> },
  fleet: string | undefined): PlanOutputShape['pools'] {
  if (p.fallbacks === undefined || p.fallbacks.length === 0) {
    return undefined;
  }
  const row = (pool: PoolSummary, plan: P): Array<string | number> => [
    pool.priority,
    pool.instanceType,
    pool.chip,
    pool.maxInstanceCount > pool.instanceCount ? `${pool.instanceCount} (max ${pool.maxInstanceCount})` : pool.instanceCount,
    ...columns.cells(plan),
    usd(pool.hourlyCostUsd),
    pool.priority === 1 ? 'compiled for it' : pool.sharesCompiledModelWith !== undefined ? `priority ${pool.sharesCompiledModelWith}'s` : 'its own compile',
  ];
  const m = p.mixedFleet;
  return {
    head: ['priority', 'instance type', 'chip', 'own plan: count', ...columns.head, 'own plan: $/hour', 'compiled model'],
    rows: [row(poolSummary(p, 1, undefined), p), ...p.fallbacks.map((pool) => row(pool, pool.plan))],
    notes: m === undefined || fleet === undefined ? [] : [
      fleet,
      `Cost: ${usd(m.hourlyCostUsd)}/h while all ${m.instanceCount} instance(s) are ${p.instanceType} (`
        + `${m.extraCostPercent > 0 ? `+${m.extraCostPercent} % over` : 'the same as'} the single-type plan); `
        + `${usd(m.worst.hourlyCostUsd)}/h if they all end up on priority ${m.worst.priority} `
        + `(${m.worst.instanceCount} x ${m.worst.instanceType}), the most any pool costs.`,
    ],
  };
}

/** How one workload's plan is printed by {@link printPlan}. */
export interface PlanPrinting<R> {
  readonly json?: boolean;
  /** Fields added to the JSON document, with a plan or without one. @default - none */
  readonly extra?: Record<string, unknown>;
  /** The report as terminal tables. */
  readonly format: (report: R) => string;
  /** Warnings printed on stderr after the tables. */
  readonly warnings: (report: R) => readonly string[];
  /** Called when planning ends, planned or not, before anything is printed (clears a progress bar). @default - nothing */
  readonly planned?: () => void;
}

/**
 * Plans and prints the report: as JSON (with no plan, still a JSON document with `chosen: null` and the reasons; the
 * exit code stays 1), or as tables followed by the warnings on stderr.
 *
 * @throws whatever planning throws
 */
export function printPlan<R extends object>(io: CliIo, plan: () => R, printing: PlanPrinting<R>): void {
  let report: R;
  try {
    report = plan();
  } catch (e) {
    printing.planned?.();
    if (printing.json && e instanceof InfeasibleError) {
      // Scripts read stdout: no plan is still a JSON document, with the reasons.
      io.stdout(JSON.stringify({ ...e.details, chosen: null, reasons: e.reasons, ...printing.extra }, null, 2) + '\n');
    }
    throw e;
  }
  printing.planned?.();
  if (printing.json) {
    io.stdout(JSON.stringify({ ...report, ...printing.extra }, null, 2) + '\n');
    return;
  }
  io.stdout(printing.format(report));
  for (const note of printing.warnings(report)) {
    io.stderr(`warning: ${note}\n`);
  }
}
