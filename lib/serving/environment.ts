/**
 * The model server's environment contract: the variable names `serving/` reads and their values, rendered from a plan.
 *
 * Constructs call {@link modelServerEnvironment} with the plan's serving fields and pass the result as the container
 * environment (SageMaker model, ECS task, EC2 user data). The Python side (`serving/config.py`) reads the same names,
 * checks them at start and holds no sizing logic: every number comes from here.
 */
import { InputError } from '../errors';

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
 * The plan fields the server needs, structurally (a planner `Plan` satisfies it).
 *
 * `batching` is `null` for a plan served one request per device call; the server then runs each request alone
 * unless others are already queued (it never waits for company), which only shortens waits.
 */
export interface ModelServerPlan {
  readonly batching: { readonly maxBatchSize: number; readonly maxDelayMs: number } | null;
  /** Batch size the model was compiled for. */
  readonly batchSize: number;
  /** `NEURON_RT_VISIBLE_CORES` of each process on an instance, in process order: `["0", "1"]`, `["0-1", "2-3"]`. */
  readonly visibleCores: readonly string[];
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
}

const CORE_GROUP = /^\d+(-\d+)?(,\d+(-\d+)?)*$/;

/**
 * The server's environment for a plan: every variable of {@link MODEL_SERVER_ENV}, as strings.
 *
 * @throws InputError listing every problem (field, value received, fix) when the plan or options cannot be served.
 */
export function modelServerEnvironment(plan: ModelServerPlan, options: ModelServerOptions = {}): Record<string, string> {
  const problems = [...planProblems(plan), ...optionProblems(options)];
  InputError.throwIfAny(problems);
  const maxBatchSize = plan.batching?.maxBatchSize ?? plan.batchSize;
  const workers = plan.visibleCores.length;
  const env: Record<(typeof MODEL_SERVER_ENV)[keyof typeof MODEL_SERVER_ENV], string> = {
    [MODEL_SERVER_ENV.maxBatchSize]: `${maxBatchSize}`,
    [MODEL_SERVER_ENV.maxDelayMs]: `${plan.batching?.maxDelayMs ?? 0}`,
    [MODEL_SERVER_ENV.compiledBatchSize]: `${plan.batchSize}`,
    [MODEL_SERVER_ENV.visibleCores]: plan.visibleCores.join(CORE_GROUP_SEPARATOR),
    [MODEL_SERVER_ENV.maxQueuedRequests]: `${options.maxQueuedRequests ?? Math.max(DEFAULT_QUEUED_BATCHES_PER_WORKER * maxBatchSize, MIN_QUEUED_REQUESTS_PER_WORKER) * workers}`,
    [MODEL_SERVER_ENV.requestTimeoutMs]: `${options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS}`,
    [MODEL_SERVER_ENV.metricsNamespace]: options.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE,
    [MODEL_SERVER_ENV.metricsService]: options.metricsService ?? 'model-server',
    [MODEL_SERVER_ENV.metricsIntervalMs]: `${options.metricsIntervalMs ?? DEFAULT_METRICS_INTERVAL_MS}`,
  };
  return env;
}

function planProblems(plan: ModelServerPlan): string[] {
  const problems: string[] = [];
  if (!isWhole(plan.batchSize, 1)) {
    problems.push(`batchSize=${plan.batchSize} must be the whole batch size the model was compiled for, at least 1`);
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

function optionProblems(options: ModelServerOptions): string[] {
  const problems: string[] = [];
  for (const key of ['requestTimeoutMs', 'maxQueuedRequests', 'metricsIntervalMs'] as const) {
    const value = options[key];
    if (value !== undefined && !isWhole(value, 1)) {
      problems.push(`${key}=${value} must be a whole number, at least 1`);
    }
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
