import { App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import { CfnRepository } from 'aws-cdk-lib/aws-ecr';
import * as kms from 'aws-cdk-lib/aws-kms';
import { CfnEndpointConfig, CfnModel } from 'aws-cdk-lib/aws-sagemaker';
import { NeuronChecks } from '../../../constructs/nag';
import { expectAllAcknowledged, nagFindings, nagReport } from '../../support/nag';
import { DIGEST, KEY_ARN, ROLE_ARN, neuronCheckedStack } from './fixtures';

const IMAGE = `123456789012.dkr.ecr.us-east-1.amazonaws.com/model@${DIGEST}`;

/** An ECR repository, a model and an endpoint configuration that every Neuron rule accepts. */
function addCompliantResources(stack: Stack): void {
  new CfnRepository(stack, 'Repository', {
    imageScanningConfiguration: { scanOnPush: true },
    imageTagMutability: 'IMMUTABLE',
    encryptionConfiguration: { encryptionType: 'KMS', kmsKey: KEY_ARN },
  });
  new CfnModel(stack, 'Model', {
    executionRoleArn: ROLE_ARN,
    enableNetworkIsolation: true,
    primaryContainer: { image: IMAGE, modelDataUrl: 's3://models-bucket/bert/' },
  });
  new CfnEndpointConfig(stack, 'Inf2Config', {
    kmsKeyId: KEY_ARN,
    productionVariants: [{ variantName: 'AllTraffic', modelName: 'model', initialInstanceCount: 1, instanceType: 'ml.inf2.xlarge', volumeSizeInGb: 30 }],
  });
  new CfnEndpointConfig(stack, 'Trn1Config', {
    productionVariants: [{ variantName: 'AllTraffic', modelName: 'model', initialInstanceCount: 1, instanceType: 'ml.trn1.2xlarge' }],
  });
}

describe('The Neuron rule pack', () => {
  test('GIVEN the pack WHEN asked for its names THEN findings read Neuron-<Rule>, the way AwsSolutions reads AwsSolutions-<Rule>', () => {
    const pack = new NeuronChecks();
    expect(pack.name).toBe('Neuron');
    expect(pack.readPackName).toBe('Neuron');
    expect(pack.ruleIds).toEqual([
      'Neuron-EndpointConfigKms',
      'Neuron-EndpointConfigTrnNoKmsOrVolume',
      'Neuron-EndpointInstanceIsNeuron',
      'Neuron-EcrScanOnPush',
      'Neuron-EcrImmutableTags',
      'Neuron-EcrKmsEncryption',
      'Neuron-ModelImageByDigest',
      'Neuron-EndpointNetworkIsolationHasModelData',
    ]);
  });

  test('GIVEN resources every rule accepts WHEN the app synthesizes THEN synth succeeds and the pack reports nothing', () => {
    const stack = neuronCheckedStack();
    addCompliantResources(stack);

    expect(() => Template.fromStack(stack)).not.toThrow();
    expect(nagFindings(stack, { plugins: ['Neuron'] })).toEqual([]);
  });

  test('GIVEN an ecr.Repository L2 with scan on push, immutable tags and a KMS key WHEN the app synthesizes THEN the ECR rules accept it', () => {
    const stack = neuronCheckedStack();
    new ecr.Repository(stack, 'Images', {
      imageScanOnPush: true,
      imageTagMutability: ecr.TagMutability.IMMUTABLE,
      encryption: ecr.RepositoryEncryption.KMS,
      encryptionKey: new kms.Key(stack, 'Key', { enableKeyRotation: true }),
    });

    expect(nagFindings(stack, { plugins: ['Neuron'] })).toEqual([]);
  });

  test('GIVEN a repository with CloudFormation defaults WHEN the app synthesizes THEN each ECR rule reports one error on it', () => {
    const stack = neuronCheckedStack();
    new CfnRepository(stack, 'Defaults', {});

    expect(() => Template.fromStack(stack)).toThrow(/Neuron-EcrScanOnPush/);
    expect(nagFindings(stack, { plugins: ['Neuron'] })).toEqual([
      expect.objectContaining({ ruleId: 'Neuron-EcrImmutableTags', resourcePath: 'Fixture/Defaults', severity: 'error', pluginName: 'Neuron' }),
      expect.objectContaining({ ruleId: 'Neuron-EcrKmsEncryption', resourcePath: 'Fixture/Defaults', severity: 'error', pluginName: 'Neuron' }),
      expect.objectContaining({ ruleId: 'Neuron-EcrScanOnPush', resourcePath: 'Fixture/Defaults', severity: 'error', pluginName: 'Neuron' }),
    ]);
  });

  test('GIVEN the pack without verbose WHEN it reports THEN the finding carries the one-line info; with verbose it adds the fix', () => {
    const quiet = neuronCheckedStack();
    new CfnRepository(quiet, 'Unscanned', { imageScanningConfiguration: { scanOnPush: false } });
    const [quietFinding] = nagFindings(quiet, { plugins: ['Neuron'] }).filter((f) => f.ruleId === 'Neuron-EcrScanOnPush');
    expect(quietFinding.description).toBe('The ECR repository does not scan images on push.');

    const app = new App();
    Validations.of(app).addPlugins(new NeuronChecks(app, { verbose: true }));
    const verbose = new Stack(app, 'Fixture');
    new CfnRepository(verbose, 'Unscanned', { imageScanningConfiguration: { scanOnPush: false } });
    const [verboseFinding] = nagFindings(verbose, { plugins: ['Neuron'] }).filter((f) => f.ruleId === 'Neuron-EcrScanOnPush');
    expect(verboseFinding.description).toMatch(/^The ECR repository does not scan images on push\. .*Set ImageScanningConfiguration\.ScanOnPush to true/);
  });

  describe('acknowledgements', () => {
    test('GIVEN a finding acknowledged on the resource with a plain id and a reason WHEN the app synthesizes THEN it is gone', () => {
      const stack = neuronCheckedStack();
      const repository = new CfnRepository(stack, 'Repository', {
        imageTagMutability: 'IMMUTABLE',
        encryptionConfiguration: { encryptionType: 'KMS', kmsKey: KEY_ARN },
      });
      Validations.of(repository).acknowledge({
        id: 'Neuron-EcrScanOnPush',
        reason: 'Registry-level enhanced scanning with Amazon Inspector covers every repository of this account.',
      });

      expect(() => Template.fromStack(stack)).not.toThrow();
      expect(nagFindings(stack, { plugins: ['Neuron'] })).toEqual([]);
    });

    test('GIVEN a namespaced acknowledgement on the stack WHEN the app synthesizes THEN the finding moves to the acknowledged list with its reason', () => {
      const stack = neuronCheckedStack();
      new CfnModel(stack, 'Model', { executionRoleArn: ROLE_ARN, primaryContainer: { image: 'public.ecr.aws/neuron/server:1.0' } });
      const reason = 'Fixture only: this model is never deployed.';
      Validations.of(stack).acknowledge({ id: 'Neuron::Neuron-ModelImageByDigest', reason });

      expectAllAcknowledged(nagReport(stack, { plugins: ['Neuron'] }), {
        ruleId: 'Neuron-ModelImageByDigest', resourcePath: 'Fixture/Model', acknowledgedId: 'Neuron::Neuron-ModelImageByDigest', reason,
      });
    });

    test('GIVEN an acknowledgement of another rule WHEN the app synthesizes THEN the finding stays', () => {
      const stack = neuronCheckedStack();
      const model = new CfnModel(stack, 'Model', { executionRoleArn: ROLE_ARN, primaryContainer: { image: 'public.ecr.aws/neuron/server:1.0' } });
      Validations.of(model).acknowledge({ id: 'Neuron-EcrScanOnPush', reason: 'Not the rule that fires here.' });

      expect(nagFindings(stack, { plugins: ['Neuron'] }).map((f) => f.ruleId)).toEqual(['Neuron-ModelImageByDigest']);
    });
  });
});
