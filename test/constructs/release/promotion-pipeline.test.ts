import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as pipelines from 'aws-cdk-lib/pipelines';
import { EXAMPLE_REQUIRED_MODEL_FILES, EXAMPLE_SMOKE_BENCHMARK } from '../../../bin/app';
import { InferenceStage } from '../../../constructs/release/inference-stage';
import { applyPolicyChecks } from '../../../constructs/nag';
import { PromotionPipeline } from '../../../constructs/release/promotion-pipeline';
import { InputError } from '../../../lib/errors';
import { parseEnvironments } from '../../../lib/environments';
import { nagFindings } from '../../support/nag';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const MODEL_DIR = path.join(__dirname, '..', '..', '..', 'examples', 'bert-base-uncased', 'model');
const CONNECTION = 'arn:aws:codeconnections:us-east-1:111111111111:connection/abcd-1234';

function build() {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const env = (name: string, account: string, minInstances: number) => ({
    name, account, region: 'us-east-1', profile: 'bert-base-uncased',
    targets: { throughputRps: 200, p99Ms: 10 }, availability: { minInstances },
  });
  const config = parseEnvironments({
    application: 'bert', imageDigest: DIGEST,
    environments: [env('dev', '111111111111', 1), env('staging', '222222222222', 2), env('prod', '333333333333', 2)],
  }, { source: 'test' });
  const stages = config.environments.map((environment) => new InferenceStage(app, environment.name, {
    environment, application: 'bert', imageDigest: DIGEST, modelDataPath: MODEL_DIR,
    requiredModelFiles: EXAMPLE_REQUIRED_MODEL_FILES, smokeBenchmark: EXAMPLE_SMOKE_BENCHMARK,
    trustedAccounts: ['111111111111'],
  }));
  const stack = new Stack(app, 'Pipeline', { env: { account: '111111111111', region: 'us-east-1' } });
  const pipeline = new PromotionPipeline(stack, 'Pipeline', {
    source: pipelines.CodePipelineSource.connection('org/repo', 'main', { connectionArn: CONNECTION }),
    stages,
    environmentsFile: 'environments.json',
  });
  pipeline.buildPipeline();
  applyPolicyChecks(app);
  return { app, stack, pipeline };
}

describe('a PromotionPipeline runs the environments in order with a gate after each and approval before prod', () => {
  const { app, stack, pipeline } = build();
  const template = Template.fromStack(stack);
  const codePipeline = Object.values(template.findResources('AWS::CodePipeline::Pipeline'))[0] as {
    Properties: { Stages: { Name: string; Actions: { Name: string; RunOrder: number; Configuration?: Record<string, unknown> }[] }[] };
  };
  const order = (stage: string) => codePipeline.Properties.Stages.find((s) => s.Name === stage)!.Actions
    .sort((a, b) => a.RunOrder - b.RunOrder).map((a) => a.Name);

  test('THEN source, synth and the three environments come in promotion order', () => {
    const names = codePipeline.Properties.Stages.map((s) => s.Name);
    expect(names.slice(0, 2)).toEqual(['Source', 'Build']);
    expect(names.filter((n) => ['dev', 'staging', 'prod'].includes(n))).toEqual(['dev', 'staging', 'prod']);
  });

  test('THEN dev deploys and is gated; staging is promoted into after its repository exists; prod waits for approval first', () => {
    expect(order('dev')).toEqual(['Release.Prepare', 'Release.Deploy', 'Inference.Prepare', 'Inference.Deploy', 'Gate-dev']);
    expect(order('staging')).toEqual([
      'Release.Prepare', 'Release.Deploy', 'Inference.Promote-dev-to-staging', 'Inference.Prepare', 'Inference.Deploy', 'Gate-staging',
    ]);
    expect(order('prod')).toEqual([
      'Release.Prepare', 'Release.Deploy', 'Inference.Approve-prod', 'Inference.Promote-staging-to-prod', 'Inference.Prepare',
      'Inference.Deploy', 'Gate-prod',
    ]);
    expect(Object.keys(pipeline.approvals)).toEqual(['prod']);
  });

  test('THEN the gate and promote steps run the CLI against the config and may only assume the promotion roles', () => {
    const commands = (step: pipelines.CodeBuildStep) => step.commands.join('\n');
    expect(commands(pipeline.gates.dev)).toBe('npx cdk-inferentia promote --from dev --check --config environments.json --json');
    expect(commands(pipeline.promotions.prod)).toBe('npx cdk-inferentia promote --from staging --to prod --config environments.json --json');
    const statements = pipeline.promotions.staging.rolePolicyStatements!.map((s) => s.toStatementJson());
    expect(statements).toEqual([{
      Action: 'sts:AssumeRole',
      Effect: 'Allow',
      Resource: ['arn:aws:iam::111111111111:role/cdk-inferentia-bert-dev-promote', 'arn:aws:iam::222222222222:role/cdk-inferentia-bert-staging-promote'],
    }]);
    expect(pipeline.promotions.staging.installCommands).toEqual(['npm install --no-audit --no-fund']);
  });

  test('THEN the synth step installs, tests and synthesizes', () => {
    const synth = pipeline.pipeline.synth as pipelines.ShellStep;
    expect([...synth.installCommands, ...synth.commands]).toEqual(['npm install --no-audit --no-fund', 'npm test', 'npx cdk synth']);
  });

  test('THEN environments in other accounts get a cross-account artifact key with rotation', () => {
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });

  test('THEN cdk-nag finds nothing unacknowledged in the pipeline', () => {
    expect(nagFindings(stack)).toEqual([]);
    void app;
  });
});

describe('a PromotionPipeline refuses what it cannot promote', () => {
  test('GIVEN no stages WHEN built THEN the prop and the fix are named', () => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Pipeline');
    expect(() => new PromotionPipeline(stack, 'Pipeline', {
      source: pipelines.CodePipelineSource.connection('org/repo', 'main', { connectionArn: CONNECTION }),
      stages: [],
      environmentsFile: 'environments.json',
    })).toThrow(new InputError('stages is empty; pass the InferenceStage of each environment in promotion order',
      { constructPath: 'Pipeline/Pipeline' }));
  });
});
