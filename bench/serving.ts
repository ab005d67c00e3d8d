/**
 * Measured against predicted capacity of the real model server (`serving/`) on this machine: `npm run bench:serving`.
 *
 * For each of three plans of bert-base-uncased on inf2.xlarge (a batching plan that batches, a stock plan, and the
 * batching plan of a handler whose host work bounds its workers: host-bound), the bench runs `python3 -m serving` with the plan's server environment (`modelServerEnvironment`) and a device stand-in
 * handler (`bench/serving-standin/code/inference.py`): each device call SLEEPS a time drawn from the plan's
 * measurement row (log-normal with the row's median and p99, as `simulateInstance` draws it) around a tiny numpy
 * model that pads the batch to the compiled shape and slices the answers. For the host-bound plan the stand-in's
 * `input_fn` also spins `--host-ms-per-request` of CPU per request (default 1 ms, the profile's figure for text), and
 * the plan is made with that as the profile's `hostCpuMsPerRequest`: its workers' pipeline (`MODEL_SERVER_OVERLAP=1`)
 * is bound by the host stage, `n x (host + hand-over)`, not by the device call. It then:
 *
 * 1. scales the layout to this machine: workers = min(the plan's processes, this machine's cores); every other
 *    setting (compiled batch, max batch, max delay, queue bound) is the plan's. The host-bound plan is planned with
 *    one process per instance (`processesPerInstance`): two workers spinning a core each would leave no core for the
 *    front end and the load generator on 2 cores, and one worker cut from a 2-process plan would run through a
 *    batching delay chosen for twice its rate;
 * 2. calibrates: drives the server open-loop at the capacity the planner predicts with the profile's host CPU per
 *    request, and measures the workers' CPU per request (from /proc): the host work the planner charges to a worker's
 *    busy time (the front end's CPU is another process, which the planner bounds apart);
 * 3. predicts the scaled layout's capacity and p99 with the planner's own functions (`servingModel`, `capacityRps`,
 *    `predictedP99Seconds`), with that measured host CPU, the scaled worker count and the plan's batching settings;
 * 4. drives the server open-loop with the project's load engine (`runBenchmark`), Poisson arrivals as the planner
 *    assumes, at the predicted capacity, then in steps above it until a step fails, with no cap below what the server
 *    holds (or below until one passes), and up to two steps halving the gap between the last pass and the first
 *    fail. A step passes when its p99 is within the plan's target and no request failed. A step that failed below a
 *    rate that passed is measured once more and the repeat counts (both are printed). Measured capacity: the highest
 *    passing rate below the lowest failing one.
 *
 * Each step is followed by the machine's floor at the same rate and length: the same load generator against a trivial
 * server on the same loopback (`bench/serving-floor.py`, aiohttp answering at once). A step is judged against the
 * plan's target plus the floor's p99, so the machine's own tail (on a small VM, 14-48 ms at 300 requests/s) is not
 * taken for the server's; the table shows the client's p99, the server's own (its timing header), the floor's and
 * the limit. The plan runs with its front ends (`frontEndsPerInstance`, as many as share the scaled workers evenly).
 *
 * Each step also records what could make the figure wrong: the load generator's own CPU and event-loop delay (a late
 * send counts in the latency: the engine stamps each request with its intended time), the stand-in's real device
 * time (a sleep overshoots), and the machine's other CPU use and load average (the machine is shared).
 *
 * Then a hostile-traffic step (`bench/serving-hostile.py`, skipped with `--no-hostile`): the batching plan's server
 * serves 16 well-behaved closed-loop clients alone, then beside 1,000 idle connections, 100 slow-body clients and 4
 * clients sending 50 MB bodies, and prints `capacity kept under hostile traffic: X.XX` (goal >= 0.80, issue 23).
 *
 * For each plan `device-limit ratio <plan>: X` is the measured capacity over the device row's own throughput on the
 * workers it ran (workers x the row's inputs per second per process): how close the server comes to what its
 * devices compute (issue 30's goal: 0.85 for stock and batching on a quiet machine). Beside it, the ceiling of that
 * ratio for any server at the plan's target: the capacity of a server with no cost of its own (the planner's queueing
 * model with the row's calls, no host work, hand-over, path or front-end bound), and the measured capacity over it.
 *
 * The last line is `capacity ratio measured/predicted: X.XX`, the lowest of the plans' ratios. Goal: every ratio
 * from 0.95 to 1.15 (above, the plan buys capacity it never uses), with the measured p99 at the predicted capacity
 * within the plan's target plus the floor. Flags: `--seconds N` measured seconds per step (default 6),
 * `--only batching|stock|host-bound`, `--host-ms-per-request MS` (default 1), `--stock-p99 MS` (the stock plan's target,
 * default 10), `--no-hostile`.
 */
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { capacityRps, planReport, predictedP99Seconds, saturationPerProcessRps, servingModel } from '../lib/planner';
import type { Plan, ServingModel } from '../lib/planner';
import { largestFitting, Z99 } from '../lib/planner/queueing';
import { requireProfile } from '../lib/profiles';
import { modelServerEnvironment } from '../lib/serving';
import { describePlan, PROFILE_ID, SCENARIO_NAMES, stepTable, summary, type PlanResult, type Scenario, type ScenarioName } from './serving-report';
import { FloorServer, PYTHON, REPO, ServerUnderTest, type ScaledLayout } from './serving-server';
import { drive, runStep, WARMUP_MS, type Step } from './serving-step';

const INSTANCE_TYPE = 'inf2.xlarge';
/** Unmeasured load right after the server starts, before the first step. */
const SERVER_WARMUP_MS = 2000;
/**
 * Rates tried above (below) the predicted capacity, as multiples of it, until a step fails (passes). Above the last
 * multiple the search goes on in steps of `UP_BEYOND` until one fails: no cap below what the server holds.
 */
const UP = [1.1, 1.2, 1.35, 1.5, 1.75, 2];
const UP_BEYOND = 1.25;
/** Past this multiple of the prediction the search stops and the capacity is printed as `>=`: a runaway, not a plan. */
const UP_LIMIT = 10;
const DOWN = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1];
/** Steps between the last pass and the first fail, halving the gap while it is wider than `REFINED_GAP`. */
const REFINE_STEPS = 2;
const REFINED_GAP = 1.04;
/**
 * The goal: measured / predicted capacity in this band for every plan. Below it the plan over-promises; above it the
 * plan buys capacity it never uses (issue 21).
 */
const GOAL_BAND = [0.95, 1.15] as const;

/** The stock plan's p99 target unless `--stock-p99` says: the example app's (bin/app.ts EXAMPLE_TARGETS). */
const STOCK_P99_MS = 10;

function scenarios(hostMsPerRequest: number, stockP99Ms = STOCK_P99_MS): readonly Scenario[] {
  return [
    {
      name: 'batching',
      serving: 'batching',
      targets: { throughputRps: 2000, p99Ms: 50 },
      why: 'p99 50 ms, where the batch-8 row with server batching costs the same as batch 1 (at 10 ms it holds 26 requests/s)',
    },
    {
      name: 'stock',
      serving: 'stock',
      targets: { throughputRps: 2000, p99Ms: stockP99Ms },
      why:
        stockP99Ms === STOCK_P99_MS
          ? "the example app's targets (bin/app.ts EXAMPLE_TARGETS): 2000 requests/s at p99 10 ms"
          : `2000 requests/s at p99 ${stockP99Ms} ms (--stock-p99; the example app's is ${STOCK_P99_MS} ms)`,
    },
    {
      name: 'host-bound',
      serving: 'batching',
      targets: { throughputRps: 2000, p99Ms: 50 },
      why:
        `the batching targets with a handler spinning ${hostMsPerRequest} ms of CPU per request in input_fn: ` +
        'its workers are bound by their host stage, the regime the worker pipeline is for',
      standInHostMs: hostMsPerRequest,
      pinnedProcesses: {
        count: 1,
        why:
          'a worker spinning its host stage takes a whole core: two would leave no core of this machine for the front end ' +
          'and the load generator (an inf2.xlarge has 4 vCPUs for them); one worker taken from a 2-process plan would see ' +
          "half the plan's rate through a batching delay chosen for two",
      },
    },
  ];
}

/** The plan the planner makes for a scenario; for batching, the best plan that really batches (max batch > 1). */
function choosePlan(scenario: Scenario): Plan {
  const builtIn = requireProfile(PROFILE_ID);
  const profile =
    scenario.standInHostMs === undefined
      ? builtIn
      : { ...builtIn, hostCpuMsPerRequest: scenario.standInHostMs, hostCpuSource: 'bench:serving: the stand-in input_fn spins this much CPU' };
  const report = planReport(profile, scenario.targets, {
    region: 'us-east-1',
    hosting: 'ec2',
    serving: scenario.serving,
    instanceTypes: [INSTANCE_TYPE],
    ...(scenario.pinnedProcesses ? { processesPerInstance: scenario.pinnedProcesses.count } : {}),
  });
  // With batching allowed the planner may pick a batch-1 row (batching then only shares a backlog); this bench is
  // about batches that form, so it takes the cheapest plan with a batch larger than one request.
  const plan = [report.chosen, ...report.alternatives].find(
    (p) => p.serving === scenario.serving && (p.batching === null || p.batching.maxBatchSize > p.inputsPerRequest),
  );
  if (!plan) {
    throw new Error(`no ${scenario.serving} plan of ${PROFILE_ID} on ${INSTANCE_TYPE} for ${JSON.stringify(scenario.targets)}`);
  }
  return plan;
}

function scaleLayout(plan: Plan): ScaledLayout {
  const workers = Math.min(plan.processesPerInstance, os.availableParallelism());
  const m = plan.measurement;
  // A call lasts its measured median, or longer when the row's throughput implies longer calls (batch / throughput):
  // the same busy time the planner's `servingModel` charges, so the stand-in is never faster than the model assumes.
  const deviceMedianMs = Math.max(m.p50Ms, (1000 * m.batchSize) / m.throughputRps);
  const deviceSigma = m.p99Ms > m.p50Ms && m.p50Ms > 0 ? Math.log(m.p99Ms / m.p50Ms) / Z99 : 0;
  // The plan's front ends, as many as share the scaled workers evenly.
  let frontEnds = Math.min(plan.frontEndsPerInstance, workers);
  while (workers % frontEnds !== 0) {
    frontEnds--;
  }
  return { workers, visibleCores: plan.visibleCores.slice(0, workers), frontEnds, deviceMedianMs, deviceSigma };
}

/** What the planner reads of a measurement row: a call's batch, throughput, p50 and p99. */
type CallFigures = Parameters<typeof servingModel>[0];

/** The planner's queueing model of the scaled layout with a given host CPU per request. */
function scaledModel(plan: Plan, layout: ScaledLayout, hostMsPerRequest: number, call: CallFigures = plan.measurement): ServingModel {
  return servingModel(call, {
    mode: plan.serving,
    processes: layout.workers,
    hostMsPerRequest,
    requestsPerBatch: plan.batching ? Math.floor(plan.batching.maxBatchSize / plan.inputsPerRequest) : 1,
    maxDelayMs: plan.batching?.maxDelayMs ?? 0,
    frontEnds: layout.frontEnds,
  });
}

// ---- one plan: calibrate, predict, search ---------------------------------------------------------------------------

async function measurePlan(scenario: Scenario, seconds: number): Promise<PlanResult> {
  const plan = choosePlan(scenario);
  const layout = scaleLayout(plan);
  const targetMs = plan.targets.p99Ms;
  const server = await ServerUnderTest.start(plan, layout, scenario.standInHostMs);
  const floor = await FloorServer.start().catch(async (error: unknown) => {
    await server.stop();
    throw error;
  });
  try {
    const steps: Step[] = [];
    // 1. Calibration at the capacity the planner predicts for this layout with the profile's host CPU.
    const profileModel = scaledModel(plan, layout, plan.hostCpuMsPerRequest);
    const calibrationRate = round(capacityRps(profileModel, targetMs / 1000), 0);
    // A freshly started server and load generator: warm both (imports, first batches, JIT) before any step counts.
    await drive(server, calibrationRate, SERVER_WARMUP_MS);
    await drive(floor, calibrationRate, SERVER_WARMUP_MS);
    const calibration = await runStep(server, floor, 'calibration', calibrationRate, profileModel, targetMs, seconds);
    // What the planner's hostMsPerRequest means: CPU in the worker, between its device calls. The front end's CPU is
    // another process, bounded apart (FRONT_END_MS_PER_REQUEST); its latency is SERVER_PATH_MS.
    const hostMsPerRequest = calibration.workerCpuMs;
    // 2. The prediction with the measured host CPU; every step is judged against this model.
    const model = scaledModel(plan, layout, hostMsPerRequest);
    const predicted = capacityRps(model, targetMs / 1000);
    steps.push({ ...calibration, predictedP99Ms: predictedP99Seconds(model, calibrationRate) * 1000 });
    const at = async (multiple: number, label: string) => {
      const step = await runStep(server, floor, label, round(predicted * multiple, 0), model, targetMs, seconds);
      steps.push(step);
      return step;
    };
    // 3. Search around the prediction.
    const first = await at(1, 'predicted');
    const multiples = first.passed ? upMultiples() : DOWN;
    for (const multiple of multiples) {
      const step = await at(multiple, `x${multiple}`);
      if (step.passed !== first.passed) {
        break;
      }
    }
    const refine = async () => {
      for (let i = 0; i < REFINE_STEPS; i++) {
        const { capacity, lowestFail } = measuredCapacity(steps);
        if (lowestFail === undefined || !(capacity > 0) || lowestFail / capacity <= REFINED_GAP) {
          break;
        }
        await at((capacity + lowestFail) / 2 / predicted, 'between');
      }
    };
    await refine();
    // A step that failed below a rate that passed is a tail outlier of a few seconds (one stall in ~40 tail samples):
    // it is measured once more, and the repeat decides. Both rows stay in the table.
    const highestPass = Math.max(0, ...steps.filter((s) => s.passed).map((s) => s.rateRps));
    for (const outlier of steps.filter((s) => !s.passed && s.rateRps < highestPass)) {
      const again = await runStep(server, floor, `${outlier.label} again`, outlier.rateRps, model, targetMs, seconds);
      steps.push(again);
      steps.splice(steps.indexOf(outlier), 1, { ...outlier, label: `${outlier.label} (repeated)`, superseded: true });
    }
    if (measuredCapacity(steps).lowestFail === undefined && !first.passed) {
      // The search went down from a prediction that failed, and the repeat passed it: no rate has failed, so the
      // search goes on upwards from the highest that passed (else the capacity would read as "at least" that).
      const from = measuredCapacity(steps).capacity / predicted;
      for (const multiple of upMultiples().filter((m) => m > from)) {
        if (!(await at(multiple, `x${multiple}`)).passed) {
          break;
        }
      }
      await refine();
    }
    const final = measuredCapacity(steps);
    const samples = steps.flatMap((s) => s.deviceSamples).sort((a, b) => a - b);
    const quantile = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
    const meanMs = samples.reduce((a, b) => a + b, 0) / samples.length;
    const standInCall = { meanMs, p50Ms: quantile(0.5), p99Ms: quantile(0.99) };
    const asServed = { batchSize: plan.batchSize, throughputRps: (1000 * plan.batchSize) / meanMs, p50Ms: standInCall.p50Ms, p99Ms: standInCall.p99Ms };
    return {
      scenario,
      plan,
      layout,
      hostMsPerRequest,
      predictedCapacityRps: predicted,
      predictedP99AtCapacityMs: predictedP99Seconds(model, predicted) * 1000,
      steps,
      measuredCapacityRps: final.capacity,
      atLeast: final.lowestFail === undefined,
      standInCall,
      predictedWithStandInCallRps: capacityRps(scaledModel(plan, layout, hostMsPerRequest, asServed), targetMs / 1000),
      deviceLimitRps: (layout.workers * plan.measurement.throughputRps) / plan.inputsPerRequest,
      queueingCeilingRps: queueingCeiling(scaledModel(plan, layout, 0), targetMs),
    };
  } finally {
    await Promise.all([server.stop(), floor.stop()]);
  }
}

/**
 * The capacity within `targetMs` of a server that costs nothing of its own: `model` with no host work, hand-over or
 * path, and no front-end bound, so that only the calls and their queueing remain.
 */
function queueingCeiling(model: ServingModel, targetMs: number): number {
  const free = { ...model, hostSecondsPerRequest: 0, handoverSecondsPerCall: 0, handoverSecondsPerRequest: 0, pathSeconds: 0 };
  return largestFitting(free.processes * saturationPerProcessRps(free), (rate) => predictedP99Seconds(free, rate) <= targetMs / 1000);
}

/** The multiples tried upwards: `UP`, then `UP_BEYOND` apart up to `UP_LIMIT`. */
function upMultiples(): number[] {
  const multiples = [...UP];
  for (let m = UP[UP.length - 1] * UP_BEYOND; m <= UP_LIMIT; m *= UP_BEYOND) {
    multiples.push(round(m, 2));
  }
  return multiples;
}

function measuredCapacity(all: readonly Step[]): { capacity: number; lowestFail?: number } {
  const steps = all.filter((s) => !s.superseded);
  const fails = steps.filter((s) => !s.passed).map((s) => s.rateRps);
  const lowestFail = fails.length > 0 ? Math.min(...fails) : undefined;
  const passes = steps.filter((s) => s.passed && (lowestFail === undefined || s.rateRps < lowestFail)).map((s) => s.rateRps);
  return { capacity: passes.length > 0 ? Math.max(...passes) : 0, lowestFail };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * The hostile-traffic step: `bench/serving-hostile.py` with the batching plan's server environment (scaled to this
 * machine) and the device stand-in; it prints its own lines, the last `capacity kept under hostile traffic: X.XX`.
 */
function hostileStep(seconds: number): void {
  const batching = scenarios(0)[0];
  const plan = choosePlan(batching);
  const layout = scaleLayout(plan);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    ...modelServerEnvironment(
      { batching: plan.batching, batchSize: plan.batchSize, visibleCores: layout.visibleCores, p99Ms: plan.p99Ms },
      { metricsService: 'bench-hostile' },
    ),
    BENCH_DEVICE_MEDIAN_MS: `${layout.deviceMedianMs}`,
    BENCH_DEVICE_SIGMA: `${layout.deviceSigma}`,
  };
  execFileSync(PYTHON, [path.join(REPO, 'bench', 'serving-hostile.py'), '--seconds', `${seconds}`], {
    cwd: REPO, env, stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function main(): Promise<void> {
  const program = new Command('bench:serving')
    .description('measured vs predicted capacity of the model server with a device stand-in')
    .addOption(
      new Option('--seconds <n>', 'measured seconds per step').default(6).argParser((raw) => {
        const n = Number(raw);
        if (!(Number.isFinite(n) && n >= 1 && n <= 120)) {
          throw new InvalidArgumentError(`--seconds=${raw} must be a number of seconds from 1 to 120`);
        }
        return n;
      }),
    )
    .addOption(new Option('--only <plan>', 'measure one plan only').choices(SCENARIO_NAMES))
    .addOption(
      new Option('--host-ms-per-request <ms>', "CPU the host-bound plan's stand-in input_fn spins per request, in ms").default(1).argParser((raw) => {
        const n = Number(raw);
        if (!(Number.isFinite(n) && n > 0 && n <= 50)) {
          throw new InvalidArgumentError(`--host-ms-per-request=${raw} must be a number of milliseconds above 0 and at most 50`);
        }
        return n;
      }),
    )
    .addOption(
      new Option('--stock-p99 <ms>', "the stock plan's p99 target in ms (the example app's: 10; a looser one leaves queueing less of the device limit)")
        .default(STOCK_P99_MS)
        .argParser((raw) => {
          const n = Number(raw);
          if (!(Number.isFinite(n) && n >= 2 && n <= 1000)) {
            throw new InvalidArgumentError(`--stock-p99=${raw} must be a number of milliseconds from 2 to 1000`);
          }
          return n;
        }),
    )
    .addOption(new Option('--no-hostile', 'skip the hostile-traffic step'))
    .parse();
  const { seconds, only, hostMsPerRequest, stockP99, hostile } = program.opts<{
    seconds: number;
    only?: ScenarioName;
    hostMsPerRequest: number;
    stockP99: number;
    hostile: boolean;
  }>();

  const started = Date.now();
  const loadBefore = os.loadavg();
  console.log(
    `bench:serving: the model server (${PYTHON} -m serving) with a sleeping device stand-in, driven open-loop by io/bench; ` +
      `${os.availableParallelism()} cores; load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}; ` +
      `steps of ${WARMUP_MS / 1000} s warm-up + ${seconds} s measured`,
  );
  const results: PlanResult[] = [];
  for (const scenario of scenarios(hostMsPerRequest, stockP99).filter((s) => only === undefined || s.name === only)) {
    const result = await measurePlan(scenario, seconds);
    results.push(result);
    console.log('');
    console.log(describePlan(result).join('\n'));
    console.log(stepTable(result));
  }
  console.log('');
  console.log(
    'columns: sent/s = requests the load generator sent per measured second (its schedule; lateness shows as lag); ' +
      'done/s = successful answers per second; batch = mean inputs per device call (server metrics Inputs / Batches); ' +
      'device ms = mean stand-in call (server metrics DeviceTime); CPU = server CPU per request, front end + workers; ' +
      'loadgen = the load generator process CPU (100% = one core) / its event-loop delay p99; other cores = CPU used by other processes on the machine',
  );
  console.log(`run: ${((Date.now() - started) / 1000).toFixed(0)} s; load average after ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (const r of results) {
    console.log(summary(r));
  }
  if (hostile) {
    console.log('');
    hostileStep(seconds);
  }
  const ratioOf = (r: PlanResult) => r.measuredCapacityRps / r.predictedCapacityRps;
  const [low, high] = GOAL_BAND;
  const verdicts = results.map((r) => {
    const ratio = ratioOf(r);
    const atPredicted = r.steps.find((s) => s.label === 'predicted');
    const p99 = atPredicted?.report.latencyMs.p99 ?? Infinity;
    const limitMs = atPredicted?.limitMs ?? r.plan.targets.p99Ms;
    const why =
      ratio < low ? 'below the band: the plan promises capacity the server does not hold'
      : ratio > high || r.atLeast ? 'above the band: the plan buys capacity it never uses'
      : p99 > limitMs ? `p99 ${p99.toFixed(2)} ms at the predicted rate is over the target ${r.plan.targets.p99Ms} ms + the floor's p99 (${limitMs.toFixed(2)} ms)`
      : undefined;
    return { r, ratio, why };
  });
  const missed = verdicts.filter((v) => v.why !== undefined);
  console.log(
    `goal ${low.toFixed(2)}-${high.toFixed(2)} for every plan, p99 at the predicted rate within the target + the machine's floor: ${missed.length === 0 ? 'MET' : 'MISSED'} (` +
      verdicts.map((v) => `${v.r.scenario.name} ${v.ratio.toFixed(2)}${v.why ? `: ${v.why}` : ''}`).join('; ') +
      '; the lowest ratio is the last line)',
  );
  for (const r of results) {
    console.log(
      `device-limit ratio ${r.scenario.name}: ${(r.measuredCapacityRps / r.deviceLimitRps).toFixed(2)} ` +
        `(${r.measuredCapacityRps} requests/s served within the target / ${r.deviceLimitRps.toFixed(0)} the device row computes on ` +
        `${r.layout.workers} worker(s); ${r.layout.frontEnds} front end(s); a server with no cost of its own would hold ` +
        `${r.queueingCeilingRps.toFixed(0)} (${(r.queueingCeilingRps / r.deviceLimitRps).toFixed(2)}) within the target in the ` +
        `planner's queueing model, and this one holds ${(r.measuredCapacityRps / r.queueingCeilingRps).toFixed(2)} of that)`,
    );
  }
  const lowest = Math.min(...verdicts.map((v) => v.ratio));
  console.log(`capacity ratio measured/predicted: ${lowest.toFixed(2)}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
