import { Duration, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { InputError } from '../../lib/errors';
import {
  DEFAULT_ENGINE_METRICS_NAMESPACE,
  ENGINE_COUNTERS,
  ENGINE_EXPORTER_COUNTERS,
  ENGINE_GAUGES,
  ENGINE_METRICS_DIMENSION,
  ENGINE_PERCENTILES,
} from '../../lib/generative/engine-image';
import type { EngineMetricName } from '../../lib/generative/engine-image';
import type { GenerativePlan } from '../../lib/generative/types';
import { ModelServerMetrics } from './model-server-metrics';
import { MetricSource } from './private/metric-source';

/** Where the engine's metrics are, and the plan they are judged against. */
export interface GenerativeEngineMetricsProps {
  /**
   * CloudWatch namespace (`ENGINE_METRICS_NAMESPACE` of the containers).
   *
   * @default 'CdkInferentia/GenerativeEngine'
   */
  readonly namespace?: string;
  /** Value of the `Service` dimension (`ENGINE_METRICS_SERVICE`), e.g. the endpoint name. */
  readonly service: string;
  /**
   * The plan whose predictions the graphs draw as horizontal lines (TTFT and TPOT p99 predicted and targeted,
   * running sequences, output tokens per second).
   *
   * @default - graphs without predictions
   */
  readonly plan?: GenerativePlan;
}

/** Options of a per-replica metric: any CloudWatch metric option, plus the replica to read. */
export interface GenerativeEngineReplicaMetricOptions extends cloudwatch.MetricOptions {
  /**
   * The replica (`ENGINE_METRICS_REPLICA`, its index in the plan unless the hosting named it).
   *
   * @default - every replica (the `[Service]` dimension set)
   */
  readonly replica?: string;
}

/** Options of {@link GenerativeEngineMetrics.latencyAlarms}. */
export interface EngineLatencyAlarmOptions {
  /** The plan whose TTFT and TPOT p99 targets the thresholds scale. */
  readonly plan: GenerativePlan;
  /** Threshold = the plan's target x this factor. */
  readonly factor: number;
  /** What the alarm descriptions call the service, e.g. the endpoint's name. */
  readonly subject: string;
  /** What an alarm firing does, ending the description, e.g. `rolls an ECS deployment back`. */
  readonly onAlarm: string;
}

/**
 * The vLLM engine's CloudWatch metrics (`serving/vllm/engine_metrics.py`, contract in lib/generative/engine-metrics.ts)
 * beside the plan's predictions, for dashboards and alarms on SageMaker and ECS alike.
 *
 * The exporter writes one embedded-metric-format line per replica per scrape: gauges as read, counters as increases,
 * TTFT/TPOT percentiles of the scrape interval's observations. Percentiles of intervals do not merge, so the p99
 * metrics read with the Maximum statistic by default: the worst interval of any replica in the period, the value to
 * hold against the plan's p99. NeuronCore utilization comes from neuron-monitor in the same namespace
 * ({@link ModelServerMetrics.neuronCoreUtilization}).
 *
 * @example
 * const engine = new GenerativeEngineMetrics({ service: 'llama', plan });
 * new cloudwatch.Dashboard(this, 'Dashboard', { widgets: [engine.widgets()] });
 */
export class GenerativeEngineMetrics {
  readonly namespace: string;
  readonly service: string;
  readonly plan?: GenerativePlan;
  private readonly neuron: ModelServerMetrics;

  private readonly source: MetricSource;

  constructor(props: GenerativeEngineMetricsProps) {
    const namespace = props.namespace ?? DEFAULT_ENGINE_METRICS_NAMESPACE;
    this.source = new MetricSource('GenerativeEngineMetrics', namespace, props.service);
    this.namespace = namespace;
    this.service = props.service;
    this.plan = props.plan;
    this.neuron = new ModelServerMetrics({ namespace, service: props.service });
  }

  /** Requests decoding in the engine (average over replicas unless `statistic` says otherwise). */
  runningRequests(options?: GenerativeEngineReplicaMetricOptions): cloudwatch.Metric {
    return this.metric(ENGINE_GAUGES.runningRequests, cloudwatch.Stats.AVERAGE, options);
  }

  /** Requests queued for a slot (maximum over replicas unless `statistic` says otherwise). */
  waitingRequests(options?: GenerativeEngineReplicaMetricOptions): cloudwatch.Metric {
    return this.metric(ENGINE_GAUGES.waitingRequests, cloudwatch.Stats.MAXIMUM, options);
  }

  /** KV cache in use, percent (maximum over replicas unless `statistic` says otherwise). */
  kvCacheUsage(options?: GenerativeEngineReplicaMetricOptions): cloudwatch.Metric {
    return this.metric(ENGINE_GAUGES.kvCacheUsage, cloudwatch.Stats.MAXIMUM, options);
  }

  /**
   * The engine's start, constant after it (maximum over replicas unless `statistic` says otherwise): the vLLM Neuron
   * plugin's `compileTime`, `modelLoadTime` and `startupTime` in ms (Trn2/Trn3), and `neuronCoresSeen`, the cores the
   * copy saw before it loaded (the launcher's count). SageMaker copies report them here, where no proof reads /metrics.
   */
  engineStart(key: 'compileTime' | 'modelLoadTime' | 'startupTime' | 'neuronCoresSeen', options?: GenerativeEngineReplicaMetricOptions): cloudwatch.Metric {
    return this.metric(ENGINE_GAUGES[key], cloudwatch.Stats.MAXIMUM, options);
  }

  /** Time to first token, ms: the worst interval p99 in the period. */
  ttftP99(options?: GenerativeEngineReplicaMetricOptions): cloudwatch.Metric {
    return this.metric(ENGINE_PERCENTILES.ttftP99, cloudwatch.Stats.MAXIMUM, options);
  }

  /** Time to first token, ms: the average of interval medians. */
  ttftP50(options?: GenerativeEngineReplicaMetricOptions): cloudwatch.Metric {
    return this.metric(ENGINE_PERCENTILES.ttftP50, cloudwatch.Stats.AVERAGE, options);
  }

  /** Time per output token of a request (its mean), ms: the worst interval p99 in the period. */
  tpotP99(options?: GenerativeEngineReplicaMetricOptions): cloudwatch.Metric {
    return this.metric(ENGINE_PERCENTILES.tpotP99, cloudwatch.Stats.MAXIMUM, options);
  }

  /** Time per output token of a request, ms: the average of interval medians. */
  tpotP50(options?: GenerativeEngineReplicaMetricOptions): cloudwatch.Metric {
    return this.metric(ENGINE_PERCENTILES.tpotP50, cloudwatch.Stats.AVERAGE, options);
  }

  /** Gap between two output tokens, ms: the worst interval p99 in the period. */
  interTokenLatencyP99(options?: GenerativeEngineReplicaMetricOptions): cloudwatch.Metric {
    return this.metric(ENGINE_PERCENTILES.itlP99, cloudwatch.Stats.MAXIMUM, options);
  }

  /** Any counter by its contract key (sum): `promptTokens`, `generationTokens`, `finishedRequests`. */
  counter(key: keyof typeof ENGINE_COUNTERS, options?: GenerativeEngineReplicaMetricOptions): cloudwatch.Metric {
    return this.metric(ENGINE_COUNTERS[key], cloudwatch.Stats.SUM, options);
  }

  /** The exporter's own health (sum): `scrapeFailures`, `metricLinesDropped`. */
  exporterCounter(key: keyof typeof ENGINE_EXPORTER_COUNTERS, options?: GenerativeEngineReplicaMetricOptions): cloudwatch.Metric {
    return this.metric(ENGINE_EXPORTER_COUNTERS[key], cloudwatch.Stats.SUM, options);
  }

  /** Output tokens per second over every replica: the period's generated tokens over its seconds. */
  outputTokensPerSecond(options: GenerativeEngineReplicaMetricOptions = {}): cloudwatch.MathExpression {
    const { period, replica } = options;
    return this.source.expression('generated / PERIOD(generated)',
      { generated: this.counter('generationTokens', { period, replica }) }, 'Output tokens/s', options);
  }

  /** NeuronCore utilization, percent, from neuron-monitor (see {@link ModelServerMetrics.neuronCoreUtilization}). */
  neuronCoreUtilization(options?: cloudwatch.MetricOptions & { readonly core?: number }): cloudwatch.Metric {
    return this.neuron.neuronCoreUtilization(options);
  }

  /**
   * Graphs of the engine with the plan's numbers as horizontal lines: running and waiting requests (plan: mean
   * running sequences and the slot limit per replica), KV cache usage, TTFT p99 and TPOT p99 (plan: predicted and
   * target), output tokens per second (plan: at the target rate and at capacity), the engine's start (Trn2/Trn3),
   * NeuronCore utilization.
   */
  widgets(): cloudwatch.IWidget[] {
    const plan = this.plan?.generative;
    const line = (label: string, value: number | undefined, color?: string): cloudwatch.HorizontalAnnotation[] =>
      value === undefined ? [] : [{ label, value: round(value), color }];
    const graph = (title: string, left: cloudwatch.IMetric[], annotations: cloudwatch.HorizontalAnnotation[], leftYAxis: cloudwatch.YAxisProps) =>
      new cloudwatch.GraphWidget({ title, left, leftAnnotations: annotations, leftYAxis, width: 6, height: 6 });
    const capacity = plan && this.plan
      ? plan.capacityOutputTokensPerSecondPerReplica * plan.replicasPerInstance * this.plan.instanceCount
      : undefined;
    return [
      graph('Engine: running and waiting requests (per replica)', [
        this.runningRequests({ label: 'Running (average)' }),
        this.runningRequests({ statistic: cloudwatch.Stats.MAXIMUM, label: 'Running (busiest replica)' }),
        this.waitingRequests({ label: 'Waiting (most on a replica)' }),
      ], [
        ...line('Plan: mean running sequences', plan?.meanRunningSequences, cloudwatch.Color.GREEN),
        ...line('Slots (max_num_seqs)', plan?.engine.maxNumSeqs, cloudwatch.Color.RED),
      ], { min: 0 }),
      graph('Engine: KV cache usage (%)', [
        this.kvCacheUsage({ label: 'Fullest replica' }),
        this.kvCacheUsage({ statistic: cloudwatch.Stats.AVERAGE, label: 'Average' }),
      ], [], { min: 0, max: 100 }),
      graph('Engine: time to first token p99 (ms)', [
        this.ttftP99({ label: 'TTFT p99 (worst interval)' }),
        this.ttftP50({ label: 'TTFT p50' }),
      ], [
        ...line('Plan: predicted p99', plan?.predictedTtftP99Ms, cloudwatch.Color.GREEN),
        ...line('Target p99', this.plan?.targets.ttftP99Ms, cloudwatch.Color.RED),
      ], { min: 0 }),
      graph('Engine: time per output token p99 (ms)', [
        this.tpotP99({ label: 'TPOT p99 (worst interval)' }),
        this.tpotP50({ label: 'TPOT p50' }),
        this.interTokenLatencyP99({ label: 'Inter-token latency p99' }),
      ], [
        ...line('Plan: predicted p99', plan?.predictedTpotP99Ms, cloudwatch.Color.GREEN),
        ...line('Target p99', this.plan?.targets.tpotP99Ms, cloudwatch.Color.RED),
      ], { min: 0 }),
      graph('Engine: output tokens per second', [this.outputTokensPerSecond()], [
        ...line('Plan: at the target rate', plan?.outputTokensPerSecond, cloudwatch.Color.GREEN),
        ...line('Plan: capacity', capacity, cloudwatch.Color.RED),
      ], { min: 0 }),
      graph('Engine start (ms, vLLM Neuron plugin)', [
        this.engineStart('startupTime', { label: 'Startup (slowest replica)' }),
        this.engineStart('modelLoadTime', { label: 'Model load' }),
        this.engineStart('compileTime', { label: 'Compile at start' }),
      ], [], { min: 0 }),
      graph('NeuronCore utilization (%, neuron-monitor)', [
        this.neuronCoreUtilization({ label: 'Mean over used cores' }),
        this.neuronCoreUtilization({ statistic: cloudwatch.Stats.MAXIMUM, label: 'Busiest core' }),
      ], [], { min: 0, max: 100 }),
    ];
  }

  /**
   * TTFT and TPOT p99 alarms (ids `TtftP99Alarm`, `TpotP99Alarm` in `scope`) at the plan's targets x `factor`, in 2 of
   * 3 minutes on the worst interval p99 of any replica: noisier than a true p99, hence the factor.
   *
   * No traffic, or an image that exports no engine metrics, is not a slow engine: missing data does not breach.
   */
  latencyAlarms(scope: Construct, options: EngineLatencyAlarmOptions): cloudwatch.Alarm[] {
    const minute = { period: Duration.minutes(1) };
    const alarm = (id: string, metric: cloudwatch.IMetric, targetMs: number, what: string) => {
      const threshold = Math.round(targetMs * options.factor * 10) / 10;
      return new cloudwatch.Alarm(scope, id, {
        alarmDescription: `${what} p99 of ${options.subject} above ${threshold} ms (the plan's target ${targetMs} ms x `
          + `${options.factor}) in 2 of 3 minutes; ${options.onAlarm}.`,
        metric,
        threshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    };
    return [
      alarm('TtftP99Alarm', this.ttftP99(minute), options.plan.targets.ttftP99Ms, 'Time to first token'),
      alarm('TpotP99Alarm', this.tpotP99(minute), options.plan.targets.tpotP99Ms, 'Time per output token'),
    ];
  }

  private metric(metric: EngineMetricName, statistic: string, options: GenerativeEngineReplicaMetricOptions = {}): cloudwatch.Metric {
    const { replica, ...metricOptions } = options;
    if (replica !== undefined && !Token.isUnresolved(replica) && replica.trim() === '') {
      throw new InputError('GenerativeEngineMetrics: replica must not be empty; pass the replica index ("0") or omit it');
    }
    return this.source.metric(metric, statistic, metricOptions,
      replica === undefined ? undefined : { dimension: ENGINE_METRICS_DIMENSION.replica, value: replica });
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
