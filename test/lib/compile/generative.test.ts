import { readFileSync } from 'fs';
import { join } from 'path';
import {
  checkGenerativeArtifacts,
  checkGenerativeDtype,
  generativeCompileHash,
  generativeFactsOfSpec,
  generativeSpecForPlan,
  parseGenerativeCompileSpec,
  type GenerativeArtifactFacts,
  type GenerativePlanForArtifact,
} from '../../../lib/compile/generative-spec';
import { parseGenerativeManifest, weightsDigest } from '../../../lib/compile/generative-manifest';

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

describe('a generative manifest read from S3 is checked field by field', () => {
  test('a manifest missing its engine settings is refused naming them', () => {
    expect(() => parseGenerativeManifest({ formatVersion: 1, kind: 'generative' }, 's3://b/k')).toThrow(/s3:\/\/b\/k: model: .*compile again/);
  });
});
