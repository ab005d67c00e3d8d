import { CfnModel } from 'aws-cdk-lib/aws-sagemaker';
import { NagRuleCompliance } from 'cdk-nag';
import { NeuronEndpointNetworkIsolationHasModelData } from '../../../constructs/nag';
import { cfnResource, DIGEST, expectSynthFailsOn, neuronCheckedStack, ROLE_ARN } from './fixtures';

const TYPE = 'AWS::SageMaker::Model';
const IMAGE = `123456789012.dkr.ecr.us-east-1.amazonaws.com/model@${DIGEST}`;
const S3_PREFIX = 's3://models-bucket/bert-base-uncased/';
const MODEL_DATA_SOURCE = { S3DataSource: { S3Uri: S3_PREFIX, S3DataType: 'S3Prefix', CompressionType: 'None' } };

describe('NeuronEndpointNetworkIsolationHasModelData: a network-isolated model gets its artifacts from SageMaker', () => {
  test.each([
    ['ModelDataUrl', { EnableNetworkIsolation: true, PrimaryContainer: { Image: IMAGE, ModelDataUrl: 's3://b/model.tar.gz' } }, NagRuleCompliance.COMPLIANT],
    ['ModelDataSource', { EnableNetworkIsolation: true, PrimaryContainer: { Image: IMAGE, ModelDataSource: MODEL_DATA_SOURCE } }, NagRuleCompliance.COMPLIANT],
    ['isolation as the string "true" and model data', { EnableNetworkIsolation: 'true', PrimaryContainer: { Image: IMAGE, ModelDataUrl: S3_PREFIX } }, NagRuleCompliance.COMPLIANT],
    ['no model data', { EnableNetworkIsolation: true, PrimaryContainer: { Image: IMAGE } }, NagRuleCompliance.NON_COMPLIANT],
    [
      'model data on only one pipeline container',
      { EnableNetworkIsolation: true, Containers: [{ Image: IMAGE, ModelDataUrl: S3_PREFIX }, { Image: IMAGE }] },
      NagRuleCompliance.NON_COMPLIANT,
    ],
    ['no network isolation and no model data', { PrimaryContainer: { Image: IMAGE } }, NagRuleCompliance.NOT_APPLICABLE],
    ['network isolation off', { EnableNetworkIsolation: false, PrimaryContainer: { Image: IMAGE } }, NagRuleCompliance.NOT_APPLICABLE],
    ['isolation from a parameter', { EnableNetworkIsolation: { Ref: 'Isolate' }, PrimaryContainer: { Image: IMAGE } }, NagRuleCompliance.NOT_APPLICABLE],
    ['containers from a parameter', { EnableNetworkIsolation: true, Containers: { Ref: 'Containers' } }, NagRuleCompliance.NOT_APPLICABLE],
  ])('GIVEN network isolation with %s WHEN checked THEN it is %s', (_name, properties, expected) => {
    expect(NeuronEndpointNetworkIsolationHasModelData(cfnResource(TYPE, { ExecutionRoleArn: ROLE_ARN, ...properties }))).toBe(expected);
  });

  test('GIVEN a resource that is not a model WHEN checked THEN the rule does not apply', () => {
    expect(NeuronEndpointNetworkIsolationHasModelData(cfnResource('AWS::SageMaker::EndpointConfig', {}))).toBe(
      NagRuleCompliance.NOT_APPLICABLE,
    );
  });

  test('GIVEN an isolated model with and one without model data WHEN the app synthesizes THEN synth fails on the second only', () => {
    const stack = neuronCheckedStack();
    new CfnModel(stack, 'WithData', {
      executionRoleArn: ROLE_ARN,
      enableNetworkIsolation: true,
      primaryContainer: { image: IMAGE, modelDataSource: { s3DataSource: { s3Uri: S3_PREFIX, s3DataType: 'S3Prefix', compressionType: 'None' } } },
    });
    new CfnModel(stack, 'WithoutData', { executionRoleArn: ROLE_ARN, enableNetworkIsolation: true, primaryContainer: { image: IMAGE } });

    expectSynthFailsOn(stack, 'Neuron-EndpointNetworkIsolationHasModelData', ['Fixture/WithoutData']);
  });
});
