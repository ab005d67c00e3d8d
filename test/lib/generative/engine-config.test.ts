import { Catalog } from '../../../lib/catalog/catalog';
import { InputError } from '../../../lib/errors';
import { findGenerativeProfile, planGenerativeReport } from '../../../lib/generative';
import { vllmReplicaConfigs, vllmServeCommand } from '../../../lib/generative/engine-config';
import type { GenerativePlan } from '../../../lib/generative';
import { coreLayout } from '../../../lib/planner/layout';

const CATALOG = Catalog.builtIn();

/** A real plan of Llama 3.1 8B on inf2.48xlarge (TP 8), planned once (about 0.5 s). */
const LLAMA_PLAN = planLlama();

function llamaPlan(): GenerativePlan {
  return LLAMA_PLAN;
}

/** The measured rows' plan (fixed lengths, no estimates): TP 8 on inf2.48xlarge, three replicas. */
function planLlama(): GenerativePlan {
  const profile = findGenerativeProfile('llama-3.1-8b-instruct');
  if (!profile) throw new Error('no llama profile');
  const report = planGenerativeReport(profile, {
    requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60, fixedLengths: true,
  }, { region: 'us-east-1', hosting: 'sagemaker', estimates: false }, CATALOG);
  if (!report.chosen) throw new Error('no plan');
  return report.chosen;
}

/** The plan re-laid at another degree on another instance. */
function relaid(plan: GenerativePlan, instanceType: string, tp: number, seqs: number, lnc = 1): GenerativePlan {
  const instance = CATALOG.instance(instanceType);
  if (!instance) throw new Error(`no ${instanceType}`);
  const replicas = Math.floor(instance.chips * instance.coresPerChip / tp);
  return {
    ...plan,
    instanceType,
    instance,
    generative: {
      ...plan.generative,
      tensorParallelDegree: tp,
      replicasPerInstance: replicas,
      maxConcurrentSequences: seqs,
      engine: { tensorParallelSize: tp, maxNumSeqs: seqs, maxModelLen: 4096, logicalNeuronCoreConfig: lnc },
      replicas: coreLayout(instance, tp, replicas),
    },
  };
}

const OPTIONS = { model: '/opt/ml/model', servedModelName: 'llama', compiledArtifacts: '/opt/ml/model/neuron-compiled' };

describe('vLLM engine settings from a plan', () => {
  test('GIVEN the Llama 8B plan on inf2.48xlarge (TP 8, 3 replicas) WHEN rendered THEN each replica runs the plan\'s settings on its own devices', () => {
    const plan = llamaPlan();
    expect(plan.instanceType).toBe('ml.inf2.48xlarge');
    const configs = vllmReplicaConfigs(plan, OPTIONS);
    expect(configs).toHaveLength(plan.generative.replicasPerInstance);
    const { maxNumSeqs, maxModelLen } = plan.generative.engine;
    expect(vllmServeCommand(configs[0])).toEqual([
      'vllm', 'serve', '/opt/ml/model', '--served-model-name=llama', '--tensor-parallel-size=8',
      `--max-num-seqs=${maxNumSeqs}`, `--max-model-len=${maxModelLen}`, `--num-gpu-blocks-override=${maxNumSeqs}`,
      '--no-enable-chunked-prefill', '--no-enable-prefix-caching', '--host=0.0.0.0', '--port=8080',
    ]);
    expect(configs.map((c) => c.devices)).toEqual([
      ['/dev/neuron0', '/dev/neuron1', '/dev/neuron2', '/dev/neuron3'],
      ['/dev/neuron4', '/dev/neuron5', '/dev/neuron6', '/dev/neuron7'],
      ['/dev/neuron8', '/dev/neuron9', '/dev/neuron10', '/dev/neuron11'],
    ]);
    // No VLLM_NEURON_FRAMEWORK (only the retired V0 fork read it) and no LNC on Inf2 (no logical cores there).
    expect(configs[1].environment).toEqual({ NEURON_COMPILED_ARTIFACTS: '/opt/ml/model/neuron-compiled' });
  });

  test('GIVEN TP 2 on inf2.xlarge and TP 24 on inf2.48xlarge WHEN rendered with pinned cores and a port per replica THEN ranges and ports follow the layout', () => {
    const tp2 = vllmReplicaConfigs(relaid(llamaPlan(), 'inf2.xlarge', 2, 4), { ...OPTIONS, pinCores: true });
    expect(tp2.map((c) => [c.visibleCores, c.devices, c.port])).toEqual([['0-1', ['/dev/neuron0'], 8080]]);
    expect(tp2[0].args).toContain('--tensor-parallel-size=2');
    expect(tp2[0].args).toContain('--num-gpu-blocks-override=4');

    const tp24 = vllmReplicaConfigs(relaid(llamaPlan(), 'inf2.48xlarge', 24, 8), { ...OPTIONS, pinCores: true, portPerReplica: true, port: 9000 });
    expect(tp24.map((c) => [c.environment.NEURON_RT_VISIBLE_CORES, c.devices.length, c.port])).toEqual([['0-23', 12, 9000]]);
  });

  test('GIVEN Trn2 with LNC 2 and TP 16 WHEN rendered THEN the runtime gets the logical core configuration and each replica 4 chips (16 logical cores of 4 per chip)', () => {
    const configs = vllmReplicaConfigs(relaid(llamaPlan(), 'trn2.48xlarge', 16, 8, 2), { ...OPTIONS, pinCores: true, portPerReplica: true });
    expect(configs).toHaveLength(4);
    expect(configs.map((c) => [c.visibleCores, c.devices, c.port])).toEqual([
      ['0-15', ['/dev/neuron0', '/dev/neuron1', '/dev/neuron2', '/dev/neuron3'], 8080],
      ['16-31', ['/dev/neuron4', '/dev/neuron5', '/dev/neuron6', '/dev/neuron7'], 8081],
      ['32-47', ['/dev/neuron8', '/dev/neuron9', '/dev/neuron10', '/dev/neuron11'], 8082],
      ['48-63', ['/dev/neuron12', '/dev/neuron13', '/dev/neuron14', '/dev/neuron15'], 8083],
    ]);
    expect(configs[0].environment.NEURON_LOGICAL_NC_CONFIG).toBe('2');
  });

  test('GIVEN Trn2 planned at LNC 1 WHEN rendered THEN the runtime is told 1, since its default on Trn2 is 2', () => {
    const configs = vllmReplicaConfigs(relaid(llamaPlan(), 'trn2.48xlarge', 16, 8, 1), OPTIONS);
    expect(configs[0].environment.NEURON_LOGICAL_NC_CONFIG).toBe('1');
  });

  test('GIVEN an encoder-decoder plan or a bad port WHEN rendered THEN the error names the field and the fix', () => {
    const plan = llamaPlan();
    const t5 = { ...plan, generative: { ...plan.generative, architecture: 'encoder-decoder' as const } };
    expect(() => vllmReplicaConfigs(t5, OPTIONS)).toThrow(/decoder-only models; host an encoder-decoder model with the model server/);
    expect(() => vllmReplicaConfigs(plan, { ...OPTIONS, port: 65535, portPerReplica: true })).toThrow(InputError);
    expect(() => vllmReplicaConfigs(plan, { ...OPTIONS, servedModelName: 'my model' })).toThrow(/servedModelName: 'my model'/);
    expect(() => vllmReplicaConfigs(plan, { ...OPTIONS, model: '--help' })).toThrow(/model: '--help' starts with '-'/);
  });
});
