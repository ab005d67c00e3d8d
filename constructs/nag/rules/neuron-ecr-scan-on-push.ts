import { CfnResource } from 'aws-cdk-lib';
import { NagRuleCompliance } from 'cdk-nag/lib/nag-rules';
import { cfnBoolean, nestedSetting } from '../private/cfn-properties';

/**
 * ECR repositories scan every image for known vulnerabilities when it is pushed.
 *
 * Checks `AWS::ECR::Repository` for `ImageScanningConfiguration.ScanOnPush: true`. An intrinsic function in its place
 * cannot be judged at synth time and is not applicable.
 *
 * @param node the CfnResource to check
 */
export function NeuronEcrScanOnPush(node: CfnResource): NagRuleCompliance {
  const setting = nestedSetting(node, 'AWS::ECR::Repository', 'ImageScanningConfiguration', 'ScanOnPush');
  const scanOnPush = setting === undefined ? undefined : cfnBoolean(setting.value);
  if (setting === undefined || scanOnPush === 'unresolved') {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  return scanOnPush === true ? NagRuleCompliance.COMPLIANT : NagRuleCompliance.NON_COMPLIANT;
}
