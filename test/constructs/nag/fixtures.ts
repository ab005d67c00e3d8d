/**
 * Small L1 fixtures for the Neuron rule tests: a fresh app per resource, nothing from our own constructs.
 */
import { App, CfnResource, Stack, Validations } from 'aws-cdk-lib';
import type { CfnEndpointConfig } from 'aws-cdk-lib/aws-sagemaker';
import { NagRuleCompliance } from 'cdk-nag';
import { NeuronChecks } from '../../../constructs/nag';
import { nagFindings } from '../../support/nag';

/** A 64-hex-digit digest, as ECR prints it. */
export const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

/** An execution role ARN for models; the rules never look at it. */
export const ROLE_ARN = 'arn:aws:iam::123456789012:role/sagemaker-execution';

/** A KMS key ARN for endpoint configurations and repositories. */
export const KEY_ARN = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

/** A stack in its own app, with only the Neuron pack registered so that other packs' findings stay out of the way. */
export function neuronCheckedStack(): Stack {
  const app = new App();
  Validations.of(app).addPlugins(new NeuronChecks(app));
  return new Stack(app, 'Fixture', { env: { account: '123456789012', region: 'us-east-1' } });
}

/** A raw `CfnResource` of the given type and properties, alone in its own stack. */
export function cfnResource(type: string, properties: Record<string, unknown>): CfnResource {
  const stack = new Stack(new App(), 'Fixture', { env: { account: '123456789012', region: 'us-east-1' } });
  return new CfnResource(stack, 'Resource', { type, properties });
}

/** An `AWS::SageMaker::EndpointConfig` with one production variant per instance type. */
/** An endpoint configuration of one variant with instance pools of these types, priority 1 first. */
export function pooledEndpointConfigProperties(
  instanceTypes: unknown[],
  extra: { KmsKeyId?: unknown; VolumeSizeInGB?: number } = {},
): Record<string, unknown> {
  const { KmsKeyId, VolumeSizeInGB } = extra;
  return {
    ...(KmsKeyId !== undefined ? { KmsKeyId } : {}),
    ProductionVariants: [{
      VariantName: 'AllTraffic',
      ModelName: 'model',
      InitialInstanceCount: 1,
      InstancePools: instanceTypes.map((InstanceType, i) => ({ InstanceType, Priority: i + 1 })),
      ...(VolumeSizeInGB !== undefined ? { VolumeSizeInGB } : {}),
    }],
  };
}

export function endpointConfigProperties(
  instanceTypes: string[],
  extra: { KmsKeyId?: unknown; VolumeSizeInGB?: number } = {},
): Record<string, unknown> {
  const { KmsKeyId, VolumeSizeInGB } = extra;
  return {
    ...(KmsKeyId !== undefined ? { KmsKeyId } : {}),
    ProductionVariants: instanceTypes.map((instanceType, index) => ({
      VariantName: `Variant${index}`,
      ModelName: 'model',
      InitialInstanceCount: 1,
      InstanceType: instanceType,
      ...(VolumeSizeInGB !== undefined ? { VolumeSizeInGB } : {}),
    })),
  };
}

/**
 * Synthesizes the stack's app and returns the construct paths the Neuron pack reported `ruleId` on.
 *
 * The caller asserts separately that synth failed; this only reads the report.
 */
export function neuronFindingPaths(stack: Stack, ruleId: string): string[] {
  return nagFindings(stack, { plugins: ['Neuron'] })
    .filter((finding) => finding.ruleId === ruleId)
    .map((finding) => finding.resourcePath);
}

/** A production variant for `CfnEndpointConfig`, one instance of `instanceType`. */
export function cfnVariant(instanceType: string): CfnEndpointConfig.ProductionVariantProperty {
  return { variantName: 'AllTraffic', modelName: 'model', initialInstanceCount: 1, instanceType };
}

/** The THEN of a rule's synth test: synth fails naming `ruleId`, and the Neuron pack reported it on `paths` only. */
export function expectSynthFailsOn(stack: Stack, ruleId: string, paths: string[]): void {
  expect(() => (stack.node.root as App).synth()).toThrow(new RegExp(ruleId));
  expect(neuronFindingPaths(stack, ruleId)).toEqual(paths);
}

/** One verdict case: what it is, the resource's properties, the verdict. */
export type VerdictCase = readonly [name: string, properties: Record<string, unknown>, expected: NagRuleCompliance];

/**
 * The rule's verdict on a `type` resource with each case's properties (tests titled by `title`, with `%s` for the
 * case and the verdict), and NOT_APPLICABLE on a resource of another type.
 */
export function testVerdicts(
  rule: (node: CfnResource) => NagRuleCompliance,
  type: string,
  title: string,
  cases: readonly VerdictCase[],
  other: { readonly type: string; readonly noun: string },
): void {
  test.each(cases)(title, (_name, properties, expected) => {
    expect(rule(cfnResource(type, properties))).toBe(expected);
  });

  test(`GIVEN a resource that is not ${other.noun} WHEN checked THEN the rule does not apply`, () => {
    expect(rule(cfnResource(other.type, {}))).toBe(NagRuleCompliance.NOT_APPLICABLE);
  });
}
