import { Catalog } from '../../lib/catalog';
import type { GenerativePlan, ReplicaLayout } from '../../lib/generative/types';

/** Replica `index` on `devices` Neuron devices from `firstDevice`, each of `coresPerDevice` cores. */
export function replica(index: number, firstDevice: number, devices: number, coresPerDevice = 2): ReplicaLayout {
  const cores = Array.from({ length: devices * coresPerDevice }, (_, i) => firstDevice * coresPerDevice + i);
  return {
    index,
    cores,
    visibleCores: `${cores[0]}-${cores[cores.length - 1]}`,
    devices: Array.from({ length: devices }, (_, i) => `/dev/neuron${firstDevice + i}`),
  };
}

/**
 * A generative plan written out by hand, so every expected value follows from the numbers here (the planner takes
 * seconds for a Llama plan): 1 x ml.inf2.48xlarge (12 devices, 192 vCPUs, 768 GiB), 3 replicas of TP 8 (4 devices
 * each), peak 2 instances, 2 requests/s, 14.96 GiB of weights, 5.2 sequences decoding per replica, TTFT p99 999.6 ms.
 */
export function handWrittenGenerativePlan(overrides: Partial<GenerativePlan> = {},
  generative: Partial<GenerativePlan['generative']> = {}): GenerativePlan {
  const instance = Catalog.builtIn().instance('inf2.48xlarge');
  if (!instance) throw new Error('no inf2.48xlarge in the catalog');
  return {
    kind: 'generative',
    profileId: 'llama-3.1-8b-instruct',
    region: 'us-east-1',
    hosting: 'sagemaker',
    targets: { requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60, peakRequestsPerSecond: 4 },
    headroom: 0.2,
    instanceType: 'ml.inf2.48xlarge',
    instance,
    instanceCount: 1,
    maxInstanceCount: 2,
    capacityPerInstanceRps: 3.64,
    capacityRps: 3.64,
    price: { instanceType: 'inf2.48xlarge', region: 'us-east-1', hosting: 'sagemaker', usdPerHour: 15.58, kind: 'on-demand', source: 'test', asOf: '2026-01-01', unverified: true },
    hourlyCostUsd: 15.58,
    monthlyCostUsd: 11373.4,
    generative: {
      architecture: 'decoder-only',
      tensorParallelDegree: 8,
      replicasPerInstance: 3,
      maxConcurrentSequences: 32,
      maxModelLength: 1280,
      memoryGiB: { weights: 14.96, kvCache: 5, reserve: 12.8, available: 128, kvHeadsPerRank: 1, kvSharding: 'shard', maxConcurrencyThatFits: 641 },
      predictedTtftP99Ms: 999.6,
      predictedTpotP99Ms: 41.99,
      predictedE2eP99Ms: 11707,
      outputTokensPerSecond: 512,
      capacityOutputTokensPerSecondPerReplica: 310.55,
      capacityPerReplicaRps: 1.2131,
      meanRunningSequences: 5.2,
      costPer1MOutputTokensUsd: 8.45,
      engine: { tensorParallelSize: 8, maxNumSeqs: 32, maxModelLen: 1280, logicalNeuronCoreConfig: 1 },
      replicas: [replica(0, 0, 4), replica(1, 4, 4), replica(2, 8, 4)],
      measurement: [],
      ...generative,
    },
    warnings: [],
    ...overrides,
  };
}
