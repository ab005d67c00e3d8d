import { CfnEndpointConfig } from 'aws-cdk-lib/aws-sagemaker';
import { NagRuleCompliance } from 'cdk-nag';
import { NeuronEndpointConfigKms } from '../../../constructs/nag';
import {
  cfnResource, cfnVariant, endpointConfigProperties, expectSynthFailsOn, KEY_ARN, neuronCheckedStack, pooledEndpointConfigProperties, testVerdicts,
} from './fixtures';

const TYPE = 'AWS::SageMaker::EndpointConfig';

describe('NeuronEndpointConfigKms: an endpoint configuration on EBS-backed instances sets a KMS key', () => {
  testVerdicts(NeuronEndpointConfigKms, TYPE, 'GIVEN %s WHEN checked THEN it is %s', [
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
    ['instance pools on ml.inf2 without a key', pooledEndpointConfigProperties(['ml.inf2.xlarge', 'ml.inf2.8xlarge']), NagRuleCompliance.NON_COMPLIANT],
    ['instance pools on ml.inf2 with a key', pooledEndpointConfigProperties(['ml.inf2.xlarge', 'ml.inf2.8xlarge'], { KmsKeyId: KEY_ARN }), NagRuleCompliance.COMPLIANT],
    ['instance pools with an ml.trn1 pool, without a key', pooledEndpointConfigProperties(['ml.inf2.xlarge', 'ml.trn1.2xlarge']), NagRuleCompliance.NOT_APPLICABLE],
  ], { type: 'AWS::SageMaker::Endpoint', noun: 'an endpoint configuration' });

  test('GIVEN an ml.trn1 production variant and an ml.inf2 shadow variant without a key WHEN checked THEN it is non-compliant', () => {
    const properties = {
      ...endpointConfigProperties(['ml.trn1.2xlarge']),
      ShadowProductionVariants: [{ VariantName: 'Shadow', ModelName: 'model', InitialInstanceCount: 1, InstanceType: 'ml.inf2.xlarge' }],
    };
    expect(NeuronEndpointConfigKms(cfnResource(TYPE, properties))).toBe(NagRuleCompliance.NON_COMPLIANT);
  });

  test('GIVEN an ml.inf2 configuration with and one without a key WHEN the app synthesizes THEN synth fails on the second only', () => {
    const stack = neuronCheckedStack();
    const variant = cfnVariant('ml.inf2.xlarge');
    new CfnEndpointConfig(stack, 'Encrypted', { kmsKeyId: KEY_ARN, productionVariants: [variant] });
    new CfnEndpointConfig(stack, 'Unencrypted', { productionVariants: [variant] });

    expectSynthFailsOn(stack, 'Neuron-EndpointConfigKms', ['Fixture/Unencrypted']);
  });
});
