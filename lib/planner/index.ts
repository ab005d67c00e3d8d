/**
 * The sizing planner: the cheapest Neuron deployment of a model that meets its throughput and latency targets.
 */
export * from './types';
export { coreLayout, devicesForCores, divisors, validateLayout, visibleCoresValue } from './layout';
export {
  chipOf,
  comparePlans,
  costPer1MInferences,
  DEFAULT_HEADROOM,
  describeMeasurement,
  HOST_MEMORY_USABLE_FRACTION,
  HOURS_PER_MONTH,
  instancesFor,
  measurementApplies,
  plan,
  planReport,
} from './planner';
