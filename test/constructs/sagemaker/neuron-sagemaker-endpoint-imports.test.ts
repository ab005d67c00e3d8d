import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import { NeuronSageMakerEndpoint } from '../../../constructs/sagemaker/neuron-sagemaker-endpoint';

const ENV = { account: '123456789012', region: 'us-east-1' };

/** The ARN CDK renders for an endpoint of this stack: the partition stays a token. */
function stackArn(name: string): unknown {
  return { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:sagemaker:us-east-1:123456789012:endpoint/${name}`]] };
}

function newStack(): Stack {
  return new Stack(new App(), 'Stack', { env: ENV });
}

function newRole(stack: Stack): iam.Role {
  return new iam.Role(stack, 'Client', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
}

/** Every IAM policy statement of the stack; only the `Client` role gets one here. */
function clientStatements(stack: Stack): unknown[] {
  const policies = Template.fromStack(stack).findResources('AWS::IAM::Policy');
  return Object.values(policies).flatMap((p) => p.Properties.PolicyDocument.Statement);
}

describe('An endpoint defined elsewhere is imported by name, ARN or attributes', () => {
  test('by attributes: its variant names the metrics, its name gives the lower-case ARN the invoke grant names', () => {
    // GIVEN an endpoint created outside this app, with a variant that is not AllTraffic
    const stack = newStack();
    // WHEN
    const endpoint = NeuronSageMakerEndpoint.fromEndpointAttributes(stack, 'Search', {
      endpointName: 'Search-Prod',
      variantName: 'Blue',
    });
    endpoint.grantInvoke(newRole(stack));
    // THEN
    expect(endpoint.metricInvocations().dimensions).toEqual({ EndpointName: 'Search-Prod', VariantName: 'Blue' });
    expect(clientStatements(stack)).toEqual([{
      Effect: 'Allow',
      Action: 'sagemaker:InvokeEndpoint',
      Resource: stackArn('search-prod'),
    }]);
  });

  test('by ARN: the name comes from the ARN and the grant names the ARN as given', () => {
    // GIVEN
    const stack = newStack();
    const arn = 'arn:aws:sagemaker:eu-west-1:222222222222:endpoint/search';
    // WHEN
    const endpoint = NeuronSageMakerEndpoint.fromEndpointArn(stack, 'Search', arn);
    endpoint.grantInvoke(newRole(stack));
    // THEN
    expect(endpoint.endpointName).toBe('search');
    expect(endpoint.endpointArn).toBe(arn);
    expect(endpoint.variantName).toBe('AllTraffic');
    expect(clientStatements(stack)).toEqual([{ Effect: 'Allow', Action: 'sagemaker:InvokeEndpoint', Resource: arn }]);
  });

  test('by name: as before, the AllTraffic variant and the ARN in the stack\'s account and region', () => {
    // GIVEN
    const stack = newStack();
    // WHEN
    const endpoint = NeuronSageMakerEndpoint.fromEndpointName(stack, 'Search', 'search');
    // THEN
    expect(endpoint.variantName).toBe('AllTraffic');
    expect(stack.resolve(endpoint.endpointArn)).toEqual(stackArn('search'));
  });
});

describe('Endpoint metrics follow the aws-cdk metric conventions', () => {
  const stack = newStack();
  const endpoint = NeuronSageMakerEndpoint.fromEndpointName(stack, 'Search', 'search');
  const dimensions = { EndpointName: 'search', VariantName: 'AllTraffic' };

  test.each([
    ['metricInvocation4xxErrors', 'Invocation4XXErrors', 'Sum', undefined],
    ['metricOverheadLatency', 'OverheadLatency', 'p99', cloudwatch.Unit.MICROSECONDS],
    ['metricInvocationsPerInstance', 'InvocationsPerInstance', 'Sum', undefined],
  ] as const)('%s is AWS/SageMaker %s of the variant, %s by default', (method, metricName, statistic, unit) => {
    // WHEN
    const metric = endpoint[method]();
    // THEN
    expect(metric.namespace).toBe('AWS/SageMaker');
    expect(metric.metricName).toBe(metricName);
    expect(metric.dimensions).toEqual(dimensions);
    expect(metric.statistic).toBe(statistic);
    expect(metric.unit).toBe(unit);
    expect(metric.period.toMinutes()).toBe(5);
  });

  test('the caller\'s options win over the defaults', () => {
    // WHEN
    const metric = endpoint.metricOverheadLatency({ statistic: cloudwatch.Stats.p(50), period: Duration.minutes(1) });
    // THEN
    expect(metric.statistic).toBe('p50');
    expect(metric.period.toMinutes()).toBe(1);
  });

  test('metric(name) reads any AWS/SageMaker metric of the variant, e.g. ModelSetupTime', () => {
    // WHEN
    const metric = endpoint.metric('ModelSetupTime', { statistic: cloudwatch.Stats.MAXIMUM });
    // THEN
    expect(metric.namespace).toBe('AWS/SageMaker');
    expect(metric.metricName).toBe('ModelSetupTime');
    expect(metric.dimensions).toEqual(dimensions);
    expect(metric.statistic).toBe('Maximum');
  });
});
