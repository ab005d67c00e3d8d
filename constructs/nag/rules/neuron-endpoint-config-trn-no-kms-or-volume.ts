import { CfnResource } from 'aws-cdk-lib';
import { NagRuleCompliance } from 'cdk-nag/lib/nag-rules';
import { renderedProperties } from '../private/cfn-properties';
import { EndpointVariant, endpointConfigVariants, hasLocalStorage, setsKmsKey } from '../private/sagemaker';

/**
 * SageMaker endpoint configurations with a Trainium variant (its type, or one of its instance pools') set neither
 * `KmsKeyId` nor that variant's `VolumeSizeInGB`.
 *
 * Trainium hosts (`ml.trn1*`, `ml.trn2*`) have local NVMe instance storage: CreateEndpointConfig fails when `KmsKeyId`
 * is set and any variant runs on such an instance, and SageMaker rejects `VolumeSizeInGB` there. Checks
 * `AWS::SageMaker::EndpointConfig`; not applicable without a variant provably on Trainium.
 *
 * @param node the CfnResource to check
 */
export function NeuronEndpointConfigTrnNoKmsOrVolume(node: CfnResource): NagRuleCompliance {
  if (node.cfnResourceType !== 'AWS::SageMaker::EndpointConfig') {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  const properties = renderedProperties(node);
  const trainiumVariants = endpointConfigVariants(properties).filter(
    (variant): variant is EndpointVariant => variant !== 'unresolved' && variant.instanceTypes.some(hasLocalStorage),
  );
  if (trainiumVariants.length === 0) {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  const rejected = setsKmsKey(properties) || trainiumVariants.some((variant) => variant.setsVolumeSize);
  return rejected ? NagRuleCompliance.NON_COMPLIANT : NagRuleCompliance.COMPLIANT;
}
