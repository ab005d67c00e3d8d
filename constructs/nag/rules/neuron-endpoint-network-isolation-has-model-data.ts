import { CfnResource } from 'aws-cdk-lib';
import { NagRuleCompliance } from 'cdk-nag/lib/nag-rules';
import { cfnBoolean, renderedProperties } from '../private/cfn-properties';
import { modelContainers } from '../private/sagemaker';

/** Container properties through which SageMaker itself delivers model artifacts to a network-isolated container. */
const MODEL_DATA_PROPERTIES = ['ModelDataUrl', 'ModelDataSource', 'ModelPackageName'];

/**
 * SageMaker models with network isolation get their model artifacts from SageMaker.
 *
 * Checks `AWS::SageMaker::Model` with `EnableNetworkIsolation: true`: each container needs `ModelDataUrl` or
 * `ModelDataSource` (or a `ModelPackageName`, which carries its own artifacts), because an isolated container cannot
 * reach S3 or the Hugging Face Hub to download them itself. Not applicable without network isolation, without
 * containers, or while it or any container is unknown at synth time.
 *
 * @param node the CfnResource to check
 */
export function NeuronEndpointNetworkIsolationHasModelData(node: CfnResource): NagRuleCompliance {
  if (node.cfnResourceType !== 'AWS::SageMaker::Model') {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  const properties = renderedProperties(node);
  if (cfnBoolean(properties.EnableNetworkIsolation) !== true) {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  const containers = modelContainers(properties);
  let unknown = containers.length === 0;
  for (const container of containers) {
    if (container === 'unresolved') {
      unknown = true;
    } else if (!MODEL_DATA_PROPERTIES.some((property) => container[property] !== undefined)) {
      return NagRuleCompliance.NON_COMPLIANT;
    }
  }
  return unknown ? NagRuleCompliance.NOT_APPLICABLE : NagRuleCompliance.COMPLIANT;
}
