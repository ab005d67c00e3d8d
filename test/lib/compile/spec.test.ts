import { compileHash, compiledArtifactProblems, parseCompileSpec, type CompileSpecInput } from '../../../lib/compile';
import { BUILT_IN_INSTANCES } from '../../../lib/catalog';
import { bertCompileSpec } from '../../support/compile-spec';
import { problemsOf as problemsOfThrown } from '../../support/input-error';

const INPUT: CompileSpecInput = bertCompileSpec({
  source: { hubModelId: 'bert-base-uncased', revision: 'main' },
  batchSizes: [1, 8],
});

function problemsOf(json: unknown): readonly string[] {
  return problemsOfThrown(() => parseCompileSpec(json, 'spec.json'));
}

const instance = (name: string) => BUILT_IN_INSTANCES.find((i) => i.name === name)!;
const plan = (name: string, coresPerProcess: number, batchSize: number) => ({
  instanceType: name, coresPerProcess, batchSize, instance: instance(name),
});

describe('a compile spec is validated with every problem named at once', () => {
  test('a valid spec gets its defaults: matmult bf16 auto-cast, no compiler args, tolerance 0.02', () => {
    expect(parseCompileSpec(INPUT, 'spec.json')).toMatchObject({
      autoCast: { scope: 'matmult', type: 'bf16' }, compilerArgs: [], tolerance: 0.02,
    });
  });

  test('an unknown field and a bad chip are reported together, each naming field and value', () => {
    // GIVEN a spec with two field problems
    const problems = problemsOf({ ...INPUT, chip: 'inf3', colour: 'blue' });
    // THEN both are listed, with path and value
    expect([...problems].sort()).toEqual([
      'spec.json: chip: expected \'inf1\', \'inf2\' or \'trn1\', got "inf3"',
      "spec.json: unknown field 'colour'; remove or rename",
    ]);
  });

  test('cross-field rules: text tasks need sequenceLength, batch sizes ascend, a HF directory ends with /', () => {
    const problems = problemsOf({
      ...INPUT, sequenceLength: undefined, batchSizes: [8, 1, 8], source: { s3Uri: 's3://my-bucket/bert', format: 'huggingface' },
    });
    expect(problems).toEqual([
      'spec.json: sequenceLength: task feature-extraction compiles for a fixed number of tokens; give it, e.g. 128',
      'spec.json: batchSizes: [8,1,8] must be ascending without repeats; use [1,8]',
      'spec.json: source.s3Uri: "s3://my-bucket/bert" names a Hugging Face model directory; end it with \'/\'',
    ]);
  });
});

describe('a spec claims only what the compile script can produce', () => {
  test('two cores per process on inf2 are refused: torch_neuronx.trace compiles for one core', () => {
    expect(problemsOf({ ...INPUT, coresPerProcess: 2 })).toEqual([
      expect.stringContaining('spec.json: coresPerProcess: 2 on inf2: torch_neuronx.trace compiles for one NeuronCore'),
    ]);
  });

  test('a NeuronCore pipeline of four cores on inf1 is accepted', () => {
    expect(problemsOf({ ...INPUT, chip: 'inf1', coresPerProcess: 4 })).toEqual([]);
  });
});

describe('the content hash keys the artifact', () => {
  const script = [{ name: 'compile.py', content: 'print(1)\n' }];

  test('key order and spelt-out defaults do not change it; a batch size or a script byte does', () => {
    const base = compileHash(parseCompileSpec(INPUT, 'a'), script);
    const reordered = Object.fromEntries(Object.entries(INPUT).reverse());
    expect(compileHash(parseCompileSpec({ ...reordered, tolerance: 0.02 }, 'b'), script)).toBe(base);
    expect(compileHash(parseCompileSpec({ ...INPUT, batchSizes: [1] }, 'c'), script)).not.toBe(base);
    expect(compileHash(parseCompileSpec(INPUT, 'd'), [{ name: 'compile.py', content: 'print(2)\n' }])).not.toBe(base);
    expect(base).toMatch(/^[0-9a-f]{24}$/);
  });
});

describe('an artifact that does not fit the plan is refused with the field, both values and the fix', () => {
  const spec = parseCompileSpec(INPUT, 'spec.json');

  test('an inf2 artifact with batch 1 and 1 core fits a plan on inf2.xlarge, batch 1, 1 core', () => {
    expect(compiledArtifactProblems(spec, plan('inf2.xlarge', 1, 1))).toEqual([]);
  });

  test('the same artifact on inf1 with 2 cores and batch 4 has four mismatches', () => {
    const problems = compiledArtifactProblems(spec, plan('inf1.xlarge', 2, 4), 'Compile');
    expect(problems).toEqual([
      'Compile: chip=inf2, but the plan runs inf1.xlarge (inf1); compile with chip "inf1" or plan for inf2 instances (--instance-types)',
      expect.stringContaining('Compile: coreVersion=v2 (NeuronCore-v2), but inf1.xlarge has NeuronCore-v1'),
      'Compile: coresPerProcess=1, but the plan gives each process 2 NeuronCores; set coresPerProcess to 2 in the compile spec',
      "Compile: batchSizes=[1, 8] lacks the plan's batch size 4, the shape every device call has; add 4 to batchSizes in the compile spec",
    ]);
  });

  test('trn1n plans take trn1 artifacts', () => {
    const trn = parseCompileSpec({ ...INPUT, chip: 'trn1' }, 'spec.json');
    expect(compiledArtifactProblems(trn, plan('trn1n.32xlarge', 1, 8))).toEqual([]);
  });
});
