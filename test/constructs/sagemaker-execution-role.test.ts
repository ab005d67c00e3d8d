import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ModelImage } from '../../constructs/model-image';
import { NeuronSageMakerExecutionRole } from '../../constructs/sagemaker-execution-role';
import { NeuronInstanceType } from '../../lib/catalog';
import { InputError } from '../../lib/errors';

function newStack(app = new App()): Stack {
  return new Stack(app, 'Stack', { env: { account: '111111111111', region: 'us-east-1' } });
}

describe('A NeuronSageMakerExecutionRole with default props', () => {
  // GIVEN
  const stack = newStack();
  // WHEN
  const role = new NeuronSageMakerExecutionRole(stack, 'ExecutionRole');
  const template = Template.fromStack(stack);

  test('is assumed by SageMaker only, with a generated name and a description', () => {
    // THEN
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'sagemaker.amazonaws.com' } }],
      },
      RoleName: Match.absent(),
      Description: 'Runs a SageMaker endpoint on AWS Neuron instances with least privilege',
    });
  });

  test('carries no managed policy and no inline policy of its own', () => {
    // THEN
    template.hasResourceProperties('AWS::IAM::Role', {
      ManagedPolicyArns: Match.absent(),
      Policies: Match.absent(),
    });
  });

  test('may publish metrics only to the SageMaker namespaces, and fetch the ECR token', () => {
    // THEN
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          {
            Sid: 'PublishEndpointMetrics',
            Effect: 'Allow',
            Action: 'cloudwatch:PutMetricData',
            Resource: '*',
            Condition: { StringEquals: { 'cloudwatch:namespace': ['/aws/sagemaker/Endpoints', 'AWS/SageMaker'] } },
          },
          { Effect: 'Allow', Action: 'ecr:GetAuthorizationToken', Resource: '*' },
        ],
      },
      Roles: [{ Ref: 'ExecutionRole605A040B' }],
    });
  });

  test('is an iam.Role, and role returns itself', () => {
    // THEN
    expect(role).toBeInstanceOf(iam.Role);
    expect(role.role).toBe(role);
  });
});

describe('A NeuronSageMakerExecutionRole with its props set', () => {
  test('uses the given name and description', () => {
    // GIVEN
    const stack = newStack();
    // WHEN
    new NeuronSageMakerExecutionRole(stack, 'ExecutionRole', { roleName: 'bert-endpoint', description: 'Runs BERT' });
    // THEN
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Role', { RoleName: 'bert-endpoint', Description: 'Runs BERT' });
  });

  test('rejects a bad name and an overlong description together', () => {
    // WHEN
    const build = () => new NeuronSageMakerExecutionRole(newStack(), 'ExecutionRole', {
      roleName: 'bert endpoint',
      description: 'x'.repeat(1001),
    });
    // THEN
    expect(build).toThrow(InputError);
    expect(build).toThrow(/2 problems/);
    expect(build).toThrow(/roleName="bert endpoint" is not a valid IAM role name/);
    expect(build).toThrow(/description has 1001 characters; IAM allows at most 1000/);
  });
});

describe('NeuronSageMakerExecutionRole.addMetricNamespace', () => {
  test('adds the namespace to the same condition, once', () => {
    // GIVEN
    const stack = newStack();
    const role = new NeuronSageMakerExecutionRole(stack, 'ExecutionRole');
    // WHEN
    role.addMetricNamespace('NeuronMonitor');
    role.addMetricNamespace('NeuronMonitor');
    // THEN
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({
          Condition: { StringEquals: { 'cloudwatch:namespace': ['/aws/sagemaker/Endpoints', 'AWS/SageMaker', 'NeuronMonitor'] } },
        })]),
      },
    });
    expect(() => role.addMetricNamespace(' ')).toThrow(/namespace=" " is blank; pass the CloudWatch namespace/);
  });
});

describe('NeuronSageMakerExecutionRole.grantPassRole', () => {
  test('lets the grantee pass this role to SageMaker and nowhere else', () => {
    // GIVEN
    const stack = newStack();
    const role = new NeuronSageMakerExecutionRole(stack, 'ExecutionRole');
    const deployer = new iam.Role(stack, 'Deployer', { assumedBy: new iam.AccountRootPrincipal() });
    // WHEN
    role.grantPassRole(deployer);
    // THEN
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [{
          Effect: 'Allow',
          Action: 'iam:PassRole',
          Resource: { 'Fn::GetAtt': ['ExecutionRole605A040B', 'Arn'] },
          Condition: { StringEquals: { 'iam:PassedToService': 'sagemaker.amazonaws.com' } },
        }],
      },
      Roles: [{ Ref: Match.stringLikeRegexp('^Deployer') }],
    });
  });
});

describe('A NeuronSageMakerExecutionRole bound to a Neuron DLC image', () => {
  test('holds the ECR token statement once', () => {
    // GIVEN
    const stack = newStack();
    const role = new NeuronSageMakerExecutionRole(stack, 'ExecutionRole');
    // WHEN
    ModelImage.fromNeuronDlc({ tag: '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04', digest: `sha256:${'a'.repeat(64)}` })
      .bind(stack, role, NeuronInstanceType.INF2_XLARGE);
    // THEN
    const policy = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy'))[0];
    const tokenStatements = policy.Properties.PolicyDocument.Statement
      .filter((s: { Action: unknown }) => s.Action === 'ecr:GetAuthorizationToken');
    expect(tokenStatements).toHaveLength(1);
  });
});
