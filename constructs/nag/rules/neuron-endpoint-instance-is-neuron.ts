import { CfnResource } from 'aws-cdk-lib';
import { NagRuleCompliance } from 'cdk-nag/lib/nag-rules';
import { renderedProperties } from '../private/cfn-properties';
import { endpointConfigVariants, isNeuronInstanceType } from '../private/sagemaker';

/**
 * SageMaker endpoint configurations host every variant on an AWS Neuron instance type.
 *
 * Checks each production and shadow variant of `AWS::SageMaker::EndpointConfig` for an `InstanceType`, and every
 * `InstancePools` entry's, of `ml.inf1.*`, `ml.inf2.*`, `ml.trn1.*`, `ml.trn1n.*` or `ml.trn2.*`. A serverless variant (no `InstanceType`) is
 * not on Neuron. Non-compliant as soon as one known variant is off Neuron; otherwise not applicable while any
 * instance type is an intrinsic function.
 *
 * @param node the CfnResource to check
 */
export function NeuronEndpointInstanceIsNeuron(node: CfnResource): NagRuleCompliance {
  if (node.cfnResourceType !== 'AWS::SageMaker::EndpointConfig') {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  const variants = endpointConfigVariants(renderedProperties(node));
  let unknown = variants.length === 0;
  for (const variant of variants) {
    if (variant === 'unresolved' || variant.instanceTypeUnresolved) {
      unknown = true;
    } else if (variant.instanceTypes.length === 0 || !variant.instanceTypes.every(isNeuronInstanceType)) {
      return NagRuleCompliance.NON_COMPLIANT;
    }
  }
  return unknown ? NagRuleCompliance.NOT_APPLICABLE : NagRuleCompliance.COMPLIANT;
}
