import { CfnRepository } from 'aws-cdk-lib/aws-ecr';
import { NagRuleCompliance } from 'cdk-nag';
import { NeuronEcrScanOnPush } from '../../../constructs/nag';
import { expectSynthFailsOn, neuronCheckedStack, testVerdicts } from './fixtures';

describe('NeuronEcrScanOnPush: an ECR repository scans every image on push', () => {
  testVerdicts(NeuronEcrScanOnPush, 'AWS::ECR::Repository', 'GIVEN a repository with %s WHEN checked THEN it is %s', [
    ['ScanOnPush true', { ImageScanningConfiguration: { ScanOnPush: true } }, NagRuleCompliance.COMPLIANT],
    ['ScanOnPush "true" as a string', { ImageScanningConfiguration: { ScanOnPush: 'true' } }, NagRuleCompliance.COMPLIANT],
    ['ScanOnPush false', { ImageScanningConfiguration: { ScanOnPush: false } }, NagRuleCompliance.NON_COMPLIANT],
    ['no scanning configuration', {}, NagRuleCompliance.NON_COMPLIANT],
    ['an empty scanning configuration', { ImageScanningConfiguration: {} }, NagRuleCompliance.NON_COMPLIANT],
    ['ScanOnPush from a parameter', { ImageScanningConfiguration: { ScanOnPush: { Ref: 'Scan' } } }, NagRuleCompliance.NOT_APPLICABLE],
    ['the whole configuration from Fn::If', { ImageScanningConfiguration: { 'Fn::If': ['C', {}, {}] } }, NagRuleCompliance.NOT_APPLICABLE],
  ], { type: 'AWS::S3::Bucket', noun: 'a repository' });

  test('GIVEN a scanning and a non-scanning repository WHEN the app synthesizes THEN synth fails on the second only', () => {
    const stack = neuronCheckedStack();
    new CfnRepository(stack, 'Scanned', { imageScanningConfiguration: { scanOnPush: true } });
    new CfnRepository(stack, 'Unscanned', { imageScanningConfiguration: { scanOnPush: false } });

    expectSynthFailsOn(stack, 'Neuron-EcrScanOnPush', ['Fixture/Unscanned']);
  });

  test('GIVEN scanning turned off through a property override WHEN checked THEN the override is what counts', () => {
    const stack = neuronCheckedStack();
    const repository = new CfnRepository(stack, 'Overridden', { imageScanningConfiguration: { scanOnPush: true } });
    repository.addPropertyOverride('ImageScanningConfiguration.ScanOnPush', false);

    expect(NeuronEcrScanOnPush(repository)).toBe(NagRuleCompliance.NON_COMPLIANT);
  });
});
