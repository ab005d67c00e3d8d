/**
 * What `npm run bench:serving` (bench/serving.ts) measures and prints: the plans, their steps and the figures judged.
 */
import * as os from 'node:os';
import Table from 'cli-table3';
import { SERVER_PATH_MS } from '../lib/planner';
import type { Plan, PlanTargets, ServingMode } from '../lib/planner';
import { MODEL_SERVER_ENV } from '../lib/serving';
import type { ScaledLayout } from './serving-server';
import type { Step } from './serving-step';

export const PROFILE_ID = 'bert-base-uncased';
/** Other processes' CPU, in cores, above which a step is marked contended (the machine has other users). */
export const CONTENDED_CORES = 0.5;

export const SCENARIO_NAMES = ['batching', 'stock', 'host-bound'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** One plan to measure: the targets it is planned for, and why this one. */
export interface Scenario {
  readonly name: ScenarioName;
  readonly serving: ServingMode;
  readonly targets: PlanTargets;
  readonly why: string;
  /**
   * CPU milliseconds the stand-in's `input_fn` spins per request, also the profile's `hostCpuMsPerRequest` the plan is
   * made with. @default - no spinning; the profile's own figure
   */
  readonly standInHostMs?: number;
  /**
   * The plan's processes per instance, pinned (the planner's `processesPerInstance`), and why: the plan then runs on
   * this machine as planned, its batching delay chosen for that many processes. @default - the planner's choice
   */
  readonly pinnedProcesses?: { readonly count: number; readonly why: string };
}

export interface PlanResult {
  readonly scenario: Scenario;
  readonly plan: Plan;
  readonly layout: ScaledLayout;
  readonly hostMsPerRequest: number;
  readonly predictedCapacityRps: number;
  readonly predictedP99AtCapacityMs: number;
  readonly steps: readonly Step[];
  /** Highest passing rate below the lowest failing one; 0 when no rate passed. */
  readonly measuredCapacityRps: number;
  /** True when no tried rate failed: the capacity is at least the figure. */
  readonly atLeast: boolean;
  /** The stand-in's device calls as the server timed them over every step (mean, p50, p99 in ms). */
  readonly standInCall: { readonly meanMs: number; readonly p50Ms: number; readonly p99Ms: number };
  /**
   * The planner's capacity with the stand-in's measured calls in place of the row's: what the prediction would be
   * if the planner knew the device as the server saw it, to tell the stand-in's error from the model's.
   */
  readonly predictedWithStandInCallRps: number;
  /**
   * The device row's own throughput on the workers the plan ran here, in requests per second: workers x the row's
   * inputs per second per process / inputs per request. No server can answer more than its devices compute.
   */
  readonly deviceLimitRps: number;
  /**
   * What a server with no cost of its own would hold within the target on those workers, in requests per second: the
   * planner's queueing model with the row's calls and no host work, hand-over, path or front-end bound. Below the
   * device limit by the queueing the target leaves room for: the ceiling of the device-limit ratio for any server.
   */
  readonly queueingCeilingRps: number;
}

export function describePlan(r: PlanResult): string[] {
  const { plan, layout } = r;
  const m = plan.measurement;
  const batching = plan.batching ? `batching: max batch ${plan.batching.maxBatchSize}, max delay ${plan.batching.maxDelayMs} ms` : 'stock: one request per device call';
  return [
    `${r.scenario.name} plan: ${PROFILE_ID} on ${plan.instanceType} for ${plan.targets.throughputRps} requests/s at p99 ${plan.targets.p99Ms} ms ` +
      `(${r.scenario.why})`,
    `  plan: ${plan.processesPerInstance} processes x ${plan.coresPerProcess} core, compiled batch ${plan.batchSize}, ${batching}; ` +
      `${plan.capacityPerInstanceRps} requests/s per instance with the profile's ${plan.hostCpuMsPerRequest} ms host CPU per request`,
    `  row: ${m.source}`,
    ...(r.scenario.pinnedProcesses
      ? [`  planned with processesPerInstance=${r.scenario.pinnedProcesses.count}: ${r.scenario.pinnedProcesses.why}`]
      : []),
    `  this machine: ${layout.workers} worker(s) (${MODEL_SERVER_ENV.visibleCores}=${layout.visibleCores.join(';')}) of the plan's ` +
      `${plan.processesPerInstance}, ${layout.frontEnds} front end(s) of the plan's ${plan.frontEndsPerInstance}, on ${os.availableParallelism()} cores shared by the front end, the workers and the load generator ` +
      `(an ${plan.instance.name} has ${plan.instance.vcpus} vCPUs); ` +
      `device stand-in sleeps a log-normal call of median ${layout.deviceMedianMs.toFixed(3)} ms, sigma ${layout.deviceSigma.toFixed(4)} ` +
      `(row p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms)` +
      (r.scenario.standInHostMs ? `; its input_fn spins ${r.scenario.standInHostMs} ms of CPU per request` : ''),
    `  predicted with the measured ${r.hostMsPerRequest.toFixed(3)} ms host CPU per request: capacity ${r.predictedCapacityRps.toFixed(0)} requests/s, ` +
      `p99 ${r.predictedP99AtCapacityMs.toFixed(2)} ms there`,
  ];
}

export function stepTable(r: PlanResult): string {
  const table = new Table({
    head: ['step', 'asked/s', 'sent/s', 'done/s', 'p50 ms', 'p99 ms', 'srv p99', 'floor p99', 'limit', 'pred p99', 'errors', 'batch', 'device ms', 'CPU ms/req fe+wk', 'loadgen CPU/lag', 'other cores', 'load1', ''],
    style: { head: [], border: [] },
  });
  for (const s of [...r.steps].sort((a, b) => a.rateRps - b.rateRps)) {
    const errors = Object.entries(s.report.errorsByKind).map(([kind, n]) => `${n} ${kind}`).join(', ') || '0';
    table.push([
      s.label,
      s.rateRps,
      s.sentRps.toFixed(0),
      s.report.throughputRps.toFixed(0),
      s.report.latencyMs.p50.toFixed(2),
      s.report.latencyMs.p99.toFixed(2),
      s.serverP99Ms.toFixed(2),
      s.floorP99Ms.toFixed(2),
      s.limitMs.toFixed(2),
      Number.isFinite(s.predictedP99Ms) ? s.predictedP99Ms.toFixed(2) : 'inf',
      errors,
      s.meanBatch.toFixed(2),
      s.deviceMeanMs.toFixed(3),
      `${s.frontEndCpuMs.toFixed(3)}+${s.workerCpuMs.toFixed(3)}`,
      `${s.loadgenCpuPercent.toFixed(0)}% / ${s.loopDelayP99Ms.toFixed(1)} ms`,
      s.otherCores.toFixed(2),
      s.loadavg1.toFixed(2),
      s.passed ? 'pass' : 'FAIL',
    ]);
  }
  return table.toString();
}

export function summary(r: PlanResult): string {
  const ratio = r.measuredCapacityRps / r.predictedCapacityRps;
  const atPredicted = r.steps.find((s) => s.label === 'predicted');
  const p99 = atPredicted
    ? `; at the predicted capacity measured p99 ${atPredicted.report.latencyMs.p99.toFixed(2)} ms vs predicted ${r.predictedP99AtCapacityMs.toFixed(2)} ms ` +
      `(${atPredicted.report.latencyMs.p99 <= r.predictedP99AtCapacityMs ? 'within' : 'OVER'})`
    : '';
  const calibration = r.steps.find((s) => s.label === 'calibration');
  const contended = r.steps.filter((s) => s.otherCores > CONTENDED_CORES).length;
  const notes = [
    `    stand-in device call as the server timed it: mean ${r.standInCall.meanMs.toFixed(3)} ms, p50 ${r.standInCall.p50Ms.toFixed(3)}, ` +
      `p99 ${r.standInCall.p99Ms.toFixed(3)} ms (the row's call: ${r.layout.deviceMedianMs.toFixed(3)} ms median, p99 ${r.plan.measurement.p99Ms} ms); ` +
      `with these calls the planner predicts ${r.predictedWithStandInCallRps.toFixed(0)} requests/s, measured/that ` +
      `${(r.measuredCapacityRps / r.predictedWithStandInCallRps).toFixed(2)}`,
    ...(calibration
      ? [
          `    at ${calibration.rateRps} requests/s the client's p50 is ${calibration.report.latencyMs.p50.toFixed(2)} ms, the server's p50 queue wait ` +
            `(batch filling included) ${calibration.queueWaitP50Ms.toFixed(2)} ms + device ${r.standInCall.p50Ms.toFixed(2)} ms: about ` +
            `${(calibration.report.latencyMs.p50 - calibration.queueWaitP50Ms - r.standInCall.p50Ms).toFixed(2)} ms of HTTP, process hops, output ` +
            `and load generator, against the planner's ${SERVER_PATH_MS} ms path + ${r.hostMsPerRequest.toFixed(3)} ms of worker CPU`,
          ...(calibration.report.server?.overheadMs
            ? [
                `    inside the server (its timing header) at that rate: server-ms p50 ${calibration.report.server.latencyMs.p50.toFixed(2)} ms, ` +
                  `server-ms - device-ms p5 ${calibration.report.server.overheadMs.p5.toFixed(2)} / p50 ${calibration.report.server.overheadMs.p50.toFixed(2)} ms ` +
                  `(hops, worker host work and, with batching, the batch's filling); HTTP and client outside it: client p50 - server p50 = ` +
                  `${(calibration.report.latencyMs.p50 - calibration.report.server.latencyMs.p50).toFixed(2)} ms`,
              ]
            : []),
        ]
      : []),
    ...(atPredicted
      ? [
          `    the front ends (${r.layout.frontEnds} asyncio process(es)) spent ${atPredicted.frontEndCpuMs.toFixed(3)} ms of CPU per request at the predicted rate: ` +
            `one core carries at most ${(1000 / atPredicted.frontEndCpuMs).toFixed(0)} requests/s of this traffic through a front end`,
        ]
      : []),
    `    ${contended} of ${r.steps.length} steps contended (other processes above ${CONTENDED_CORES} cores)`,
    `    device limit: the row's ${r.plan.measurement.throughputRps} inputs/s per process on ${r.layout.workers} worker(s) = ` +
      `${r.deviceLimitRps.toFixed(0)} requests/s; served within the target ${r.measuredCapacityRps} requests/s`,
  ];
  return (
    `  ${r.scenario.name}: predicted ${r.predictedCapacityRps.toFixed(0)} requests/s, measured ${r.atLeast ? '>= ' : ''}${r.measuredCapacityRps} requests/s ` +
    `(client p99 <= ${r.plan.targets.p99Ms} ms + the machine's floor p99 at the same rate, no errors): ratio ${ratio.toFixed(2)}${p99}\n${notes.join('\n')}`
  );
}
