import { App } from 'aws-cdk-lib';
import { CfnRepository } from 'aws-cdk-lib/aws-ecr';
import { NagRuleCompliance } from 'cdk-nag';
import { NeuronEcrKmsEncryption } from '../../../constructs/nag';
import { KEY_ARN, cfnResource, neuronCheckedStack, neuronFindingPaths } from './fixtures';

describe('NeuronEcrKmsEncryption: an ECR repository encrypts images with a KMS key', () => {
  test.each([
    ['KMS and a key', { EncryptionConfiguration: { EncryptionType: 'KMS', KmsKey: KEY_ARN } }, NagRuleCompliance.COMPLIANT],
    ['KMS and the AWS managed key', { EncryptionConfiguration: { EncryptionType: 'KMS' } }, NagRuleCompliance.COMPLIANT],
    ['KMS_DSSE', { EncryptionConfiguration: { EncryptionType: 'KMS_DSSE', KmsKey: KEY_ARN } }, NagRuleCompliance.COMPLIANT],
    ['AES256', { EncryptionConfiguration: { EncryptionType: 'AES256' } }, NagRuleCompliance.NON_COMPLIANT],
    ['no encryption configuration (AES256 by default)', {}, NagRuleCompliance.NON_COMPLIANT],
    ['a type from a parameter', { EncryptionConfiguration: { EncryptionType: { Ref: 'Type' } } }, NagRuleCompliance.NOT_APPLICABLE],
    ['the whole configuration from Fn::If', { EncryptionConfiguration: { 'Fn::If': ['C', {}, {}] } }, NagRuleCompliance.NOT_APPLICABLE],
  ])('GIVEN a repository with %s WHEN checked THEN it is %s', (_name, properties, expected) => {
    expect(NeuronEcrKmsEncryption(cfnResource('AWS::ECR::Repository', properties))).toBe(expected);
  });

  test('GIVEN a resource that is not a repository WHEN checked THEN the rule does not apply', () => {
    expect(NeuronEcrKmsEncryption(cfnResource('AWS::KMS::Key', {}))).toBe(NagRuleCompliance.NOT_APPLICABLE);
  });

  test('GIVEN a KMS and an AES256 repository WHEN the app synthesizes THEN synth fails on the second only', () => {
    const stack = neuronCheckedStack();
    new CfnRepository(stack, 'Kms', { encryptionConfiguration: { encryptionType: 'KMS', kmsKey: KEY_ARN } });
    new CfnRepository(stack, 'Aes', { encryptionConfiguration: { encryptionType: 'AES256' } });

    expect(() => (stack.node.root as App).synth()).toThrow(/Neuron-EcrKmsEncryption/);
    expect(neuronFindingPaths(stack, 'Neuron-EcrKmsEncryption')).toEqual(['Fixture/Aes']);
  });
});
