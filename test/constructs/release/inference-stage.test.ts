import * as path from 'path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { EcsInferenceStack } from '../../../constructs/ecs/ecs-inference-stack';
import { InferenceStack } from '../../../constructs/sagemaker/inference-stack';
import { InferenceStage } from '../../../constructs/release/inference-stage';
import { applyPolicyChecks } from '../../../constructs/nag';
import { EXAMPLE_REQUIRED_MODEL_FILES, EXAMPLE_SMOKE_BENCHMARK } from '../../../bin/app';
import { parseEnvironments } from '../../../lib/environments';
import type { EnvironmentsConfig } from '../../../lib/environments';
import { nagFindings } from '../../support/nag';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const MODEL_DIR = path.join(__dirname, '..', '..', '..', 'examples', 'bert-base-uncased', 'model');

function config(): EnvironmentsConfig {
  const env = (name: string, account: string, minInstances: number) => ({
    name, account, region: 'us-east-1', profile: 'bert-base-uncased',
    targets: { throughputRps: 200, p99Ms: 10 }, availability: { minInstances }, capacityProof: { required: name === 'prod' },
  });
  return parseEnvironments({
    application: 'bert',
    imageDigest: DIGEST,
    environments: [env('dev', '111111111111', 1), env('prod', '333333333333', 2)],
  }, { source: 'test' });
}

describe('an InferenceStage holds one environment with its records and outputs', () => {
  // GIVEN dev and prod stages of one app, the pipeline in dev's account
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const cfg = config();
  const stages = cfg.environments.map((environment) => new InferenceStage(app, environment.name, {
    environment, application: cfg.application, imageDigest: DIGEST, modelDataPath: MODEL_DIR,
    requiredModelFiles: EXAMPLE_REQUIRED_MODEL_FILES, smokeBenchmark: EXAMPLE_SMOKE_BENCHMARK,
    trustedAccounts: ['111111111111'],
  }));
  applyPolicyChecks(app);
  const [dev, prod] = stages;

  test('THEN each stage has distinct stack names in its own account and region', () => {
    expect(stages.map((s) => [s.releaseStack.stackName, s.inferenceStack.stackName])).toEqual([
      ['dev-Release', 'dev-Inference'], ['prod-Release', 'prod-Inference'],
    ]);
    expect([prod.inferenceStack.account, prod.inferenceStack.region]).toEqual(['333333333333', 'us-east-1']);
  });

  test('THEN the inference stack outputs the endpoint name, its URL and the record parameter', () => {
    const template = Template.fromStack(prod.inferenceStack);
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['StageTarget', 'EndpointUrl', 'DeploymentRecordParameter']));
    expect(JSON.stringify(outputs.EndpointUrl.Value)).toContain('https://runtime.sagemaker.us-east-1.');
    expect(prod.target.node.path).toBe('prod/Inference/StageTarget');
  });

  test('THEN the deployment record names the digest, the fingerprint and the smoke report it will be judged by', () => {
    const template = Template.fromStack(dev.inferenceStack);
    const parameter = Object.values(template.findResources('AWS::SSM::Parameter'))[0] as { Properties: { Name: string; Value: unknown } };
    expect(parameter.Properties.Name).toBe('/cdk-inferentia/bert/dev/deployment');
    const value = JSON.stringify(parameter.Properties.Value);
    expect(value).toContain(DIGEST);
    expect(value).toContain(dev.deploymentFingerprint);
    expect(value).toContain('\\"hosting\\":\\"sagemaker\\"');
    expect(value).toContain('latest.json');
  });

  test('THEN the smoke benchmark files its reports under the environment name, with a capacity proof only where the gate needs one', () => {
    expect((prod.inferenceStack as InferenceStack).endpoint.smokeBenchmark?.environmentName).toBe('prod');
    expect((prod.inferenceStack as InferenceStack).endpoint.smokeBenchmark?.capacity).toBeDefined();
    expect((dev.inferenceStack as InferenceStack).endpoint.smokeBenchmark?.capacity).toBeUndefined();
  });

  test('THEN the promotion role has a fixed name, trusts the pipeline account and writes only the release record', () => {
    const template = Template.fromStack(prod.releaseStack);
    const role = Object.values(template.findResources('AWS::IAM::Role', { Properties: { RoleName: 'cdk-inferentia-bert-prod-promote' } }));
    expect(role).toHaveLength(1);
    const trust = JSON.stringify(role[0].Properties.AssumeRolePolicyDocument);
    expect(trust).toContain(':iam::111111111111:root');
    expect(trust).toContain(':iam::333333333333:root');
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({
        Sid: 'WriteReleaseRecord', Action: 'ssm:PutParameter',
        Resource: { 'Fn::Join': ['', Match.arrayWith([':ssm:us-east-1:333333333333:parameter/cdk-inferentia/bert/prod/release'])] },
      })]) },
    });
    template.hasResourceProperties('AWS::ECR::Repository', { RepositoryName: 'bert/prod' });
  });

  test('THEN cdk-nag finds nothing unacknowledged in either stage', () => {
    expect(nagFindings(app)).toEqual([]);
  });
});

describe('an InferenceStage of an ec2 environment serves from ECS', () => {
  test('GIVEN hosting ec2 WHEN the stage is built THEN its inference stack is an EcsInferenceStack pulling from the Release repository, with a deployment record, nag-clean', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const environment = parseEnvironments({
      application: 'bert', imageDigest: DIGEST,
      environments: [{ name: 'dev', account: '111111111111', region: 'us-east-1', hosting: 'ec2', profile: 'bert-base-uncased',
        targets: { throughputRps: 200, p99Ms: 10 }, availability: { minInstances: 2 } }],
    }, { source: 'test' }).environments[0];
    const stage = new InferenceStage(app, 'dev', {
      environment, application: 'bert', imageDigest: DIGEST, modelDataPath: MODEL_DIR, smokeBenchmark: EXAMPLE_SMOKE_BENCHMARK,
    });
    applyPolicyChecks(app);
    expect(stage.inferenceStack).toBeInstanceOf(EcsInferenceStack);
    const template = Template.fromStack(stage.inferenceStack);
    const parameter = Object.values(template.findResources('AWS::SSM::Parameter'))[0] as { Properties: { Value: unknown } };
    expect(JSON.stringify(parameter.Properties.Value)).toContain('\\"hosting\\":\\"ec2\\"');
    const taskDefinition = JSON.stringify(template.findResources('AWS::ECS::TaskDefinition'));
    expect(taskDefinition).toContain('dev-Release:ExportsOutputRefRepository');
    expect(taskDefinition).toContain(`@${DIGEST}`);
    expect(nagFindings(app)).toEqual([]);
  });
});


describe('an environment with an artifact location serves the promoted artifact by its hash', () => {
  // GIVEN a prod environment whose artifacts live in its own bucket, and the hash being rolled out
  const HASH = '0123456789abcdef01234567';
  const withArtifact = parseEnvironments({
    application: 'bert',
    imageDigest: DIGEST,
    artifactHash: HASH,
    environments: ['dev', 'prod'].map((name, i) => ({
      name, account: `${i + 1}`.repeat(12), region: 'us-east-1', profile: 'bert-base-uncased',
      targets: { throughputRps: 200, p99Ms: 10 }, availability: { minInstances: 2 },
      artifact: { bucket: `bert-artifacts-${name}`, prefix: 'compiled/' },
    })),
  }, { source: 'test' });
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const prodEnv = withArtifact.environments[1];
  // WHEN
  const stage = new InferenceStage(app, 'prod', {
    environment: prodEnv, application: 'bert', imageDigest: DIGEST, artifactHash: withArtifact.artifactHash,
    modelDataPath: MODEL_DIR, requiredModelFiles: EXAMPLE_REQUIRED_MODEL_FILES, smokeBenchmark: EXAMPLE_SMOKE_BENCHMARK,
  });
  const template = Template.fromStack(stage.inferenceStack);

  test('THEN the SageMaker model reads compiled/<hash>/ in the environment\'s bucket, and no model asset is uploaded', () => {
    const model = Object.values(template.findResources('AWS::SageMaker::Model'))[0];
    expect(JSON.stringify(model.Properties.PrimaryContainer.ModelDataSource)).toContain(`bert-artifacts-prod/compiled/${HASH}/`);
    expect(template.findResources('Custom::CDKBucketDeployment')).toEqual({});
  });

  test('GIVEN an artifactHash that is not a compile hash, or an environment without a location THEN the config names both', () => {
    expect(() => parseEnvironments({
      application: 'bert', artifactHash: 'latest',
      environments: [{ name: 'dev', account: '111111111111', region: 'us-east-1', profile: 'bert-base-uncased',
        targets: { throughputRps: 200, p99Ms: 10 } }],
    }, { source: 'test' })).toThrow(/artifactHash="latest" is not a compile hash[\s\S]*environment\(s\) "dev" have no artifact/);
  });
});
