/**
 * The vLLM engine's metrics contract: the CloudWatch names, units and dimensions of the embedded-metric-format lines
 * `serving/vllm/engine_metrics.py` writes from the engine's Prometheus `/metrics`, so the dashboard and alarms read
 * exactly what the exporter emits. A test parses the exporter and fails when the two drift.
 *
 * Sources are vLLM V1's Prometheus names (vLLM `vllm/v1/metrics/loggers.py`, 0.11 and later, so 0.13 and 0.16):
 * the gauges `vllm:num_requests_running`, `vllm:num_requests_waiting`, `vllm:kv_cache_usage_perc` (a fraction, 1 =
 * full), the histograms `vllm:time_to_first_token_seconds`, `vllm:inter_token_latency_seconds`,
 * `vllm:request_time_per_output_token_seconds` (one observation per request: its mean time per output token, the
 * TPOT the planner predicts and the proofs measure), and the counters `vllm:prompt_tokens_total`,
 * `vllm:generation_tokens_total`, `vllm:request_success_total`.
 *
 * Per interval the exporter writes gauges as read, counters as the increase since the previous scrape, and each
 * histogram's p50 and p99 over the observations of the interval only (bucket-count increases, linear interpolation
 * inside the bucket, as Prometheus' `histogram_quantile`). CloudWatch cannot merge percentiles, so read p99s with
 * the Maximum statistic: the worst interval of any replica in the period.
 */
import type { ModelServerMetricName } from '../serving/metrics';

/** A metric the exporter writes, and the engine's Prometheus series it comes from. */
export interface EngineMetricName extends ModelServerMetricName {
  /** The vLLM series, for the record and the exporter's test. */
  readonly source: string;
}

/** CloudWatch namespace of the engine's metrics unless the caller names one. */
export const DEFAULT_ENGINE_METRICS_NAMESPACE = 'CdkInferentia/GenerativeEngine';

/** Dimension names. Every line carries both sets, `[Service]` and `[Service, Replica]`. */
export const ENGINE_METRICS_DIMENSION = {
  /** One value per endpoint or service. */
  service: 'Service',
  /** The replica (one `vllm serve` process): its index in the plan unless the hosting names it. */
  replica: 'Replica',
} as const;

/** Gauges, read at each scrape. */
export const ENGINE_GAUGES = {
  runningRequests: { name: 'RunningRequests', unit: 'Count', source: 'vllm:num_requests_running' },
  waitingRequests: { name: 'WaitingRequests', unit: 'Count', source: 'vllm:num_requests_waiting' },
  /** KV cache blocks in use, in percent (the engine's fraction times 100). */
  kvCacheUsage: { name: 'KvCacheUsage', unit: 'Percent', source: 'vllm:kv_cache_usage_perc' },
} as const satisfies Record<string, EngineMetricName>;

/** Increases since the previous scrape (a counter that went down, the engine restarted, counts from zero). */
export const ENGINE_COUNTERS = {
  promptTokens: { name: 'PromptTokens', unit: 'Count', source: 'vllm:prompt_tokens_total' },
  generationTokens: { name: 'GenerationTokens', unit: 'Count', source: 'vllm:generation_tokens_total' },
  finishedRequests: { name: 'FinishedRequests', unit: 'Count', source: 'vllm:request_success_total' },
} as const satisfies Record<string, EngineMetricName>;

/** Percentiles of the interval's observations, in ms; absent for an interval without observations. */
export const ENGINE_PERCENTILES = {
  ttftP50: { name: 'TimeToFirstTokenP50', unit: 'Milliseconds', source: 'vllm:time_to_first_token_seconds' },
  ttftP99: { name: 'TimeToFirstTokenP99', unit: 'Milliseconds', source: 'vllm:time_to_first_token_seconds' },
  tpotP50: { name: 'TimePerOutputTokenP50', unit: 'Milliseconds', source: 'vllm:request_time_per_output_token_seconds' },
  tpotP99: { name: 'TimePerOutputTokenP99', unit: 'Milliseconds', source: 'vllm:request_time_per_output_token_seconds' },
  itlP99: { name: 'InterTokenLatencyP99', unit: 'Milliseconds', source: 'vllm:inter_token_latency_seconds' },
} as const satisfies Record<string, EngineMetricName>;

/** The exporter's own health: scrapes that failed, and lines it could not write. */
export const ENGINE_EXPORTER_COUNTERS = {
  scrapeFailures: { name: 'MetricsScrapeFailures', unit: 'Count', source: '(exporter)' },
  metricLinesDropped: { name: 'MetricLinesDropped', unit: 'Count', source: '(exporter)' },
} as const satisfies Record<string, EngineMetricName>;
