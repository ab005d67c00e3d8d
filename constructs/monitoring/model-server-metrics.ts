import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import {
  MODEL_SERVER_DIMENSION,
  MODEL_SERVER_NEURON_MONITOR_METRICS,
  MODEL_SERVER_SERVICE_COUNTERS,
  MODEL_SERVER_WORKER_COUNTERS,
  MODEL_SERVER_WORKER_SAMPLES,
  ModelServerMetricName,
} from '../../lib/serving/metrics';
import { MetricSource } from './private/metric-source';

/** Where the model server's metrics are: the namespace and `Service` dimension its environment was given. */
export interface ModelServerMetricsProps {
  /** CloudWatch namespace (`MODEL_SERVER_METRICS_NAMESPACE`), e.g. `CdkInferentia/ModelServer`. */
  readonly namespace: string;
  /** Value of the `Service` dimension (`MODEL_SERVER_METRICS_SERVICE`), e.g. the endpoint name. */
  readonly service: string;
  /**
   * Workers per instance (the plan's processes), for per-worker lines in {@link ModelServerMetrics.widgets}.
   *
   * @default - widgets show the server as a whole only
   */
  readonly workers?: number;
}

/** Options of a per-worker metric: any CloudWatch metric option, plus the worker to read. */
export interface ModelServerWorkerMetricOptions extends cloudwatch.MetricOptions {
  /**
   * The worker index (`0`, `1`, ...), in the plan's process order.
   *
   * Workers of the same index on different instances share the dimension, so this is "worker i on every instance".
   *
   * @default - all workers (the `[Service]` dimension set)
   */
  readonly worker?: number;
}

/** Options of a per-core metric: any CloudWatch metric option, plus the NeuronCore to read. */
export interface ModelServerCoreMetricOptions extends cloudwatch.MetricOptions {
  /**
   * The NeuronCore index on the instance (`0`, `1`, ...). Cores of the same index on different instances share the
   * dimension.
   *
   * @default - all cores (the `[Service]` dimension set)
   */
  readonly core?: number;
}

/**
 * The model server's CloudWatch metrics (`serving/metrics.py`), for dashboards and alarms on any hosting.
 *
 * The server writes embedded-metric-format lines to stdout; SageMaker (the endpoint's log group) and ECS (awslogs)
 * forward them and CloudWatch extracts the metrics, with no `cloudwatch:PutMetricData` permission. Counters are
 * exact (read them as sums); `BatchSize`, `QueueWait` and `DeviceTime` are per-interval samples of at most 100
 * values (read percentiles or averages, never sums). The mean batch size is {@link meanBatchSize}, `Inputs / Batches`.
 *
 * NeuronCore utilization comes from neuron-monitor, which the image's entrypoint pipes into `serving/neuron_monitor.py`
 * when the image has it (every Neuron DLC does; `MODEL_SERVER_NEURON_MONITOR=off` turns it off).
 *
 * Every metric defaults to a 1-minute period; options passed to a method win.
 *
 * @example
 * const metrics = new ModelServerMetrics({ namespace: 'CdkInferentia/ModelServer', service: 'my-endpoint', workers: 2 });
 * new cloudwatch.Dashboard(this, 'Dashboard', { widgets: [metrics.widgets()] });
 */
export class ModelServerMetrics {
  /** The CloudWatch namespace of every metric. */
  readonly namespace: string;
  /** The `Service` dimension of every metric. */
  readonly service: string;
  /** Workers per instance, when known. */
  readonly workers?: number;

  private readonly source: MetricSource;

  constructor(props: ModelServerMetricsProps) {
    const problems: string[] = [];
    if (props.workers !== undefined && !(Number.isInteger(props.workers) && props.workers >= 1)) {
      problems.push(`workers=${props.workers} must be a whole number of worker processes, at least 1`);
    }
    this.source = new MetricSource('ModelServerMetrics', props.namespace, props.service, problems);
    this.namespace = props.namespace;
    this.service = props.service;
    this.workers = props.workers;
  }

  /** Inputs per device call (average of the sampled batches unless `statistic` says otherwise). */
  batchSize(options?: ModelServerWorkerMetricOptions): cloudwatch.Metric {
    return this.workerMetric(MODEL_SERVER_WORKER_SAMPLES.batchSize, cloudwatch.Stats.AVERAGE, options);
  }

  /** Time from a request's arrival to the start of its device call, in ms (p99 unless `statistic` says otherwise). */
  queueWait(options?: ModelServerWorkerMetricOptions): cloudwatch.Metric {
    return this.workerMetric(MODEL_SERVER_WORKER_SAMPLES.queueWait, cloudwatch.Stats.p(99), options);
  }

  /** Time of one device call (`predict_fn` on the batch), in ms (p99 unless `statistic` says otherwise). */
  deviceTime(options?: ModelServerWorkerMetricOptions): cloudwatch.Metric {
    return this.workerMetric(MODEL_SERVER_WORKER_SAMPLES.deviceTime, cloudwatch.Stats.p(99), options);
  }

  /** Requests answered by a device call (sum). */
  requests(options?: ModelServerWorkerMetricOptions): cloudwatch.Metric {
    return this.workerMetric(MODEL_SERVER_WORKER_COUNTERS.requests, cloudwatch.Stats.SUM, options);
  }

  /** Inputs sent to the device, padding excluded (sum). */
  inputs(options?: ModelServerWorkerMetricOptions): cloudwatch.Metric {
    return this.workerMetric(MODEL_SERVER_WORKER_COUNTERS.inputs, cloudwatch.Stats.SUM, options);
  }

  /** Device calls (sum). */
  batches(options?: ModelServerWorkerMetricOptions): cloudwatch.Metric {
    return this.workerMetric(MODEL_SERVER_WORKER_COUNTERS.batches, cloudwatch.Stats.SUM, options);
  }

  /** Worker processes started again after they died (sum). */
  workerRestarts(options?: ModelServerWorkerMetricOptions): cloudwatch.Metric {
    return this.workerMetric(MODEL_SERVER_WORKER_COUNTERS.workerRestarts, cloudwatch.Stats.SUM, options);
  }

  /** Requests refused with 503 and `Retry-After` because the queue was full (sum). */
  queueFull(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.serviceMetric(MODEL_SERVER_SERVICE_COUNTERS.queueFull, options);
  }

  /** Requests answered 504 because their deadline passed (sum). */
  deadlineExceeded(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.serviceMetric(MODEL_SERVER_SERVICE_COUNTERS.deadlineExceeded, options);
  }

  /** Worker processes that died while serving; each of their in-flight requests got a 500 at once (sum). */
  workerErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.serviceMetric(MODEL_SERVER_SERVICE_COUNTERS.workerErrors, options);
  }

  /**
   * Any service counter of the server by its contract key (sum): `workerHangs`, `requestsRetried`, `isolationCalls`,
   * `metricLinesDropped`, `connectionsRefused`, `readTimeouts`, `bodyTooLarge`, and the three above.
   */
  serviceCounter(key: keyof typeof MODEL_SERVER_SERVICE_COUNTERS, options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.serviceMetric(MODEL_SERVER_SERVICE_COUNTERS[key], options);
  }

  /**
   * NeuronCore utilization in percent from neuron-monitor (average unless `statistic` says otherwise): over the used
   * cores of every instance, or of one core index with `core`.
   */
  neuronCoreUtilization(options: ModelServerCoreMetricOptions = {}): cloudwatch.Metric {
    const { core, ...metricOptions } = options;
    return this.source.metric(MODEL_SERVER_NEURON_MONITOR_METRICS.neuronCoreUtilization, cloudwatch.Stats.AVERAGE,
      metricOptions, this.source.numbered('core', 'NeuronCore index', MODEL_SERVER_DIMENSION.neuronCore, core));
  }

  /**
   * The exact mean batch size, `Inputs / Batches` over each period (the sampled `BatchSize` average is an estimate).
   *
   * @param options `worker` and `period` apply to both counters; `label` and `color` to the expression.
   */
  meanBatchSize(options: ModelServerWorkerMetricOptions = {}): cloudwatch.MathExpression {
    const { period, worker } = options;
    // Ids are unique per worker: one graph may hold the whole server's and each worker's expression.
    const suffix = worker === undefined ? '' : `W${worker}`;
    return this.source.expression(`inputs${suffix} / batches${suffix}`, {
      [`inputs${suffix}`]: this.inputs({ period, worker }),
      [`batches${suffix}`]: this.batches({ period, worker }),
    }, worker === undefined ? 'Mean batch size' : `Mean batch size, worker ${worker}`, options);
  }

  /**
   * Graphs of the server: traffic, batch size, queue wait, device time, failures and NeuronCore utilization.
   *
   * With `workers`, the batch size and device time graphs show each worker beside the whole, so a slow or idle
   * NeuronCore group stands out.
   */
  widgets(): cloudwatch.IWidget[] {
    const perWorker = Array.from({ length: this.workers ?? 0 }, (_, worker) => worker);
    const graph = (title: string, left: cloudwatch.IMetric[], leftYAxis?: cloudwatch.YAxisProps) =>
      new cloudwatch.GraphWidget({ title, left, leftYAxis, width: 6, height: 6 });
    return [
      graph('Model server: requests, inputs and device calls', [
        this.requests({ label: 'Requests' }),
        this.inputs({ label: 'Inputs' }),
        this.batches({ label: 'Device calls' }),
      ], { min: 0 }),
      graph('Model server: mean batch size (inputs per device call)', [
        this.meanBatchSize(),
        ...perWorker.map((worker) => this.meanBatchSize({ worker })),
      ], { min: 0 }),
      graph('Model server: queue wait and device time (ms)', [
        this.queueWait({ statistic: cloudwatch.Stats.p(50), label: 'Queue wait p50' }),
        this.queueWait({ label: 'Queue wait p99' }),
        this.deviceTime({ statistic: cloudwatch.Stats.p(50), label: 'Device time p50' }),
        this.deviceTime({ label: 'Device time p99' }),
        ...perWorker.map((worker) => this.deviceTime({ worker, label: `Device time p99, worker ${worker}` })),
      ], { min: 0 }),
      graph('Model server: refusals and failures', [
        this.queueFull({ label: 'Queue full (503)' }),
        this.deadlineExceeded({ label: 'Deadline exceeded (504)' }),
        this.workerErrors({ label: 'Worker died (500)' }),
        this.workerRestarts({ label: 'Worker restarts' }),
        this.serviceCounter('workerHangs', { label: 'Hung workers killed (watchdog)' }),
        this.serviceCounter('requestsRetried', { label: 'Requests retried on another worker' }),
        this.serviceCounter('isolationCalls', { label: 'Extra calls isolating a failing input' }),
      ], { min: 0 }),
      graph('Model server: abusive clients and lost metric lines', [
        this.serviceCounter('connectionsRefused', { label: 'Connections over the cap (503)' }),
        this.serviceCounter('readTimeouts', { label: 'Headers or body too slow' }),
        this.serviceCounter('bodyTooLarge', { label: 'Body over the limit (413)' }),
        this.serviceCounter('metricLinesDropped', { label: 'Metric lines dropped' }),
      ], { min: 0 }),
      graph('NeuronCore utilization (%, neuron-monitor)', [
        this.neuronCoreUtilization({ label: 'Mean over used cores' }),
        this.neuronCoreUtilization({ statistic: cloudwatch.Stats.MINIMUM, label: 'Least busy core' }),
        this.neuronCoreUtilization({ statistic: cloudwatch.Stats.MAXIMUM, label: 'Busiest core' }),
      ], { min: 0, max: 100 }),
    ];
  }

  private workerMetric(
    metric: ModelServerMetricName,
    statistic: string,
    options: ModelServerWorkerMetricOptions = {},
  ): cloudwatch.Metric {
    const { worker, ...metricOptions } = options;
    return this.source.metric(metric, statistic, metricOptions,
      this.source.numbered('worker', 'worker index', MODEL_SERVER_DIMENSION.worker, worker));
  }

  private serviceMetric(metric: ModelServerMetricName, options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.source.metric(metric, cloudwatch.Stats.SUM, options);
  }
}
