/**
 * The smoke benchmark's CloudWatch metric and dimension names: written by the handler, read by the construct's
 * `metricXxx()` helpers and alarms.
 */

/** Metric names, shared with the construct's `metricXxx()` helpers. */
export const SMOKE_METRIC = {
  p50: 'LatencyP50',
  p90: 'LatencyP90',
  p99: 'LatencyP99',
  max: 'LatencyMax',
  throughput: 'Throughput',
  /** Percent, 0-100. */
  errorRate: 'ErrorRate',
  requests: 'Requests',
  errors: 'Errors',
  /** 1 when every threshold held, else 0. */
  passed: 'Passed',
  /** Successful requests per second the capacity proof achieved over all its load workers. */
  capacityRate: 'CapacityAchievedRate',
  /** Client-side p99 of the capacity proof, in ms. */
  capacityP99: 'CapacityLatencyP99',
  /** Proof in tokens: p99 time to first token of the short run, in ms. */
  ttftP99: 'TimeToFirstTokenP99',
  /** Proof in tokens: p99 time per output token of the short run, in ms. */
  tpotP99: 'TimePerOutputTokenP99',
  /** Proof in tokens: output tokens per second of the short run. */
  outputTokens: 'OutputTokensPerSecond',
  /** Proof in tokens: 1 when the golden prompt got its expected answer, else 0. */
  golden: 'GoldenAnswer',
  /** Proof in tokens: p99 time to first token of the capacity proof, in ms. */
  capacityTtftP99: 'CapacityTimeToFirstTokenP99',
  /** Proof in tokens: p99 time per output token of the capacity proof, in ms. */
  capacityTpotP99: 'CapacityTimePerOutputTokenP99',
} as const;

/** Dimension names, shared with the construct. */
export const SMOKE_DIMENSION = {
  endpoint: 'EndpointName',
  environment: 'Environment',
} as const;
