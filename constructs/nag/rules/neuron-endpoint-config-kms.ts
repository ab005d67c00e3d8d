import { CfnResource } from 'aws-cdk-lib';
import { NagRuleCompliance } from 'cdk-nag/lib/nag-rules';
import { renderedProperties } from '../private/cfn-properties';
import { EndpointVariant, endpointConfigVariants, hasLocalStorage, setsKmsKey } from '../private/sagemaker';

/**
 * SageMaker endpoint configurations encrypt the instances' ML storage volume with a KMS key.
 *
 * Checks `AWS::SageMaker::EndpointConfig` for `KmsKeyId`. Not applicable when every production and shadow variant
 * provably may run on a Trainium instance (`ml.trn1*`, `ml.trn2*`; its type, or one of its instance pools'): their
 * local NVMe storage is encrypted by the instance and SageMaker rejects `KmsKeyId` for a configuration with such
 * instances (see `NeuronEndpointConfigTrnNoKmsOrVolume`). A variant whose instance type is unknown at synth time does
 * not exempt the configuration.
 *
 * @param node the CfnResource to check
 */
export function NeuronEndpointConfigKms(node: CfnResource): NagRuleCompliance {
  if (node.cfnResourceType !== 'AWS::SageMaker::EndpointConfig') {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  const properties = renderedProperties(node);
  const variants = endpointConfigVariants(properties);
  // A variant with any instance pool on local storage cannot take KmsKeyId at all, whatever its other pools.
  const onLocalStorage = (variant: EndpointVariant | 'unresolved'): boolean =>
    variant !== 'unresolved' && variant.instanceTypes.some(hasLocalStorage);
  if (variants.length > 0 && variants.every(onLocalStorage)) {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  return setsKmsKey(properties) ? NagRuleCompliance.COMPLIANT : NagRuleCompliance.NON_COMPLIANT;
}
