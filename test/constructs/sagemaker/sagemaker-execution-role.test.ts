import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ModelData } from '../../../constructs/model/model-data';
import { ModelImage } from '../../../constructs/image/model-image';
import { ModelImageRepository } from '../../../constructs/image/model-image-repository';
import { applyPolicyChecks } from '../../../constructs/nag';
import { NeuronSageMakerExecutionRole } from '../../../constructs/sagemaker/sagemaker-execution-role';
import { NeuronInstanceType } from '../../../lib/catalog';
import { InputError } from '../../../lib/errors';
import { expectRolePolicy } from '../../support/iam-policy';
import { nagFindings } from '../../support/nag';
import { keepCloudFormationValidation } from '../../support/cfn-validation';

// These templates are checked against CloudFormation's schemas, as `cdk synth` of the app checks them.
keepCloudFormationValidation();

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
    expectRolePolicy(stack, 'Deployer', [{
      Effect: 'Allow',
      Action: 'iam:PassRole',
      Resource: { 'Fn::GetAtt': ['ExecutionRole605A040B', 'Arn'] },
      Condition: { StringEquals: { 'iam:PassedToService': 'sagemaker.amazonaws.com' } },
    }]);
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

describe('The four hosting building blocks together', () => {
  test('pass cdk-nag AwsSolutions, our Neuron pack and CloudFormation schema validation with no finding', () => {
    // GIVEN
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hosting-blocks-'));
    try {
      const modelDir = path.join(scratch, 'model');
      fs.mkdirSync(path.join(modelDir, 'code'), { recursive: true });
      fs.writeFileSync(path.join(modelDir, 'model.pt'), 'weights');
      fs.writeFileSync(path.join(modelDir, 'code', 'inference.py'), 'def model_fn(model_dir): pass\n');
      const app = new App({
        outdir: path.join(scratch, 'cdk.out'),
        context: { '@aws-cdk/core:validateAgainstDefaultRules': true },
      });
      const stack = newStack(app);
      const digest = `sha256:${'c'.repeat(64)}`;
      // WHEN
      const images = new ModelImageRepository(stack, 'Images');
      images.grantPullToAccounts(['222222222222']);
      const role = new NeuronSageMakerExecutionRole(stack, 'ExecutionRole');
      ModelImage.fromRepository(images, digest).bind(stack, role, NeuronInstanceType.INF2_XLARGE);
      ModelImage.fromNeuronDlc({ tag: '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04', digest })
        .bind(stack, role, NeuronInstanceType.INF2_XLARGE);
      ModelData.fromAsset(modelDir).bind(stack, role);
      role.grantPassRole(new iam.Role(stack, 'Deployer', { assumedBy: new iam.AccountRootPrincipal() }));
      applyPolicyChecks(app);
      // THEN
      expect(nagFindings(app)).toEqual([]);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});
