/**
 * `npm run bench:generative`: does a replica hold what the token planner says it holds, when a real streaming
 * client drives a real continuous-batching process?
 *
 * For each case it plans a built-in profile with `planGenerative`, starts the vLLM stand-in (bench/vllm-standin)
 * with the timings the plan used (its `measurement` rows read through the planner's `engineTiming`: decode step,
 * prefill per token and floor, `max_num_seqs`), and drives one replica open-loop with `runTokenLoad` (Poisson
 * arrivals, the plan's input and output lengths, streamed, TTFT at the first token and TPOT over the rest):
 * - at the rate the plan gives each replica at the target, to set measured TTFT and TPOT p99 beside the predicted;
 * - around the capacity the plan claims per replica, to find the highest rate whose measured p99 TTFT and TPOT stay
 *   within the targets with no errors (the measured capacity).
 *
 * Time is scaled down by each case's K so the run takes minutes: every engine duration is divided by K (the
 * stand-in's `--slowdown 1/K`) and every rate multiplied by K, which keeps every ratio of the queueing (utilisation,
 * requests in flight, prefill share); measured latencies are multiplied back by K before they are compared with the
 * plan, and rates divided by K. The target rate is measured over BENCH_REQUESTS (default 200) requests on one
 * stand-in. The capacity search measures only points that decide it, each over BENCH_BOUNDARY_REQUESTS (default
 * 1800, split over BENCH_REPLICAS = 4 stand-ins side by side, their histograms merged exactly, so a boundary p99
 * rests on 18 requests): the predicted capacity and 10 % above it at once, then two at a time 10 % steps outward
 * until one rate holds and one misses, then their middle over all 8 stand-ins: resolution 5 %. Each stand-in warms
 * up on the longer of a tenth of its requests and three predicted end-to-end p99s before it is measured. The
 * capacity is stated at the rate the Poisson draw offered in the measured window.
 *
 * What the run costs is wall time, not CPU (a stand-in and its client spend about 20 us per streamed token; a case
 * is a few hundred thousand tokens): measuring the two bracketing points at once, and the target rate beside them,
 * halves it, and the coarse search of short points that only pointed at the boundary is gone.
 *
 * Prints `token capacity ratio measured/predicted: X` for each case, and last for the case farthest from 1.
 * Goal: 0.95 to 1.15.
 */
import * as os from 'node:os';
import { request } from 'undici';
import { runTokenLoad } from '../io/bench/token-stream';
import { mergeTokenRuns } from '../lib/bench/token-merge';
import type { TokenMeasurement } from '../lib/bench/token-proof';
import { findGenerativeProfile, planGenerative, type GenerativePlan, type GenerativePlanOptions, type GenerativeTargets } from '../lib/generative';
import { caseListEnv, positiveIntegerEnv, readBenchEnv } from './env';
import { spawnStandin } from './vllm-standin/spawn';
import { standinTimingOfPlan } from './vllm-standin/timing';
import { formatPrefillBuckets } from './vllm-standin/engine';

const REQUESTS = readBenchEnv(() => positiveIntegerEnv(process.env, 'BENCH_REQUESTS', 200));
/**
 * Requests per point near the capacity boundary. A p99 over 200 requests is their third largest, and over a short run
 * from an empty engine it runs low: the replay of case 1's plan at its capacity gives TPOT p99 49.5 to 63.6 ms over
 * 12 runs of 240 requests, 57.7 to 58.9 over 20,000. Near the boundary the bench measures this many, split over
 * BENCH_REPLICAS stand-ins driven side by side at the per-replica rate (as a deployment's replicas run), their
 * histograms merged exactly.
 */
const BOUNDARY_REQUESTS = readBenchEnv(() => positiveIntegerEnv(process.env, 'BENCH_BOUNDARY_REQUESTS', 1800));
/**
 * Stand-ins one boundary point drives side by side. Two boundary points run at once (one below the boundary, one
 * above), and the bisection's last point drives both sets: 2 x this many stand-ins, plus one for the target rate.
 */
const REPLICAS = readBenchEnv(() => positiveIntegerEnv(process.env, 'BENCH_REPLICAS', 4));
/** Seed of the first stand-in's drawn lengths (the others: the next seeds). */
const LENGTH_SEED = 101;
/** Steps of the capacity search, as fractions of the predicted capacity, up or down from it. */
const SEARCH_STEP = 0.1;
const SEARCH_STEPS = 5;

interface Case {
  readonly label: string;
  /**
   * Time scale: engine durations divided by it, rates multiplied. The stand-in's engine runs on a virtual clock, so a
   * late timer delays a token but not the engine; what a late token moves is the measurement: TTFT by the lateness
   * times K (1 ms at K = 12 is 12 ms of a 2 s target, 0.6 %), TPOT by the lateness over the answer's tokens (TPOT
   * counts from the first token to the last). K keeps the scaled decode step at 2 ms or more, where the timers'
   * 1 ms granularity is half a step at worst and each token's write (about 10 us) a small share of it.
   */
  readonly timeScale: number;
  readonly profileId: string;
  readonly targets: GenerativeTargets;
  readonly options: GenerativePlanOptions;
}

const CASES: Case[] = [
  {
    label: 'llama-3.1-8b-instruct, 1024 in / 256 out, TTFT p99 2 s, TPOT p99 60 ms, SageMaker on inf2',
    timeScale: 12,
    profileId: 'llama-3.1-8b-instruct',
    targets: { requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60 },
    options: { region: 'us-east-1', hosting: 'sagemaker', instanceTypes: ['inf2.xlarge', 'inf2.8xlarge', 'inf2.24xlarge', 'inf2.48xlarge'] },
  },
  {
    label: 'llama-3.1-8b-instruct, 512 in / 128 out, TTFT p99 1 s, TPOT p99 35 ms, EC2',
    timeScale: 8,
    profileId: 'llama-3.1-8b-instruct',
    targets: { requestsPerSecond: 5, inputTokens: { mean: 512 }, outputTokens: { mean: 128 }, ttftP99Ms: 1000, tpotP99Ms: 35 },
    options: { region: 'us-east-1', hosting: 'ec2' },
  },
];

interface Point {
  /** The rate asked for. */
  readonly ratePerReplica: number;
  /**
   * The rate the Poisson draw actually offered in the measured window: a seed's 600 arrivals can be 641, and the
   * capacity found is stated at the rate the engine faced.
   */
  readonly offeredPerReplica: number;
  readonly report: TokenMeasurement;
  readonly ttftP99Ms: number;
  readonly tpotP99Ms: number;
  readonly holds: boolean;
}

function fmt(n: number, digits = 3): string {
  return n.toFixed(digits);
}

async function runCase(c: Case): Promise<number> {
  const profile = findGenerativeProfile(c.profileId);
  if (profile === undefined) {
    throw new Error(`no built-in profile ${c.profileId}`);
  }
  const plan: GenerativePlan = planGenerative(profile, c.targets, c.options);
  const g = plan.generative;
  const K = c.timeScale;
  const timing = standinTimingOfPlan(plan, 1 / K);
  const replicas = plan.instanceCount * g.replicasPerInstance;
  const targetRatePerReplica = c.targets.requestsPerSecond / replicas;
  console.log(`\n== ${c.label}`);
  console.log(
    `plan: ${plan.instanceCount} x ${plan.instanceType}, ${g.replicasPerInstance} replica(s) each, tp=${g.tensorParallelDegree} ` +
      `max_num_seqs=${g.maxConcurrentSequences}; step ${fmt(timing.stepMs, 2)} ms, prefill ` +
      (timing.prefillBuckets !== undefined
        ? `per prompt bucket ${timing.prefillBuckets.map((b) => `${b.tokens}: ${fmt(b.ms, 1)} ms`).join(', ')}; `
        : `max(${fmt(timing.prefillFloorMs, 1)} ms, ${fmt(timing.prefillMsPerToken, 4)} ms/token) = ` +
          `${fmt(Math.max(timing.prefillFloorMs, timing.prefillMsPerToken * c.targets.inputTokens.mean), 1)} ms; `) +
      `time scaled down ${K}x`,
  );
  if (g.lengths !== undefined) {
    const l = g.lengths;
    console.log(
      `lengths drawn per request (seeds ${LENGTH_SEED}..${LENGTH_SEED + 2 * REPLICAS}): input lognormal mean ${l.input.mean} p99 ${l.input.p99} (${l.input.spread}), ` +
        `output mean ${l.output.mean} p99 ${l.output.p99} (${l.output.spread}); ${l.input.source}`,
    );
  }
  const args = [
    '--max-num-seqs', String(timing.maxNumSeqs),
    '--step-ms', String(timing.stepMs),
    '--prefill-ms-per-token', String(timing.prefillMsPerToken),
    '--prefill-floor-ms', String(timing.prefillFloorMs),
    ...(timing.prefillBuckets !== undefined ? ['--prefill-buckets', formatPrefillBuckets(timing.prefillBuckets)] : []),
    '--slowdown', String(1 / K),
    '--max-model-len', String(g.maxModelLength),
  ];
  // One stand-in for the target rate, two sets for the two boundary points measured at once.
  const standins = await Promise.all(Array.from({ length: 1 + 2 * REPLICAS }, () => spawnStandin(args)));
  const alone = standins.slice(0, 1);
  const below = standins.slice(1, 1 + REPLICAS);
  const above = standins.slice(1 + REPLICAS);
  const points: Point[] = [];
  const lostSeconds = async (url: string): Promise<number> => {
    const text = await (await request(`${url}/metrics`)).body.text();
    return Number(/^standin:clock_lost_seconds_total\{[^}]*\} (\S+)$/m.exec(text)?.[1] ?? NaN);
  };
  // A point where a stand-in lost more than this share of its time to host stalls measured the host, not the
  // plan: it is run again once, and flagged if it stalls again.
  const maxLostShare = 0.02;
  // The engine reaches its steady state within a few end-to-end latencies: the warm-up is the longer of a tenth of
  // the point's requests and three predicted end-to-end p99s.
  const warmupPlanSeconds = (3 * g.predictedE2eP99Ms) / 1000;
  const measure = async (ratePerReplica: number, used: typeof standins, requests: number, retry = true): Promise<Point> => {
    const rate = ratePerReplica * K;
    const perStandin = requests / used.length;
    const lostBefore = await Promise.all(used.map((st) => lostSeconds(st.url)));
    const started = performance.now();
    const reports = await Promise.all(used.map((st, i) => runTokenLoad(
      { kind: 'http', url: st.url },
      {
        ratePerSecond: rate,
        durationSeconds: perStandin / rate,
        warmupSeconds: Math.max(perStandin / 10 / rate, warmupPlanSeconds / K),
        inputTokens: c.targets.inputTokens.mean,
        outputTokens: c.targets.outputTokens.mean,
        // Each request's prompt and output drawn from the plan's distributions, as the planner's replay draws them.
        ...(g.lengths !== undefined ? { lengths: g.lengths, lengthSeed: LENGTH_SEED + i, maxModelLength: g.maxModelLength } : {}),
        seed: 11 + i,
      },
    )));
    const seconds = (performance.now() - started) / 1000;
    const lostAfter = await Promise.all(used.map((st) => lostSeconds(st.url)));
    const lostShare = Math.max(...lostAfter.map((after, i) => (after - lostBefore[i]) / seconds));
    const report = mergeTokenRuns(reports);
    const ttftP99Ms = report.ttftMs.p99 * K;
    const tpotP99Ms = report.tpotMs.p99 * K;
    const holds = report.errors === 0 && ttftP99Ms <= c.targets.ttftP99Ms && tpotP99Ms <= c.targets.tpotP99Ms;
    const offeredPerReplica = report.offeredRps / used.length / K;
    const point = { ratePerReplica, offeredPerReplica, report, ttftP99Ms, tpotP99Ms, holds };
    if (lostShare > maxLostShare && retry) {
      console.log(`  ${fmt(ratePerReplica)} req/s/replica: a stand-in lost ${fmt(100 * lostShare, 1)} % of its time to host stalls; measuring again`);
      return measure(ratePerReplica, used, requests, false);
    }
    points.push(point);
    console.log(
      `  ${fmt(ratePerReplica)} req/s/replica (offered ${fmt(offeredPerReplica)}): TTFT p99 ${fmt(ttftP99Ms, 0)} ms, TPOT p99 ${fmt(tpotP99Ms, 1)} ms, ` +
        `${fmt(report.achievedRps / used.length / K)} req/s achieved, ${fmt(report.outputTokensPerSecond / used.length / K, 1)} output tok/s, ` +
        `${report.requests - report.errors}/${report.requests} ok over ${used.length} stand-in(s)${report.errors > 0 ? `, errors ${JSON.stringify(report.errorsByKind)}` : ''}, ` +
        `stand-ins lost at most ${fmt(100 * lostShare, 1)} % of their time to host stalls${lostShare > maxLostShare ? ' (HOST-STALLED: measures the machine)' : ''} -> ${holds ? 'holds' : 'misses'}`,
    );
    return point;
  };
  try {
    // The decisive points only, each over BOUNDARY_REQUESTS: the predicted capacity and one step above it, measured at
    // once (with the target rate beside them); then, two at a time, the next steps outward until one holds and one
    // misses; then the middle of the last pass and the first miss, over both sets of stand-ins.
    const step = g.capacityPerReplicaRps * SEARCH_STEP;
    const [atTarget, first, second] = await Promise.all([
      measure(targetRatePerReplica, alone, REQUESTS),
      measure(g.capacityPerReplicaRps, below, BOUNDARY_REQUESTS),
      measure(g.capacityPerReplicaRps + step, above, BOUNDARY_REQUESTS),
    ]);
    let pass = first.holds ? (second.holds ? second.ratePerReplica : first.ratePerReplica) : 0;
    let fail = !first.holds ? first.ratePerReplica : !second.holds ? second.ratePerReplica : Infinity;
    // Both held: step up from the higher; both missed (or the lower missed): step down from the lower.
    for (let i = 0; i < SEARCH_STEPS && (pass === 0 || !Number.isFinite(fail)); i += 2) {
      const up = pass > 0;
      const from = up ? pass : fail;
      const rates = [from + (up ? 1 : -1) * step, from + (up ? 2 : -2) * step].filter((r) => r > 0);
      if (rates.length === 0) {
        break;
      }
      const measured = await Promise.all(rates.map((r, j) => measure(r, j === 0 ? below : above, BOUNDARY_REQUESTS)));
      for (const p of measured) {
        if (p.holds) {
          pass = Math.max(pass, p.ratePerReplica);
        } else {
          fail = Math.min(fail, p.ratePerReplica);
        }
      }
      // A miss below a pass (the noise of two p99s at nearly one rate): the boundary is below the miss.
      if (pass > fail) {
        pass = Math.max(0, ...points.filter((p) => p.holds && p.ratePerReplica < fail).map((p) => p.ratePerReplica));
      }
    }
    if (pass > 0 && Number.isFinite(fail)) {
      const p = await measure((pass + fail) / 2, [...below, ...above], BOUNDARY_REQUESTS);
      if (p.holds) {
        pass = p.ratePerReplica;
      } else {
        fail = p.ratePerReplica;
      }
    }
    // Stated at the rate the highest holding point's engine faced (its last, longest measurement at that rate).
    const held = points.filter((p) => p.holds && p.ratePerReplica === pass).pop();
    const asked = pass;
    pass = held?.offeredPerReplica ?? pass;
    const ratio = pass / g.capacityPerReplicaRps;
    console.log(`at the target rate (${fmt(targetRatePerReplica)} req/s/replica):`);
    console.log(`  TTFT p99 measured ${fmt(atTarget.ttftP99Ms, 0)} ms vs predicted ${fmt(g.predictedTtftP99Ms, 0)} ms (target ${c.targets.ttftP99Ms})`);
    console.log(`  TPOT p99 measured ${fmt(atTarget.tpotP99Ms, 1)} ms vs predicted ${fmt(g.predictedTpotP99Ms, 1)} ms (target ${c.targets.tpotP99Ms})`);
    console.log(
      `capacity per replica: measured ${fmt(pass)} req/s offered (${fmt(asked)} asked; ${fmt(pass * c.targets.outputTokens.mean, 1)} output tok/s) vs predicted ` +
        `${fmt(g.capacityPerReplicaRps)} req/s (${fmt(g.capacityOutputTokensPerSecondPerReplica, 1)} output tok/s)` +
        `${Number.isFinite(fail) ? `; first miss at ${fmt(fail)}` : '; no miss up to the sweep end'}`,
    );
    console.log(`token capacity ratio measured/predicted (${c.profileId}): ${fmt(ratio)}`);
    return ratio;
  } finally {
    await Promise.all(standins.map((st) => st.close()));
  }
}

async function main(): Promise<void> {
  // BENCH_CASES=2 (1-based, comma-separated) runs a subset.
  const only = readBenchEnv(() => caseListEnv(process.env, 'BENCH_CASES', CASES.length))?.map((n) => CASES[n - 1]);
  console.log(
    `bench:generative: the vLLM stand-in engine driven open-loop vs the token planner; ${REQUESTS} measured requests per point ` +
      `(after ${REQUESTS / 5} warm-up), ${BOUNDARY_REQUESTS} near the boundary over ${REPLICAS} stand-ins; a shared, loaded machine (${os.loadavg()[0].toFixed(1)} load average on ${os.cpus().length} cores)`,
  );
  const ratios: number[] = [];
  for (const c of only ?? CASES) {
    ratios.push(await runCase(c));
  }
  const worst = ratios.reduce((a, b) => (Math.abs(Math.log(b)) > Math.abs(Math.log(a)) ? b : a));
  console.log(`\ncases: ${ratios.map((r) => fmt(r)).join(', ')} (the line below is the case farthest from 1)`);
  console.log(`token capacity ratio measured/predicted: ${fmt(worst)}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
