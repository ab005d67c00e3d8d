/**
 * The model server's environment contract: the variable names `serving/` reads and their values, rendered from a plan.
 *
 * Constructs call {@link modelServerEnvironment} with the plan's serving fields and pass the result as the container
 * environment (SageMaker model, ECS task, EC2 user data). The Python side (`serving/config.py`) reads the same names,
 * checks them at start and holds no sizing logic: every number comes from here.
 */
import { InputError } from '../errors';
import type { ServingServer } from '../planner/types';

/** Names of the variables the server reads. `serving/config.py` spells the same names. */
export const MODEL_SERVER_ENV = {
  /** Most inputs one device call takes (the plan's `batching.maxBatchSize`, or its `batchSize` without batching). */
  maxBatchSize: 'MODEL_SERVER_MAX_BATCH_SIZE',
  /** Longest wait in ms for a batch to fill, counted from its first request's arrival. */
  maxDelayMs: 'MODEL_SERVER_MAX_DELAY_MS',
  /** Batch size the model was compiled for; the handler pads partial batches to it (name kept from the example). */
  compiledBatchSize: 'MODEL_BATCH_SIZE',
  /** `NEURON_RT_VISIBLE_CORES` of each worker, in process order, joined by {@link CORE_GROUP_SEPARATOR}. */
  visibleCores: 'MODEL_SERVER_VISIBLE_CORES',
  /** Most requests waiting for a worker; above it the server answers 503 with `Retry-After`. */
  maxQueuedRequests: 'MODEL_SERVER_MAX_QUEUED_REQUESTS',
  /** Each request's deadline in ms from arrival; past it the server answers 504. */
  requestTimeoutMs: 'MODEL_SERVER_REQUEST_TIMEOUT_MS',
  /** CloudWatch namespace of the server's embedded-metric-format lines. */
  metricsNamespace: 'MODEL_SERVER_METRICS_NAMESPACE',
  /** Value of the metrics' `Service` dimension (one per endpoint or service). */
  metricsService: 'MODEL_SERVER_METRICS_SERVICE',
  /** How often, in ms, each worker's metrics line is written. */
  metricsIntervalMs: 'MODEL_SERVER_METRICS_INTERVAL_MS',
  /** Longest a worker may hold requests without a word (a device call included) before it is killed and restarted. */
  watchdogMs: 'MODEL_SERVER_WATCHDOG_MS',
  /** Largest request body in bytes, checked from `Content-Length` before the body is read; above it 413. */
  maxBodyBytes: 'MODEL_SERVER_MAX_BODY_BYTES',
  /** Most request-body bytes the server holds (queued and running); above it 503 with `Retry-After`. */
  maxQueuedBytes: 'MODEL_SERVER_MAX_QUEUED_BYTES',
  /** Longest wait in ms for a request's headers from connection open, and again for its body. */
  readTimeoutMs: 'MODEL_SERVER_READ_TIMEOUT_MS',
  /** Longest idle time in ms of a kept-alive connection between requests. */
  idleTimeoutMs: 'MODEL_SERVER_IDLE_TIMEOUT_MS',
  /** Most open client connections; one more is answered 503 and closed. */
  maxConnections: 'MODEL_SERVER_MAX_CONNECTIONS',
  /** Front-end processes sharing the port (SO_REUSEPORT): the main one holds the queue, the others forward to it. */
  frontEnds: 'MODEL_SERVER_FRONT_ENDS',
  /**
   * `1`: each worker overlaps its host work (`input_fn`, `output_fn`) with its device call, as every plan made for
   * the model server is planned (`batching` or `stock`); `0`: one after the other, as a plan made for a Neuron DLC's
   * stock toolkit (`server: 'neuron-dlc'`) is planned, so the server runs such a plan as it was sized.
   */
  overlap: 'MODEL_SERVER_OVERLAP',
} as const;

/**
 * Separates the workers' core groups in `MODEL_SERVER_VISIBLE_CORES`: `"0;1"`, `"0-1;2-3"`.
 *
 * Not a comma, because a group may itself be a list (`"51,52"`, accepted by the Neuron runtime since 2.16).
 */
export const CORE_GROUP_SEPARATOR = ';';

/** The CloudWatch namespace of the server's metrics unless the caller names one. */
export const DEFAULT_METRICS_NAMESPACE = 'CdkInferentia/ModelServer';

/**
 * Deadline unless the caller sets one: under SageMaker's 60 s limit for a real-time invocation, so the client reads
 * the server's 504 and its cause rather than SageMaker's timeout.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 55_000;

/**
 * Queue bound unless the caller sets one, in full batches per worker: enough to absorb a burst, short enough that a
 * queued request still runs well inside its deadline (16 device calls of a few to tens of ms each).
 */
export const DEFAULT_QUEUED_BATCHES_PER_WORKER = 16;

/**
 * Floor of the default queue bound, in requests per worker. With batch 1, 16 batches is 16 requests per worker, and
 * `npm run bench:serving` saw a host stall of a few ms at 943 requests/s answer nine 503s from a 32-request queue
 * (docs/model-server-bench.md): a burst that short should wait, not fail. 64 one-input calls of a few ms each are
 * still far inside the request deadline.
 */
export const MIN_QUEUED_REQUESTS_PER_WORKER = 64;

/** How often metrics are written unless the caller says: fine enough for 1-minute CloudWatch periods. */
export const DEFAULT_METRICS_INTERVAL_MS = 10_000;

/**
 * The watchdog's bound in device-call p99s: a call this much slower than the plan measured is not slow, it is stuck.
 * Neuron calls at a fixed shape vary by a few percent (the Neuron benchmark tables), so 10x never fires on a healthy
 * device.
 */
export const WATCHDOG_P99_FACTOR = 10;

/**
 * The watchdog's floor: a call of a few ms times 10 would be a few tens of ms, within reach of a host hiccup (a GC
 * pause, a page-in of model weights on the first call after a load). 10 s is still a fraction of the 55 s deadline,
 * so a request whose worker hangs is retried on another worker in time.
 */
export const WATCHDOG_FLOOR_MS = 10_000;

/**
 * The largest request body SageMaker real-time inference passes to the container: 6 MiB (6,291,456 bytes), the
 * maximum length of `InvokeEndpoint`'s `Body` in AWS's own SageMaker Runtime API model (service
 * `sagemaker-runtime` 2017-05-13, shape `BodyBlob`, `max: 6291456`, as shipped in botocore 1.43's
 * `data/sagemaker-runtime/2017-05-13/service-2.json`; rendered as the Body's length constraint in the API reference,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html). SageMaker refuses a
 * larger body before the container sees it, so on SageMaker the server's bound equals the hosting's.
 */
export const SAGEMAKER_MAX_BODY_BYTES = 6 * 1024 * 1024;

/**
 * The body limit off SageMaker (ECS behind an Application Load Balancer, which sets no limit on a request body): 25
 * MiB, so that with {@link DEFAULT_QUEUED_BODIES} the bodies the front end holds stay within 200 MiB. A model whose
 * requests are larger sets `MODEL_SERVER_MAX_BODY_BYTES` through the hosting's `environment` prop.
 */
export const DEFAULT_MAX_BODY_BYTES = 25 * 1024 * 1024;

/** The bytes bound unless the caller sets one, in maximal bodies: caps the front end's memory for bodies at 200 MiB. */
export const DEFAULT_QUEUED_BODIES = 8;

/** Headers (from connection open) and then the body must each arrive within this unless the caller says. */
export const DEFAULT_READ_TIMEOUT_MS = 10_000;

/**
 * Idle kept-alive connections close after this unless the caller says: above the ALB's default idle timeout of 60 s,
 * so the load balancer closes first (Elastic Load Balancing, "Connection idle timeout": the target's keep-alive
 * should be longer than the load balancer's idle timeout).
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 75_000;

/** Open connections one server accepts unless the caller says: far above what a load balancer opens to one target. */
export const DEFAULT_MAX_CONNECTIONS = 2048;

/** vCPUs per front end when no plan says how many front ends an instance runs ({@link frontEndsWithoutPlan}). */
export const VCPUS_PER_FRONT_END = 4;

/**
 * Front ends for a layout rendered without a plan (the planner sizes them from the load they carry): one per
 * {@link VCPUS_PER_FRONT_END} vCPUs, at most one per worker and a divisor of the workers (each front end owns an even
 * share), with a vCPU beside each worker's.
 */
export function frontEndsWithoutPlan(workers: number, vcpus: number): number {
  let frontEnds = Math.max(1, Math.min(workers, Math.floor(vcpus / VCPUS_PER_FRONT_END), vcpus - workers));
  while (workers % frontEnds !== 0) {
    frontEnds--;
  }
  return frontEnds;
}

/** The front ends the server runs for `plan` (`MODEL_SERVER_FRONT_ENDS`): the plan's, else {@link frontEndsWithoutPlan}. */
export function frontEndsOf(plan: Pick<ModelServerPlan, 'frontEndsPerInstance' | 'visibleCores' | 'instance'>): number {
  return plan.frontEndsPerInstance ?? frontEndsWithoutPlan(plan.visibleCores.length, plan.instance?.vcpus ?? 1);
}

/**
 * The plan fields the server needs, structurally (a planner `Plan` satisfies it).
 *
 * `batching` is `null` for a plan served one request per device call; the server then runs each request alone
 * unless others are already queued (it never waits for company), which only shortens waits.
 */
export interface ModelServerPlan {
  readonly batching: { readonly maxBatchSize: number; readonly maxDelayMs: number } | null;
  /**
   * The server the plan was sized for: `neuron-dlc` (a Neuron DLC's stock toolkit, which runs host work and the call
   * one after the other) renders `MODEL_SERVER_OVERLAP=0`, so the model server holds what the plan counted.
   * @default 'model-server' - overlapped, `MODEL_SERVER_OVERLAP=1`
   */
  readonly server?: ServingServer;
  /** Batch size the model was compiled for. */
  readonly batchSize: number;
  /** `NEURON_RT_VISIBLE_CORES` of each process on an instance, in process order: `["0", "1"]`, `["0-1", "2-3"]`. */
  readonly visibleCores: readonly string[];
  /**
   * p99 of one device call in ms, as measured: the watchdog's bound is {@link WATCHDOG_P99_FACTOR} times it, at least
   * {@link WATCHDOG_FLOOR_MS}. @default the floor alone
   */
  readonly p99Ms?: number;
  /**
   * Front-end processes on each instance, each owning an even share of the processes and its own queue (the planner
   * sets it from what the front ends must carry and the vCPUs left beside the processes). @default one front end
   */
  readonly frontEndsPerInstance?: number;
  /**
   * The instance, for a layout rendered without a plan: {@link frontEndsWithoutPlan} of its vCPUs.
   * @default one front end
   */
  readonly instance?: { readonly vcpus: number };
  /**
   * Where the server runs: on `sagemaker` the body limit is {@link SAGEMAKER_MAX_BODY_BYTES}, the hosting's own.
   * @default the limit off SageMaker, {@link DEFAULT_MAX_BODY_BYTES}
   */
  readonly hosting?: 'sagemaker' | 'ec2';
}

/** Settings that are not sizing: deadlines, queue bound and metrics naming. */
export interface ModelServerOptions {
  /** @default DEFAULT_REQUEST_TIMEOUT_MS (55 s) */
  readonly requestTimeoutMs?: number;
  /** @default DEFAULT_QUEUED_BATCHES_PER_WORKER x max batch size x workers, at least MIN_QUEUED_REQUESTS_PER_WORKER x workers */
  readonly maxQueuedRequests?: number;
  /** @default DEFAULT_METRICS_NAMESPACE */
  readonly metricsNamespace?: string;
  /** Value of the `Service` dimension, e.g. the endpoint name. @default 'model-server' */
  readonly metricsService?: string;
  /** @default DEFAULT_METRICS_INTERVAL_MS (10 s) */
  readonly metricsIntervalMs?: number;
  /** @default WATCHDOG_P99_FACTOR x the plan's p99Ms, at least WATCHDOG_FLOOR_MS, at most the request timeout */
  readonly watchdogMs?: number;
  /** @default SAGEMAKER_MAX_BODY_BYTES (6 MiB) on SageMaker, else DEFAULT_MAX_BODY_BYTES (25 MiB) */
  readonly maxBodyBytes?: number;
  /** @default DEFAULT_QUEUED_BODIES x maxBodyBytes */
  readonly maxQueuedBytes?: number;
  /** @default DEFAULT_READ_TIMEOUT_MS (10 s) */
  readonly readTimeoutMs?: number;
  /** @default DEFAULT_IDLE_TIMEOUT_MS (75 s) */
  readonly idleTimeoutMs?: number;
  /** @default DEFAULT_MAX_CONNECTIONS (2048) */
  readonly maxConnections?: number;
}

const CORE_GROUP = /^\d+(-\d+)?(,\d+(-\d+)?)*$/;

/**
 * The server's environment for a plan: every variable of {@link MODEL_SERVER_ENV}, as strings.
 *
 * @throws InputError listing every problem (field, value received, fix) when the plan or options cannot be served.
 */
export function modelServerEnvironment(plan: ModelServerPlan, options: ModelServerOptions = {}): Record<string, string> {
  const problems = [...planProblems(plan), ...optionProblems(plan, options)];
  InputError.throwIfAny(problems);
  const maxBatchSize = plan.batching?.maxBatchSize ?? plan.batchSize;
  const workers = plan.visibleCores.length;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes(plan);
  const watchdogMs = options.watchdogMs
    ?? Math.min(requestTimeoutMs, Math.max(WATCHDOG_FLOOR_MS, Math.ceil(WATCHDOG_P99_FACTOR * (plan.p99Ms ?? 0))));
  const env: Record<(typeof MODEL_SERVER_ENV)[keyof typeof MODEL_SERVER_ENV], string> = {
    [MODEL_SERVER_ENV.maxBatchSize]: `${maxBatchSize}`,
    [MODEL_SERVER_ENV.maxDelayMs]: `${plan.batching?.maxDelayMs ?? 0}`,
    [MODEL_SERVER_ENV.overlap]: plan.server === 'neuron-dlc' ? '0' : '1',
    [MODEL_SERVER_ENV.compiledBatchSize]: `${plan.batchSize}`,
    [MODEL_SERVER_ENV.visibleCores]: plan.visibleCores.join(CORE_GROUP_SEPARATOR),
    [MODEL_SERVER_ENV.maxQueuedRequests]: `${options.maxQueuedRequests ?? Math.max(DEFAULT_QUEUED_BATCHES_PER_WORKER * maxBatchSize, MIN_QUEUED_REQUESTS_PER_WORKER) * workers}`,
    [MODEL_SERVER_ENV.requestTimeoutMs]: `${requestTimeoutMs}`,
    [MODEL_SERVER_ENV.metricsNamespace]: options.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE,
    [MODEL_SERVER_ENV.metricsService]: options.metricsService ?? 'model-server',
    [MODEL_SERVER_ENV.metricsIntervalMs]: `${options.metricsIntervalMs ?? DEFAULT_METRICS_INTERVAL_MS}`,
    [MODEL_SERVER_ENV.watchdogMs]: `${watchdogMs}`,
    [MODEL_SERVER_ENV.maxBodyBytes]: `${maxBodyBytes}`,
    [MODEL_SERVER_ENV.maxQueuedBytes]: `${options.maxQueuedBytes ?? DEFAULT_QUEUED_BODIES * maxBodyBytes}`,
    [MODEL_SERVER_ENV.readTimeoutMs]: `${options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS}`,
    [MODEL_SERVER_ENV.idleTimeoutMs]: `${options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS}`,
    [MODEL_SERVER_ENV.maxConnections]: `${options.maxConnections ?? DEFAULT_MAX_CONNECTIONS}`,
    [MODEL_SERVER_ENV.frontEnds]: `${frontEndsOf(plan)}`,
  };
  return env;
}

function planProblems(plan: ModelServerPlan): string[] {
  const problems: string[] = [];
  if (plan.p99Ms !== undefined && !(Number.isFinite(plan.p99Ms) && plan.p99Ms > 0)) {
    problems.push(`p99Ms=${plan.p99Ms} must be the measured p99 of one device call in milliseconds, above 0`);
  }
  if (!isWhole(plan.batchSize, 1)) {
    problems.push(`batchSize=${plan.batchSize} must be the whole batch size the model was compiled for, at least 1`);
  }
  if (plan.server !== undefined && plan.server !== 'model-server' && plan.server !== 'neuron-dlc') {
    problems.push(`server=${JSON.stringify(plan.server)} is not a server a plan is made for; use 'model-server' or 'neuron-dlc'`);
  } else if (plan.server === 'neuron-dlc' && plan.batching !== null) {
    problems.push(
      "server='neuron-dlc' with batching: a plan made for a Neuron DLC's stock toolkit serves one request per call; " +
        "re-plan with { server: 'model-server' } for server batching",
    );
  }
  if (plan.batching !== null) {
    const { maxBatchSize, maxDelayMs } = plan.batching;
    if (!isWhole(maxBatchSize, 1)) {
      problems.push(`batching.maxBatchSize=${maxBatchSize} must be a whole number of inputs, at least 1`);
    } else if (isWhole(plan.batchSize, 1) && maxBatchSize > plan.batchSize) {
      problems.push(
        `batching.maxBatchSize=${maxBatchSize} exceeds batchSize=${plan.batchSize}, the batch the model was compiled ` +
          `for; use at most ${plan.batchSize} or compile for a larger batch`,
      );
    }
    if (!Number.isFinite(maxDelayMs) || maxDelayMs < 0) {
      problems.push(`batching.maxDelayMs=${maxDelayMs} must be a number of milliseconds, 0 or more`);
    }
  }
  if (plan.visibleCores.length === 0) {
    problems.push('visibleCores=[] must name the NeuronCores of at least one worker, e.g. ["0", "1"]');
  }
  const frontEnds = plan.frontEndsPerInstance;
  if (frontEnds !== undefined && (!isWhole(frontEnds, 1) || (plan.visibleCores.length > 0 && plan.visibleCores.length % frontEnds !== 0))) {
    problems.push(
      `frontEndsPerInstance=${frontEnds} must be a whole number of front ends that share the ${plan.visibleCores.length} ` +
        'worker(s) of visibleCores evenly (a divisor of their count); plan again to get one',
    );
  }
  const owner = new Map<number, number>();
  plan.visibleCores.forEach((group, worker) => {
    if (!CORE_GROUP.test(group) || !rangesAscend(group)) {
      problems.push(
        `visibleCores[${worker}]=${JSON.stringify(group)} is not a NEURON_RT_VISIBLE_CORES value; ` +
          'use an index ("3"), an ascending range ("2-3") or a list ("51,52")',
      );
      return;
    }
    for (const core of coresOf(group)) {
      const other = owner.get(core);
      if (other !== undefined && other !== worker) {
        problems.push(
          `visibleCores gives NeuronCore ${core} to workers ${other} and ${worker}; a NeuronCore belongs to one ` +
            'process only: give each worker its own cores',
        );
      }
      owner.set(core, other ?? worker);
    }
  });
  return problems;
}

/** The hosting's body limit: SageMaker's own cap on SageMaker, the memory-bounding default elsewhere. */
function defaultMaxBodyBytes(plan: ModelServerPlan): number {
  return plan.hosting === 'sagemaker' ? SAGEMAKER_MAX_BODY_BYTES : DEFAULT_MAX_BODY_BYTES;
}

function optionProblems(plan: ModelServerPlan, options: ModelServerOptions): string[] {
  const problems: string[] = [];
  for (const key of ['requestTimeoutMs', 'maxQueuedRequests', 'metricsIntervalMs', 'watchdogMs', 'maxBodyBytes',
    'maxQueuedBytes', 'readTimeoutMs', 'idleTimeoutMs', 'maxConnections'] as const) {
    const value = options[key];
    if (value !== undefined && !isWhole(value, 1)) {
      problems.push(`${key}=${value} must be a whole number, at least 1`);
    }
  }
  const body = options.maxBodyBytes ?? defaultMaxBodyBytes(plan);
  if (options.maxQueuedBytes !== undefined && isWhole(options.maxQueuedBytes, 1) && options.maxQueuedBytes < body) {
    problems.push(`maxQueuedBytes=${options.maxQueuedBytes} is below maxBodyBytes=${body}: a request of the largest allowed `
      + `size could never be queued; set maxQueuedBytes to at least ${body}`);
  }
  for (const key of ['metricsNamespace', 'metricsService'] as const) {
    const value = options[key];
    if (value !== undefined && (value.trim() === '' || value.length > 255)) {
      problems.push(`${key}=${JSON.stringify(value)} must be 1 to 255 characters (a CloudWatch name)`);
    }
  }
  return problems;
}

function isWhole(value: number, minimum: number): boolean {
  return Number.isInteger(value) && value >= minimum;
}

function rangesAscend(group: string): boolean {
  return group.split(',').every((part) => {
    const [first, last] = part.split('-').map(Number);
    return last === undefined || last >= first;
  });
}

function coresOf(group: string): number[] {
  return group.split(',').flatMap((part) => {
    const [first, last = first] = part.split('-').map(Number);
    return Array.from({ length: last - first + 1 }, (_, i) => first + i);
  });
}
