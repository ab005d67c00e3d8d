import * as fs from 'fs';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as pipelines from 'aws-cdk-lib/pipelines';
import { EXAMPLE_REQUIRED_MODEL_FILES, EXAMPLE_SMOKE_BENCHMARK } from '../../../bin/app';
import { llamaStageContent } from '../../../bin/llama-example';
import { applyPolicyChecks } from '../../../constructs/nag';
import { InferenceStage } from '../../../constructs/release/inference-stage';
import type { InferenceStageGenerativeProps } from '../../../constructs/release/inference-stage';
import { PromotionPipeline } from '../../../constructs/release/promotion-pipeline';
import { GenerativeInferenceStack } from '../../../constructs/sagemaker/generative-inference-stack';
import { parseEnvironments } from '../../../lib/environments';
import { nagFindings } from '../../support/nag';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const VLLM_DIGEST = `sha256:${'fedcba9876543210'.repeat(4)}`;
const ROOT = path.join(__dirname, '..', '..', '..');
const MODEL_DIR = path.join(ROOT, 'examples', 'bert-base-uncased', 'model');

/** The shipped example's environments (dev, staging, prod with a generative section each), in three accounts. */
function config() {
  const json = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'environments.json'), 'utf8'));
  json.imageDigest = DIGEST;
  json.generativeImageDigest = VLLM_DIGEST;
  json.environments.forEach((e: { account: string }, i: number) => { e.account = `${i + 1}`.repeat(12); });
  return parseEnvironments(json, { source: 'test' });
}

function build() {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const cfg = config();
  const generative = llamaStageContent('hf-token', VLLM_DIGEST);
  let compiled: InferenceStageGenerativeProps['compiled'];
  const stages = cfg.environments.map((environment) => {
    const stage = new InferenceStage(app, environment.name, {
      environment, application: cfg.application, imageDigest: DIGEST, modelDataPath: MODEL_DIR,
      requiredModelFiles: EXAMPLE_REQUIRED_MODEL_FILES, smokeBenchmark: EXAMPLE_SMOKE_BENCHMARK,
      trustedAccounts: ['111111111111'], generative: { ...generative, imageDigest: VLLM_DIGEST, ...(compiled ? { compiled } : {}) },
    });
    compiled ??= stage.generativeArtifacts;
    return stage;
  });
  const stack = new Stack(app, 'Pipeline', { env: { account: '111111111111', region: 'us-east-1' } });
  const pipeline = new PromotionPipeline(stack, 'Pipeline', {
    source: pipelines.CodePipelineSource.connection('org/repo', 'main', {
      connectionArn: 'arn:aws:codeconnections:us-east-1:111111111111:connection/abcd-1234',
    }),
    stages,
  });
  pipeline.buildPipeline();
  applyPolicyChecks(app);
  return { app, stack, stages };
}

describe('each InferenceStage also deploys the generative model, compiled once and promoted', () => {
  const { app, stack, stages } = build();
  const [dev, staging, prod] = stages;

  test('THEN dev compiles into its artifact location and the later stages serve the same hash from theirs, compiling nothing', () => {
    const hash = dev.generativeStack!.compileJob!.hash;
    expect(dev.generativeArtifacts!.artifactPrefix).toBe(`compiled/bert-base-uncased/${hash}/`);
    for (const stage of [staging, prod]) {
      expect(stage.generativeStack!.compileJob).toBeUndefined();
      expect(stage.generativeArtifacts!.hash).toBe(hash);
      const template = JSON.stringify(Template.fromStack(stage.generativeStack!).toJSON());
      expect(template).toContain(`your-artifacts-${stage.environment.name}-123456789012/compiled/bert-base-uncased/${hash}/`);
      expect(template).not.toContain('your-artifacts-dev');
      expect(Object.keys(Template.fromStack(stage.generativeStack!).findResources('AWS::EC2::Instance'))).toEqual([]);
    }
    const devTemplate = JSON.stringify(Template.fromStack(dev.generativeStack!).toJSON());
    expect(devTemplate).toContain('your-artifacts-dev-123456789012');
  });

  test('THEN every stage runs the same vLLM image (one asset, FROM the one digest) on inference components, planned for its own targets', () => {
    const images = new Set<string>();
    for (const stage of stages) {
      const template = Template.fromStack(stage.generativeStack!);
      expect(Object.keys(template.findResources('AWS::SageMaker::InferenceComponent'))).toHaveLength(1);
      const tags = JSON.stringify(template.toJSON()).match(/container-assets-\d{12}-us-east-1:([0-9a-f]{64})/g) ?? [];
      expect(tags.length).toBeGreaterThan(0);
      tags.forEach((t) => images.add(t.split(':')[1]));
      expect(stage.generativeStack!.stackName).toBe(`${stage.environment.name}-Generative`);
      expect(stage.generativeStack!.account).toBe(stage.environment.account);
    }
    expect(images.size).toBe(1);
    expect(prod.generativeStack!.endpoint.plan).toBe(prod.environment.generative!.plan);
  });

  test('THEN the token proof gates each stage: its custom resource names the environment, and the stack follows the promote step', () => {
    for (const stage of stages) {
      expect(stage.generativeStack!.smokeBenchmark).toBeDefined();
      expect(stage.generativeStack!.dependencies).toContain(stage.inferenceStack);
    }
    const pipeline = Object.values(Template.fromStack(stack).findResources('AWS::CodePipeline::Pipeline'))[0] as {
      Properties: { Stages: { Name: string; Actions: { Name: string; RunOrder: number }[] }[] };
    };
    const staged = pipeline.Properties.Stages.find((s) => s.Name === 'staging')!.Actions
      .sort((a, b) => a.RunOrder - b.RunOrder).map((a) => a.Name);
    expect(staged.indexOf('Generative.Deploy')).toBeGreaterThan(staged.indexOf('Inference.Deploy'));
    expect(staged.indexOf('Promote-dev-to-staging')).toBeLessThan(staged.indexOf('Inference.Deploy'));
    expect(staged[staged.length - 1]).toBe('Gate-staging');
  });

  test('THEN each Generative stack records its vLLM digest and compiled hash after its token proof, and promote may read it', () => {
    const hash = dev.generativeStack!.compileJob!.hash;
    for (const stage of stages) {
      const name = stage.environment.name;
      const template = Template.fromStack(stage.generativeStack!);
      const parameters = template.findResources('AWS::SSM::Parameter', {
        Properties: { Name: `/cdk-inferentia/bert-base-uncased/${name}/generative-deployment` },
      });
      const [[id, parameter]] = Object.entries(parameters) as [string, { Properties: { Value: unknown }; DependsOn: string[] }][];
      const value = JSON.stringify(parameter.Properties.Value);
      expect(value).toContain(`\\"imageDigest\\":\\"${VLLM_DIGEST}\\"`);
      expect(value).toContain(`\\"hash\\":\\"${hash}\\"`);
      expect(value).toContain(`compiled/bert-base-uncased/${hash}/`);
      expect(value).toContain('\\"profileId\\":\\"llama-3.1-8b-instruct\\"');
      // Written once the proof in tokens passed: it depends on the smoke benchmark's custom resource.
      expect(parameter.DependsOn ?? []).toEqual(expect.arrayContaining([expect.stringMatching(/^SmokeBenchmark/)]));
      expect(id).toMatch(/^GenerativeDeploymentRecord/);
      const role = JSON.stringify(Template.fromStack(stage.releaseStack).findResources('AWS::IAM::Policy'));
      expect(role).toContain(`parameter/cdk-inferentia/bert-base-uncased/${name}/generative-deployment`);
    }
  });

  test('THEN cdk-nag finds nothing', () => {
    expect(nagFindings(app)).toEqual([]);
  });
});

describe('an environment with a generative section needs the generative content', () => {
  test('GIVEN a stage without generative props WHEN built THEN refused naming the fix', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const environment = config().environments[0];
    expect(() => new InferenceStage(app, 'dev', {
      environment, application: 'bert-base-uncased', imageDigest: DIGEST, modelDataPath: MODEL_DIR,
      smokeBenchmark: EXAMPLE_SMOKE_BENCHMARK,
    })).toThrow('environment "dev" has a generative section but the stage was given no generative { image, weights }');
  });
});

describe('a GenerativeInferenceStack compiles its weights or serves given artifacts, exactly one', () => {
  test('GIVEN neither weights nor compiled artifacts WHEN built THEN refused naming both options', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const plan = config().environments[0].generative!.plan;
    const { image } = llamaStageContent('hf-token', VLLM_DIGEST);
    expect(() => new GenerativeInferenceStack(app, 'Llama', { env: { account: '111111111111', region: 'us-east-1' }, plan, image }))
      .toThrow('Llama: give either weights (the stack compiles them) or compiledArtifacts (it serves what another deploy compiled), not neither');
  });
});
