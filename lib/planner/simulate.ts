/**
 * A discrete-event replay of one instance serving Poisson arrivals, to hold the planner's queueing model against
 * the serving semantics it claims (`bench/plans.ts` and the property test use it; the planner never does).
 *
 * Semantics replayed, the same as `serving.ts` states them:
 * - requests arrive as a Poisson stream (or as `arrivals` says: gaps drawn independently from its distribution); the
 *   instance's processes take work first-come, first-served from one queue;
 * - `stock`: each request is one call; `batching`: a batch closes when it holds `requestsPerBatch` requests or
 *   `maxDelaySeconds` after its first request, whichever comes first, and is one call;
 * - a process is two stages (serving/worker.py's pipeline): its host stage spends the hand-over and host work of
 *   each request of the call (`hostSecondsForCall`), half decoding before the call and half encoding after it, and
 *   its device stage the per-call hand-over and the call; where the process overlaps them (`overlapsHostWork`:
 *   `batching`, and `stock` on the model server) a call's decode starts once the host stage is free and the
 *   process's previous call has started (one batch decoded ahead), its call once that decode is done and the device
 *   is free; where it does not (`stock` on a Neuron DLC's stock toolkit) once the previous call's encode is done;
 * - every request's latency also holds the server's path outside the process (`pathSeconds`), which keeps no
 *   process busy;
 * - a call's latency is drawn from a log-normal with the measured p50 and p99 (the Neuron tables give both), and
 *   the process is busy for the call's share of the measured throughput, `callSeconds`, scaled by the same draw,
 *   so a slow call also holds its process longer; the draw's spread is the row's p99 / p50, as `servingModel`
 *   scales it onto a call longer than the row's p50.
 */
import { gapSampler } from '../traffic/arrivals';
import type { ArrivalProcess } from '../traffic/types';
import { Z99 } from './queueing';
import { frontEndShare, hostSecondsForCall } from './serving';
import type { ServingModel } from './serving';

/** What one replay is asked to do. */
export interface SimulationInput {
  readonly model: ServingModel;
  /** Measured median call latency in seconds (the p99 is in the model). */
  readonly callP50Seconds: number;
  /** Requests per second arriving at the instance. */
  readonly arrivalsPerSecond: number;
  /** Requests to replay, warm-up included. @default 20000 */
  readonly requests?: number;
  /** Leading requests left out of the statistics while the queue fills. @default 10 % of `requests` */
  readonly warmupRequests?: number;
  /** Seed of the pseudo-random stream, so a replay repeats exactly. @default 1 */
  readonly seed?: number;
  /** How requests arrive: gaps drawn independently from the process. @default - Poisson */
  readonly arrivals?: ArrivalProcess;
}

/** What the replay measured. */
export interface SimulationResult {
  /** 99th percentile latency of the measured requests, in seconds. */
  readonly p99Seconds: number;
  /** Mean latency of the measured requests, in seconds. */
  readonly meanSeconds: number;
  /** Requests completed per second of simulated time over the measured requests. */
  readonly completedPerSecond: number;
  /** Mean requests per device call. */
  readonly meanBatchRequests: number;
}

/** mulberry32: a small, fast, seedable generator; quality is ample for arrival times and service draws. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw (Box-Muller). */
export function normal(next: () => number): number {
  const u = 1 - next();
  const v = next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * Replays `requests` Poisson arrivals through one instance and measures their latency. With several front ends, the
 * replay is one front end's: its share of the processes at its share of the arrivals (the kernel spreads connections
 * evenly, and a random split of Poisson arrivals is Poisson), and the rates it reports are the instance's.
 */
export function simulateInstance(input: SimulationInput): SimulationResult {
  const frontEnds = input.model.frontEnds ?? 1;
  if (frontEnds > 1) {
    const one = simulateInstance({ ...input, model: frontEndShare(input.model), arrivalsPerSecond: input.arrivalsPerSecond / frontEnds });
    return { ...one, completedPerSecond: one.completedPerSecond * frontEnds };
  }
  const { model } = input;
  const total = input.requests ?? 20000;
  const warmup = input.warmupRequests ?? Math.floor(total / 10);
  const next = random(input.seed ?? 1);
  const p50 = input.callP50Seconds;
  // The row's own spread, p99 / p50: `servingModel` scales a call longer than the row's p50 (batch / throughput) by
  // it, so the call's p99 over the longer of the two is that spread in both cases.
  const median = Math.max(p50, model.callSeconds);
  const sigma = model.callP99Seconds > median && median > 0 ? Math.log(model.callP99Seconds / median) / Z99 : 0;

  // Arrival times.
  const arrivals = new Float64Array(total);
  const gap = gapSampler(input.arrivals, next);
  let now = 0;
  for (let i = 0; i < total; i++) {
    now += gap() / input.arrivalsPerSecond;
    arrivals[i] = now;
  }

  // Calls: first request, last request + 1, time the call joins the queue. Typed arrays: bench:plans runs tens of
  // thousands of replays, and with an array of tuples per call a ninth of its time went to garbage collection.
  const callFirst = new Int32Array(total + 1);
  const callReady = new Float64Array(total);
  let callCount = 0;
  if (model.mode === 'stock') {
    for (let i = 0; i < total; i++) {
      callFirst[i] = i;
      callReady[i] = arrivals[i];
    }
    callCount = total;
  } else {
    let first = 0;
    while (first < total) {
      const deadline = arrivals[first] + model.maxDelaySeconds;
      let end = first + 1;
      while (end < total && end - first < model.requestsPerBatch && arrivals[end] <= deadline) {
        end++;
      }
      callFirst[callCount] = first;
      callReady[callCount++] = end - first === model.requestsPerBatch ? arrivals[end - 1] : deadline;
      first = end;
    }
  }
  callFirst[callCount] = total;

  // First-come, first-served over the processes: each call goes to the process that frees first.
  const hostFreeAt = new Float64Array(model.processes);
  const deviceFreeAt = new Float64Array(model.processes);
  const lastCallAt = new Float64Array(model.processes);
  const freeAt = (s: number): number => Math.max(hostFreeAt[s], lastCallAt[s]);
  const latencies = new Float64Array(Math.max(0, total - warmup));
  let measured = 0;
  let latencySum = 0;
  let lastFinish = 0;
  for (let c = 0; c < callCount; c++) {
    const first = callFirst[c];
    const end = callFirst[c + 1];
    const ready = callReady[c];
    let server = 0;
    for (let s = 1; s < model.processes; s++) {
      if (Math.max(freeAt(s), deviceFreeAt[s]) < Math.max(freeAt(server), deviceFreeAt[server])) {
        server = s;
      }
    }
    const start = Math.max(ready, freeAt(server));
    const draw = Math.exp(sigma * normal(next));
    const host = hostSecondsForCall(model, end - first);
    const busy = model.callSeconds * draw;
    const latency = p50 * draw;
    const callStart = Math.max(start + host / 2, deviceFreeAt[server]);
    lastCallAt[server] = callStart;
    deviceFreeAt[server] = callStart + model.handoverSecondsPerCall + busy;
    hostFreeAt[server] = model.overlapsHostWork ? start + host : deviceFreeAt[server] + host / 2;
    const finish = callStart + model.handoverSecondsPerCall + Math.max(latency, busy) + host / 2 + model.pathSeconds;
    for (let r = first; r < end; r++) {
      if (r >= warmup) {
        const l = finish - arrivals[r];
        latencies[measured++] = l;
        latencySum += l;
        lastFinish = Math.max(lastFinish, finish);
      }
    }
  }

  // A typed array sorts numerically with no comparator call per pair.
  latencies.sort();
  const p99Index = Math.min(measured - 1, Math.ceil(0.99 * measured) - 1);
  return {
    p99Seconds: measured > 0 ? latencies[p99Index] : 0,
    meanSeconds: measured > 0 ? latencySum / measured : 0,
    completedPerSecond: measured > 0 ? measured / (lastFinish - arrivals[Math.min(warmup, total - 1)]) : 0,
    meanBatchRequests: total / callCount,
  };
}
