import { CfnResource } from 'aws-cdk-lib';
import { NagRuleCompliance } from 'cdk-nag/lib/nag-rules';
import { cfnBoolean, isIntrinsic, isRecord, renderedProperties } from '../private/cfn-properties';

/**
 * ECR repositories scan every image for known vulnerabilities when it is pushed.
 *
 * Checks `AWS::ECR::Repository` for `ImageScanningConfiguration.ScanOnPush: true`. An intrinsic function in its place
 * cannot be judged at synth time and is not applicable.
 *
 * @param node the CfnResource to check
 */
export function NeuronEcrScanOnPush(node: CfnResource): NagRuleCompliance {
  if (node.cfnResourceType !== 'AWS::ECR::Repository') {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  const scanning = renderedProperties(node).ImageScanningConfiguration;
  if (isIntrinsic(scanning)) {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  const scanOnPush = cfnBoolean(isRecord(scanning) ? scanning.ScanOnPush : undefined);
  if (scanOnPush === 'unresolved') {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  return scanOnPush === true ? NagRuleCompliance.COMPLIANT : NagRuleCompliance.NON_COMPLIANT;
}
