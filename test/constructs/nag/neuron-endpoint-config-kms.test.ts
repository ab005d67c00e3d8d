import { App } from 'aws-cdk-lib';
import { CfnEndpointConfig } from 'aws-cdk-lib/aws-sagemaker';
import { NagRuleCompliance } from 'cdk-nag';
import { NeuronEndpointConfigKms } from '../../../constructs/nag';
import { KEY_ARN, cfnResource, endpointConfigProperties, neuronCheckedStack, neuronFindingPaths } from './fixtures';

const TYPE = 'AWS::SageMaker::EndpointConfig';

describe('NeuronEndpointConfigKms: an endpoint configuration on EBS-backed instances sets a KMS key', () => {
  test.each([
    ['ml.inf2 with a key', endpointConfigProperties(['ml.inf2.xlarge'], { KmsKeyId: KEY_ARN }), NagRuleCompliance.COMPLIANT],
    ['ml.inf1 with a key from a Ref', endpointConfigProperties(['ml.inf1.xlarge'], { KmsKeyId: { Ref: 'Key' } }), NagRuleCompliance.COMPLIANT],
    ['ml.inf2 without a key', endpointConfigProperties(['ml.inf2.xlarge']), NagRuleCompliance.NON_COMPLIANT],
    ['ml.inf2 with an empty key', endpointConfigProperties(['ml.inf2.xlarge'], { KmsKeyId: '' }), NagRuleCompliance.NON_COMPLIANT],
    ['ml.trn1 only, without a key', endpointConfigProperties(['ml.trn1.2xlarge']), NagRuleCompliance.NOT_APPLICABLE],
    ['ml.trn1n and ml.trn2 only', endpointConfigProperties(['ml.trn1n.32xlarge', 'ml.trn2.48xlarge']), NagRuleCompliance.NOT_APPLICABLE],
    ['ml.trn1 and ml.inf2 without a key', endpointConfigProperties(['ml.trn1.2xlarge', 'ml.inf2.xlarge']), NagRuleCompliance.NON_COMPLIANT],
    [
      'an instance type from a parameter and no key',
      endpointConfigProperties([{ Ref: 'InstanceType' } as unknown as string]),
      NagRuleCompliance.NON_COMPLIANT,
    ],
    ['variants from a parameter and no key', { ProductionVariants: { Ref: 'Variants' } }, NagRuleCompliance.NON_COMPLIANT],
  ])('GIVEN %s WHEN checked THEN it is %s', (_name, properties, expected) => {
    expect(NeuronEndpointConfigKms(cfnResource(TYPE, properties))).toBe(expected);
  });

  test('GIVEN an ml.trn1 production variant and an ml.inf2 shadow variant without a key WHEN checked THEN it is non-compliant', () => {
    const properties = {
      ...endpointConfigProperties(['ml.trn1.2xlarge']),
      ShadowProductionVariants: [{ VariantName: 'Shadow', ModelName: 'model', InitialInstanceCount: 1, InstanceType: 'ml.inf2.xlarge' }],
    };
    expect(NeuronEndpointConfigKms(cfnResource(TYPE, properties))).toBe(NagRuleCompliance.NON_COMPLIANT);
  });

  test('GIVEN a resource that is not an endpoint configuration WHEN checked THEN the rule does not apply', () => {
    expect(NeuronEndpointConfigKms(cfnResource('AWS::SageMaker::Endpoint', {}))).toBe(NagRuleCompliance.NOT_APPLICABLE);
  });

  test('GIVEN an ml.inf2 configuration with and one without a key WHEN the app synthesizes THEN synth fails on the second only', () => {
    const stack = neuronCheckedStack();
    const variant = { variantName: 'AllTraffic', modelName: 'model', initialInstanceCount: 1, instanceType: 'ml.inf2.xlarge' };
    new CfnEndpointConfig(stack, 'Encrypted', { kmsKeyId: KEY_ARN, productionVariants: [variant] });
    new CfnEndpointConfig(stack, 'Unencrypted', { productionVariants: [variant] });

    expect(() => (stack.node.root as App).synth()).toThrow(/Neuron-EndpointConfigKms/);
    expect(neuronFindingPaths(stack, 'Neuron-EndpointConfigKms')).toEqual(['Fixture/Unencrypted']);
  });
});
