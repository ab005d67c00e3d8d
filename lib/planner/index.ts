/**
 * The sizing planner: the cheapest Neuron deployment of a model that meets its throughput and latency targets.
 */
export * from './types';
export { coreLayout, devicesForCores, supportedGroupSizes, validateLayout, visibleCoresValue } from './layout';
export { chipOf, comparePlans, DEFAULT_HEADROOM, describeMeasurement, measurementApplies, plan, planReport } from './planner';
export {
  BATCHING_DELAY_FRACTIONS,
  batchingDelaysMs,
  costPer1MRequests,
  DEFAULT_HOST_CPU_MS_PER_REQUEST,
  FRONT_END_VCPUS,
  frontEndChoices,
  HOST_MEMORY_USABLE_FRACTION,
  HOURS_PER_MONTH,
  hostWorkOrigin,
  INF1_END_OF_SUPPORT,
  instancesFor,
  MAX_PLANNED_INSTANCES,
  planServingModel,
} from './candidate';
export {
  SERVING_MODES, SERVING_SERVERS, overlapsHostWork, SERVER_PATH_MS, frontEndShare, WORKER_HANDOVER_MS_PER_CALL, WORKER_HANDOVER_MS_PER_REQUEST, busySecondsForCall, hostSecondsForCall, processSecondsForCall, FRONT_END_MAX_UTILIZATION, FRONT_END_MS_PER_CALL, FRONT_END_MS_PER_REQUEST, capacity, capacityRps, frontEndUtilization, servingModel,
  predictedP99Seconds, processUtilization, saturationPerProcessRps,
} from './serving';
export type { CapacityLimit, ServingChoice, ServingModel } from './serving';
export { batchArrivalScv, batchRequestsQuantile, erlangC, largestFitting, meanBatchRequests, MIN_SERVICE_SCV, serviceScv, waitQuantileSeconds } from './queueing';
export { simulateInstance } from './simulate';
export { fallbacksProblems, MAX_FALLBACKS, mixedFleetCost, pickPoolPlans, poolChip, sharedCompiles, withFallbackPools } from './pools';
export type { SimulationInput, SimulationResult } from './simulate';
