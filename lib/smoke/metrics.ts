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
} as const;

/** Dimension names, shared with the construct. */
export const SMOKE_DIMENSION = {
  endpoint: 'EndpointName',
  environment: 'Environment',
} as const;
