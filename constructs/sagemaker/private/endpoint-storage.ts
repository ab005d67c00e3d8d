/**
 * The key that encrypts an endpoint's ML storage, decided per instance family for both SageMaker endpoints: applied
 * on EBS, and on local NVMe instance store (where SageMaker rejects `KmsKeyId`) refused with the fix unless the user
 * opts out by name. A key the user passed is never left off unseen.
 */
import { Annotations, RemovalPolicy } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { instanceStorage } from '../../../lib/catalog/instance-storage';
import type { NeuronInstanceType } from '../../../lib/catalog/instance-type';
import type { EndpointHostingOptions } from '../endpoint-props';

/**
 * What the endpoint configuration's `KmsKeyId` will be: the user's key or one the construct defines (EBS), none
 * (local NVMe, perhaps with a warning that a given key is not applied), or a refusal with the fix.
 */
export type StorageKeyChoice =
  | { readonly use: 'given' | 'own' }
  | { readonly use: 'none'; readonly warning?: string }
  | { readonly use: 'refused'; readonly problem: string };

/** The choice for `type` and the props, before anything is created. */
export function storageKeyChoice(type: NeuronInstanceType, props: EndpointHostingOptions): StorageKeyChoice {
  const fact = instanceStorage(type.spec.family);
  if (fact.storage === 'ebs-only') {
    return { use: props.encryptionKey !== undefined ? 'given' : 'own' };
  }
  if (props.encryptionKey === undefined) {
    return { use: 'none' };
  }
  const storage = `${type.sageMakerName} has only local NVMe instance storage`
    + (fact.unverified ? ` (UNVERIFIED for ${type.spec.family}: ${fact.source.replace(/^UNVERIFIED: /, '')})` : '');
  if (props.acceptInstanceStoreEncryption === true) {
    return {
      use: 'none',
      warning: `encryptionKey is not applied: ${storage}, where SageMaker rejects KmsKeyId; the instance's hardware encrypts `
        + 'the storage with keys it keeps (acceptInstanceStoreEncryption: true).',
    };
  }
  return {
    use: 'refused',
    problem: `encryptionKey is set but ${storage}, where SageMaker rejects KmsKeyId and the instance's hardware encrypts the `
      + 'storage with keys you cannot manage; plan on an instance type with EBS storage (inf2 or inf1: instanceTypes in the '
      + 'plan options, --instance-types on the CLI), or set acceptInstanceStoreEncryption: true to deploy there without your key',
  };
}

/** The key of a choice that is not refused: the user's, a new one (construct id `Key`), or none (with its warning). */
export function storageKey(scope: Construct, choice: StorageKeyChoice, props: EndpointHostingOptions, endpointName: string):
kms.IKey | undefined {
  switch (choice.use) {
    case 'given':
      return props.encryptionKey;
    case 'own':
      return new kms.Key(scope, 'Key', {
        description: `Encrypts the ML storage volumes of SageMaker endpoint ${endpointName}`,
        enableKeyRotation: true,
        // The volumes live and die with the endpoint; nothing encrypted with this key outlives the stack.
        removalPolicy: RemovalPolicy.DESTROY,
      });
    case 'none':
      if (choice.warning !== undefined) {
        Annotations.of(scope).addWarningV2('@cdk-inferentia/sagemaker:encryptionKeyNotApplied', choice.warning);
      }
      return undefined;
    default:
      throw new Error(`storageKey: a refused choice reached resource creation (${choice.problem}); this is a bug`);
  }
}
