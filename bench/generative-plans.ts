/**
 * The generative half of `npm run bench:plans`: plans every built-in generative profile over a grid of targets, then
 * replays each chosen plan's replica in the discrete-event simulation of continuous batching
 * (`simulateGenerativeReplica`: Poisson arrivals, token lengths drawn from the targets' distributions, at most N
 * sequences, prefills stopping decode) at the rate the plan gives each replica at the target, and at the capacity it
 * claims. It prints predicted against simulated TTFT and TPOT p99, and the planned capacity per replica against the
 * highest rate the replay holds within every target. Beside the SageMaker grid in us-east-1, a few Trn2 cases on EC2 in
 * us-east-2 (`TRN2_CASES`) replay large tensor-parallel degrees with few sequences and the plugin's EAGLE3.
 *
 * Goals: `generative plans over target: 0 of M` (no plan's replica misses a target at the target rate, nor at the
 * capacity the plan claims) and no plan holding back more than 25 % of what the replay holds.
 */
import { InfeasibleError } from '../lib/errors';
import { builtInGenerativeProfiles, findGenerativeProfile, meetsTargets, planTiming, perOutputTokenMs, planGenerativeReport, simulateGenerativeReplica } from '../lib/generative';
import type { GenerativePlan, GenerativeProfile, GenerativeTargets } from '../lib/generative';

const THROUGHPUTS = [0.5, 5, 50];
const TTFT_TARGETS_MS = [1000, 5000];
const TPOT_FACTORS = [1.3, 3];

/**
 * Plans the SageMaker grid in us-east-1 never makes, since Trn2 has no price there: large tensor-parallel degrees with
 * few sequences (Llama 3.3 70B on trn2.48xlarge, TP 16 to 64) and the vLLM Neuron plugin's EAGLE3 (Llama 3.1 8B on
 * Trn2, the one lever a published row measured on a deployed stack), on EC2 in us-east-2 where Trn2 is priced. Each
 * case is one group of its profile, after the grid's.
 */
const TRN2_CASES: readonly { readonly profileId: string; readonly ttftP99Ms: number; readonly tpotP99Ms: number; readonly throughputs: readonly number[] }[] = [
  { profileId: 'llama-3.3-70b-instruct', ttftP99Ms: 10000, tpotP99Ms: 100, throughputs: [1.2, 6] },
  { profileId: 'llama-3.3-70b-instruct', ttftP99Ms: 2000, tpotP99Ms: 40, throughputs: [1.2, 6] },
  { profileId: 'llama-3.1-8b-instruct', ttftP99Ms: 2000, tpotP99Ms: 30, throughputs: [2, 20] },
];
const TRN2_LENGTHS: Pick<GenerativeTargets, 'inputTokens' | 'outputTokens'> = { inputTokens: { mean: 1024 }, outputTokens: { mean: 256 } };

/** One replayed plan, as the worker that replayed it hands it back: its line and the figures the summary needs. */
export interface GenerativeRow {
  /** Its place in the printed order within its profile. */
  readonly order: number;
  readonly label: string;
  /** The plan and what its replays measured, one line. */
  readonly line: string;
  /** True when the replay missed a target at the target rate or at the claimed capacity. */
  readonly over: boolean;
  /** Planned capacity per replica over the highest rate the replay holds (NaN with `quick`). */
  readonly share: number;
  readonly slots: number;
}

/** The rows of one profile's grid, and the grid points no deployment meets. */
export interface GenerativeProfileRows {
  readonly rows: GenerativeRow[];
  readonly infeasible: number;
}

/** Lengths the grid uses for a profile: its longest measured row's, fixed, and a spread with that as the p99. */
function lengthGrid(profile: GenerativeProfile): Pick<GenerativeTargets, 'inputTokens' | 'outputTokens'>[] {
  const longest = [...profile.measurements].sort((a, b) => b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens))[0];
  return [
    { inputTokens: { mean: longest.inputTokens }, outputTokens: { mean: longest.outputTokens } },
    {
      inputTokens: { mean: Math.ceil(longest.inputTokens / 2), p99: longest.inputTokens },
      outputTokens: { mean: Math.ceil(longest.outputTokens / 2), p99: longest.outputTokens },
    },
  ];
}

function replay(plan: GenerativePlan, rate: number, requests: number, seed: number) {
  // Measured rows, or the performance model's timing for an ESTIMATE plan: the replay runs what the plan priced.
  const timing = planTiming(findGenerativeProfile(plan.profileId) as GenerativeProfile, plan);
  return simulateGenerativeReplica({ timing, targets: plan.targets, requestsPerSecond: rate, requests, maxModelLength: plan.generative.maxModelLength, seed });
}

function holds(plan: GenerativePlan, result: ReturnType<typeof simulateGenerativeReplica>): boolean {
  return meetsTargets({ stable: true, ttftP99Ms: result.ttftP99Ms, tpotP99Ms: result.tpotP99Ms, e2eP99Ms: result.e2eP99Ms, meanRunning: 0, prefillUtilization: 0 }, plan.targets);
}

const capacities = new Map<string, number>();

/**
 * Highest rate per replica the replay holds within every target, over replays three times as long as the ones that
 * check the plan: a p99 over 4,000 requests rests on 36 of them and put one-slot capacities 10 to 20 % off, and one
 * seed's p99 over 20,000 still scatters by 5 % between seeds. Plans of the grid that differ only in throughput share
 * one replica configuration and are searched once.
 */
function simulatedCapacity(plan: GenerativePlan, requests: number): number {
  const g = plan.generative;
  const t = plan.targets;
  const key = JSON.stringify([g.measurement, g.estimate, g.engine, plan.instance.family, g.maxConcurrentSequences, g.maxModelLength, t.inputTokens, t.outputTokens, t.ttftP99Ms, t.tpotP99Ms, t.e2eP99Ms, requests]);
  const known = capacities.get(key);
  if (known !== undefined) {
    return known;
  }
  const found = searchCapacity(g.capacityPerReplicaRps, Infinity, (rate) => holds(plan, replay(plan, rate, 3 * requests, 7)));
  capacities.set(key, found);
  return found;
}

/** Relative width the capacity search stops at: 0.2 %, a tenth of the 0.01 the shares are printed to. */
const SEARCH_RESOLUTION = 0.002;
/** Factor the search's first bracket steps by from the planned capacity. */
const SEARCH_BRACKET = 1.15;

/**
 * Highest rate (below `ceiling`) at which `holds` is true, found from the plan's own capacity: the model's figure is
 * within a few per cent of the boundary for nearly every plan, so the search brackets it by 15 % steps up or down
 * from there, then bisects to `SEARCH_RESOLUTION`. About 9 replays where bisecting from zero to three times the
 * planned capacity took 14, at the same replay length (the statistical power of each point is unchanged).
 */
export function searchCapacity(planned: number, ceiling: number, holds: (rate: number) => boolean): number {
  let low = 0;
  let high = ceiling;
  let probe = Math.min(Math.max(planned, 1e-6), ceiling);
  if (holds(probe)) {
    low = probe;
    for (probe = Math.min(ceiling, low * SEARCH_BRACKET); probe < ceiling && holds(probe); probe = Math.min(ceiling, low * SEARCH_BRACKET)) {
      low = probe;
    }
    high = probe;
  } else {
    high = probe;
    for (probe = high / SEARCH_BRACKET; probe > planned * 1e-3 && !holds(probe); probe = high / SEARCH_BRACKET) {
      high = probe;
    }
    low = probe > planned * 1e-3 ? probe : 0;
  }
  while (high - low > SEARCH_RESOLUTION * high) {
    const mid = (low + high) / 2;
    if (holds(mid)) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return low;
}

/** The grid's groups of a profile (lengths x TTFT targets x TPOT factors). */
function gridGroups(profile: GenerativeProfile): number {
  return lengthGrid(profile).length * TTFT_TARGETS_MS.length * TPOT_FACTORS.length;
}

/** The Trn2 cases of a profile, in order. */
function trn2Cases(profile: GenerativeProfile): typeof TRN2_CASES {
  return TRN2_CASES.filter((c) => c.profileId === profile.id);
}

/** Groups of a profile's grid: plans of one group differ only in throughput and share one replica configuration. */
export function generativeGroups(index: number): number {
  const profile = builtInGenerativeProfiles()[index];
  return gridGroups(profile) + trn2Cases(profile).length;
}

/**
 * Plans and replays one group of a generative profile's grid (the index into the built-in generative profiles, and
 * the group: lengths, TTFT target and TPOT factor, crossed with every throughput): a worker thread's unit of work,
 * small enough that the pool stays balanced, whole enough that its plans share their capacity search.
 */
export function replayGenerativeGroup(index: number, group: number, options: { readonly quick: boolean; readonly requests: number }): GenerativeProfileRows {
  const profile = builtInGenerativeProfiles()[index];
  if (group >= gridGroups(profile)) {
    return replayTrn2Case(profile, group - gridGroups(profile), gridGroups(profile) * THROUGHPUTS.length, options);
  }
  const rows: GenerativeRow[] = [];
  let infeasible = 0;
  // TPOT targets around the profile's median per-token time, so both tight and loose targets meet priced rows.
  const perToken = profile.measurements.map((m) => perOutputTokenMs(m)).sort((a, b) => a - b);
  const typical = perToken[Math.floor(perToken.length / 2)];
  const li = Math.floor(group / (TTFT_TARGETS_MS.length * TPOT_FACTORS.length));
  const ti = Math.floor(group / TPOT_FACTORS.length) % TTFT_TARGETS_MS.length;
  const fi = group % TPOT_FACTORS.length;
  const lengths = lengthGrid(profile)[li];
  const ttftP99Ms = TTFT_TARGETS_MS[ti];
  const factor = TPOT_FACTORS[fi];
  THROUGHPUTS.forEach((requestsPerSecond, ri) => {
    // Where the row goes in the printed order: lengths, then throughput, then TTFT target, then TPOT factor.
    const order = ((li * THROUGHPUTS.length + ri) * TTFT_TARGETS_MS.length + ti) * TPOT_FACTORS.length + fi;
    const targets: GenerativeTargets = { requestsPerSecond, ...lengths, ttftP99Ms, tpotP99Ms: Math.round(typical * factor * 10) / 10 };
    let plan: GenerativePlan;
    try {
      plan = planGenerativeReport(profile, targets, { region: 'us-east-1', hosting: 'sagemaker', headroom: 0 }).chosen;
    } catch (e) {
      if (!(e instanceof InfeasibleError)) throw e;
      infeasible++;
      return;
    }
    const label = `${profile.id} ${requestsPerSecond} rps in ${lengths.inputTokens.mean}${lengths.inputTokens.p99 ? `/p99 ${lengths.inputTokens.p99}` : ''} ` +
      `out ${lengths.outputTokens.mean}${lengths.outputTokens.p99 ? `/p99 ${lengths.outputTokens.p99}` : ''} TTFT ${ttftP99Ms} TPOT ${targets.tpotP99Ms}`;
    rows.push(replayRow(order, label, plan, options));
  });
  return { rows, infeasible };
}

/** One Trn2 case of a profile (`TRN2_CASES`), at each of its rates: rows printed after the profile's grid (`first`). */
function replayTrn2Case(profile: GenerativeProfile, index: number, first: number, options: { readonly quick: boolean; readonly requests: number }): GenerativeProfileRows {
  const c = trn2Cases(profile)[index];
  const rows: GenerativeRow[] = [];
  let infeasible = 0;
  c.throughputs.forEach((requestsPerSecond, ri) => {
    const targets: GenerativeTargets = { requestsPerSecond, ...TRN2_LENGTHS, ttftP99Ms: c.ttftP99Ms, tpotP99Ms: c.tpotP99Ms };
    let plan: GenerativePlan;
    try {
      plan = planGenerativeReport(profile, targets, { region: 'us-east-2', hosting: 'ec2', headroom: 0, instanceTypes: ['trn2.48xlarge'] }).chosen;
    } catch (e) {
      if (!(e instanceof InfeasibleError)) throw e;
      infeasible++;
      return;
    }
    const label = `${profile.id} trn2 ${requestsPerSecond} rps in ${TRN2_LENGTHS.inputTokens.mean} out ${TRN2_LENGTHS.outputTokens.mean} TTFT ${c.ttftP99Ms} TPOT ${c.tpotP99Ms}`;
    rows.push(replayRow(first + index * 10 + ri, label, plan, options));
  });
  return { rows, infeasible };
}

/** A plan replayed at the target rate and at its claimed capacity, and (without `quick`) its simulated capacity. */
function replayRow(order: number, label: string, plan: GenerativePlan, options: { readonly quick: boolean; readonly requests: number }): GenerativeRow {
  const g = plan.generative;
  const perReplica = plan.targets.requestsPerSecond / (plan.instanceCount * g.replicasPerInstance);
  const atTarget = replay(plan, perReplica, options.requests, 1);
  const atCapacity = replay(plan, g.capacityPerReplicaRps, options.requests, 3);
  const simulatedCapacityRps = options.quick ? NaN : simulatedCapacity(plan, options.requests);
  const levers = g.engine.levers ? ` levers ${Object.keys(g.engine.levers).join('+')}` : '';
  return {
    order,
    label,
    over: !holds(plan, atTarget) || !holds(plan, atCapacity),
    share: g.capacityPerReplicaRps / simulatedCapacityRps,
    slots: g.maxConcurrentSequences,
    line:
      `${label}: ${plan.instanceCount} x ${plan.instanceType} ${g.replicasPerInstance}x tp${g.tensorParallelDegree} seqs ${g.maxConcurrentSequences}${levers}; ` +
      `TTFT p99 predicted ${g.predictedTtftP99Ms} simulated ${atTarget.ttftP99Ms.toFixed(1)} ms, TPOT p99 predicted ${g.predictedTpotP99Ms} simulated ${atTarget.tpotP99Ms.toFixed(2)} ms; ` +
      `capacity/replica planned ${g.capacityPerReplicaRps}` + (Number.isNaN(simulatedCapacityRps) ? '' : ` simulated ${simulatedCapacityRps.toFixed(4)}`) + ' requests/s',
  };
}

/** Prints the replayed rows (only those over target with `quick`) and the summary lines; returns the count over target. */
export function printGenerativeRows(profiles: readonly GenerativeProfileRows[], options: { readonly quick: boolean; readonly requests: number }): { over: number; total: number } {
  const rows = profiles.flatMap((p) => [...p.rows].sort((a, b) => a.order - b.order));
  const infeasible = profiles.reduce((n, p) => n + p.infeasible, 0);
  for (const r of options.quick ? rows.filter((row) => row.over) : rows) {
    console.log(`${r.over ? 'OVER ' : '     '}${r.line}`);
  }
  if (!options.quick && rows.length > 0) {
    const shares = rows.map((r) => r.share).filter(Number.isFinite).sort((a, b) => a - b);
    const at = (q: number) => shares[Math.min(shares.length - 1, Math.floor(q * shares.length))].toFixed(2);
    const wasteful = shares.filter((s) => s < 0.75).length;
    const lowest = rows.reduce((a, b) => (b.share < a.share ? b : a));
    console.log(`generative planned / simulated capacity per replica: min ${at(0)}, median ${at(0.5)}, max ${at(1)}; holding back more than 25 %: ${wasteful} of ${shares.length}`);
    // Where few requests wait (one slot, a TTFT target below one hold), the tail past the target grows in proportion
    // to the load, so the model's margin (predictedQuantile) costs that share of capacity, however exact the model.
    console.log(
      `lowest share: ${lowest.label}, ${lowest.slots} slot(s)` +
        (lowest.slots === 1
          ? '; one slot at a TTFT target below one hold: the share of requests past the target grows in proportion to the load, so predicting at 99.2 % rather than 99 % (a fifth of the tail kept for the replay\'s noise) costs a fifth of the capacity'
          : ''),
    );
  }
  console.log(`${rows.length} generative plans (${infeasible} grid points infeasible) replayed with ${options.requests} requests each`);
  return { over: rows.filter((r) => r.over).length, total: rows.length };
}

if (require.main === module) {
  const options = { quick: process.argv.includes('--quick'), requests: 20000 };
  const groups = builtInGenerativeProfiles().map((_, i) => Array.from({ length: generativeGroups(i) }, (__, g) => replayGenerativeGroup(i, g, options)));
  const profiles = groups.map((parts) => ({ rows: parts.flatMap((p) => p.rows), infeasible: parts.reduce((n, p) => n + p.infeasible, 0) }));
  const { over, total } = printGenerativeRows(profiles, options);
  console.log(`generative plans over target: ${over} of ${total}`);
}
