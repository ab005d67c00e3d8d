/**
 * Generative models planned in tokens: profiles with architecture and measured rows, memory (weights + KV cache),
 * a model of continuous batching, its replay, and the planner.
 */
import { BUILT_IN_GENERATIVE_PROFILES } from '../profiles/data/generative';
import type { GenerativeProfile } from './types';

export type * from './types';
export { ARTIFACTS_PER_WEIGHT_ESTIMATE, DTYPE_BYTES, RUNTIME_RESERVE_FRACTION, STARTUP_BUDGET_FACTOR, STARTUP_FIGURES, kvCachePerSequenceGiB, kvSharding, predictedStartup, replicaMemory, weightsGiB } from './memory';
export type { PredictedStartup } from './memory';
export { engineTiming, perOutputTokenMs, PREFILL_TOKENS_PER_STEP_ESTIMATE } from './continuous-batching';
export { generalizedPoissonTail, meetsTargets, normalQuantile, predictReplica, replicaCapacityRps } from './continuous-batching';
export { singleSlotWaitQuantile } from './queueing';
export type { ReplicaPrediction } from './continuous-batching';
export {
  DEFAULT_LENGTH_SPREAD, empiricalLength, lengthDistribution, lengthDistributionOf, lengthQuantile, lengthSampler, lengthsFromTraffic, lognormalLength,
  MAX_LOGNORMAL_P99_OVER_MEAN, sampleLength, sampleWorkload, workloadLengths, workloadSampler,
} from './lengths';
export { presetSpread, WORKLOAD_PRESET_NAMES, WORKLOAD_PRESETS } from './workloads';
export type { TraceCount, WorkloadPreset, WorkloadPresetName } from './workloads';
export type { LengthDistribution, LengthSpread, WorkloadLengths } from './lengths';
export { acceptedTokensFrom, CHAT_ACCEPTED_TOKENS, describeLevers, draftFor, EAGLE3_SPECULATIVE_TOKENS, leverSets, SPECULATIVE_TOKENS } from './levers';
export { LEVER_MEASUREMENTS, LEVER_NAMES, leverEvidence, unmeasuredLeversOf } from './lever-evidence';
export { planSensitivity } from './sensitivity';
export { MEASURED_LENGTH_SNAP, shareLongerThan, snapToMeasuredLength, SNAPPED_LENGTH_FITS } from './length-snap';
export type { LeverMeasurement } from './lever-evidence';
export { CHIP_FIGURES } from './perf-model';
export type { ChipFigures } from './perf-model';
export { builtInPerformanceModel, chooseBuckets, ESTIMATE_ERROR_QUANTILE, estimatedTiming, modelErrorFor } from './estimate';
export { describeEvidence } from './plan-evidence';
export type { Buckets, EstimatedTiming, PerformanceModel } from './estimate';
export { planTiming } from './estimate';
export { simulateGenerativeReplica } from './simulate';
export type { GenerativeSimulationInput, GenerativeSimulationResult } from './simulate';
export { compareGenerativePlans, describeConfiguration, HOST_MEMORY_PER_WEIGHT, maxModelLengthFor, planGenerative, planGenerativeReport } from './planner';
export { parseGenerativeProfile, profileKindOf } from './schema';
export { withGenerativeFallbackPools } from './pools';
export { VLLM_DEFAULT_PORT, VLLM_ENV, vllmReplicaConfigs, vllmServeCommand } from './engine-config';
export type { PluginEngineOptions, PluginSpeculation, VllmEngineKind, VllmEngineOptions, VllmReplicaConfig } from './engine-config';
export { vllmEngineOf } from './engine-config';
export { parseVllmDlcTag, SAGEMAKER_ENVIRONMENT_VALUE_MAX, VLLM_DLC_PINS, VLLM_DLC_REPOSITORY, VLLM_IMAGE_ENV, vllmContainerEnvironment, vllmDlcTagProblems } from './engine-image';
export type { EngineMetricsTarget, VllmDlcPin, VllmDlcTag } from './engine-image';
export { DEFAULT_ENGINE_METRICS_NAMESPACE, ENGINE_COUNTERS, ENGINE_EXPORTER_COUNTERS, ENGINE_GAUGES, ENGINE_METRICS_DIMENSION, ENGINE_PERCENTILES } from './engine-image';
export type { EngineMetricName } from './engine-image';

/** Every built-in generative profile, sorted by id. */
export function builtInGenerativeProfiles(): readonly GenerativeProfile[] {
  return BUILT_IN_GENERATIVE_PROFILES;
}

/** The built-in generative profile with this id, if any. */
export function findGenerativeProfile(id: string): GenerativeProfile | undefined {
  return BUILT_IN_GENERATIVE_PROFILES.find((p) => p.id === id);
}
