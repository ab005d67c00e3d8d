import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Annotations, App, Stack, Stage } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { EXAMPLE_MODEL_DATA, EXAMPLE_REQUIRED_MODEL_FILES, EXAMPLE_SMOKE_BENCHMARK } from '../../bin/app';
import { PIPELINE_STACK_ID, addEnvironmentStages, synthesizeStageQuietly } from '../../bin/environment-stages';
import { loadEnvironments, readCdkContext } from '../../bin/environments';
import { llamaStageContent } from '../../bin/llama-example';
import { InputError } from '../../lib/errors';

const ROOT = path.join(__dirname, '..', '..');
const CONTENT = {
  modelDataPath: EXAMPLE_MODEL_DATA, requiredModelFiles: EXAMPLE_REQUIRED_MODEL_FILES, smokeBenchmark: EXAMPLE_SMOKE_BENCHMARK,
  generative: (digest: string) => llamaStageContent('hf-token', digest),
};

function rules(template: Template): string[] {
  return Object.keys(template.toJSON().Rules ?? {});
}

describe('the app adds the environments of the context as stages and the pipeline', () => {
  test('GIVEN no environments context WHEN the app is built THEN no stage or pipeline is added', () => {
    const app = new App();
    expect(addEnvironmentStages(app, CONTENT, ROOT)).toBeUndefined();
    expect(app.node.children).toHaveLength(0);
  });

  test('GIVEN the shipped cdk.json context WHEN the app is built THEN dev, staging and prod stages and the pipeline exist, placeholders refused at deploy', () => {
    const context = readCdkContext(ROOT);
    const app = new App({ context: { environments: context.environments } });
    const built = addEnvironmentStages(app, CONTENT, ROOT)!;
    expect(built.stages.map((s) => s.stageName)).toEqual(['dev', 'staging', 'prod']);
    expect(built.pipelineStack?.node.id).toBe(PIPELINE_STACK_ID);
    const dev = built.stages[0];
    // The placeholder account and digest in examples/environments.json make CloudFormation refuse the deploy.
    expect(rules(Template.fromStack(dev.inferenceStack)).join(' ')).toMatch(/PlaceholderAccount.*PlaceholderImageDigest/);
    expect(rules(Template.fromStack(built.pipelineStack!)).join(' ')).toMatch(/PlaceholderConnection/);
    // Each stage also serves the Llama example: dev compiles, staging and prod serve that compiled prefix.
    expect(built.stages.map((s) => s.generativeStack?.stackName)).toEqual(['dev-Generative', 'staging-Generative', 'prod-Generative']);
    expect(built.stages.map((s) => s.generativeStack!.compileJob !== undefined)).toEqual([true, false, false]);
    expect(new Set(built.stages.map((s) => s.generativeArtifacts!.hash)).size).toBe(1);
    expect(rules(Template.fromStack(built.stages[2].generativeStack!)).join(' ')).toMatch(/PlaceholderAccount/);
    // The stages' stacks keep their warnings, reported when they are selected, not on every synth of any stack.
    const stageStacks = built.stages.flatMap((stage) => stage.synth().stacks);
    expect(stageStacks.map((s) => s.validateOnSynth)).toEqual(Array(9).fill(false));
    expect(stageStacks.find((s) => s.stackName === 'dev-Inference')?.messages.map((m) => m.level)).toContain('warning');
  });

  test('GIVEN a stage with an error annotation WHEN synthesized for the pipeline THEN it keeps the validation, so the error stops any synth', () => {
    const app = new App();
    const broken = new Stage(app, 'broken');
    Annotations.of(new Stack(broken, 'Service')).addError('a refusal the CLI must report');
    const fine = new Stage(app, 'fine');
    Annotations.of(new Stack(fine, 'Service')).addWarningV2('example:warning', 'a warning for when it is selected');
    [broken, fine].forEach(synthesizeStageQuietly);
    expect([broken, fine].map((stage) => stage.synth().stacks[0].validateOnSynth)).toEqual([true, false]);
  });

  test('GIVEN the shipped context and an app without generative content WHEN built THEN refused naming the fix', () => {
    const app = new App({ context: { environments: readCdkContext(ROOT).environments } });
    const singleCall = { modelDataPath: CONTENT.modelDataPath, requiredModelFiles: CONTENT.requiredModelFiles, smokeBenchmark: CONTENT.smokeBenchmark };
    expect(() => addEnvironmentStages(app, singleCall, ROOT))
      .toThrow('environment "dev" has a generative section but the stage was given no generative { image, weights }');
  });
});

describe('the environments config is read from a file or inline, with errors naming where', () => {
  test('GIVEN the config inline WHEN loaded THEN it resolves like the file', () => {
    const inline = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'environments.json'), 'utf8'));
    const config = loadEnvironments({ environments: inline, baseDir: ROOT, origin: 'context environments' });
    expect(config.environments.map((e) => e.name)).toEqual(['dev', 'staging', 'prod']);
    expect(config.pipeline.account).toBe('123456789012');
  });

  test('GIVEN a file that does not exist or a number WHEN loaded THEN the error names the context key and the fix', () => {
    expect(() => loadEnvironments({ environments: 'nope.json', baseDir: ROOT, origin: 'context environments' }))
      .toThrow(/context environments .*nope\.json: cannot read the file/);
    expect(() => loadEnvironments({ environments: 42, baseDir: ROOT, origin: 'context environments' }))
      .toThrow(new InputError('context environments=42 is neither a file path nor a config object; set "environments": '
        + '"examples/environments.json" in cdk.json context (or -c environments=<file>)'));
  });

  test('GIVEN a config with a problem WHEN loaded THEN the file, environment and field are named', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'environments-'));
    try {
      const json = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'environments.json'), 'utf8'));
      json.environments[2].availability = { minInstances: 1 };
      fs.writeFileSync(path.join(dir, 'env.json'), JSON.stringify(json));
      expect(() => loadEnvironments({ environments: 'env.json', baseDir: dir, origin: 'context environments' }))
        .toThrow(/^env\.json: environment "prod" availability\.minInstances: 1 in a production environment/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
