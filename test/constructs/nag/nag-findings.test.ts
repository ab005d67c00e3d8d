import { App, CfnResource, Stack, Validations } from 'aws-cdk-lib';
import { CfnRepository } from 'aws-cdk-lib/aws-ecr';
import { applyPolicyChecks, NeuronChecks } from '../../../constructs/nag';
import { nagFindings } from '../../support/nag';
import { keepCloudFormationValidation } from '../../support/cfn-validation';

// These templates are checked against CloudFormation's schemas, as `cdk synth` of the app checks them.
keepCloudFormationValidation();

describe('The nagFindings test helper', () => {
  test('GIVEN an app without any cdk-nag pack WHEN asked for findings THEN it refuses, since an empty list would prove nothing', () => {
    const app = new App();
    new CfnRepository(new Stack(app, 'Images'), 'Repository', {});

    expect(() => nagFindings(app)).toThrow(/no cdk-nag pack is registered.*applyPolicyChecks/);
  });

  test('GIVEN a clean app WHEN asked for findings THEN it returns an empty list without throwing', () => {
    const app = new App();
    new CfnRepository(new Stack(app, 'Images'), 'Repository', {
      imageScanningConfiguration: { scanOnPush: true },
      imageTagMutability: 'IMMUTABLE',
      encryptionConfiguration: { encryptionType: 'KMS' },
    });
    Validations.of(app).addPlugins(new NeuronChecks(app));

    expect(nagFindings(app)).toEqual([]);
  });

  test('GIVEN findings in two stacks WHEN asked for one stack THEN only that stack\'s findings come back', () => {
    const app = new App();
    new CfnRepository(new Stack(app, 'First'), 'Repository', { imageTagMutability: 'IMMUTABLE', encryptionConfiguration: { encryptionType: 'KMS' } });
    const second = new Stack(app, 'Second');
    new CfnRepository(second, 'Repository', { imageTagMutability: 'IMMUTABLE', encryptionConfiguration: { encryptionType: 'KMS' } });
    Validations.of(app).addPlugins(new NeuronChecks(app));

    expect(nagFindings(app).map((f) => f.resourcePath)).toEqual(['First/Repository', 'Second/Repository']);
    expect(nagFindings(second)).toEqual([
      expect.objectContaining({ ruleId: 'Neuron-EcrScanOnPush', resourcePath: 'Second/Repository', pluginName: 'Neuron' }),
    ]);
  });

  test('GIVEN a property CloudFormation does not know WHEN asked for findings THEN the schema validation warning is listed too', () => {
    const app = new App();
    const stack = new Stack(app, 'Images');
    new CfnResource(stack, 'Repository', {
      type: 'AWS::ECR::Repository',
      properties: {
        ImageScanningConfiguration: { ScanOnPush: true },
        ImageTagMutability: 'IMMUTABLE',
        EncryptionConfiguration: { EncryptionType: 'KMS' },
        ScanOnPush: true,
      },
    });
    applyPolicyChecks(app);

    expect(nagFindings(app)).toEqual([
      expect.objectContaining({ pluginName: 'CloudFormation Validate', ruleId: 'F3002', resourcePath: 'Images/Repository', severity: 'warning' }),
    ]);
    expect(nagFindings(app, { plugins: ['AwsSolutions', 'Neuron'] })).toEqual([]);
  });

  test('GIVEN a construct whose own validation fails WHEN asked for findings THEN that synth error propagates', () => {
    const app = new App();
    const stack = new Stack(app, 'Broken');
    stack.node.addValidation({ validate: () => ['the fixture is broken on purpose'] });
    applyPolicyChecks(app);

    expect(() => nagFindings(app)).toThrow(/the fixture is broken on purpose/);
  });
});
