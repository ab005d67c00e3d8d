/**
 * Keeps the planner honest: plans every built-in profile for a grid of targets on both hostings, both serving
 * modes on the model server and stock on a Neuron DLC's stock toolkit (`stock-dlc`: host work and call one after
 * the other), then replays each chosen plan in a discrete-event simulation (`simulateInstance`: Poisson single-input
 * arrivals, the instance's processes sharing one queue, call times drawn from the plan's own measurement row) at the
 * target rate, and prints predicted against simulated p99, and the planner's capacity per instance against the
 * highest rate the simulation holds within the target.
 *
 * `plans over target: N of M` counts the plans whose simulated p99 exceeds the target at the target rate; the last
 * line, `generative plans over target: N of M`, the same for generative plans (`generative-plans.ts`). Goal: 0 and 0.
 * Run with `npm run bench:plans` (`-- --quick` skips the simulated capacity search and prints only plans over target,
 * `-- --requests N` sets the replay length at the target rate, `-- --workers N` the worker threads, default one per
 * core).
 *
 * The grid is split into tasks for a pool of worker threads (one per single-call profile, eight per generative
 * profile, generative first: their planning and replays are the longest); the replays are independent and seeded,
 * so the figures are the same with any number of workers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { HOSTINGS } from '../lib/catalog/types';
import { InfeasibleError } from '../lib/errors';
import { builtInGenerativeProfiles } from '../lib/generative';
import { capacity, capacityRps, FRONT_END_MAX_UTILIZATION, planReport, planServingModel, saturationPerProcessRps, simulateInstance } from '../lib/planner';
import type { Plan, ServingMode, ServingServer } from '../lib/planner';
import { builtInProfiles } from '../lib/profiles';
import { generativeGroups, printGenerativeRows, replayGenerativeGroup, searchCapacity, type GenerativeProfileRows } from './generative-plans';

/** Targets the grid crosses with every profile: steady requests/s and p99 ms. */
const THROUGHPUTS = [50, 500, 2000, 10000];
const P99_TARGETS_MS = [2, 10, 50, 250, 5000];
const SERVING: readonly ServingMode[] = ['stock', 'batching'];
/** What the main grid plans for: both modes on the model server, and stock made for a Neuron DLC's stock toolkit. */
const SERVING_GRID: readonly { readonly label: string; readonly serving: ServingMode; readonly server: ServingServer }[] = [
  { label: 'stock', serving: 'stock', server: 'model-server' },
  { label: 'batching', serving: 'batching', server: 'model-server' },
  { label: 'stock-dlc', serving: 'stock', server: 'neuron-dlc' },
];
/**
 * Large instances planned on their own (the grid's cheapest choices are small ones): their capacity must be what
 * their front ends carry (one per process at most, a vCPU each), not one front end's 1,400 requests/s.
 */
const LARGE_INSTANCES = ['inf2.24xlarge', 'inf2.48xlarge'];
const LARGE_TARGETS = [{ throughputRps: 10000, p99Ms: 10 }, { throughputRps: 30000, p99Ms: 50 }];

/** One replayed single-call plan, as a worker hands it back. */
interface Row {
  readonly line: string;
  readonly over: boolean;
  /** Simulated p99 over predicted p99 at the target rate. */
  readonly p99Ratio: number;
  /** Planned capacity per instance over the highest rate the simulation holds (NaN with `--quick`). */
  readonly share: number;
  /** For a large instance planned on its own: what bounds it, and what one front end alone would have allowed. */
  readonly large?: string;
}

interface ProfileRows {
  readonly rows: Row[];
  readonly infeasible: number;
}

interface Options {
  readonly quick: boolean;
  readonly requests: number;
}

/** A unit of work: one single-call profile's grid, or one group of a generative profile's grid. */
type Task = { readonly kind: 'single'; readonly index: number } | { readonly kind: 'generative'; readonly index: number; readonly group: number };

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Replays one plan at `rate` requests/s on one instance and returns the simulated p99 in ms. */
function simulatedP99Ms(plan: Plan, rate: number, requests: number, seed: number): number {
  const result = simulateInstance({
    model: planServingModel(plan),
    callP50Seconds: plan.p50Ms / 1000,
    arrivalsPerSecond: rate,
    requests,
    seed,
  });
  return result.p99Seconds * 1000;
}

const capacities = new Map<string, number>();

/**
 * Highest rate per instance the simulation holds within the target, searched from the planned capacity up to the
 * instance's saturation (every process busy with full calls): above it a short replay of an overloaded instance can
 * stay under a long target while its backlog grows, which is no capacity. Plans of the grid that differ only in
 * throughput share one instance configuration and are searched once.
 */
function simulatedCapacity(plan: Plan): number {
  const model = planServingModel(plan);
  const key = JSON.stringify([model, plan.p50Ms, plan.targets.p99Ms]);
  const known = capacities.get(key);
  if (known !== undefined) {
    return known;
  }
  const saturation = model.processes * saturationPerProcessRps(model);
  const found = searchCapacity(plan.capacityPerInstanceRps, saturation, (rate) => simulatedP99Ms(plan, rate, 10000, 7) <= plan.targets.p99Ms);
  capacities.set(key, found);
  return found;
}

/** Plans and replays one single-call profile's grid (the index into the built-in profiles). */
function replayProfile(index: number, options: Options): ProfileRows {
  const profile = builtInProfiles()[index];
  const rows: Row[] = [];
  let infeasible = 0;
  for (const hosting of HOSTINGS) {
    for (const { label: serving, ...choice } of SERVING_GRID) {
      for (const throughputRps of THROUGHPUTS) {
        for (const p99Ms of P99_TARGETS_MS) {
          let plan: Plan;
          try {
            plan = planReport(profile, { throughputRps, p99Ms }, { region: 'us-east-1', hosting, ...choice, headroom: 0 }).chosen;
          } catch (e) {
            if (!(e instanceof InfeasibleError)) throw e;
            infeasible++;
            continue;
          }
          rows.push(replayRow(`${profile.id} ${hosting} ${serving} ${throughputRps} rps p99 ${p99Ms} ms`, plan, options));
        }
      }
    }
  }
  for (const instanceType of LARGE_INSTANCES) {
    for (const serving of SERVING) {
      for (const targets of LARGE_TARGETS) {
        let plan: Plan;
        try {
          plan = planReport(profile, targets, { region: 'us-east-1', hosting: 'ec2', serving, headroom: 0, instanceTypes: [instanceType] }).chosen;
        } catch (e) {
          if (!(e instanceof InfeasibleError)) throw e;
          infeasible++;
          continue;
        }
        const label = `${profile.id} ${instanceType} ${serving} ${targets.throughputRps} rps p99 ${targets.p99Ms} ms`;
        const model = planServingModel(plan);
        const one = capacityRps({ ...model, frontEnds: 1 }, plan.targets.p99Ms / 1000) * (plan.measurement.capacityFactor ?? 1);
        const bound = capacity(model, plan.targets.p99Ms / 1000).limitedBy;
        rows.push({
          ...replayRow(`large ${label}`, plan, options),
          large: `large-instance plan ${label}: ${plan.frontEndsPerInstance} front ends, ${plan.capacityPerInstanceRps} requests/s ` +
            `per instance (bounded by ${bound === 'front-end' ? `its ${plan.frontEndsPerInstance} front ends at ${FRONT_END_MAX_UTILIZATION * 100} % of a core each` : 'the latency target through its processes'}); ` +
            `one front end would have held ${one.toFixed(1)}`,
        });
      }
    }
  }
  return { rows, infeasible };
}

/** One plan replayed at its target rate (and, without `--quick`, its capacity searched). */
function replayRow(label: string, plan: Plan, options: Options): Row {
  const simulated = simulatedP99Ms(plan, plan.targets.throughputRps / plan.instanceCount, options.requests, 1);
  const simulatedCapacityRps = options.quick ? NaN : simulatedCapacity(plan);
  return {
    over: simulated > plan.targets.p99Ms,
    p99Ratio: simulated / plan.predictedP99Ms,
    share: plan.capacityPerInstanceRps / simulatedCapacityRps,
    line:
      `${label}: ${plan.instanceCount} x ${plan.instanceType} ${plan.processesPerInstance}x${plan.coresPerProcess} ` +
      `${plan.frontEndsPerInstance} front end(s) ` +
      `b${plan.batchSize}${plan.batching ? ` delay ${plan.batching.maxDelayMs} ms` : ''}; ` +
      `p99 predicted ${plan.predictedP99Ms.toFixed(2)} simulated ${simulated.toFixed(2)} ms; capacity/instance planned ${plan.capacityPerInstanceRps}` +
      (Number.isNaN(simulatedCapacityRps) ? '' : ` simulated ${simulatedCapacityRps.toFixed(1)}`) + ' requests/s',
  };
}

function runTask(task: Task, options: Options): ProfileRows | GenerativeProfileRows {
  return task.kind === 'single' ? replayProfile(task.index, options) : replayGenerativeGroup(task.index, task.group, options);
}

/**
 * CPU seconds each thread of this process has run, busiest first (Linux: /proc/self/task; elsewhere none). With
 * every worker alive and done, the busiest are the workers: on a quiet machine with a core per worker, the run takes
 * about the busiest one's time, however loaded the machine it was measured on.
 */
function threadCpuSeconds(): number[] {
  try {
    const ticks = 100; // USER_HZ
    return readdirSync('/proc/self/task')
      .map((tid) => readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' '))
      .map((f) => (Number(f[11]) + Number(f[12])) / ticks)
      .sort((a, b) => b - a);
  } catch {
    return [];
  }
}

/** Runs every task on a pool of worker threads: the results in task order, and the workers' CPU seconds. */
async function runPool(tasks: readonly Task[], options: Options, workers: number): Promise<{ results: (ProfileRows | GenerativeProfileRows)[]; workerCpu: number[] }> {
  const results: (ProfileRows | GenerativeProfileRows)[] = new Array(tasks.length);
  // tsx's loader does not reach worker threads by itself: each worker registers it, then loads this file.
  const boot = `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(__filename)});`;
  const pool = Array.from({ length: Math.min(workers, tasks.length) }, () => new Worker(boot, { eval: true, workerData: options }));
  let next = 0;
  try {
    await Promise.all(
      pool.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            let current = -1;
            const give = (): void => {
              if (next >= tasks.length) {
                resolve();
                return;
              }
              current = next++;
              worker.postMessage(tasks[current]);
            };
            worker.on('message', (result: ProfileRows | GenerativeProfileRows) => {
              results[current] = result;
              give();
            });
            worker.once('error', reject);
            give();
          }),
      ),
    );
    return { results, workerCpu: threadCpuSeconds().slice(0, pool.length) };
  } finally {
    await Promise.all(pool.map((worker) => worker.terminate()));
  }
}

async function main(): Promise<void> {
  const options: Options = { quick: process.argv.includes('--quick'), requests: flag('--requests', 20000) };
  const workers = Math.max(1, flag('--workers', os.availableParallelism()));
  const started = Date.now();
  // The generative grids take longest: they go first, so no worker is left with one at the end.
  const tasks: Task[] = [
    ...builtInGenerativeProfiles().flatMap((_, index) => Array.from({ length: generativeGroups(index) }, (__, group) => ({ kind: 'generative' as const, index, group }))),
    ...builtInProfiles().map((_, index) => ({ kind: 'single' as const, index })),
  ];
  const { results, workerCpu } = await runPool(tasks, options, workers);
  const single = results.filter((_, i) => tasks[i].kind === 'single') as ProfileRows[];
  // A generative profile's groups, back together.
  const generativeRows = builtInGenerativeProfiles().map((_, index) => {
    const parts = results.filter((__, i) => tasks[i].kind === 'generative' && tasks[i].index === index) as GenerativeProfileRows[];
    return { rows: parts.flatMap((p) => p.rows), infeasible: parts.reduce((n, p) => n + p.infeasible, 0) };
  });
  const rows = single.flatMap((p) => p.rows);
  const infeasible = single.reduce((n, p) => n + p.infeasible, 0);

  const over = rows.filter((r) => r.over);
  for (const r of options.quick ? over : rows) {
    console.log(`${r.over ? 'OVER ' : '     '}${r.line}`);
  }
  // How much room the model leaves: simulated p99 as a share of the predicted p99 at the target rate.
  const ratios = rows.map((r) => r.p99Ratio).sort((a, b) => a - b);
  const at = (q: number) => ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))].toFixed(2);
  console.log(
    `${rows.length} plans (${infeasible} grid points infeasible) replayed with ${options.requests} requests each; ` +
      `simulated / predicted p99: min ${at(0)}, median ${at(0.5)}, max ${at(1)}`,
  );
  if (!options.quick) {
    // How much capacity the model leaves unused: planned capacity as a share of what the simulation holds.
    const shares = rows.map((r) => r.share).filter(Number.isFinite).sort((a, b) => a - b);
    const share = (q: number) => shares[Math.min(shares.length - 1, Math.floor(q * shares.length))].toFixed(2);
    console.log(`planned / simulated capacity per instance: min ${share(0)}, median ${share(0.5)}, max ${share(1)} (below 1: capacity held back)`);
  }
  // Large instances: what bounds them, and what one front end alone would have allowed.
  for (const r of rows) {
    if (r.large) console.log(r.large);
  }
  // The generative plans, replayed in their own simulation; both summary lines end the run.
  const generative = printGenerativeRows(generativeRows, options);
  console.log(
    `${tasks.length} tasks replayed on ${Math.min(workers, tasks.length)} worker thread(s) in ${((Date.now() - started) / 1000).toFixed(1)} s` +
      (workerCpu.length > 0 ? `; busiest threads ran ${workerCpu.map((s) => s.toFixed(1)).join(', ')} CPU-s (a quiet machine with a core each takes about the first)` : '') +
      `; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`,
  );
  console.log(`plans over target: ${over.length} of ${rows.length}`);
  console.log(`generative plans over target: ${generative.over} of ${generative.total}`);
}

if (isMainThread) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
} else {
  const port = parentPort!;
  port.on('message', (task: Task) => port.postMessage(runTask(task, workerData as Options)));
}
