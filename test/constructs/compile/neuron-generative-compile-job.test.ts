/**
 * NeuronGenerativeCompileJob and GenerativeWeights at synth: two stacks (S3 weights with cdk-nag, Hub weights with a
 * token secret); the refusals throw before any handler is bundled.
 */
import { App, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import {
  assertGenerativeArtifactsMatchPlan,
  GenerativeWeights,
  NeuronGenerativeCompileJob,
  type NeuronGenerativeCompileJobProps,
} from '../../../constructs/compile';
import { ModelImage } from '../../../constructs/image/model-image';
import { applyPolicyChecks } from '../../../constructs/nag';
import { findGenerativeProfile, planGenerative, type GenerativePlan } from '../../../lib/generative';
import { nagFindings } from '../../support/nag';
import { problemsOf } from '../../support/input-error';

const DIGEST = `sha256:${'e'.repeat(64)}`;
const COMMIT = '0e9e39f249a16976918f6564b8830bc894c89659';
/** The measured rows' plan (fixed lengths, no estimates): TP 8 on inf2, which the host checks below are written against. */
const PLAN: GenerativePlan = planGenerative(findGenerativeProfile('llama-3.1-8b-instruct')!, {
  requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60, fixedLengths: true,
}, { region: 'us-east-1', hosting: 'sagemaker', estimates: false });
const ENGINE = PLAN.generative.engine;

function build(props: (stack: Stack) => Partial<NeuronGenerativeCompileJobProps> = () => ({})) {
  const app = new App();
  const stack = new Stack(app, 'Gen', { env: { account: '111111111111', region: 'us-east-1' } });
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1, flowLogs: {} });
  const repository = ecr.Repository.fromRepositoryName(stack, 'Images', 'vllm-neuron');
  const weights = s3.Bucket.fromBucketName(stack, 'Weights', 'my-weights');
  const job = new NeuronGenerativeCompileJob(stack, 'Compile', {
    plan: PLAN, vpc, image: ModelImage.fromRepository(repository, DIGEST, { neuronSdkVersion: '2.29.0' }),
    weights: GenerativeWeights.fromS3Prefix(weights, 'llama-3.1-8b/v1/'), ...props(stack),
  });
  return { app, stack, job };
}

describe('a generative compile job for S3 weights compiles the plan in the serving image on the plan instance', () => {
  // One synth serves the template assertions and cdk-nag: the VPC is the test's own fixture, acknowledged.
  const { app, stack, job } = build();
  Validations.of(stack.node.findChild('Vpc')).acknowledge({ id: 'AwsSolutions-VPC7', reason: 'test fixture VPC' });
  applyPolicyChecks(app);
  const template = Template.fromStack(stack);
  const config = () => JSON.stringify(Object.values(template.findResources('Custom::NeuronCompileJob'))[0].Properties.Config);

  test('the Config carries the plan settings, the image by digest, the ECS Neuron AMI and the plan instance type', () => {
    const text = config();
    for (const part of [`\\"kind\\":\\"generative\\"`, `\\"tensorParallelSize\\":${ENGINE.tensorParallelSize}`, `\\"maxNumSeqs\\":${ENGINE.maxNumSeqs}`,
      `\\"maxModelLen\\":${ENGINE.maxModelLen}`, '\\"neuronSdkVersion\\":\\"2.29.0\\"', `@${DIGEST}`, 's3://my-weights/llama-3.1-8b/v1/',
      '/aws/service/ecs/optimized-ami/amazon-linux-2023/neuron/recommended/image_id', `\\"instanceTypes\\":[\\"${PLAN.instanceType.replace(/^ml\./, '')}\\"]`]) {
      expect(text).toContain(part);
    }
    expect(job.artifactPrefix).toBe(`compiled/${job.hash}/`);
  });

  test('the manifest facts are known at synth and match the plan; the hosting check refuses another SDK or TP', () => {
    expect(job.manifest).toMatchObject({ tensorParallelSize: ENGINE.tensorParallelSize, maxNumSeqs: ENGINE.maxNumSeqs, maxModelLen: ENGINE.maxModelLen });
    expect(() => assertGenerativeArtifactsMatchPlan(stack, job, PLAN, '2.29.0')).not.toThrow();
    // The hosting's path leads the message; the problem names the job.
    expect(() => assertGenerativeArtifactsMatchPlan(stack, job, PLAN, '2.28.0'))
      .toThrow(/^Gen: compiled artifacts Gen\/Compile: neuronSdkVersion=2\.29\.0, but the serving image runs Neuron SDK 2\.28\.0/);
    const other = { ...PLAN, generative: { ...PLAN.generative, engine: { ...ENGINE, tensorParallelSize: ENGINE.tensorParallelSize * 2 } } };
    expect(problemsOf(() => assertGenerativeArtifactsMatchPlan(stack, job, other, '2.29.0'))[0]).toMatch(/tensorParallelSize=/);
  });

  test('the host role reads the weights prefix only and writes the artifact prefix; the handler lists the weights prefix', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({
        Action: 's3:ListBucket', Condition: { StringLike: { 's3:prefix': ['llama-3.1-8b/v1/*'] } },
      })]) },
    });
    expect(JSON.stringify(template.toJSON())).toContain(':s3:::my-weights/llama-3.1-8b/v1/*');
    expect(JSON.stringify(template.toJSON())).not.toContain('secretsmanager');
  });

  test('no unacknowledged AwsSolutions finding on the job, its roles, handlers and Provider', () => {
    expect(nagFindings(job, { plugins: ['AwsSolutions'] })).toEqual([]);
  });
});

describe('Hub weights with a token: the host may read that one secret, and the token is never in the template', () => {
  const secretArn = 'arn:aws:secretsmanager:us-east-1:111111111111:secret:hf-token-AbCdEf';
  const { stack, job } = build((s) => ({
    weights: GenerativeWeights.fromHuggingFace({
      repository: 'meta-llama/Llama-3.1-8B-Instruct', revision: COMMIT,
      token: secretsmanager.Secret.fromSecretCompleteArn(s, 'Token', secretArn),
    }),
  }));
  const template = Template.fromStack(stack);

  test('GetSecretValue on exactly that secret, on the compile host role only; the Config names the ARN', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p).includes('secretsmanager:GetSecretValue'));
    expect(policies).toHaveLength(1);
    expect(JSON.stringify(policies[0].Properties.PolicyDocument)).toContain(secretArn);
    expect(JSON.stringify(policies[0].Properties.Roles)).toContain('InstanceRole');
    expect(JSON.stringify(template.findResources('Custom::NeuronCompileJob'))).toContain(secretArn);
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      expect(JSON.stringify(fn.Properties.Environment ?? {})).not.toMatch(/secret|token/i);
    }
  });

  test('the engine loads the weights staged beside the artifacts', () => {
    expect(stack.resolve(job.modelS3Uri)).toEqual({ 'Fn::Join': ['', ['s3://', expect.anything(), `/compiled/${job.hash}/model/`]] });
  });
});

describe('the generative compile refuses at synth what cannot work', () => {
  test('a Hub revision that is a branch, and a repository that is not owner/name, are refused together', () => {
    const problems = problemsOf(() => GenerativeWeights.fromHuggingFace({ repository: 'llama', revision: 'main' }));
    expect(problems).toHaveLength(2);
    expect(problems[1]).toMatch(/^GenerativeWeights.fromHuggingFace: revision="main" is not a commit; give the 40-hex-digit commit/);
  });

  test('a weights prefix without its trailing slash is refused with the fix', () => {
    const bucket = s3.Bucket.fromBucketName(new Stack(), 'B', 'my-weights');
    expect(problemsOf(() => GenerativeWeights.fromS3Prefix(bucket, 'llama'))[0]).toMatch(/prefix="llama" must be a key prefix .*ending with '\/'/);
  });

  test('a compile host with fewer cores than the TP group, or of another family, and a timeout past 50 minutes', () => {
    const problems = problemsOf(() => build(() => ({ compileInstanceTypes: ['trn1.2xlarge'], timeout: Duration.minutes(55) })));
    expect(problems).toEqual([
      expect.stringMatching(/timeout=55 minutes is longer than a custom resource can wait/),
      expect.stringMatching(/compileInstanceTypes: trn1.2xlarge is trn1, the plan runs inf2/),
    ]);
  });

  test('an image that states no SDK needs neuronSdkVersion; one that contradicts the image is refused', () => {
    const noSdk = (s: Stack) => ({ image: ModelImage.fromRepository(ecr.Repository.fromRepositoryName(s, 'R', 'r'), DIGEST) });
    expect(problemsOf(() => build(noSdk))[0]).toMatch(/the image states no Neuron SDK version; pass neuronSdkVersion/);
    expect(problemsOf(() => build(() => ({ neuronSdkVersion: '2.28.0' })))[0]).toMatch(/neuronSdkVersion=2.28.0, but the image is Neuron SDK 2.29.0/);
  });
});
