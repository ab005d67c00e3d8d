import { App, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ModelImage } from '../../../constructs/image/model-image';
import { applyPolicyChecks } from '../../../constructs/nag';
import { NeuronSageMakerEndpoint, NeuronSageMakerEndpointProps } from '../../../constructs/sagemaker';
import { NeuronInstanceType } from '../../../lib/catalog';
import { nagFindings } from '../../support/nag';
import { problemsOf } from '../../support/input-error';

/** What a first deploy needs from the endpoint: VPC permissions, a host AMI its image accepts, honest warnings. */

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

function newStack(): Stack {
  return new Stack(new App({ builtinCloudFormationValidation: false }), 'Stack', { env: { account: '111111111111', region: 'us-east-1' } });
}

function dlc(sdk: string): ModelImage {
  return ModelImage.fromNeuronDlc({ tag: `2.1.2-neuronx-py310-sdk${sdk}-ubuntu20.04`, digest: DIGEST });
}

function endpoint(props: Partial<NeuronSageMakerEndpointProps> = {}, stack = newStack()): NeuronSageMakerEndpoint {
  return new NeuronSageMakerEndpoint(stack, 'Endpoint', {
    instanceType: NeuronInstanceType.INF2_XLARGE,
    instanceCount: 2,
    image: dlc('2.31.1'),
    ...props,
  });
}

function amiOf(e: NeuronSageMakerEndpoint): unknown {
  return Stack.of(e).resolve(e.cfnEndpointConfig.productionVariants)[0].inferenceAmiVersion;
}

describe('An endpoint in a VPC with the default execution role', () => {
  // GIVEN
  const app = new App({ builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Stack', { env: { account: '111111111111', region: 'us-east-1' } });
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [
    { name: 'isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
  ] });
  Validations.of(vpc).acknowledge({ id: 'AwsSolutions-VPC7', reason: 'Test fixture: only the endpoint is under test.' });
  // WHEN
  const e = endpoint({ vpc }, stack);
  applyPolicyChecks(app);
  const template = Template.fromStack(stack);
  const statements = Object.values(template.findResources('AWS::IAM::Policy'))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Record<string, unknown>[]);
  const arn = (resource: string, id: string) => ({
    'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:ec2:us-east-1:111111111111:${resource}/`, id]],
  });
  const subnets = vpc.isolatedSubnets.map((s) => arn('subnet', stack.resolve(s.subnetId)));
  const sg = stack.resolve(e.connections.securityGroups[0].securityGroupId);

  test('lets the role create, share and delete network interfaces only in the chosen subnets of that VPC', () => {
    // THEN
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: ['ec2:CreateNetworkInterface', 'ec2:CreateNetworkInterfacePermission', 'ec2:DeleteNetworkInterface'],
      Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ec2:us-east-1:111111111111:network-interface/*']] },
      Condition: { ArnEquals: { 'ec2:Vpc': arn('vpc', stack.resolve(vpc.vpcId)), 'ec2:Subnet': subnets } },
    });
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: 'ec2:CreateNetworkInterface',
      Resource: [...subnets, arn('security-group', sg)],
    });
  });

  test('grants the describe calls and DeleteNetworkInterfacePermission, which support no resource scoping, on *', () => {
    // THEN
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: [
        'ec2:DeleteNetworkInterfacePermission', 'ec2:DescribeDhcpOptions', 'ec2:DescribeNetworkInterfaces',
        'ec2:DescribeSecurityGroups', 'ec2:DescribeSubnets', 'ec2:DescribeVpcs',
      ],
      Resource: '*',
    });
  });

  test('grants all nine EC2 actions SageMaker lists for a VPC config, and stays cdk-nag clean', () => {
    // THEN
    const ec2Actions = new Set(statements.flatMap((st) => [st.Action].flat() as string[]).filter((a) => a.startsWith('ec2:')));
    expect([...ec2Actions].sort()).toEqual([
      'ec2:CreateNetworkInterface', 'ec2:CreateNetworkInterfacePermission', 'ec2:DeleteNetworkInterface',
      'ec2:DeleteNetworkInterfacePermission', 'ec2:DescribeDhcpOptions', 'ec2:DescribeNetworkInterfaces',
      'ec2:DescribeSecurityGroups', 'ec2:DescribeSubnets', 'ec2:DescribeVpcs',
    ]);
    expect(nagFindings(app, { plugins: ['AwsSolutions', 'Neuron'] })).toEqual([]);
  });
});

describe('An endpoint in a VPC with the user\'s own execution role', () => {
  function build(checks: boolean): { app: App; stack: Stack } {
    const app = new App({ builtinCloudFormationValidation: false });
    const stack = new Stack(app, 'Stack', { env: { account: '111111111111', region: 'us-east-1' } });
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [
      { name: 'isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    ] });
    Validations.of(vpc).acknowledge({ id: 'AwsSolutions-VPC7', reason: 'Test fixture: only the endpoint is under test.' });
    const role = new iam.Role(stack, 'MyRole', { assumedBy: new iam.ServicePrincipal('sagemaker.amazonaws.com') });
    endpoint({ vpc, role }, stack);
    if (checks) {
      applyPolicyChecks(app);
    }
    return { app, stack };
  }

  test('leaves the wildcards the VPC access adds to the user\'s role for the user to acknowledge, and says so', () => {
    // GIVEN a role the app made, not the package (issue 22 item 8: a wildcard of the user's own would hide behind ours)
    const { app } = build(true);
    // THEN cdk-nag reports the Resource::* statements on that role, and on nothing the package made
    const findings = nagFindings(app, { plugins: ['AwsSolutions', 'Neuron'] });
    expect(findings.map((f) => f.ruleId)).toContain('AwsSolutions-IAM5[Resource::*]');
    expect(findings.filter((f) => !f.resourcePath.startsWith('Stack/MyRole/'))).toEqual([]);
    // AND a warning says what the package added to the role
    Annotations.fromStack(build(false).stack).hasWarning('/Stack/Endpoint',
      Match.stringLikeRegexp('Stack/MyRole gets the VPC permissions SageMaker needs.*acknowledge them there'));
  });
});

describe('An endpoint outside a VPC', () => {
  test('grants no EC2 action', () => {
    // GIVEN
    const e = endpoint();
    // THEN
    const json = JSON.stringify(Template.fromStack(Stack.of(e)).findResources('AWS::IAM::Policy'));
    expect(json).not.toContain('ec2:');
  });
});

describe('The host AMI of an endpoint', () => {
  test('is al2-ami-sagemaker-inference-neuron-2 (driver 2.19) for an image of Neuron SDK 2.18 (driver 2.16)', () => {
    // THEN
    expect(amiOf(endpoint({ image: dlc('2.18.1') }))).toBe('al2-ami-sagemaker-inference-neuron-2');
  });

  test('is left to SageMaker, with a note, for an SDK whose driver is newer than every AMI\'s', () => {
    // WHEN
    const e = endpoint({ image: dlc('2.31.1') });
    // THEN
    expect(amiOf(e)).toBeUndefined();
    Annotations.fromStack(Stack.of(e)).hasInfo('/Stack/Endpoint',
      Match.stringLikeRegexp('Neuron SDK 2.31.1 shipped with driver 2.29, newer than any SageMaker Neuron inference AMI'));
  });

  test('is left to SageMaker with a warning when the SDK is unknown or not in the table', () => {
    // GIVEN
    const repository = ecr.Repository.fromRepositoryName(newStack(), 'Repo', 'images');
    // WHEN
    const unknown = endpoint({ image: ModelImage.fromRepository(repository, DIGEST) }, Stack.of(repository));
    const unlisted = endpoint({ image: dlc('2.20.2') });
    // THEN
    expect([amiOf(unknown), amiOf(unlisted)]).toEqual([undefined, undefined]);
    Annotations.fromStack(Stack.of(unknown)).hasWarning('/Stack/Endpoint',
      Match.stringLikeRegexp("the image's Neuron SDK version is unknown .* pass neuronSdkVersion"));
    Annotations.fromStack(Stack.of(unlisted)).hasWarning('/Stack/Endpoint',
      Match.stringLikeRegexp('Neuron SDK 2.20.2 is not in the host compatibility table'));
  });

  test('follows neuronSdkVersion for an image of your own', () => {
    // GIVEN
    const repository = ecr.Repository.fromRepositoryName(newStack(), 'Repo', 'images');
    // WHEN
    const e = endpoint({ image: ModelImage.fromRepository(repository, DIGEST), neuronSdkVersion: '2.18.1' }, Stack.of(repository));
    // THEN
    expect(amiOf(e)).toBe('al2-ami-sagemaker-inference-neuron-2');
  });

  test('may be pinned when the table lists the pair', () => {
    // THEN
    expect(amiOf(endpoint({ image: dlc('2.18.1'), inferenceAmiVersion: 'al2-ami-sagemaker-inference-neuron-2' })))
      .toBe('al2-ami-sagemaker-inference-neuron-2');
  });

  test('refuses a pin whose driver is older than the image\'s SDK shipped with, and other unlisted pins', () => {
    // THEN
    expect(problemsOf(() => endpoint({ image: dlc('2.31.1'), inferenceAmiVersion: 'al2-ami-sagemaker-inference-neuron-2' })))
      .toEqual(['inferenceAmiVersion=al2-ami-sagemaker-inference-neuron-2 carries Neuron driver 2.19, older than the '
        + 'driver 2.29 Neuron SDK 2.31.1 (the image) shipped with, and the Neuron runtime refuses to start on an older '
        + 'driver; remove inferenceAmiVersion to let SageMaker choose the host image, or use an image of a Neuron SDK '
        + 'whose driver is 2.19 or older']);
    expect(problemsOf(() => endpoint({ image: dlc('2.20.2'), inferenceAmiVersion: 'al2-ami-sagemaker-inference-neuron-2' })))
      .toEqual([expect.stringContaining('with Neuron SDK 2.20.2 is not a listed combination')]);
    expect(problemsOf(() => endpoint({ inferenceAmiVersion: 'al2-ami-sagemaker-inference-gpu-2' })))
      .toEqual([expect.stringContaining('is not a SageMaker inference AMI for Neuron instances')]);
    expect(problemsOf(() => endpoint({ neuronSdkVersion: 'latest' }))).toEqual([
      'neuronSdkVersion="latest" is not a Neuron SDK version; pass e.g. \'2.31.1\'',
      'neuronSdkVersion="latest" but the image\'s Neuron DLC tag says 2.31.1; remove neuronSdkVersion (the tag already tells)',
    ]);
  });

  test('is never pinned on Inf1, and a pin there is refused', () => {
    // GIVEN
    const inf1 = ModelImage.fromNeuronDlc({ tag: '1.13.1-neuron-py310-sdk2.20.2-ubuntu20.04', digest: DIGEST });
    // THEN
    expect(amiOf(endpoint({ instanceType: NeuronInstanceType.INF1_XLARGE, image: inf1 }))).toBeUndefined();
    expect(problemsOf(() => endpoint({
      instanceType: NeuronInstanceType.INF1_XLARGE, image: inf1, inferenceAmiVersion: 'al2-ami-sagemaker-inference-neuron-2',
    }))).toEqual([expect.stringContaining('SageMaker lists no inference AMI for Inf1')]);
  });
});

describe('An endpoint on one instance', () => {
  test('warns that one instance is not production-ready, naming the AWS Config rule', () => {
    // WHEN
    const e = endpoint({ instanceCount: 1 });
    // THEN
    Annotations.fromStack(Stack.of(e)).hasWarning('/Stack/Endpoint', Match.stringLikeRegexp(
      "runs on one instance.*AWS Config's sagemaker-endpoint-config-prod-instance-count rule flags it"));
  });

  test('is not warned about with two instances', () => {
    // WHEN
    const e = endpoint({ instanceCount: 2 });
    // THEN
    Annotations.fromStack(Stack.of(e)).hasNoWarning('/Stack/Endpoint', Match.stringLikeRegexp('runs on one instance'));
  });
});

describe('The latency rollback alarm', () => {
  test('takes an explicit threshold, also without a plan', () => {
    // WHEN
    const e = endpoint({ latencyAlarmThreshold: Duration.millis(40) });
    // THEN 40 ms = 40,000 microseconds
    Template.fromStack(Stack.of(e)).hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ModelLatency', Threshold: 40000,
    });
  });
});
