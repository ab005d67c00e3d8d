import { CfnEndpointConfig } from 'aws-cdk-lib/aws-sagemaker';
import { NagRuleCompliance } from 'cdk-nag';
import { NeuronEndpointConfigTrnNoKmsOrVolume } from '../../../constructs/nag';
import {
  cfnResource, cfnVariant, endpointConfigProperties, expectSynthFailsOn, KEY_ARN, neuronCheckedStack, neuronFindingPaths, pooledEndpointConfigProperties,
  testVerdicts,
} from './fixtures';

const TYPE = 'AWS::SageMaker::EndpointConfig';

describe('NeuronEndpointConfigTrnNoKmsOrVolume: a configuration with a Trainium variant sets no KMS key and no volume size there', () => {
  testVerdicts(NeuronEndpointConfigTrnNoKmsOrVolume, TYPE, 'GIVEN %s WHEN checked THEN it is %s', [
    ['ml.trn1 without key or volume', endpointConfigProperties(['ml.trn1.2xlarge']), NagRuleCompliance.COMPLIANT],
    ['instance pools with an ml.trn1 pool, without key or volume', pooledEndpointConfigProperties(['ml.inf2.xlarge', 'ml.trn1.2xlarge']), NagRuleCompliance.COMPLIANT],
    ['instance pools with an ml.trn1 pool and a key', pooledEndpointConfigProperties(['ml.inf2.xlarge', 'ml.trn1.2xlarge'], { KmsKeyId: KEY_ARN }), NagRuleCompliance.NON_COMPLIANT],
    ['instance pools with an ml.trn1 pool and a volume size', pooledEndpointConfigProperties(['ml.inf2.xlarge', 'ml.trn1.2xlarge'], { VolumeSizeInGB: 30 }), NagRuleCompliance.NON_COMPLIANT],
    ['instance pools on ml.inf2 only, with key and volume', pooledEndpointConfigProperties(['ml.inf2.xlarge', 'ml.inf2.8xlarge'], { KmsKeyId: KEY_ARN, VolumeSizeInGB: 30 }), NagRuleCompliance.NOT_APPLICABLE],
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
  ], { type: 'AWS::SageMaker::Model', noun: 'an endpoint configuration' });

  test('GIVEN a volume size only on the ml.inf2 variant of a mixed configuration WHEN checked THEN it is compliant', () => {
    const properties = {
      ProductionVariants: [
        { VariantName: 'Inf2', ModelName: 'model', InitialInstanceCount: 1, InstanceType: 'ml.inf2.xlarge', VolumeSizeInGB: 100 },
        { VariantName: 'Trn1', ModelName: 'model', InitialInstanceCount: 1, InstanceType: 'ml.trn1.2xlarge' },
      ],
    };
    expect(NeuronEndpointConfigTrnNoKmsOrVolume(cfnResource(TYPE, properties))).toBe(NagRuleCompliance.COMPLIANT);
  });

  test('GIVEN a plain and a KMS-encrypted ml.trn1 configuration WHEN the app synthesizes THEN synth fails on the second only', () => {
    const stack = neuronCheckedStack();
    const variant = cfnVariant('ml.trn1.2xlarge');
    new CfnEndpointConfig(stack, 'Plain', { productionVariants: [variant] });
    new CfnEndpointConfig(stack, 'WithKey', { kmsKeyId: KEY_ARN, productionVariants: [variant] });

    expectSynthFailsOn(stack, 'Neuron-EndpointConfigTrnNoKmsOrVolume', ['Fixture/WithKey']);
    expect(neuronFindingPaths(stack, 'Neuron-EndpointConfigKms')).toEqual([]);
  });
});
