/**
 * Keeps the planner honest: plans every built-in profile for a grid of targets on both hostings and both serving
 * modes, then replays each chosen plan in a discrete-event simulation (`simulateInstance`: Poisson single-input
 * arrivals, the instance's processes sharing one queue, call times drawn from the plan's own measurement row) at the
 * target rate, and prints predicted against simulated p99, and the planner's capacity per instance against the
 * highest rate the simulation holds within the target.
 *
 * `plans over target: N of M` counts the plans whose simulated p99 exceeds the target at the target rate; the last
 * line, `generative plans over target: N of M`, the same for generative plans (`generative-plans.ts`). Goal: 0 and 0. Run with `npm run bench:plans` (about a minute; `-- --quick` skips the simulated capacity search and
 * prints only plans over target, `-- --requests N` sets the replay length at the target rate).
 */
import { HOSTINGS } from '../lib/catalog/types';
import { InfeasibleError } from '../lib/errors';
import { capacity, capacityRps, FRONT_END_MAX_UTILIZATION, planReport, planServingModel, saturationPerProcessRps, simulateInstance } from '../lib/planner';
import type { Plan, ServingMode } from '../lib/planner';
import { builtInProfiles } from '../lib/profiles';
import { replayGenerativePlans } from './generative-plans';

/** Targets the grid crosses with every profile: steady requests/s and p99 ms. */
const THROUGHPUTS = [50, 500, 2000, 10000];
const P99_TARGETS_MS = [2, 10, 50, 250, 5000];
const SERVING: readonly ServingMode[] = ['stock', 'batching'];
/**
 * Large instances planned on their own (the grid's cheapest choices are small ones): their capacity must be what
 * their front ends carry (one per process at most, a vCPU each), not one front end's 1,400 requests/s.
 */
const LARGE_INSTANCES = ['inf2.24xlarge', 'inf2.48xlarge'];
const LARGE_TARGETS = [{ throughputRps: 10000, p99Ms: 10 }, { throughputRps: 30000, p99Ms: 50 }];

interface Row {
  readonly label: string;
  readonly plan: Plan;
  readonly simulatedP99Ms: number;
  readonly simulatedCapacityRps: number;
}

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

/**
 * Highest rate per instance the simulation holds within the target, by bisection up to the instance's saturation
 * (every process busy with full calls): above it a short replay of an overloaded instance can stay under a long
 * target while its backlog grows, which is no capacity.
 */
function simulatedCapacity(plan: Plan): number {
  const model = planServingModel(plan);
  let low = 0;
  let high = model.processes * saturationPerProcessRps(model);
  for (let i = 0; i < 12; i++) {
    const mid = (low + high) / 2;
    if (simulatedP99Ms(plan, mid, 10000, 7) <= plan.targets.p99Ms) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return low;
}

function main(): void {
  const requests = flag('--requests', 20000);
  const quick = process.argv.includes('--quick');
  const rows: Row[] = [];
  let infeasible = 0;
  const started = Date.now();
  for (const profile of builtInProfiles()) {
    for (const hosting of HOSTINGS) {
      for (const serving of SERVING) {
        for (const throughputRps of THROUGHPUTS) {
          for (const p99Ms of P99_TARGETS_MS) {
            try {
              const plan = planReport(profile, { throughputRps, p99Ms }, { region: 'us-east-1', hosting, serving, headroom: 0 }).chosen;
              const rate = throughputRps / plan.instanceCount;
              rows.push({
                label: `${profile.id} ${hosting} ${serving} ${throughputRps} rps p99 ${p99Ms} ms`,
                plan,
                simulatedP99Ms: simulatedP99Ms(plan, rate, requests, 1),
                simulatedCapacityRps: quick ? NaN : simulatedCapacity(plan),
              });
            } catch (e) {
              if (!(e instanceof InfeasibleError)) throw e;
              infeasible++;
            }
          }
        }
      }
    }
  }

  for (const profile of builtInProfiles()) {
    for (const instanceType of LARGE_INSTANCES) {
      for (const serving of SERVING) {
        for (const targets of LARGE_TARGETS) {
          try {
            const plan = planReport(profile, targets, { region: 'us-east-1', hosting: 'ec2', serving, headroom: 0, instanceTypes: [instanceType] }).chosen;
            rows.push({
              label: `large ${profile.id} ${instanceType} ${serving} ${targets.throughputRps} rps p99 ${targets.p99Ms} ms`,
              plan,
              simulatedP99Ms: simulatedP99Ms(plan, targets.throughputRps / plan.instanceCount, requests, 1),
              simulatedCapacityRps: quick ? NaN : simulatedCapacity(plan),
            });
          } catch (e) {
            if (!(e instanceof InfeasibleError)) throw e;
            infeasible++;
          }
        }
      }
    }
  }

  const over = rows.filter((r) => r.simulatedP99Ms > r.plan.targets.p99Ms);
  const print = quick ? over : rows;
  for (const r of print) {
    const p = r.plan;
    console.log(
      `${over.includes(r) ? 'OVER ' : '     '}${r.label}: ${p.instanceCount} x ${p.instanceType} ${p.processesPerInstance}x${p.coresPerProcess} ` +
        `${p.frontEndsPerInstance} front end(s) ` +
        `b${p.batchSize}${p.batching ? ` delay ${p.batching.maxDelayMs} ms` : ''}; p99 predicted ${p.predictedP99Ms.toFixed(2)} ` +
        `simulated ${r.simulatedP99Ms.toFixed(2)} ms; capacity/instance planned ${p.capacityPerInstanceRps}` +
        (Number.isNaN(r.simulatedCapacityRps) ? '' : ` simulated ${r.simulatedCapacityRps.toFixed(1)}`) + ' requests/s',
    );
  }
  // How much room the model leaves: simulated p99 as a share of the predicted p99 at the target rate.
  const ratios = rows.map((r) => r.simulatedP99Ms / r.plan.predictedP99Ms).sort((a, b) => a - b);
  const at = (q: number) => ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))].toFixed(2);
  console.log(
    `${rows.length} plans (${infeasible} grid points infeasible) replayed with ${requests} requests each in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
      `simulated / predicted p99: min ${at(0)}, median ${at(0.5)}, max ${at(1)}`,
  );
  if (!quick) {
    // How much capacity the model leaves unused: planned capacity as a share of what the simulation holds.
    const shares = rows.map((r) => r.plan.capacityPerInstanceRps / r.simulatedCapacityRps).filter(Number.isFinite).sort((a, b) => a - b);
    const share = (q: number) => shares[Math.min(shares.length - 1, Math.floor(q * shares.length))].toFixed(2);
    console.log(`planned / simulated capacity per instance: min ${share(0)}, median ${share(0.5)}, max ${share(1)} (below 1: capacity held back)`);
  }
  // Large instances: what bounds them, and what one front end alone would have allowed.
  for (const r of rows.filter((row) => row.label.startsWith('large '))) {
    const p = r.plan;
    const model = planServingModel(p);
    const one = capacityRps({ ...model, frontEnds: 1 }, p.targets.p99Ms / 1000) * (p.measurement.capacityFactor ?? 1);
    const bound = capacity(model, p.targets.p99Ms / 1000).limitedBy;
    console.log(
      `large-instance plan ${r.label.slice('large '.length)}: ${p.frontEndsPerInstance} front ends, ${p.capacityPerInstanceRps} requests/s ` +
        `per instance (bounded by ${bound === 'front-end' ? `its ${p.frontEndsPerInstance} front ends at ${FRONT_END_MAX_UTILIZATION * 100} % of a core each` : 'the latency target through its processes'}); ` +
        `one front end would have held ${one.toFixed(1)}`,
    );
  }
  // The generative plans, replayed in their own simulation; both summary lines end the run.
  const generative = replayGenerativePlans({ quick, requests });
  console.log(`plans over target: ${over.length} of ${rows.length}`);
  console.log(`generative plans over target: ${generative.over} of ${generative.total}`);
}

main();
