import { CfnResource } from 'aws-cdk-lib';
import { NagRuleCompliance } from 'cdk-nag/lib/nag-rules';
import { isIntrinsic, isRecord, renderedProperties } from '../private/cfn-properties';

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
  if (node.cfnResourceType !== 'AWS::ECR::Repository') {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  const encryption = renderedProperties(node).EncryptionConfiguration;
  if (isIntrinsic(encryption)) {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  const encryptionType = isRecord(encryption) ? encryption.EncryptionType : undefined;
  if (encryptionType !== undefined && typeof encryptionType !== 'string') {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  return encryptionType !== undefined && KMS_ENCRYPTION_TYPES.includes(encryptionType)
    ? NagRuleCompliance.COMPLIANT
    : NagRuleCompliance.NON_COMPLIANT;
}
