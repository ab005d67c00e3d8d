/**
 * The capacity proof: an optional stage of the smoke benchmark that drives the deployed target open-loop at the
 * planned rate, fanned out over load-worker Lambda invocations, and fails the deployment when the achieved rate or
 * the p99 misses the plan.
 *
 * This module is the contract between the construct, the hook and its load workers: the stage's settings (part of
 * `SMOKE_CONFIG`), what the hook sends each worker and what a worker returns. How the results merge is
 * `./capacity-merge` and how the merged run is judged `./capacity-verdict`, both the hook's alone.
 */
import { lazySchema } from '../lazy-schema';
import type { BenchReport, RequestTally } from '../bench/types';
import type { Plan, ServingServer } from '../planner/types';
import { arrivalProcessSchema } from '../traffic/schema';
import type { ArrivalProcess } from '../traffic/types';

/**
 * Requests per second one load-worker invocation is sized to drive (1769 MB, one vCPU, arm64).
 *
 * Measured by `npm run bench:smoke-fanout` (2026-11-23): the engine driving the real `SageMakerRuntimeClient`
 * (SigV4 signing on every request) against an InvokeEndpoint wire stand-in on 127.0.0.1, pinned to one core
 * (`taskset -c 0`, the CPU a 1769 MB Lambda gets), held 800 requests/s (799.7 achieved, p50 13 ms, no errors) and
 * not 1,200 (764 achieved, its in-flight cap overflowing) on this project's shared 2-core x86_64 build machine.
 * Half of the held rate is used: Graviton cores and TLS to the regional endpoint (the stand-in is plain HTTP) cost
 * more per request than the measurement's, and at 400/s the worker's own p50 stayed at 5 ms, so a worker adds
 * little queueing of its own to the latency it measures.
 */
export const PER_WORKER_RPS = 400;

/**
 * Most load workers one proof may fan out to: enough for 40,000 requests/s at {@link PER_WORKER_RPS}, beyond any
 * single endpoint this toolkit plans, and far under the concurrency of an account.
 */
export const MAX_FAN_OUT = 100;

/**
 * Lambda's default concurrent executions quota per account and region (Service Quotas L-B99A9384). New accounts
 * may start lower; the docs say how to check.
 *
 * @see https://docs.aws.amazon.com/lambda/latest/dg/lambda-concurrency.html
 */
export const DEFAULT_ACCOUNT_CONCURRENCY = 1000;

/**
 * What the hook allows for invoking the workers on top of their run: a cold start of the bundled worker (a VPC
 * function included) and the Invoke round trip.
 */
export const WORKER_START_ALLOWANCE_MS = 15_000;

/** What a worker keeps after its run to encode and return its histograms. */
export const WORKER_RETURN_RESERVE_MS = 5_000;

/** The limits a capacity proof must meet. */
export interface CapacityThresholds {
  /** Successful requests per second over all workers. */
  readonly minRateRps: number;
  /** Client-side p99 over all workers. */
  readonly p99MaxMs: number;
  /** The model server's own p99 (its timing header). @default - not judged (a server without the header) */
  readonly serverP99MaxMs?: number;
  /** 0..1 */
  readonly maxErrorRate: number;
}

/** The capacity stage of `SMOKE_CONFIG`. */
export interface CapacityConfig {
  /** Total open-loop rate over all workers. */
  readonly rateRps: number;
  /** Load-worker invocations, each driving `rateRps / workers`. */
  readonly workers: number;
  readonly durationMs: number;
  readonly warmupMs: number;
  /** Per-request timeout. */
  readonly timeoutMs: number;
  /** Open-loop in-flight cap of each worker. */
  readonly maxInFlightPerWorker: number;
  /** What the plan predicts at this rate, for the report. */
  readonly predicted: {
    readonly rateRps: number;
    readonly p99Ms: number;
  };
  readonly thresholds: CapacityThresholds;
  /**
   * The plan's arrival process (`targets.arrivals`, a log's burstiness): every worker draws it from one seed and sends
   * its share, so the workers together send it.
   *
   * @default - Poisson arrivals
   */
  readonly arrivals?: ArrivalProcess;
  /**
   * The plan the proof measures, for the calibration record of its report (`cdk-inferentia calibrate`).
   *
   * @default - no plan given: the report carries no calibration record
   */
  readonly plan?: PlanBasis;
}

/** The plan a run was measured against: what calibration compares the measurement with. */
export interface PlanBasis {
  readonly profileId: string;
  /** As the hosting names it (`ml.inf2.xlarge` for SageMaker). */
  readonly instanceType: string;
  readonly coreVersion: 'v1' | 'v2' | 'v3' | 'v4';
  readonly instanceCount: number;
  readonly processesPerInstance: number;
  /** The model server's front ends per instance. @default 1 (a record written before plans carried them) */
  readonly frontEndsPerInstance?: number;
  readonly coresPerProcess: number;
  readonly batchSize: number;
  readonly serving: 'stock' | 'batching';
  /**
   * The server the plan was made for: a `stock` plan on `model-server` overlaps host work with device calls, on
   * `neuron-dlc` (a Neuron DLC's stock toolkit) it does not. @default 'model-server' (a record written before plans
   * carried it)
   */
  readonly server?: ServingServer;
  /** 0 for stock serving. */
  readonly maxDelayMs: number;
  readonly inputsPerRequest: number;
  /** The plan's p99 target: the capacity per instance is the rate that meets it. */
  readonly p99TargetMs: number;
  readonly capacityPerInstanceRps: number;
  /** Host CPU milliseconds per request the plan counted. */
  readonly hostCpuMsPerRequest: number;
  /** The profile row the plan was sized from. */
  readonly measurement: {
    readonly throughputRps: number;
    readonly p50Ms: number;
    readonly p99Ms: number;
    readonly capacityFactor?: number;
  };
}

/** The plan's figures calibration needs, from a `Plan` (what the construct and `bench --plan` hold). */
export function planBasis(plan: Plan): PlanBasis {
  return {
    profileId: plan.profileId,
    instanceType: plan.instanceType,
    coreVersion: plan.instance.coreVersion,
    instanceCount: plan.instanceCount,
    processesPerInstance: plan.processesPerInstance,
    frontEndsPerInstance: plan.frontEndsPerInstance,
    coresPerProcess: plan.coresPerProcess,
    batchSize: plan.batchSize,
    serving: plan.serving,
    ...(plan.server !== undefined ? { server: plan.server } : {}),
    maxDelayMs: plan.batching?.maxDelayMs ?? 0,
    inputsPerRequest: plan.inputsPerRequest,
    p99TargetMs: plan.targets.p99Ms,
    capacityPerInstanceRps: plan.capacityPerInstanceRps,
    hostCpuMsPerRequest: plan.hostCpuMsPerRequest,
    measurement: {
      throughputRps: plan.measurement.throughputRps,
      p50Ms: plan.measurement.p50Ms,
      p99Ms: plan.measurement.p99Ms,
      ...(plan.measurement.capacityFactor !== undefined ? { capacityFactor: plan.measurement.capacityFactor } : {}),
    },
  };
}

const positive = lazySchema((z) => z.number().positive());
const nonNegative = lazySchema((z) => z.number().min(0));

/**
 * Schema of {@link PlanBasis}.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const planBasisSchema = lazySchema((z) => z
  .object({
    profileId: z.string().min(1),
    instanceType: z.string().min(1),
    coreVersion: z.enum(['v1', 'v2', 'v3']),
    instanceCount: z.number().int().positive(),
    processesPerInstance: z.number().int().positive(),
    frontEndsPerInstance: z.number().int().positive().optional(),
    coresPerProcess: z.number().int().positive(),
    batchSize: z.number().int().positive(),
    serving: z.enum(['stock', 'batching']),
    server: z.enum(['model-server', 'neuron-dlc']).optional(),
    maxDelayMs: nonNegative(),
    inputsPerRequest: z.number().int().positive(),
    p99TargetMs: positive(),
    capacityPerInstanceRps: positive(),
    hostCpuMsPerRequest: nonNegative(),
    measurement: z.object({ throughputRps: positive(), p50Ms: positive(), p99Ms: positive(), capacityFactor: positive().optional() }).strict(),
  })
  .strict());


/**
 * Schema of {@link CapacityConfig}.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const capacityConfigSchema = lazySchema((z) => z
  .object({
    rateRps: positive(),
    workers: z.number().int().min(1).max(MAX_FAN_OUT),
    durationMs: positive(),
    warmupMs: z.number().min(0),
    timeoutMs: positive(),
    maxInFlightPerWorker: z.number().int().positive(),
    predicted: z.object({ rateRps: positive(), p99Ms: positive() }).strict(),
    thresholds: z
      .object({
        minRateRps: z.number().min(0),
        p99MaxMs: positive(),
        serverP99MaxMs: positive().optional(),
        maxErrorRate: z.number().min(0).max(1),
      })
      .strict(),
    plan: planBasisSchema().optional(),
    arrivals: arrivalProcessSchema().optional(),
  })
  .strict());

/** What the hook sends one load worker (the Invoke payload). */
export interface LoadWorkerRequest {
  /** Which worker this is, 0-based, for the logs. */
  readonly worker: number;
  readonly rateRps: number;
  readonly durationMs: number;
  readonly warmupMs: number;
  readonly timeoutMs: number;
  readonly maxInFlight: number;
  /**
   * How its requests are spaced: `poisson`, exponential gaps, the traffic the planner sizes for unless told otherwise
   * and `bench:serving` measures (an even beat would pass a deploy that Poisson users see miss its p99); `process`,
   * its share of the capacity stage's `arrivals` (the plan's bursty process, every worker drawing it from one seed).
   */
  readonly arrivals: 'poisson' | 'process';
  /**
   * Seed of its gaps. Poisson: its own per worker, so workers never send at the same instants; independent Poisson
   * processes merge into one at the sum of their rates, so the merged load is Poisson at the planned rate. Process:
   * the same for every worker, each keeping its share of the one sequence.
   */
  readonly seed: number;
}

/**
 * The fields of a load worker's window, the same for both proofs' workers: its measured phase, the warm-up before it
 * and the per-request timeout, in milliseconds.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const loadWindowShape = lazySchema((z) => ({
  durationMs: positive(),
  warmupMs: z.number().min(0),
  timeoutMs: positive(),
}));

/**
 * Schema of {@link LoadWorkerRequest}: the worker checks its payload with it.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const loadWorkerRequestSchema = lazySchema((z) => z
  .object({
    worker: z.number().int().min(0),
    rateRps: positive(),
    ...loadWindowShape(),
    maxInFlight: z.number().int().positive(),
    arrivals: z.enum(['poisson', 'process']),
    seed: z.number().int().positive(),
  })
  .strict());

/** What one load worker returns. */
export interface LoadWorkerResult extends RequestTally {
  readonly worker: number;
  /** Length of its measured phase. */
  readonly durationMs: number;
  /** Its latency (and server timing) histograms, HdrHistogram compressed base64. */
  readonly encoded: NonNullable<BenchReport['encoded']>;
}

/**
 * The worker requests of a stage: the rate split evenly; Poisson arrivals seeded apart, or the plan's process from one
 * seed, each worker its share.
 */
export function workerRequests(config: CapacityConfig): LoadWorkerRequest[] {
  const process = config.arrivals !== undefined;
  return Array.from({ length: config.workers }, (_, worker) => ({
    worker,
    rateRps: config.rateRps / config.workers,
    durationMs: config.durationMs,
    warmupMs: config.warmupMs,
    timeoutMs: config.timeoutMs,
    maxInFlight: config.maxInFlightPerWorker,
    arrivals: process ? 'process' as const : 'poisson' as const,
    seed: process ? 1 : worker + 1,
  }));
}

/**
 * The longest the stage takes from the hook's side: the workers' start, their warm-up, the measured duration, the
 * requests still in flight and the return of the results.
 */
export function capacityStageMs(config: Pick<CapacityConfig, 'warmupMs' | 'durationMs' | 'timeoutMs'>): number {
  return WORKER_START_ALLOWANCE_MS + workerRunMs(config) + WORKER_RETURN_RESERVE_MS;
}

/** The longest one worker's run takes: warm-up, duration and one request timeout. */
export function workerRunMs(config: Pick<CapacityConfig, 'warmupMs' | 'durationMs' | 'timeoutMs'>): number {
  return config.warmupMs + config.durationMs + config.timeoutMs;
}
