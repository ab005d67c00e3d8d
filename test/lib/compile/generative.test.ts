import { readFileSync } from 'fs';
import { join } from 'path';
import { generativeCompileHash, generativeSpecForPlan, parseGenerativeCompileSpec, type GenerativePlanForArtifact } from '../../../lib/compile/generative-spec';
import { checkGenerativeArtifacts, checkGenerativeDtype, generativeFactsOfSpec, type GenerativeArtifactFacts } from '../../../lib/compile/generative-check';
import { parseGenerativeManifest, weightsDigest } from '../../../lib/compile/generative-manifest';
import { vllmReplicaConfigs } from '../../../lib/generative/engine-config';
import type { GenerativePlan } from '../../../lib/generative';

const GENERATIVE_COMPILE_PROGRAM = readFileSync(join(__dirname, '..', '..', '..', 'serving', 'compile', 'compile_generative.py'), 'utf8');
import { findGenerativeProfile, planGenerative } from '../../../lib/generative';
import { problemsOf as problemsOfThrown } from '../../support/input-error';

const COMMIT = '0e9e39f249a16976918f6564b8830bc894c89659';
const INPUT = {
  model: 'llama-3.1-8b-instruct',
  weights: { source: 'huggingface', repository: 'meta-llama/Llama-3.1-8B-Instruct', revision: COMMIT },
  tensorParallelSize: 2, maxNumSeqs: 8, maxModelLen: 1280, chip: 'inf2', neuronSdkVersion: '2.29.0',
};

function problemsOf(json: unknown): readonly string[] {
  return problemsOfThrown(() => parseGenerativeCompileSpec(json, 'spec'));
}

const PLAN: GenerativePlanForArtifact = {
  instanceType: 'inf2.8xlarge',
  instance: { family: 'inf2' },
  generative: { engine: { tensorParallelSize: 2, maxNumSeqs: 8, maxModelLen: 1280, logicalNeuronCoreConfig: 1 } },
};
const FACTS: GenerativeArtifactFacts = generativeFactsOfSpec(parseGenerativeCompileSpec(INPUT, 'spec'));

describe('a generative compile spec pins its weights and is validated with every problem at once', () => {
  test('defaults: dtype auto (the checkpoint\'s, as vllm serve), LNC 1 on inf2 and 2 on trn2', () => {
    expect(parseGenerativeCompileSpec(INPUT, 'spec')).toMatchObject({ kind: 'generative', dtype: 'auto', logicalNeuronCoreConfig: 1 });
    expect(parseGenerativeCompileSpec({ ...INPUT, chip: 'trn2' }, 'spec').logicalNeuronCoreConfig).toBe(2);
  });

  test('a Hub revision that is a branch or a tag is refused: only a commit always means the same weights', () => {
    for (const revision of ['main', 'v1.0']) {
      const problems = problemsOf({ ...INPUT, weights: { ...INPUT.weights, revision } });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`^spec: weights.revision: expected the 40-hex-digit commit .*branch and tags move.*, got "${revision.replace('.', '\\.')}"$`));
    }
  });

  test('bad fields are reported together, each naming its path and value', () => {
    const problems = problemsOf({ ...INPUT, tensorParallelSize: 0, chip: 'inf1', weights: { source: 's3', s3Uri: 's3://bucket/llama' }, extra: 1 });
    expect([...problems].sort()).toEqual([
      'spec: chip: expected \'inf2\', \'trn1\' or \'trn2\', got "inf1"',
      'spec: tensorParallelSize: expected a positive integer, got 0',
      "spec: unknown field 'extra'; remove or rename",
      'spec: weights.s3Uri: expected s3://bucket/prefix/ (a Hugging Face model directory, ending with /), got "s3://bucket/llama"',
    ]);
  });

  test('LNC 2 is refused off Trn2', () => {
    expect(problemsOf({ ...INPUT, logicalNeuronCoreConfig: 2 })).toEqual([
      'spec: logicalNeuronCoreConfig: 2 on inf2: only Trn2 combines physical cores into logical ones; use 1',
    ]);
  });

  test('a real plan gives the spec its engine settings and chip', () => {
    const plan = planGenerative(findGenerativeProfile('llama-3.1-8b-instruct')!, {
      requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60,
    }, { region: 'us-east-1', hosting: 'sagemaker' });
    const spec = generativeSpecForPlan(plan, { model: 'llama', weights: INPUT.weights as never, neuronSdkVersion: '2.29.0' });
    expect(spec).toMatchObject({
      tensorParallelSize: plan.generative.engine.tensorParallelSize, maxNumSeqs: plan.generative.engine.maxNumSeqs,
      maxModelLen: plan.generative.engine.maxModelLen, chip: plan.instance.family.replace('trn1n', 'trn1'),
    });
    expect(checkGenerativeArtifacts(plan, '2.29.0', generativeFactsOfSpec(spec))).toEqual([]);
  });
});

describe('the content hash follows the weights identity, the settings and the compile program', () => {
  const spec = parseGenerativeCompileSpec(INPUT, 'spec');
  test('the same spec and program give the same hash; key order does not matter', () => {
    const reordered = parseGenerativeCompileSpec(Object.fromEntries(Object.entries(INPUT).reverse()), 'spec');
    expect(generativeCompileHash(reordered, GENERATIVE_COMPILE_PROGRAM)).toBe(generativeCompileHash(spec, GENERATIVE_COMPILE_PROGRAM));
  });

  test('another revision, sequence count, SDK or program gives another hash', () => {
    const base = generativeCompileHash(spec, GENERATIVE_COMPILE_PROGRAM);
    const others = [
      generativeCompileHash({ ...spec, weights: { ...INPUT.weights, revision: 'f'.repeat(40) } as never }, GENERATIVE_COMPILE_PROGRAM),
      generativeCompileHash({ ...spec, maxNumSeqs: 16 }, GENERATIVE_COMPILE_PROGRAM),
      generativeCompileHash({ ...spec, neuronSdkVersion: '2.28.0' }, GENERATIVE_COMPILE_PROGRAM),
      generativeCompileHash(spec, `${GENERATIVE_COMPILE_PROGRAM}# edited\n`),
    ];
    expect(new Set([base, ...others]).size).toBe(5);
  });

  test('the S3 weights digest changes when an object\'s ETag changes, not when the listing order does', () => {
    const a = { key: 'config.json', etag: '"1"', size: 1 };
    const b = { key: 'model.safetensors', etag: '"2"', size: 2 };
    expect(weightsDigest([a, b])).toBe(weightsDigest([b, a]));
    expect(weightsDigest([a, { ...b, etag: '"3"' }])).not.toBe(weightsDigest([a, b]));
  });
});

describe('checkGenerativeArtifacts refuses an artifact compiled for another plan or SDK, naming field, values and fix', () => {
  test('an artifact compiled for the plan and the image\'s SDK passes (2.29 and 2.29.0 are one release)', () => {
    expect(checkGenerativeArtifacts(PLAN, '2.29.0', FACTS)).toEqual([]);
    expect(checkGenerativeArtifacts(PLAN, '2.29', FACTS)).toEqual([]);
  });

  test.each([
    ['tensorParallelSize', { tensorParallelSize: 8 }, /^job: tensorParallelSize=8, but the plan runs each replica with tensor parallel size 2 on inf2\.8xlarge; .*recompile for the plan/],
    ['maxNumSeqs', { maxNumSeqs: 4 }, /^job: maxNumSeqs=4, but the plan decodes 8 sequences at once; .*recompile for the plan/],
    ['maxModelLen', { maxModelLen: 1024 }, /^job: maxModelLen=1024, but the plan needs 1280 tokens per sequence .*longer requests would be refused: recompile for the plan/],
    ['neuronSdkVersion', { neuronSdkVersion: '2.28.0' }, /^job: neuronSdkVersion=2\.28\.0, but the serving image runs Neuron SDK 2\.29\.0; .*recompile with the serving image/],
    ['chip', { chip: 'trn1' }, /^job: chip=trn1, but the plan runs inf2\.8xlarge \(inf2\); .*recompile for the plan/],
    ['logicalNeuronCoreConfig', { logicalNeuronCoreConfig: 2 }, /^job: logicalNeuronCoreConfig=2, but the plan runs LNC=1/],
  ])('a %s mismatch is refused with one message', (_field, change, message) => {
    const problems = checkGenerativeArtifacts(PLAN, '2.29.0', { ...FACTS, ...change } as GenerativeArtifactFacts, 'job');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  test('several mismatches are all reported at once', () => {
    expect(checkGenerativeArtifacts(PLAN, '2.30.0', { ...FACTS, tensorParallelSize: 8, maxNumSeqs: 4 })).toHaveLength(3);
  });

  test('a dtype other than the one the hosting serves with is refused; auto on either side is not checked', () => {
    expect(checkGenerativeDtype({ dtype: 'bfloat16' }, 'float16', 'job')).toEqual([
      'job: dtype=bfloat16, but the hosting serves with --dtype float16; recompile with dtype float16 or serve with bfloat16',
    ]);
    expect(checkGenerativeDtype({ dtype: 'bfloat16' }, 'auto')).toEqual([]);
  });
});

describe('buckets and levers are compiled in, hashed and checked: vLLM serves the artifact as compiled', () => {
  const DRAFT = { id: 'llama-3.2-1b', huggingFaceId: 'meta-llama/Llama-3.2-1B-Instruct', parametersBillions: 1.2, acceptedTokens: 3, source: 'test' };
  const withLevers = (levers: NonNullable<GenerativePlan['generative']['engine']['levers']>, buckets = false): GenerativePlanForArtifact => ({
    ...PLAN,
    generative: { engine: { ...PLAN.generative.engine, levers,
      ...(buckets ? { contextEncodingBuckets: [512, 1280], tokenGenerationBuckets: [1024, 1280] } : {}) } },
  });
  const FP8 = withLevers({ fp8Weights: true, fp8KvCache: true }, true);
  const spec = (plan: GenerativePlanForArtifact) => generativeSpecForPlan(plan, { model: 'llama', weights: INPUT.weights as never, neuronSdkVersion: '2.29.0' });

  test('GIVEN an FP8 plan with buckets WHEN its spec is made THEN it carries override_neuron_config and hashes apart from the bf16 spec', () => {
    const fp8 = spec(FP8);
    expect(fp8.engine).toEqual({ additional_config: { override_neuron_config: {
      enable_bucketing: true, context_encoding_buckets: [512, 1280], token_generation_buckets: [1024, 1280],
      quantized: true, quantization_dtype: 'f8e4m3', quantization_type: 'per_channel_symmetric', kv_cache_quant: true,
    } } });
    expect(spec(PLAN).engine).toBeUndefined();
    expect(generativeCompileHash(fp8, GENERATIVE_COMPILE_PROGRAM)).not.toBe(generativeCompileHash(spec(PLAN), GENERATIVE_COMPILE_PROGRAM));
    expect(checkGenerativeArtifacts(FP8, '2.29.0', generativeFactsOfSpec(fp8))).toEqual([]);
  });

  test('GIVEN a bf16 artifact WHEN checked against the FP8 plan, or the FP8 artifact against the bf16 plan THEN each is refused naming the settings', () => {
    const [fp8UnderBf16] = checkGenerativeArtifacts(PLAN, '2.29.0', generativeFactsOfSpec(spec(FP8)), 'job');
    expect(fp8UnderBf16).toMatch(/^job: compiled with other engine settings than the plan's buckets and levers \(.*additional_config\.override_neuron_config\.quantized true where the plan has unset.*\); vLLM would serve the graphs as compiled.*recompile for the plan/);
    const problems = checkGenerativeArtifacts(FP8, '2.29.0', FACTS, 'job');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('additional_config.override_neuron_config.kv_cache_quant unset where the plan has true');
  });

  test('GIVEN speculation and prefix caching WHEN rendered for vllm serve and for the compile THEN both carry the same settings', () => {
    const plan = withLevers({ speculation: { draft: DRAFT, speculativeTokens: 4, acceptedTokens: 3 }, prefixHitRate: 0.5 });
    const kwargs = spec(plan).engine!;
    const served = vllmReplicaConfigs({ ...(plan as unknown as GenerativePlan), profileId: 'llama', generative: {
      ...plan.generative, architecture: 'decoder-only', replicas: [{ index: 0, devices: ['/dev/neuron0'], visibleCores: '0-1' }],
    } } as unknown as GenerativePlan, { model: '/opt/ml/model', servedModelName: 'llama' })[0].args;
    const flag = (name: string) => served.find((a) => a.startsWith(`--${name}=`))?.split('=').slice(1).join('=');
    expect(JSON.parse(flag('speculative-config')!)).toEqual(kwargs.speculative_config);
    expect(JSON.parse(flag('additional-config')!)).toEqual(kwargs.additional_config);
    expect(Number(flag('num-gpu-blocks-override'))).toBe(kwargs.num_gpu_blocks_override);
    expect(Number(flag('block-size'))).toBe(kwargs.block_size);
    expect(served).toContain('--enable-prefix-caching');
    expect(kwargs.enable_prefix_caching).toBe(true);
  });

  test('GIVEN a spec with both plugin and NxD engine settings WHEN parsed THEN refused with where they go', () => {
    expect(problemsOf({ ...INPUT, chip: 'trn2', plugin: { target: 'trn2', cpuCompile: true, engine: {} }, engine: { block_size: 32 } })).toEqual([
      'spec: engine: set beside plugin; a vLLM Neuron plugin compile takes its settings in plugin.engine: move them there',
    ]);
  });
});

describe('a generative manifest read from S3 is checked field by field', () => {
  test('a manifest missing its engine settings is refused naming them', () => {
    expect(() => parseGenerativeManifest({ formatVersion: 1, kind: 'generative' }, 's3://b/k')).toThrow(/s3:\/\/b\/k: model: .*compile again/);
  });
});
