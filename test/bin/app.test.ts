import * as fs from 'fs';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import {
  buildApp,
  EXAMPLE_DLC_TAG,
  EXAMPLE_STACK_NAME,
  PLACEHOLDER_IMAGE_DIGEST,
} from '../../bin/app';
import { InferenceStack } from '../../constructs/inference-stack';
import { InputError } from '../../lib/errors';
import { nagFindings } from '../support/nag';

const CDK_JSON = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'cdk.json'), 'utf8')) as {
  app: string;
  context: Record<string, unknown>;
};
const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

function exampleStack(app: App): InferenceStack {
  return app.node.findChild(EXAMPLE_STACK_NAME) as InferenceStack;
}

function warnings(stack: Stack): string[] {
  return stack.node.metadata.filter((m) => m.type === 'aws:cdk:warning').map((m) => String(m.data));
}

describe('cdk.json', () => {
  test('runs bin/app.ts through tsx, with placeholders and CloudFormation validation as errors', () => {
    // THEN
    expect(CDK_JSON.app).toBe('npx tsx bin/app.ts');
    expect(CDK_JSON.context).toMatchObject({
      'account': '123456789012',
      'region': 'us-east-1',
      'imageDigest': PLACEHOLDER_IMAGE_DIGEST,
      '@aws-cdk/core:validateAgainstDefaultRules': true,
    });
  });
});

describe('The example app built from the cdk.json context', () => {
  // GIVEN the context `cdk synth` passes on a fresh clone
  const app = new App({ context: CDK_JSON.context });
  // WHEN
  buildApp(app);
  const stack = exampleStack(app);

  test('defines the bert-base-uncased stack in the placeholder account and us-east-1', () => {
    // THEN
    expect(app.node.children.filter(Stack.isStack).map((s) => s.stackName)).toEqual([EXAMPLE_STACK_NAME]);
    expect([stack.account, stack.region]).toEqual(['123456789012', 'us-east-1']);
  });

  test('deploys the plan for 2,000 rps at p99 10 ms on SageMaker with the pinned Neuron DLC', () => {
    // THEN
    const plan = stack.endpoint.plan;
    expect(plan).toMatchObject({
      profileId: 'bert-base-uncased',
      region: 'us-east-1',
      hosting: 'sagemaker',
      targets: { throughputRps: 2000, p99Ms: 10 },
    });
    expect(stack.resolve(stack.endpoint.cfnModel.primaryContainer)).toMatchObject({
      image: `763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference-neuronx@${PLACEHOLDER_IMAGE_DIGEST}`,
    });
    expect(EXAMPLE_DLC_TAG).toBe('2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04');
  });

  test('warns that the image digest is the placeholder and says how to get the real one', () => {
    // THEN
    expect(warnings(stack)).toEqual(expect.arrayContaining([expect.stringContaining(
      `imageDigest is the placeholder ${PLACEHOLDER_IMAGE_DIGEST}`)]));
    expect(warnings(stack).join('\n')).toContain(
      '--repository-name pytorch-inference-neuronx --image-ids imageTag=2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04');
  });

  test('gates every deployment with a smoke benchmark that runs after the endpoint, with the plan\'s p99', () => {
    // THEN
    const smoke = stack.endpoint.smokeBenchmark;
    expect(smoke).toBeDefined();
    // 10 ms target + 20 ms SageMaker Runtime round-trip allowance (SmokeBenchmark's documented default)
    expect(smoke?.thresholds.p99MaxMs).toBe(30);
    const template = Template.fromJSON(app.synth().getStackByName(EXAMPLE_STACK_NAME).template);
    const triggers = template.findResources('Custom::Trigger');
    expect(Object.keys(triggers)).toHaveLength(1);
    const trigger = Object.values(triggers)[0] as { DependsOn?: string[]; Properties: { InvocationType: string } };
    expect(trigger.Properties.InvocationType).toBe('RequestResponse');
    expect(trigger.DependsOn).toEqual(expect.arrayContaining([stack.getLogicalId(stack.endpoint.cfnEndpoint)]));
  });

  test('synthesizes with no cdk-nag, Neuron or CloudFormation validation finding', () => {
    // THEN nagFindings also fails when no pack is registered, so this proves applyPolicyChecks ran
    expect(nagFindings(app)).toEqual([]);
  });
});

describe('The example app with a real image digest', () => {
  test('does not warn about the placeholder', () => {
    // GIVEN
    const app = new App({ context: { ...CDK_JSON.context, imageDigest: DIGEST } });
    // WHEN
    buildApp(app);
    // THEN
    expect(warnings(exampleStack(app)).filter((w) => w.includes('placeholder'))).toEqual([]);
  });
});

describe('The example app without usable context', () => {
  test('reports every missing or malformed value at once', () => {
    // GIVEN
    const app = new App({ context: { account: 'prod', region: '' } });
    // WHEN
    let error: unknown;
    try {
      buildApp(app);
    } catch (e) {
      error = e;
    }
    // THEN
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).problems).toEqual([
      'context region="" is missing or not a string; set "region" in cdk.json context or pass -c region=us-east-1',
      'context imageDigest=undefined is missing or not a string; set "imageDigest" in cdk.json context or pass '
        + '-c imageDigest=sha256:<64 hex digits>',
      'context account="prod" is not a 12-digit AWS account id; set "account" in cdk.json context to the account you '
        + 'deploy to',
    ]);
  });
});
