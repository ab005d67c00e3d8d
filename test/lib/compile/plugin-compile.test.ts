import { Catalog } from '../../../lib/catalog/catalog';
import { cpuCompileEnvironment, pluginCompileKey } from '../../../lib/compile/generative-spec';
import { cpuCompileHostTypes } from '../../../lib/compile/host';
import { findGenerativeProfile, planGenerativeReport } from '../../../lib/generative';
import type { GenerativePlan } from '../../../lib/generative';
import { vllmReplicaConfigs } from '../../../lib/generative/engine-config';
import { coreLayout } from '../../../lib/planner/layout';

const CATALOG = Catalog.builtIn();
const BASE = planGenerativeReport(findGenerativeProfile('llama-3.1-8b-instruct')!, {
  requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60,
}, { region: 'us-east-1', hosting: 'sagemaker' }, CATALOG).chosen;

function trn2(tp: number, seqs: number, maxModelLen: number): GenerativePlan {
  const instance = CATALOG.instance('trn2.48xlarge')!;
  const replicas = Math.floor(64 / tp);
  return {
    ...BASE, instanceType: 'trn2.48xlarge', instance,
    generative: {
      ...BASE.generative, tensorParallelDegree: tp, replicasPerInstance: replicas, maxConcurrentSequences: seqs,
      engine: { tensorParallelSize: tp, maxNumSeqs: seqs, maxModelLen, logicalNeuronCoreConfig: 2 },
      replicas: coreLayout(instance, tp, replicas),
    },
  };
}

const WEIGHTS = { source: 'huggingface', repository: 'meta-llama/Llama-3.3-70B-Instruct', revision: '6f6073b423013f6a7d4d9f39144961bfbfbc386b' };
const DIGEST = 'sha256:' + 'a'.repeat(64);
const key = (plan: GenerativePlan, port = 8080, digest = DIGEST) => pluginCompileKey({
  family: 'trn2', weights: WEIGHTS, imageDigest: digest,
  replica: vllmReplicaConfigs(plan, { model: '/opt/ml/model', servedModelName: 'llama', port })[0],
});

describe('compiling a Trn2 plan on a CPU instance', () => {
  test('GIVEN 70B of BF16 weights (131 GiB) THEN the compile runs on a memory-optimized CPU type, not on the accelerator', () => {
    expect(cpuCompileHostTypes(131)).toEqual(['r7i.12xlarge', 'r7i.16xlarge']);
    expect(cpuCompileHostTypes(15)).toEqual(['r7i.4xlarge', 'r7i.8xlarge']);
    expect(() => cpuCompileHostTypes(1000)).toThrow(/more than r7i\.48xlarge has; pass compileInstanceTypes/);
  });

  test('GIVEN the same plan twice THEN the key is the same; a graph setting, the image or the weights change it, the port does not', () => {
    const plan = trn2(16, 8, 4096);
    expect(key(plan)).toMatch(/^[0-9a-f]{24}$/);
    expect(key(plan)).toBe(key(trn2(16, 8, 4096)));
    expect(key(plan, 9000)).toBe(key(plan));
    expect(key(trn2(16, 16, 4096))).not.toBe(key(plan));
    expect(key(trn2(16, 8, 8192))).not.toBe(key(plan));
    expect(key(trn2(32, 8, 4096))).not.toBe(key(plan));
    expect(key(plan, 8080, 'sha256:' + 'b'.repeat(64))).not.toBe(key(plan));
  });

  test('GIVEN the replica WHEN compiled on CPU THEN the plugin compiles for trn2 at the plan\'s LNC into the cache directory', () => {
    const replica = vllmReplicaConfigs(trn2(16, 8, 4096), { model: '/opt/ml/model', servedModelName: 'llama' })[0];
    expect(cpuCompileEnvironment('trn2', replica, '/var/cache/neuron')).toEqual({
      NEURON_LOGICAL_NC_CONFIG: '2', VLLM_NEURON_CPU_COMPILE: '1', NEURON_PLATFORM_TARGET_OVERRIDE: 'trn2', NEURON_LIBTORCH_REMOTE_CACHE: '/var/cache/neuron',
    });
    expect(() => cpuCompileEnvironment('inf2', replica, '/x')).toThrow(/no CPU compile target/);
  });
});
