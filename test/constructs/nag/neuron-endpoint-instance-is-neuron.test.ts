import { CfnEndpointConfig } from 'aws-cdk-lib/aws-sagemaker';
import { NagRuleCompliance } from 'cdk-nag';
import { NeuronEndpointInstanceIsNeuron } from '../../../constructs/nag';
import { cfnResource, endpointConfigProperties, expectSynthFailsOn, KEY_ARN, neuronCheckedStack, pooledEndpointConfigProperties } from './fixtures';

const TYPE = 'AWS::SageMaker::EndpointConfig';

describe('NeuronEndpointInstanceIsNeuron: every variant of an endpoint configuration runs on a Neuron instance', () => {
  test.each([
    'ml.inf1.xlarge',
    'ml.inf1.24xlarge',
    'ml.inf2.xlarge',
    'ml.inf2.48xlarge',
    'ml.trn1.2xlarge',
    'ml.trn1.32xlarge',
    'ml.trn1n.32xlarge',
    'ml.trn2.48xlarge',
  ])('GIVEN a variant on %s WHEN checked THEN it is compliant', (instanceType) => {
    expect(NeuronEndpointInstanceIsNeuron(cfnResource(TYPE, endpointConfigProperties([instanceType])))).toBe(
      NagRuleCompliance.COMPLIANT,
    );
  });

  test.each([
    ['a GPU instance', ['ml.g5.xlarge']],
    ['a CPU instance', ['ml.m5.large']],
    ['an EC2 name without the ml. prefix', ['inf2.xlarge']],
    ['a Neuron and a GPU variant', ['ml.inf2.xlarge', 'ml.g5.xlarge']],
    ['a look-alike family', ['ml.inf3.xlarge']],
  ])('GIVEN %s WHEN checked THEN it is non-compliant', (_name, instanceTypes) => {
    expect(NeuronEndpointInstanceIsNeuron(cfnResource(TYPE, endpointConfigProperties(instanceTypes)))).toBe(
      NagRuleCompliance.NON_COMPLIANT,
    );
  });

  test.each<[string, unknown[], NagRuleCompliance]>([
    ['instance pools all on Neuron', ['ml.inf2.xlarge', 'ml.trn1.2xlarge', 'ml.inf2.8xlarge'], NagRuleCompliance.COMPLIANT],
    ['an instance pool on a GPU', ['ml.inf2.xlarge', 'ml.g5.xlarge'], NagRuleCompliance.NON_COMPLIANT],
    ['an instance pool from a parameter', ['ml.inf2.xlarge', { Ref: 'PoolType' }], NagRuleCompliance.NOT_APPLICABLE],
  ])('GIVEN %s WHEN checked THEN the variant is judged by every pool type', (_name, pools, verdict) => {
    expect(NeuronEndpointInstanceIsNeuron(cfnResource(TYPE, pooledEndpointConfigProperties(pools)))).toBe(verdict);
  });

  test('GIVEN a serverless variant WHEN checked THEN it is non-compliant', () => {
    const properties = {
      ProductionVariants: [{ VariantName: 'Serverless', ModelName: 'model', ServerlessConfig: { MemorySizeInMB: 2048, MaxConcurrency: 1 } }],
    };
    expect(NeuronEndpointInstanceIsNeuron(cfnResource(TYPE, properties))).toBe(NagRuleCompliance.NON_COMPLIANT);
  });

  test('GIVEN a Neuron production variant and a GPU shadow variant WHEN checked THEN it is non-compliant', () => {
    const properties = {
      ...endpointConfigProperties(['ml.inf2.xlarge']),
      ShadowProductionVariants: [{ VariantName: 'Shadow', ModelName: 'model', InitialInstanceCount: 1, InstanceType: 'ml.g5.xlarge' }],
    };
    expect(NeuronEndpointInstanceIsNeuron(cfnResource(TYPE, properties))).toBe(NagRuleCompliance.NON_COMPLIANT);
  });

  test.each([
    ['an instance type from a parameter', endpointConfigProperties([{ Ref: 'Type' } as unknown as string])],
    ['a Neuron variant and one from a parameter', endpointConfigProperties(['ml.inf2.xlarge', { Ref: 'Type' } as unknown as string])],
    ['variants from a parameter', { ProductionVariants: { Ref: 'Variants' } }],
    ['a variant from Fn::If', { ProductionVariants: [{ 'Fn::If': ['C', {}, {}] }] }],
  ])('GIVEN %s WHEN checked THEN the rule does not apply', (_name, properties) => {
    expect(NeuronEndpointInstanceIsNeuron(cfnResource(TYPE, properties))).toBe(NagRuleCompliance.NOT_APPLICABLE);
  });

  test('GIVEN a GPU variant alongside one from a parameter WHEN checked THEN the known GPU variant makes it non-compliant', () => {
    const properties = endpointConfigProperties(['ml.g5.xlarge', { Ref: 'Type' } as unknown as string]);
    expect(NeuronEndpointInstanceIsNeuron(cfnResource(TYPE, properties))).toBe(NagRuleCompliance.NON_COMPLIANT);
  });

  test('GIVEN an ml.inf2 and an ml.g5 configuration WHEN the app synthesizes THEN synth fails on the second only', () => {
    const stack = neuronCheckedStack();
    const variant = (instanceType: string) => ({ variantName: 'AllTraffic', modelName: 'model', initialInstanceCount: 1, instanceType });
    new CfnEndpointConfig(stack, 'Inferentia', { kmsKeyId: KEY_ARN, productionVariants: [variant('ml.inf2.xlarge')] });
    new CfnEndpointConfig(stack, 'Gpu', { kmsKeyId: KEY_ARN, productionVariants: [variant('ml.g5.xlarge')] });

    expectSynthFailsOn(stack, 'Neuron-EndpointInstanceIsNeuron', ['Fixture/Gpu']);
  });
});
