/**
 * One step of `npm run bench:serving` (bench/serving.ts): a rate held for a few seconds against the model server,
 * then against the machine's floor, with what could make the figure wrong (the load generator's CPU and lag, the
 * machine's other CPU use).
 */
import * as os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { runBenchmark } from '../io/bench';
import type { BenchReport } from '../lib/bench';
import { predictedP99Seconds } from '../lib/planner';
import type { ServingModel } from '../lib/planner';
import { machineBusySeconds, METRICS_INTERVAL_MS, type FloorServer, type ServerUnderTest } from './serving-server';

export const WARMUP_MS = 1000;
/** Per-request timeout of the load engine: far above any target, so a slow answer counts as slow, not as lost. */
const TIMEOUT_MS = 5000;
/** Sampling interval of the load generator's event-loop delay, in ms. */
const LOOP_SAMPLE_MS = 2;
const BODY = JSON.stringify({ inputs: [1.5] });

export interface Step {
  readonly label: string;
  readonly rateRps: number;
  readonly report: BenchReport;
  readonly predictedP99Ms: number;
  readonly passed: boolean;
  readonly frontEndCpuMs: number;
  readonly workerCpuMs: number;
  readonly meanBatch: number;
  readonly deviceMeanMs: number;
  /** The server's sampled device times (`DeviceTime`) of the step, in ms. */
  readonly deviceSamples: readonly number[];
  /** Median wait from arrival at the front end to the start of the request's device call (`QueueWait`), in ms. */
  readonly queueWaitP50Ms: number;
  /** Requests the load generator sent per second of the measured phase (due ones it could not send excluded). */
  readonly sentRps: number;
  readonly loadgenCpuPercent: number;
  readonly loopDelayP99Ms: number;
  /** CPU of everything else on the machine during the step, in cores. */
  readonly otherCores: number;
  readonly loadavg1: number;
  /** The model server's own p99 (its timing header, `server-ms`): the client's without HTTP, loopback and client. */
  readonly serverP99Ms: number;
  /** The machine's floor at the same rate: the p99 of a trivial server on the same loopback, same load generator. */
  readonly floorP99Ms: number;
  /** What the step's client p99 is judged against: the plan's target plus the floor. */
  readonly limitMs: number;
  /** Measured again (see `measurePlan`): shown, but the repeat counts. */
  readonly superseded?: boolean;
}

/** Seed of the next run's Poisson arrivals: every run draws its own, so a repeated step is a new sample. */
let nextSeed = 1;

/** One open-loop run of the load engine against the server, with the Poisson arrivals the planner sizes for. */
export function drive(server: { readonly url: string }, rateRps: number, durationMs: number, warmupMs = 0): Promise<BenchReport> {
  return runBenchmark({
    target: { kind: 'http', url: `${server.url}/invocations` },
    body: BODY,
    mode: { kind: 'open', rateRps, arrivals: 'poisson', seed: nextSeed++ },
    stop: { durationMs },
    warmupMs,
    timeoutMs: TIMEOUT_MS,
    serverTiming: true,
  });
}

/**
 * One step: the model server at `rateRps` for `seconds`, then the machine's floor at the same rate and length (the
 * same load generator against a trivial server), so the two see the machine alike. The step passes when no request
 * failed and the client p99 is within the target plus the floor's p99: the machine's own tail is not the server's.
 */
export async function runStep(
  server: ServerUnderTest,
  floor: FloorServer,
  label: string,
  rateRps: number,
  model: ServingModel,
  targetMs: number,
  seconds: number,
): Promise<Step> {
  const loop = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
  const cpuBefore = server.cpuSeconds();
  const loadgenBefore = process.cpuUsage();
  const machineBefore = machineBusySeconds();
  const wallBefore = Date.now();
  loop.enable();
  // Warm-up inside the same run: the engine's connection pool is opened during the warm-up, not in the measured phase.
  const report = await drive(server, rateRps, seconds * 1000, WARMUP_MS);
  loop.disable();
  const wallAfter = Date.now();
  const machineAfter = machineBusySeconds();
  const elapsedS = (wallAfter - wallBefore) / 1000;
  const cpuAfter = server.cpuSeconds();
  const loadgen = process.cpuUsage(loadgenBefore);
  const floorReport = await drive(floor, rateRps, seconds * 1000, WARMUP_MS);
  const floorP99Ms = floorReport.requests > floorReport.errors ? floorReport.latencyMs.p99 : NaN;
  const limitMs = targetMs + (Number.isFinite(floorP99Ms) ? floorP99Ms : 0);
  const loadgenS = (loadgen.user + loadgen.system) / 1e6;
  const serverS = cpuAfter.frontEnd - cpuBefore.frontEnd + (cpuAfter.workers - cpuBefore.workers);
  // Whole metric intervals inside the measured phase only.
  const measuredFrom = Date.parse(report.startedAt);
  const lines = server.metrics.filter((l) => l.timestamp - METRICS_INTERVAL_MS >= measuredFrom && l.timestamp <= measuredFrom + report.durationMs);
  const batches = lines.reduce((n, l) => n + l.batches, 0);
  const device = lines.flatMap((l) => l.deviceMs);
  // CPU covers the warm-up too: the open loop sends its warm-up requests on schedule, ceil(rate x warm-up) of them.
  const sent = report.requests + Math.ceil((rateRps * WARMUP_MS) / 1000);
  const perRequestMs = (s: number, requests: number) => (requests > 0 ? (s * 1000) / requests : NaN);
  // The front end reads every request, the workers only those it does not refuse (503s, timeouts): their CPU is per
  // request answered, the warm-up's counted in the measured phase's share, or an overloaded calibration step would
  // spread the workers' CPU over requests they never saw and under-charge the host work.
  const answeredShare = report.requests > 0 ? (report.requests - report.errors) / report.requests : 0;
  const answered = sent * answeredShare;
  return {
    label,
    rateRps,
    report,
    predictedP99Ms: predictedP99Seconds(model, rateRps) * 1000,
    passed: report.errors === 0 && report.requests > 0 && report.latencyMs.p99 <= limitMs,
    serverP99Ms: report.server?.latencyMs.p99 ?? NaN,
    floorP99Ms,
    limitMs,
    frontEndCpuMs: perRequestMs(cpuAfter.frontEnd - cpuBefore.frontEnd, sent),
    workerCpuMs: perRequestMs(cpuAfter.workers - cpuBefore.workers, answered),
    meanBatch: batches > 0 ? lines.reduce((n, l) => n + l.inputs, 0) / batches : NaN,
    deviceMeanMs: device.length > 0 ? device.reduce((a, b) => a + b, 0) / device.length : NaN,
    deviceSamples: device,
    queueWaitP50Ms: median(lines.flatMap((l) => l.queueWaitMs)),
    sentRps: (report.requests - (report.errorsByKind.backpressure ?? 0)) / seconds,
    loadgenCpuPercent: (100 * loadgenS) / elapsedS,
    // The histogram holds whole intervals between samples: the lag is what exceeds the sampling interval.
    loopDelayP99Ms: Math.max(0, loop.percentile(99) / 1e6 - LOOP_SAMPLE_MS),
    otherCores: Math.max(0, (machineAfter - machineBefore - serverS - loadgenS) / elapsedS),
    loadavg1: os.loadavg()[0],
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length > 0 ? sorted[Math.floor(sorted.length / 2)] : NaN;
}
