import { CfnResource } from 'aws-cdk-lib';
import { NagRuleCompliance } from 'cdk-nag/lib/nag-rules';
import { nestedSetting } from '../private/cfn-properties';

/** Encryption types that put images under a KMS key (`AES256`, the default, does not). */
const KMS_ENCRYPTION_TYPES = ['KMS', 'KMS_DSSE'];

/**
 * ECR repositories encrypt images with a KMS key.
 *
 * Checks `AWS::ECR::Repository` for `EncryptionConfiguration.EncryptionType` `KMS` or `KMS_DSSE`. Absent means
 * `AES256` (S3-managed keys). An intrinsic function cannot be judged at synth time and is not applicable.
 *
 * @param node the CfnResource to check
 */
export function NeuronEcrKmsEncryption(node: CfnResource): NagRuleCompliance {
  const setting = nestedSetting(node, 'AWS::ECR::Repository', 'EncryptionConfiguration', 'EncryptionType');
  if (setting === undefined || (setting.value !== undefined && typeof setting.value !== 'string')) {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  return typeof setting.value === 'string' && KMS_ENCRYPTION_TYPES.includes(setting.value)
    ? NagRuleCompliance.COMPLIANT
    : NagRuleCompliance.NON_COMPLIANT;
}
