/**
 * Small L1 fixtures for the Neuron rule tests: a fresh app per resource, nothing from our own constructs.
 */
import { App, CfnResource, Stack, Validations } from 'aws-cdk-lib';
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
