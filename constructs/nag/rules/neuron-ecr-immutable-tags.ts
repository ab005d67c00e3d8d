import { CfnResource } from 'aws-cdk-lib';
import { NagRuleCompliance } from 'cdk-nag/lib/nag-rules';
import { cfnList, renderedProperties } from '../private/cfn-properties';

/**
 * ECR repositories refuse to move a tag to another image.
 *
 * Checks `AWS::ECR::Repository` for `ImageTagMutability: IMMUTABLE`. `IMMUTABLE_WITH_EXCLUSION` passes only with no
 * `ImageTagMutabilityExclusionFilters`, because every excluded pattern is a set of tags that can be overwritten.
 * Absent means `MUTABLE`, CloudFormation's default. An intrinsic function cannot be judged at synth time and is not
 * applicable.
 *
 * @param node the CfnResource to check
 */
export function NeuronEcrImmutableTags(node: CfnResource): NagRuleCompliance {
  if (node.cfnResourceType !== 'AWS::ECR::Repository') {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  const properties = renderedProperties(node);
  const mutability = properties.ImageTagMutability;
  if (mutability !== undefined && typeof mutability !== 'string') {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  if (mutability === 'IMMUTABLE') {
    return NagRuleCompliance.COMPLIANT;
  }
  if (mutability === 'IMMUTABLE_WITH_EXCLUSION') {
    const exclusions = cfnList(properties.ImageTagMutabilityExclusionFilters);
    if (exclusions === 'unresolved') {
      return NagRuleCompliance.NOT_APPLICABLE;
    }
    return exclusions.length === 0 ? NagRuleCompliance.COMPLIANT : NagRuleCompliance.NON_COMPLIANT;
  }
  return NagRuleCompliance.NON_COMPLIANT;
}
