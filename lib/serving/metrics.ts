/**
 * The model server's metrics contract: the CloudWatch names, units and dimensions of the embedded-metric-format lines
 * `serving/metrics.py` writes, so dashboards, alarms and the smoke benchmark read exactly what the server emits.
 *
 * A test parses `serving/metrics.py` and fails when the two drift.
 */

/** A metric the server emits: its CloudWatch name and the EMF unit it declares. */
export interface ModelServerMetricName {
  /** CloudWatch metric name. */
  readonly name: string;
  /** EMF/CloudWatch unit, spelled as CloudWatch spells it. */
  readonly unit: 'Count' | 'Milliseconds' | 'Percent';
}

/** The dimension names of the server's metrics. */
export const MODEL_SERVER_DIMENSION = {
  /** `$MODEL_SERVER_METRICS_SERVICE`: one value per endpoint or service. */
  service: 'Service',
  /** The worker index, `"0"`, `"1"`, ...: one worker per NeuronCore group, in the plan's process order. */
  worker: 'Worker',
  /** The NeuronCore index on the instance, `"0"`, `"1"`, ... (neuron-monitor's numbering). */
  neuronCore: 'NeuronCore',
} as const;

/**
 * Exact counts per worker per interval, written with dimension sets `[Service]` and `[Service, Worker]`.
 *
 * Sum them: `Inputs / Batches` is the exact mean batch size.
 */
export const MODEL_SERVER_WORKER_COUNTERS = {
  /** Device calls. */
  batches: { name: 'Batches', unit: 'Count' },
  /** Requests answered by a device call. */
  requests: { name: 'Requests', unit: 'Count' },
  /** Inputs sent to the device, padding excluded (a request may carry several). */
  inputs: { name: 'Inputs', unit: 'Count' },
  /** Times the worker process was started again after it died. */
  workerRestarts: { name: 'WorkerRestarts', unit: 'Count' },
} as const satisfies Record<string, ModelServerMetricName>;

/**
 * Distributions per worker per interval, as a uniform sample of at most 100 values, written with dimension sets
 * `[Service]` and `[Service, Worker]`: read percentiles or averages, never sums.
 */
export const MODEL_SERVER_WORKER_SAMPLES = {
  /** Inputs per device call. */
  batchSize: { name: 'BatchSize', unit: 'Count' },
  /** Time from a request's arrival to the start of its device call. */
  queueWait: { name: 'QueueWait', unit: 'Milliseconds' },
  /** Time of one device call (the handler's `predict_fn` on the batch). */
  deviceTime: { name: 'DeviceTime', unit: 'Milliseconds' },
} as const satisfies Record<string, ModelServerMetricName>;

/** Exact counts for the whole server per interval, written with dimension set `[Service]` only. */
export const MODEL_SERVER_SERVICE_COUNTERS = {
  /** Requests refused with 503 because the queue was full (in requests at the serving workers' capacity, or in bytes). */
  queueFull: { name: 'QueueFull', unit: 'Count' },
  /** Requests answered 504 because their deadline passed. */
  deadlineExceeded: { name: 'DeadlineExceeded', unit: 'Count' },
  /** Worker processes that died or were killed by the watchdog while serving (their requests retried or answered 500). */
  workerErrors: { name: 'WorkerErrors', unit: 'Count' },
  /** Workers killed by the watchdog: they held requests without a word for longer than `MODEL_SERVER_WATCHDOG_MS`. */
  workerHangs: { name: 'WorkerHangs', unit: 'Count' },
  /** Requests of a dead or hung worker run again, alone, on another worker (each at most once). */
  requestsRetried: { name: 'RequestsRetried', unit: 'Count' },
  /** Extra device calls made to isolate the request(s) a failing `predict_fn` call failed on. */
  isolationCalls: { name: 'IsolationCalls', unit: 'Count' },
  /** Metric lines the server could not write (stdout's reader stalled or gone); the counts they carried are lost. */
  metricLinesDropped: { name: 'MetricLinesDropped', unit: 'Count' },
  /** Connections answered 503 and closed because `MODEL_SERVER_MAX_CONNECTIONS` were open. */
  connectionsRefused: { name: 'ConnectionsRefused', unit: 'Count' },
  /** Connections closed, or requests answered 408, because headers or body did not arrive in time. */
  readTimeouts: { name: 'ReadTimeouts', unit: 'Count' },
  /** Requests answered 413 because their body exceeded `MODEL_SERVER_MAX_BODY_BYTES`. */
  bodyTooLarge: { name: 'BodyTooLarge', unit: 'Count' },
} as const satisfies Record<string, ModelServerMetricName>;

/**
 * From neuron-monitor, through `serving/neuron_monitor.py`, which the image's entrypoint runs beside the server when
 * the image has neuron-monitor: one value per NeuronCore per neuron-monitor period, written with dimension sets
 * `[Service]` (average: mean over the used cores) and `[Service, NeuronCore]`.
 */
export const MODEL_SERVER_NEURON_MONITOR_METRICS = {
  /** Share of the period the NeuronCore was busy, in percent. */
  neuronCoreUtilization: { name: 'NeuronCoreUtilization', unit: 'Percent' },
} as const satisfies Record<string, ModelServerMetricName>;
