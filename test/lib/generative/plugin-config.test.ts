import { Catalog } from '../../../lib/catalog/catalog';
import { InputError } from '../../../lib/errors';
import { findGenerativeProfile, planGenerativeReport } from '../../../lib/generative';
import type { GenerativePlan } from '../../../lib/generative';
import { vllmReplicaConfigs } from '../../../lib/generative/engine-config';
import { engineSummary } from '../../../lib/generative/engine-image';
import { powerOfTwoBuckets, vllmEngineOf } from '../../../lib/generative/engine-config';
import { coreLayout } from '../../../lib/planner/layout';
import { draftFor } from '../../../lib/generative/levers';
import { pluginCompileSpec } from '../../../lib/compile/generative-spec';

const CATALOG = Catalog.builtIn();
const BASE = (() => {
  const profile = findGenerativeProfile('llama-3.1-8b-instruct')!;
  return planGenerativeReport(profile, {
    requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60,
  }, { region: 'us-east-1', hosting: 'sagemaker' }, CATALOG).chosen;
})();

/** The plan laid out again on another instance at another degree. */
function on(instanceType: string, tp: number, seqs: number, maxModelLen: number): GenerativePlan {
  const instance = CATALOG.instance(instanceType)!;
  const replicas = Math.floor(instance.chips * instance.coresPerChip / tp);
  return {
    ...BASE, instanceType, instance,
    generative: {
      ...BASE.generative, tensorParallelDegree: tp, replicasPerInstance: replicas, maxConcurrentSequences: seqs,
      engine: { tensorParallelSize: tp, maxNumSeqs: seqs, maxModelLen, logicalNeuronCoreConfig: instance.logicalNeuronCoreConfig ?? 1 },
      replicas: coreLayout(instance, tp, replicas),
    },
  };
}

const OPTIONS = { model: '/opt/ml/model', servedModelName: 'llama', compiledArtifacts: '/mnt/neuron-cache' };

describe('the vLLM Neuron plugin settings rendered from a Trn2 plan', () => {
  test('GIVEN families THEN Inf2 and Trn1 run NxD Inference and Trn2/Trn3 the plugin', () => {
    expect(['inf2', 'trn1', 'trn1n'].map(vllmEngineOf)).toEqual(['nxd-inference', 'nxd-inference', 'nxd-inference']);
    expect(['trn2', 'trn2u', 'trn3'].map(vllmEngineOf)).toEqual(['vllm-neuron-plugin', 'vllm-neuron-plugin', 'vllm-neuron-plugin']);
  });

  test('GIVEN a trn2.48xlarge plan at TP 16, 12 sequences of 4096 tokens WHEN rendered THEN buckets, KV blocks, prefix caching and async scheduling follow the plan', () => {
    const [first, ...rest] = vllmReplicaConfigs(on('trn2.48xlarge', 16, 12, 4096), OPTIONS);
    expect(rest).toHaveLength(3);
    expect(first.args).toEqual([
      '/opt/ml/model', '--served-model-name=llama', '--tensor-parallel-size=16', '--max-num-seqs=12', '--max-model-len=4096',
      '--max-num-batched-tokens=4096', '--block-size=32', '--num-gpu-blocks-override=1536',
      '--enable-prefix-caching', '--async-scheduling',
      '--additional-config={"neuron_config":{"num_batched_tokens_buckets":[128,256,512,1024,2048,4096],"num_seqs_buckets":[1,2,4,8,12]}}',
      '--host=0.0.0.0', '--port=8080',
    ]);
    // THEN the compiled graphs come from the shared cache and the runtime runs at the plan's LNC
    expect(first.environment).toEqual({ NEURON_LIBTORCH_REMOTE_CACHE: '/mnt/neuron-cache', NEURON_LOGICAL_NC_CONFIG: '2' });
    expect(first.devices).toEqual(['/dev/neuron0', '/dev/neuron1', '/dev/neuron2', '/dev/neuron3']);
  });

  test('GIVEN an Inf2 plan WHEN rendered THEN it keeps the NxD Inference settings (no plugin flags)', () => {
    const [first] = vllmReplicaConfigs(on('inf2.48xlarge', 8, 4, 4096), OPTIONS);
    expect(first.args).toContain('--no-enable-prefix-caching');
    expect(first.args.join(' ')).not.toMatch(/additional-config|block-size|async-scheduling/);
    expect(first.environment).toMatchObject({ NEURON_COMPILED_ARTIFACTS: '/mnt/neuron-cache' });
  });

  test('GIVEN EAGLE3 or DFlash WHEN rendered on Trn2 THEN --speculative-config carries it, and DFlash turns prefix caching and async scheduling off', () => {
    const eagle = vllmReplicaConfigs(on('trn2.48xlarge', 16, 4, 2048), {
      ...OPTIONS, speculation: { method: 'eagle3', model: '/opt/ml/draft', numSpeculativeTokens: 5 }, kvCacheDtype: 'fp8',
    })[0].args;
    expect(eagle).toEqual(expect.arrayContaining([
      '--enable-prefix-caching', '--async-scheduling', '--kv-cache-dtype=fp8',
      '--speculative-config={"method":"eagle3","model":"/opt/ml/draft","num_speculative_tokens":5}',
    ]));
    const dflash = vllmReplicaConfigs(on('trn2.48xlarge', 16, 4, 2048), {
      ...OPTIONS, speculation: { method: 'dflash', model: 'z-lab/dflash-draft', numSpeculativeTokens: 8 },
    })[0].args;
    expect(dflash).toEqual(expect.arrayContaining(['--no-enable-prefix-caching', '--no-async-scheduling']));
  });

  test('GIVEN a Trn2 plan that speculates with EAGLE3 WHEN rendered THEN serve and compile carry the draft; NxD Inference and a second speculation refuse it', () => {
    const levers = { speculation: { draft: draftFor(findGenerativeProfile('llama-3.1-8b-instruct')!, 'trn2')!, speculativeTokens: 3, acceptedTokens: 3.22 } };
    const withLevers = (p: GenerativePlan): GenerativePlan => ({ ...p, generative: { ...p.generative, engine: { ...p.generative.engine, levers } } });
    const trn2 = withLevers(on('trn2.48xlarge', 4, 8, 4096));
    const config = '{"method":"eagle3","model":"RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3","num_speculative_tokens":3}';
    expect(vllmReplicaConfigs(trn2, OPTIONS)[0].args).toContain(`--speculative-config=${config}`);
    expect(pluginCompileSpec('trn2', trn2.generative.engine)?.engine.speculative_config).toEqual(JSON.parse(config));
    expect(() => vllmReplicaConfigs(trn2, { ...OPTIONS, speculation: { method: 'dflash', model: 'z-lab/dflash-draft', numSpeculativeTokens: 8 } }))
      .toThrow(/the plan already speculates with eagle3 .* remove the speculation option, or plan with --no-speculative-decoding/);
    expect(() => vllmReplicaConfigs(withLevers(on('inf2.48xlarge', 8, 4, 4096)), OPTIONS)).toThrow(/inf2 runs vLLM over NxD Inference, which does not run EAGLE3 heads/);
  });

  test('GIVEN plugin-only settings on an Inf2 plan THEN they are refused naming NxD Inference and its documentation', () => {
    const render = () => vllmReplicaConfigs(on('inf2.48xlarge', 8, 4, 4096), {
      ...OPTIONS, speculation: { method: 'eagle3', model: '/opt/ml/draft', numSpeculativeTokens: 5 }, kvCacheDtype: 'fp8',
    });
    expect(render).toThrow(InputError);
    expect(render).toThrow(/speculation \(eagle3\) is a vLLM Neuron plugin setting, and inf2 runs vLLM over NxD Inference, which does not run it \(https:.*vllm-user-guide-v1\.html\)[\s\S]*kvCacheDtype=fp8/);
  });

  test('GIVEN bucket tops THEN the powers of two below them and the top itself, as the plugin requires', () => {
    expect(powerOfTwoBuckets(1, 1)).toEqual([1]);
    expect(powerOfTwoBuckets(1, 32)).toEqual([1, 2, 4, 8, 16, 32]);
    expect(powerOfTwoBuckets(128, 1000)).toEqual([128, 256, 512, 1000]);
  });
});

describe('what plan prints about a candidate\'s engine', () => {
  test('GIVEN a Trn2 and an Inf2 plan THEN each names its engine, its pinned image and the settings rendered for it', () => {
    expect(engineSummary(on('trn2.48xlarge', 16, 12, 4096))).toBe('vLLM Neuron plugin 1.2.0 '
      + '(pytorch-inference-vllm-neuronx:0.29.0.1.2.0-neuronx-py314-sdk2.33.0-ubuntu26.04): tensor_parallel_size 16, max_num_seqs 12, '
      + 'max_model_len 4096, LNC 2; prefix caching with 1536 KV blocks of 32 tokens, async scheduling; buckets: prefill 128 256 512 1024 '
      + '2048 4096, decode 1 2 4 8 12');
    expect(engineSummary(on('inf2.48xlarge', 8, 4, 4096))).toBe('vLLM over NxD Inference '
      + '(pytorch-inference-vllm-neuronx:0.13.0-neuronx-py312-sdk2.28.0-ubuntu24.04): tensor_parallel_size 8, max_num_seqs 4, max_model_len 4096');
  });
});
