import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { ModelData } from '../../../constructs/model/model-data';
import { applyPolicyChecks } from '../../../constructs/nag';
import { assertArtifactMatchesPlan, CompileBackend, NeuronCompileJob, type NeuronCompileJobProps } from '../../../constructs/compile/neuron-compile-job';
import { BUILT_IN_INSTANCES } from '../../../lib/catalog';
import type { CompileSpecInput } from '../../../lib/compile';
import { nagFindings } from '../../support/nag';
import { inputError, problemsOf } from '../../support/input-error';
import { bertCompileSpec } from '../../support/compile-spec';

const SPEC: CompileSpecInput = bertCompileSpec();

const planOn = (name: string, coresPerProcess = 1, batchSize = 1) => ({
  instanceType: `ml.${name}`, coresPerProcess, batchSize, instance: BUILT_IN_INSTANCES.find((i) => i.name === name)!,
});

function stackWith(props: Partial<NeuronCompileJobProps> = {}, region = 'us-east-1') {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Compile', { env: { account: '111111111111', region } });
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1, flowLogs: {} });
  const job = new NeuronCompileJob(stack, 'Compile', { spec: SPEC, vpc, ...props });
  return { app, stack, job, vpc };
}

describe('NeuronCompileJob is a custom resource that compiles on a DLAMI instance', () => {
  const { stack, job } = stackWith();
  const template = Template.fromStack(stack);

  test('the resource carries the spec, the hash, the sized host types and the artifact prefix', () => {
    const resources = template.findResources('Custom::NeuronCompileJob');
    expect(Object.keys(resources)).toHaveLength(1);
    expect(job.artifactPrefix).toBe(`compiled/${job.hash}/`);
    expect(job.hash).toMatch(/^[0-9a-f]{24}$/);
    const config = JSON.stringify(Object.values(resources)[0].Properties.Config);
    // bert-base at the default 1 GiB of weights needs (4 + 6) x 1.5 = 15 GiB: inf2.xlarge (16 GiB) first
    expect(config).toContain(job.hash);
    expect(config).toContain('inf2.xlarge');
    expect(config).toContain('/aws/service/neuron/dlami/multi-framework/ubuntu-24.04/latest/image_id');
  });

  test('the compile host gets a security group with no ingress and a role without managed policies', () => {
    template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      GroupDescription: Match.stringLikeRegexp('Neuron compile host'),
      SecurityGroupIngress: Match.absent(),
    });
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({ Statement: [Match.objectLike({ Principal: { Service: 'ec2.amazonaws.com' } })] }),
      ManagedPolicyArns: Match.absent(),
    });
    template.resourceCountIs('AWS::IAM::InstanceProfile', 1);
  });

  test('the handler may terminate only instances tagged with this job, and launch only tagged ones', () => {
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    expect(policies).toContain('aws:ResourceTag/cdk-inferentia:compile-job');
    expect(policies).toContain('aws:RequestTag/cdk-inferentia:compile-hash');
    expect(policies).toContain(job.node.addr);
  });

  test('the Provider polls isComplete for up to the timeout plus ten minutes', () => {
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', Match.anyValue());
    expect(JSON.stringify(template.toJSON())).toContain('COMPILE_JOB_STEP');
  });

  test('its model data waits for the compile and points at the artifact prefix', () => {
    const role = new iam.Role(stack, 'Reader', { assumedBy: new iam.ServicePrincipal('sagemaker.amazonaws.com') });
    const config = ModelData.fromCompileJob(job).bind(stack, role);
    expect(stack.resolve(config.s3Uri)).toEqual({ 'Fn::Join': ['', ['s3://', expect.anything(), `/compiled/${job.hash}/`]] });
    expect(config.dependable).toBe(job.resource);
    expect(config.fingerprint).toBe(job.hash);
    // AND it carries what the files were compiled for, so a hosting can check them against its plan
    expect(config.compiledArtifact).toEqual({ chip: 'inf2', coresPerProcess: 1, batchSizes: [1] });
    expect(() => assertArtifactMatchesPlan(stack, config.compiledArtifact!, planOn('inf2.xlarge', 1, 8))).toThrow(/lacks the plan's batch size 8/);
  });
});

describe('NeuronCompileJob passes the AwsSolutions checks', () => {
  test('no unacknowledged finding on the job, its roles, handlers and Provider', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Compile', { env: { account: '111111111111', region: 'us-east-1' } });
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1, flowLogs: {} });
    const job = new NeuronCompileJob(stack, 'Compile', { spec: SPEC, vpc });
    applyPolicyChecks(app);
    // The VPC is the test's own fixture; the job's resources, the Provider framework's included, must be clean.
    expect(nagFindings(job, { plugins: ['AwsSolutions'] })).toEqual([]);
  });
});

describe('NeuronCompileJob refuses at synth what cannot work', () => {
  test('a compile longer than a custom resource may wait is refused with the CLI route and the hash', () => {
    const error = inputError(() => stackWith({ timeout: Duration.minutes(90) }));
    expect(error.problems).toHaveLength(1);
    expect(error.message).toMatch(/^Compile\/Compile: timeout=90 minutes is longer than a CloudFormation custom resource can wait .*cdk-inferentia compile --spec FILE --wait.*ModelData.fromBucket\(bucket, 'compiled\/[0-9a-f]{24}\/'\)/);
  });

  test('a spec that does not fit the plan is refused naming each mismatch', () => {
    const problems = problemsOf(() => stackWith({ plan: planOn('inf1.xlarge', 2, 4) }));
    expect(problems.map((p) => p.split(':')[1].trim().split('=')[0])).toEqual(['chip', 'coreVersion', 'coresPerProcess', 'batchSizes']);
  });

  test('an S3 source without its bucket is refused', () => {
    const problems = problemsOf(() => stackWith({ spec: { ...SPEC, source: { s3Uri: 's3://models/bert/', format: 'huggingface' } } }));
    expect(problems).toEqual([expect.stringContaining('pass sourceBucket')]);
  });

  test('Neo for ml_inf2 outside us-east-2, with two batch sizes and a Hub source, is refused with each reason', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'S', { env: { account: '111111111111', region: 'eu-west-1' } });
    const bucket = s3.Bucket.fromBucketName(stack, 'Models', 'models');
    const problems = problemsOf(() => stackWith({
      spec: { ...SPEC, batchSizes: [1, 8] },
      backend: CompileBackend.neo({ modelS3Uri: 's3://models/bert/model.tar.gz', modelBucket: bucket, frameworkVersion: '1.13' }),
    }, 'eu-west-1'));
    expect(problems).toEqual([
      expect.stringContaining('SageMaker Neo compiles for ml_inf2 only in us-east-2, the stack is in eu-west-1'),
      expect.stringContaining('Neo compiles one input shape; batchSizes=[1, 8]'),
      expect.stringContaining('Neo compiles a TorchScript model.tar.gz from S3'),
    ]);
  });
});

describe('assertArtifactMatchesPlan is the one call a hosting makes', () => {
  const { job } = stackWith();

  test('a fitting plan passes', () => {
    expect(() => assertArtifactMatchesPlan(job, job, planOn('inf2.xlarge'))).not.toThrow();
  });

  test('an Inf1 plan is refused naming the hosting and the job', () => {
    expect(() => assertArtifactMatchesPlan(job, job, planOn('inf1.xlarge')))
      .toThrow(/^Compile\/Compile: 2 problems:\n- compile job Compile\/Compile: chip=inf2, but the plan runs ml.inf1.xlarge/);
  });
});
