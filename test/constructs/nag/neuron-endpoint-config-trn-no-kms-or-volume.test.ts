import { App } from 'aws-cdk-lib';
import { CfnEndpointConfig } from 'aws-cdk-lib/aws-sagemaker';
import { NagRuleCompliance } from 'cdk-nag';
import { NeuronEndpointConfigTrnNoKmsOrVolume } from '../../../constructs/nag';
import { KEY_ARN, cfnResource, endpointConfigProperties, neuronCheckedStack, neuronFindingPaths } from './fixtures';

const TYPE = 'AWS::SageMaker::EndpointConfig';

describe('NeuronEndpointConfigTrnNoKmsOrVolume: a configuration with a Trainium variant sets no KMS key and no volume size there', () => {
  test.each([
    ['ml.trn1 without key or volume', endpointConfigProperties(['ml.trn1.2xlarge']), NagRuleCompliance.COMPLIANT],
    ['ml.trn1 with a key', endpointConfigProperties(['ml.trn1.2xlarge'], { KmsKeyId: KEY_ARN }), NagRuleCompliance.NON_COMPLIANT],
    ['ml.trn1n with a volume size', endpointConfigProperties(['ml.trn1n.32xlarge'], { VolumeSizeInGB: 100 }), NagRuleCompliance.NON_COMPLIANT],
    ['ml.trn2 with a key from a Ref', endpointConfigProperties(['ml.trn2.48xlarge'], { KmsKeyId: { Ref: 'Key' } }), NagRuleCompliance.NON_COMPLIANT],
    [
      'ml.trn1 and ml.inf2 with a key',
      endpointConfigProperties(['ml.inf2.xlarge', 'ml.trn1.2xlarge'], { KmsKeyId: KEY_ARN }),
      NagRuleCompliance.NON_COMPLIANT,
    ],
    ['ml.inf2 only, with key and volume', endpointConfigProperties(['ml.inf2.xlarge'], { KmsKeyId: KEY_ARN, VolumeSizeInGB: 100 }), NagRuleCompliance.NOT_APPLICABLE],
    ['an instance type from a parameter', endpointConfigProperties([{ Ref: 'Type' } as unknown as string], { KmsKeyId: KEY_ARN }), NagRuleCompliance.NOT_APPLICABLE],
  ])('GIVEN %s WHEN checked THEN it is %s', (_name, properties, expected) => {
    expect(NeuronEndpointConfigTrnNoKmsOrVolume(cfnResource(TYPE, properties))).toBe(expected);
  });

  test('GIVEN a volume size only on the ml.inf2 variant of a mixed configuration WHEN checked THEN it is compliant', () => {
    const properties = {
      ProductionVariants: [
        { VariantName: 'Inf2', ModelName: 'model', InitialInstanceCount: 1, InstanceType: 'ml.inf2.xlarge', VolumeSizeInGB: 100 },
        { VariantName: 'Trn1', ModelName: 'model', InitialInstanceCount: 1, InstanceType: 'ml.trn1.2xlarge' },
      ],
    };
    expect(NeuronEndpointConfigTrnNoKmsOrVolume(cfnResource(TYPE, properties))).toBe(NagRuleCompliance.COMPLIANT);
  });

  test('GIVEN a resource that is not an endpoint configuration WHEN checked THEN the rule does not apply', () => {
    expect(NeuronEndpointConfigTrnNoKmsOrVolume(cfnResource('AWS::SageMaker::Model', {}))).toBe(NagRuleCompliance.NOT_APPLICABLE);
  });

  test('GIVEN a plain and a KMS-encrypted ml.trn1 configuration WHEN the app synthesizes THEN synth fails on the second only', () => {
    const stack = neuronCheckedStack();
    const variant = { variantName: 'AllTraffic', modelName: 'model', initialInstanceCount: 1, instanceType: 'ml.trn1.2xlarge' };
    new CfnEndpointConfig(stack, 'Plain', { productionVariants: [variant] });
    new CfnEndpointConfig(stack, 'WithKey', { kmsKeyId: KEY_ARN, productionVariants: [variant] });

    expect(() => (stack.node.root as App).synth()).toThrow(/Neuron-EndpointConfigTrnNoKmsOrVolume/);
    expect(neuronFindingPaths(stack, 'Neuron-EndpointConfigTrnNoKmsOrVolume')).toEqual(['Fixture/WithKey']);
    expect(neuronFindingPaths(stack, 'Neuron-EndpointConfigKms')).toEqual([]);
  });
});
