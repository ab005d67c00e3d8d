/**
 * How one instance serves requests, in the unit users send them: requests per second, each with
 * `inputsPerRequest` inputs, through `c` model processes that share one queue.
 *
 * Two serving modes:
 * - `stock`: one device call per request (the SageMaker PyTorch toolkit runs the requests TorchServe aggregates one
 *   at a time). A request costs one whole call at the compiled batch size, padded, whatever inputs it carries.
 * - `batching`: a server queues requests and closes a batch when it holds `maxBatchSize` inputs or `maxDelayMs` after
 *   its first request arrived, whichever comes first; the batch is one padded device call. Requests are never split.
 *
 * Two servers ({@link SERVING_SERVERS}): the cdk-inferentia model server (`serving/`, `model-server`), which runs
 * either mode, and a Neuron DLC's stock SageMaker toolkit (`neuron-dlc`), which runs `stock` only.
 *
 * Where a request spends its time in the model server (`serving/`), and what of it the model charges where:
 * - the front end (one asyncio process) parses the HTTP request, queues it, hands it to a worker and writes the
 *   answer: CPU of the front end, bounded apart ({@link frontEndUtilization}), and latency on every request's path,
 *   {@link SERVER_PATH_MS} (HTTP in and out, the hops to the worker and back), never a worker's busy time;
 * - a worker is a pipeline of two stages (serving/worker.py): its host stage takes the requests of its next call
 *   from the front end and runs the handler's `input_fn` on each, and `output_fn` on each answer of the call before,
 *   while its device stage runs the call (`predict_fn`); at most one batch is decoded ahead. A request still passes
 *   through both in turn (its decode, its call, its encode: {@link processSecondsForCall} in its latency), but the
 *   worker completes a call every `max(call + per-call hand-over, n x (hostMsPerRequest + per-request hand-over))`
 *   ({@link busySecondsForCall}), the slower stage, in both modes. A DLC's stock toolkit runs the handler's
 *   functions one after the other, so a `stock` plan made for it (`server: 'neuron-dlc'`) is charged their sum as
 *   busy time ({@link ServingModel.overlapsHostWork} false), and the model server runs such a plan the same way
 *   (`MODEL_SERVER_OVERLAP=0`). `hostMsPerRequest` is the handler's work in the worker (the profile's
 *   `hostCpuMsPerRequest`) and the hand-over ({@link WORKER_HANDOVER_MS_PER_CALL},
 *   {@link WORKER_HANDOVER_MS_PER_REQUEST}) the time it waits on the front end to answer it.
 * One vCPU is kept for the HTTP front end (see the planner). `npm run bench:serving` holds this against the server.
 */
import type { Measurement } from '../profiles/types';
import { batchArrivalScv, batchRequestsQuantile, clusteredWaitQuantileSeconds, largestFitting, meanBatchRequests, serviceScv, WAIT_QUANTILE, waitQuantileSeconds } from './queueing';

/** The two ways a model server can turn requests into device calls. */
export const SERVING_MODES = ['stock', 'batching'] as const;
/** `stock`: one device call per request; `batching`: requests combined into device batches. */
export type ServingMode = (typeof SERVING_MODES)[number];

/** The servers a single-call plan can be made for. */
export const SERVING_SERVERS = ['model-server', 'neuron-dlc'] as const;
/**
 * Which server runs a single-call plan: `model-server`, the cdk-inferentia model server (`serving/`), whose workers
 * overlap the handler's host work with the device call, in either serving mode; `neuron-dlc`, a Neuron DLC's stock
 * SageMaker toolkit (TorchServe), which runs `stock` only and the host work and the call one after the other.
 */
export type ServingServer = (typeof SERVING_SERVERS)[number];

/** Whether a server runs a mode's host work (decode, encode) beside the device call: all but a DLC's stock toolkit. */
export function overlapsHostWork(mode: ServingMode, server: ServingServer | undefined): boolean {
  return mode === 'batching' || server !== 'neuron-dlc';
}

/** What the queueing model needs to know about one candidate deployment on one instance. */
export interface ServingModel {
  readonly mode: ServingMode;
  /**
   * Whether a process overlaps its requests' host work and hand-over with the device call (a two-stage worker): true
   * for `batching` and for `stock` on the model server, false for `stock` on a Neuron DLC's stock toolkit, which runs
   * them one after the other. See {@link busySecondsForCall}.
   */
  readonly overlapsHostWork: boolean;
  /** Model processes on the instance: the servers of its queue. */
  readonly processes: number;
  /** Device time of one call at the compiled batch: `batchSize / measured inferences per second per process`. */
  readonly callSeconds: number;
  /** Measured p99 of one call, in seconds. */
  readonly callP99Seconds: number;
  /** Host CPU seconds one request costs in its process (the handler's `input_fn` and `output_fn`). */
  readonly hostSecondsPerRequest: number;
  /** Seconds per call a process waits on the front end between calls (its wake-up, the hand-over): busy time. */
  readonly handoverSecondsPerCall: number;
  /** Seconds per request of a call a process waits on the front end to hand it over and take its answer: busy time. */
  readonly handoverSecondsPerRequest: number;
  /** Seconds of every request's latency outside the queue and the process: HTTP and the hops to the worker and back. */
  readonly pathSeconds: number;
  /** Requests one device call serves: 1 for stock, `floor(maxBatchSize / inputsPerRequest)` with batching. */
  readonly requestsPerBatch: number;
  /** Longest a batch waits to fill, in seconds; 0 for stock. */
  readonly maxDelaySeconds: number;
  /** Squared coefficient of variation of a call's busy time (`serviceScv` of the measured p50 and p99). */
  readonly serviceScv: number;
  /**
   * Front-end processes of the model server, each with `processes / frontEnds` of the processes and a queue of its
   * own (`MODEL_SERVER_FRONT_ENDS`): the kernel spreads connections over them, so each takes an even share of the
   * arrivals (a random split of Poisson arrivals is Poisson). @default 1
   */
  readonly frontEnds?: number;
  /**
   * Squared coefficient of variation of the gaps between requests: 1 for Poisson, above 1 for bursty traffic. Each
   * front end is charged the whole stream's (a random split makes each share less bursty, never more). @default 1
   */
  readonly arrivalScv?: number;
}

/**
 * One front end's part of the instance: its processes and its queue, which takes `1 / frontEnds` of the arrivals.
 * Every figure of a model with several front ends is that of one front end at its share of the rate.
 */
export function frontEndShare(model: ServingModel): ServingModel {
  const frontEnds = model.frontEnds ?? 1;
  return frontEnds === 1 ? model : { ...model, processes: model.processes / frontEnds, frontEnds: 1 };
}

/** Mean requests one device call carries when requests arrive at `arrivalsPerSecond`. */
export function requestsPerCall(model: ServingModel, arrivalsPerSecond: number): number {
  return model.mode === 'stock' ? 1 : meanBatchRequests(arrivalsPerSecond, model.maxDelaySeconds, model.requestsPerBatch);
}

/**
 * Busy time of one process per device call of `requests` requests, the time between two calls it completes at
 * saturation. A process that overlaps host work (the model server's two-stage worker, in either mode) completes a
 * call every time its slower stage does: the device (the call and its per-call hand-over) or the host (the requests'
 * host work and hand-over). One that does not (`stock` on a Neuron DLC's stock toolkit, which runs the handler's
 * functions one after the other) is busy for their sum, {@link processSecondsForCall}.
 */
export function busySecondsForCall(model: ServingModel, requests: number): number {
  return model.overlapsHostWork
    ? Math.max(model.callSeconds + model.handoverSecondsPerCall, hostSecondsForCall(model, requests))
    : processSecondsForCall(model, requests);
}

/** Host stage time of one call of `requests` requests: their host work and hand-over. */
export function hostSecondsForCall(model: ServingModel, requests: number): number {
  return requests * (model.hostSecondsPerRequest + model.handoverSecondsPerRequest);
}

/**
 * Time one call of `requests` requests spends in its process, from the start of its decode to the end of its last
 * answer's encode, when it waits for nothing: the call, the hand-overs and the host work, one after the other (the
 * pipeline overlaps different calls' stages, never one call's).
 */
export function processSecondsForCall(model: ServingModel, requests: number): number {
  return model.callSeconds + model.handoverSecondsPerCall + hostSecondsForCall(model, requests);
}

/** Mean busy time of one process for one device call ({@link busySecondsForCall} of the mean requests a call carries). */
export function busySecondsPerCall(model: ServingModel, arrivalsPerSecond: number): number {
  return busySecondsForCall(model, requestsPerCall(model, arrivalsPerSecond));
}

/** Device calls per second the instance makes when requests arrive at `arrivalsPerSecond`. */
export function callsPerSecond(model: ServingModel, arrivalsPerSecond: number): number {
  return arrivalsPerSecond / requestsPerCall(model, arrivalsPerSecond);
}

/**
 * Predicted p99 latency of a request, in seconds, at `arrivalsPerSecond` requests per second on one instance:
 *
 *   p99 = maxDelay + W(99.5 %) + call p99 + process(n99) - call + path
 *
 * the wait for the batch to close (the full `maxDelay`, its worst case) + the 99.5 % queueing wait for a process
 * (GI/G/c, see `queueing.ts`, with the mean busy time of a call, {@link busySecondsForCall}, the regularity of batch
 * arrivals and the call's variability) + the measured p99 of the call + the host work and hand-overs of a batch at
 * its 99th percentile size `n99` ({@link processSecondsForCall}: a request waits for its own decode and encode) + the
 * server's path outside the process ({@link SERVER_PATH_MS}). Infinite when the processes cannot keep up.
 */
export function predictedP99Seconds(model: ServingModel, arrivalsPerSecond: number): number {
  const frontEnds = model.frontEnds ?? 1;
  if (frontEnds > 1) {
    return predictedP99Seconds(frontEndShare(model), arrivalsPerSecond / frontEnds);
  }
  const busy = busySecondsPerCall(model, arrivalsPerSecond);
  // Batches of n requests from a renewal stream of SCV c2 arrive with an SCV of about c2 / n, Poisson's 1 / n times c2:
  // the batches' own SCV (from Poisson arrivals) scaled by the stream's.
  const arrivalScv = (model.arrivalScv ?? 1) * (model.mode === 'stock' ? 1 : batchArrivalScv(arrivalsPerSecond, model.maxDelaySeconds, model.requestsPerBatch));
  const calls = callsPerSecond(model, arrivalsPerSecond);
  // Bursts wait at low load too: the larger of the heavy-traffic wait and the clusters' own.
  const wait = Math.max(
    waitQuantileSeconds(calls, busy, model.processes, model.serviceScv, WAIT_QUANTILE, arrivalScv),
    clusteredWaitQuantileSeconds(calls, busy, model.processes, model.arrivalScv ?? 1, WAIT_QUANTILE),
  );
  const tailBatch = model.mode === 'stock' ? 1 : batchRequestsQuantile(arrivalsPerSecond, model.maxDelaySeconds, model.requestsPerBatch);
  return model.maxDelaySeconds + wait + model.callP99Seconds + processSecondsForCall(model, tailBatch) - model.callSeconds + model.pathSeconds;
}

/** Fraction of the processes' time spent busy at `arrivalsPerSecond` (1 or more means the queue grows without end). */
export function processUtilization(model: ServingModel, arrivalsPerSecond: number): number {
  const frontEnds = model.frontEnds ?? 1;
  if (frontEnds > 1) {
    return processUtilization(frontEndShare(model), arrivalsPerSecond / frontEnds);
  }
  return (callsPerSecond(model, arrivalsPerSecond) * busySecondsPerCall(model, arrivalsPerSecond)) / model.processes;
}

/**
 * Most requests per second one process could complete with every call full and no latency target: the ceiling
 * rejections quote ("batch 8 without server batching serves 167 single-input requests/s per process").
 */
export function saturationPerProcessRps(model: ServingModel): number {
  return model.requestsPerBatch / busySecondsForCall(model, model.requestsPerBatch);
}

/**
 * Front-end CPU of the model server (`serving/frontend.py`), in ms of one core: a part per request (HTTP, the
 * deadline, the answer's slice) and a part per device call (the hop to the worker process and back).
 *
 * First measured by `npm run bench:serving` (docs/model-server-bench.md, 2026-11-23) on a quiet 2-core machine:
 * 0.31-0.43 ms per request at one request per call and 0.18-0.34 ms at eight, split as 0.15 ms per request + 0.28 ms
 * per call. Issue 30 cut the request path (one future and one timer per request, worker messages handled in the
 * socket's read callback, lazy watchdog and idle timers, one write per answer, a stock worker's TAKE sent ahead);
 * `npm run bench:serving-overhead` (docs/model-server-bench.md, 2026-11-27, `nice -n -15`, a stock worker, the old
 * and the new code three runs each on the shared machine at load average 8-15) split the front end's CPU into
 * 0.214 ms per request + 0.280 ms per call before and 0.181 + 0.253 after (means): 0.85 and 0.90 of the old. That
 * machine's load inflates the absolute figures (the old code read 0.45-0.52 ms at batch 1 against the quiet 0.43), so
 * the quiet split is scaled by those ratios: 0.15 x 0.85 = 0.13, 0.28 x 0.90 = 0.25.
 */
export const FRONT_END_MS_PER_REQUEST = 0.13;
/** See {@link FRONT_END_MS_PER_REQUEST}. */
export const FRONT_END_MS_PER_CALL = 0.25;

/**
 * Latency every request spends in the model server outside the queue and the worker's busy time, in ms: the front
 * end reading the HTTP request and writing the answer, and the two hops over the worker socket. The client's own
 * side and the network are not the server's (the planner models neither).
 *
 * Measured by `npm run bench:serving` on a 2-core host (docs/model-server-bench.md, 2026-11-26): with one request per
 * call at low load, the server's own timing (`server-ms - device-ms`) put the hops and the worker's host work at
 * 0.24 ms (p50), of which the worker's CPU took 0.12 ms; the front end spent 0.23-0.25 ms of CPU per request, most of
 * it reading and writing HTTP, on the request's path. 0.12 + 0.25 = 0.37 ms, rounded up.
 */
export const SERVER_PATH_MS = 0.4;

/**
 * Time a worker waits between device calls for the front end to answer it (its request for work, the requests
 * themselves, the answers it sends back), in ms per call and per request of the call: part of the worker's busy time
 * that is neither its CPU nor the device.
 *
 * Measured by `npm run bench:serving` on an idle 2-core host (docs/model-server-bench.md, 2026-11-26): at batch 8 two
 * workers saturated at about 2,300 requests/s, 6.96 ms per call, of which the device took 6.10 ms and the workers'
 * CPU 0.24 ms: 0.62 ms per call of 8, 0.077 ms per request; at batch 1 they held 1,611 requests/s (1.24 ms per call)
 * with 1.05 ms of device and 0.10 ms of CPU: under 0.09 ms per request. It scales with the requests handed over.
 * Per call, the worker is also woken when its device call completes: the stand-in's sleeps ended 0.05-0.09 ms
 * after their drawn time (p50, timer slack 1 ns). Since 2026-11-27 the stand-in lasts its drawn time, wake-up included
 * (a row's call time is what its caller saw), and a worker without a batching delay chains its calls
 * (serving/chained.py): between two 1 ms calls at saturation, 0.018 ms on average with one worker and 0.04 ms with
 * two (median 0.018, 90th percentile 0.057) sharing the 2 cores with the front end and the client, against 0.08 and
 * 0.10 ms for the worker that runs one stage after the other. With 0.06 ms per call a quiet `bench:serving` measured
 * 1.00 of the predicted capacity for both the stock and the batching plan (docs/model-server-bench.md, 2026-11-27),
 * so it stays.
 */
export const WORKER_HANDOVER_MS_PER_CALL = 0.06;
/** See {@link WORKER_HANDOVER_MS_PER_CALL}. */
export const WORKER_HANDOVER_MS_PER_REQUEST = 0.075;

/**
 * Most of one core each of the server's front ends may use at the planned capacity. A front end is one asyncio
 * process, so it is a single queue of its own: bench:serving found it answering with a p99 of 19 ms at 54 % of a core and
 * shedding load with 503s at 75 %. 60 % keeps it out of that region on a host that also runs the workers.
 */
export const FRONT_END_MAX_UTILIZATION = 0.6;

/** Fraction of one core each of the server's front ends uses at `arrivalsPerSecond` requests per second to the instance. */
export function frontEndUtilization(model: ServingModel, arrivalsPerSecond: number): number {
  const frontEnds = model.frontEnds ?? 1;
  if (frontEnds > 1) {
    return frontEndUtilization(frontEndShare(model), arrivalsPerSecond / frontEnds);
  }
  const perRequestMs = FRONT_END_MS_PER_REQUEST + FRONT_END_MS_PER_CALL / requestsPerCall(model, arrivalsPerSecond);
  return (arrivalsPerSecond * perRequestMs) / 1000;
}

/** What bounds an instance's capacity: the latency target through the processes' queues, or the server's front ends. */
export type CapacityLimit = 'latency' | 'front-end';

/**
 * The largest arrival rate, in requests per second, one instance holds with the predicted p99 within
 * `targetP99Seconds` and each of the server's front ends within {@link FRONT_END_MAX_UTILIZATION} of a core; 0 when
 * even a single request misses the target.
 */
export function capacityRps(model: ServingModel, targetP99Seconds: number): number {
  return capacity(model, targetP99Seconds).rps;
}

/** {@link capacityRps} and which of the two bounds set it. */
export function capacity(model: ServingModel, targetP99Seconds: number): { readonly rps: number; readonly limitedBy: CapacityLimit } {
  const ceiling = model.processes * saturationPerProcessRps(model);
  const byLatency = largestFitting(ceiling, (rate) => predictedP99Seconds(model, rate) <= targetP99Seconds);
  const both = largestFitting(byLatency, (rate) => frontEndUtilization(model, rate) <= FRONT_END_MAX_UTILIZATION);
  return { rps: both, limitedBy: both < byLatency ? 'front-end' : 'latency' };
}

/** What `servingModel` needs of a sized candidate or a finished plan. */
export interface ServingChoice {
  readonly mode: ServingMode;
  /**
   * The server the plan is for: `neuron-dlc` runs a `stock` plan's host work and call one after the other.
   * @default 'model-server'
   */
  readonly server?: ServingServer;
  readonly processes: number;
  /** Host CPU milliseconds of one request (all its inputs). */
  readonly hostMsPerRequest: number;
  readonly requestsPerBatch: number;
  readonly maxDelayMs: number;
  /** Front-end processes, each with an even share of the processes. @default 1 */
  readonly frontEnds?: number;
  /** The arrivals' squared coefficient of variation (`ServingModel.arrivalScv`). @default 1 */
  readonly arrivalScv?: number;
}

/**
 * The queueing model of a measurement served one way: the one place a row's figures become service times.
 *
 * A call's p99 is the measured one, unless the row's throughput implies calls longer than its p50 (the benchmark
 * lost time between calls that its latency column does not show): then the call time scaled by the row's own
 * p99 / p50, since a request cannot finish before its process does.
 */
export function servingModel(m: Pick<Measurement, 'batchSize' | 'throughputRps' | 'p50Ms' | 'p99Ms'>, choice: ServingChoice): ServingModel {
  const callSeconds = m.batchSize / m.throughputRps;
  const spread = m.p50Ms > 0 ? Math.max(1, m.p99Ms / m.p50Ms) : 1;
  return {
    mode: choice.mode,
    overlapsHostWork: overlapsHostWork(choice.mode, choice.server),
    processes: choice.processes,
    callSeconds,
    callP99Seconds: Math.max(m.p99Ms / 1000, callSeconds * spread),
    hostSecondsPerRequest: choice.hostMsPerRequest / 1000,
    handoverSecondsPerCall: WORKER_HANDOVER_MS_PER_CALL / 1000,
    handoverSecondsPerRequest: WORKER_HANDOVER_MS_PER_REQUEST / 1000,
    pathSeconds: SERVER_PATH_MS / 1000,
    requestsPerBatch: choice.requestsPerBatch,
    maxDelaySeconds: choice.maxDelayMs / 1000,
    serviceScv: serviceScv(m.p50Ms, m.p99Ms),
    ...(choice.frontEnds !== undefined && choice.frontEnds > 1 ? { frontEnds: choice.frontEnds } : {}),
    ...(choice.arrivalScv !== undefined && choice.arrivalScv !== 1 ? { arrivalScv: choice.arrivalScv } : {}),
  };
}
