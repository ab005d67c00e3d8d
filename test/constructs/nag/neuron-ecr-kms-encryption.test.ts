import { CfnRepository } from 'aws-cdk-lib/aws-ecr';
import { NagRuleCompliance } from 'cdk-nag';
import { NeuronEcrKmsEncryption } from '../../../constructs/nag';
import { expectSynthFailsOn, KEY_ARN, neuronCheckedStack, testVerdicts } from './fixtures';

describe('NeuronEcrKmsEncryption: an ECR repository encrypts images with a KMS key', () => {
  testVerdicts(NeuronEcrKmsEncryption, 'AWS::ECR::Repository', 'GIVEN a repository with %s WHEN checked THEN it is %s', [
    ['KMS and a key', { EncryptionConfiguration: { EncryptionType: 'KMS', KmsKey: KEY_ARN } }, NagRuleCompliance.COMPLIANT],
    ['KMS and the AWS managed key', { EncryptionConfiguration: { EncryptionType: 'KMS' } }, NagRuleCompliance.COMPLIANT],
    ['KMS_DSSE', { EncryptionConfiguration: { EncryptionType: 'KMS_DSSE', KmsKey: KEY_ARN } }, NagRuleCompliance.COMPLIANT],
    ['AES256', { EncryptionConfiguration: { EncryptionType: 'AES256' } }, NagRuleCompliance.NON_COMPLIANT],
    ['no encryption configuration (AES256 by default)', {}, NagRuleCompliance.NON_COMPLIANT],
    ['a type from a parameter', { EncryptionConfiguration: { EncryptionType: { Ref: 'Type' } } }, NagRuleCompliance.NOT_APPLICABLE],
    ['the whole configuration from Fn::If', { EncryptionConfiguration: { 'Fn::If': ['C', {}, {}] } }, NagRuleCompliance.NOT_APPLICABLE],
  ], { type: 'AWS::KMS::Key', noun: 'a repository' });

  test('GIVEN a KMS and an AES256 repository WHEN the app synthesizes THEN synth fails on the second only', () => {
    const stack = neuronCheckedStack();
    new CfnRepository(stack, 'Kms', { encryptionConfiguration: { encryptionType: 'KMS', kmsKey: KEY_ARN } });
    new CfnRepository(stack, 'Aes', { encryptionConfiguration: { encryptionType: 'AES256' } });

    expectSynthFailsOn(stack, 'Neuron-EcrKmsEncryption', ['Fixture/Aes']);
  });
});
