import { App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CfnRepository } from 'aws-cdk-lib/aws-ecr';
import { CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { applyPolicyChecks } from '../../../constructs/nag';
import { markOwned } from '../../../constructs/private/ownership';
import { expectAllAcknowledged, nagFindings, nagReport } from '../../support/nag';

function appWithBucket(): { app: App; stack: Stack; bucket: CfnBucket } {
  const app = new App();
  const stack = new Stack(app, 'Storage');
  const bucket = new CfnBucket(stack, 'Bucket', {});
  return { app, stack, bucket };
}

describe('applyPolicyChecks', () => {
  test('GIVEN a bucket without SSL enforcement or access logs WHEN the app synthesizes THEN AwsSolutions fails it', () => {
    const { app, stack } = appWithBucket();
    applyPolicyChecks(app);

    expect(() => Template.fromStack(stack)).toThrow(/AwsSolutions-S10/);
    const awsSolutions = nagFindings(app, { plugins: ['AwsSolutions'] });
    expect(awsSolutions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ ruleId: 'AwsSolutions-S1', resourcePath: 'Storage/Bucket', severity: 'error' }),
        expect.objectContaining({ ruleId: 'AwsSolutions-S10', resourcePath: 'Storage/Bucket', severity: 'error' }),
      ]),
    );
  });

  test('GIVEN the app\'s own ECR repository WHEN checked by default THEN the Neuron rules leave it to the app', () => {
    const app = new App();
    new CfnRepository(new Stack(app, 'Images'), 'Repository', {});
    applyPolicyChecks(app);

    expect(nagFindings(app, { plugins: ['Neuron'] })).toEqual([]);
  });

  test('GIVEN a repository the package made THEN the Neuron rules check it by default', () => {
    const app = new App();
    const stack = new Stack(app, 'Images');
    const ours = new Construct(stack, 'Ours');
    markOwned(ours);
    new CfnRepository(ours, 'Repository', {});
    applyPolicyChecks(app);

    expect(nagFindings(app, { plugins: ['Neuron'] }).map((f) => `${f.ruleId} ${f.resourcePath}`)).toEqual([
      'Neuron-EcrImmutableTags Images/Ours/Repository',
      'Neuron-EcrKmsEncryption Images/Ours/Repository',
      'Neuron-EcrScanOnPush Images/Ours/Repository',
    ]);
  });

  test('GIVEN an ECR repository with defaults and neuronRules all-resources WHEN the app synthesizes THEN the Neuron pack checks it', () => {
    const app = new App();
    const stack = new Stack(app, 'Images');
    new CfnRepository(stack, 'Repository', {});
    applyPolicyChecks(app, { neuronRules: 'all-resources' });

    expect(nagFindings(app, { plugins: ['Neuron'] }).map((f) => f.ruleId)).toEqual([
      'Neuron-EcrImmutableTags',
      'Neuron-EcrKmsEncryption',
      'Neuron-EcrScanOnPush',
    ]);
  });

  test('GIVEN the defaults WHEN a finding is reported THEN it explains the fix, not only the problem', () => {
    const app = new App();
    new CfnRepository(new Stack(app, 'Images'), 'Repository', { imageScanningConfiguration: { scanOnPush: false } });
    applyPolicyChecks(app, { neuronRules: 'all-resources' });

    const [finding] = nagFindings(app).filter((f) => f.ruleId === 'Neuron-EcrScanOnPush');
    expect(finding.description).toContain('Set ImageScanningConfiguration.ScanOnPush to true');
  });

  test('GIVEN one of two findings acknowledged with a reason WHEN the app synthesizes THEN only the other one remains', () => {
    const { app, bucket } = appWithBucket();
    applyPolicyChecks(app);
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'Fixture bucket: access logs would need a second bucket, out of scope here.',
    });

    expect(nagFindings(app, { plugins: ['AwsSolutions'] }).map((f) => `${f.ruleId} ${f.resourcePath}`)).toEqual([
      'AwsSolutions-S10 Storage/Bucket',
    ]);
  });

  test('GIVEN every finding acknowledged, one with the plugin namespace WHEN the app synthesizes THEN synth succeeds and the reason is on record', () => {
    const { app, stack, bucket } = appWithBucket();
    applyPolicyChecks(app);
    Validations.of(bucket).acknowledge(
      { id: 'AwsSolutions-S1', reason: 'Fixture bucket: access logs would need a second bucket, out of scope here.' },
      { id: 'AwsSolutions::AwsSolutions-S10', reason: 'Fixture bucket: never deployed, so no request reaches it.' },
    );

    expect(() => Template.fromStack(stack)).not.toThrow();
    expectAllAcknowledged(nagReport(app, { plugins: ['AwsSolutions', 'Neuron'] }), {
      ruleId: 'AwsSolutions-S10', resourcePath: 'Storage/Bucket', reason: 'Fixture bucket: never deployed, so no request reaches it.',
    });
  });

  test('GIVEN the checks applied twice WHEN the app synthesizes THEN every finding is reported once', () => {
    const { app } = appWithBucket();
    applyPolicyChecks(app);
    applyPolicyChecks(app);

    const findings = nagFindings(app, { plugins: ['AwsSolutions'] }).map((f) => `${f.ruleId} ${f.resourcePath}`);
    expect(findings.length).toBeGreaterThan(0);
    expect(new Set(findings).size).toBe(findings.length);
  });

  test('GIVEN an app made with a second copy of aws-cdk-lib (a linked install) THEN it fails with the fix instead of checking nothing', () => {
    // A fresh module registry loads aws-cdk-lib again: the second copy a file: link or npm link brings.
    let OtherApp: typeof App | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      OtherApp = (require('aws-cdk-lib') as typeof import('aws-cdk-lib')).App;
    });
    const other = new OtherApp!();
    expect(other).not.toBeInstanceOf(App);

    // The fix that lasts: install-links=true in the app's .npmrc, which the next plain npm install keeps (a one-off
    // npm install --install-links is undone by it).
    expect(() => applyPolicyChecks(other)).toThrow(/another copy of aws-cdk-lib.*install-links=true.*\.npmrc/s);
  });
});
