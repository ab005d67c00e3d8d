import { CfnResource } from 'aws-cdk-lib';
// cdk-nag's modules, not its root: the root loads every pack and rule (about 300 modules) on import, and this file is
// loaded by every app that imports the package root, whether or not it applies the checks.
import { NagPack, NagPackProps } from 'cdk-nag/lib/nag-pack';
import { NagMessageLevel, type NagRuleResult } from 'cdk-nag/lib/nag-rules';
import { IConstruct } from 'constructs';
import { isOwned } from '../private/ownership';
import { NeuronEcrImmutableTags } from './rules/neuron-ecr-immutable-tags';
import { NeuronEcrKmsEncryption } from './rules/neuron-ecr-kms-encryption';
import { NeuronEcrScanOnPush } from './rules/neuron-ecr-scan-on-push';
import { NeuronEndpointConfigKms } from './rules/neuron-endpoint-config-kms';
import { NeuronEndpointConfigTrnNoKmsOrVolume } from './rules/neuron-endpoint-config-trn-no-kms-or-volume';
import { NeuronEndpointInstanceIsNeuron } from './rules/neuron-endpoint-instance-is-neuron';
import { NeuronEndpointNetworkIsolationHasModelData } from './rules/neuron-endpoint-network-isolation-has-model-data';
import { NeuronModelImageByDigest } from './rules/neuron-model-image-by-digest';

/** One rule of the pack: the id suffix after `Neuron-`, the check, and what the finding tells the user. */
interface NeuronRule {
  readonly suffix: string;
  readonly rule: (node: CfnResource) => NagRuleResult;
  readonly info: string;
  readonly explanation: string;
}

const RULES: readonly NeuronRule[] = [
  {
    suffix: 'EndpointConfigKms',
    rule: NeuronEndpointConfigKms,
    info:
      'The SageMaker endpoint configuration sets no KmsKeyId although a variant is on an EBS-backed instance ' +
      '(ml.inf1, ml.inf2, or a type unknown at synth).',
    explanation:
      'Without KmsKeyId SageMaker encrypts the ML storage volume (/opt/ml and /tmp: model artifacts, container ' +
      'scratch) with a transient key that cannot be audited, rotated or revoked. Give the endpoint configuration ' +
      'a customer managed KMS key (KmsKeyId) and let the execution role use it (kms:CreateGrant, kms:Decrypt). ' +
      'Trainium variants are exempt: their local NVMe storage is encrypted by the instance and SageMaker rejects ' +
      'KmsKeyId there.',
  },
  {
    suffix: 'EndpointConfigTrnNoKmsOrVolume',
    rule: NeuronEndpointConfigTrnNoKmsOrVolume,
    info:
      'The SageMaker endpoint configuration sets KmsKeyId, or VolumeSizeInGB on a variant, while a variant runs ' +
      'on ml.trn1, ml.trn1n or ml.trn2.',
    explanation:
      'Trainium instances keep model data on local NVMe instance storage, encrypted by the instance. ' +
      'CreateEndpointConfig fails when KmsKeyId is set and any variant runs on an instance with local storage, ' +
      'and SageMaker rejects VolumeSizeInGB there, so the stack fails mid-deployment. Remove KmsKeyId and the ' +
      "Trainium variants' VolumeSizeInGB, or host EBS-backed and Trainium variants in separate endpoint " +
      'configurations.',
  },
  {
    suffix: 'EndpointInstanceIsNeuron',
    rule: NeuronEndpointInstanceIsNeuron,
    info:
      'The SageMaker endpoint configuration has a variant that is not on an AWS Neuron instance type ' +
      '(ml.inf1, ml.inf2, ml.trn1, ml.trn1n, ml.trn2).',
    explanation:
      'Models compiled with the Neuron SDK run only on Inferentia and Trainium: elsewhere the container fails to ' +
      'load them, or falls back to CPU and misses its latency target at a higher price. Set every variant\'s ' +
      'InstanceType to the ml. type the plan chose (for example ml.inf2.xlarge); serverless variants cannot use ' +
      'Neuron.',
  },
  {
    suffix: 'EcrScanOnPush',
    rule: NeuronEcrScanOnPush,
    info: 'The ECR repository does not scan images on push.',
    explanation:
      'Scan on push reports known vulnerabilities in each model-serving image before it is deployed. Set ' +
      'ImageScanningConfiguration.ScanOnPush to true (imageScanOnPush on ecr.Repository). If registry-level ' +
      'enhanced scanning (Amazon Inspector) already covers this repository, acknowledge the finding with that ' +
      'reason instead.',
  },
  {
    suffix: 'EcrImmutableTags',
    rule: NeuronEcrImmutableTags,
    info: 'The ECR repository lets a push move an existing tag to another image.',
    explanation:
      'With mutable tags, what a tag names can change after it was tested, so a redeployment or a rollback can ' +
      'run an image nobody tested. Set ImageTagMutability to IMMUTABLE (ecr.TagMutability.IMMUTABLE), without ' +
      'exclusion filters, and deploy by digest.',
  },
  {
    suffix: 'EcrKmsEncryption',
    rule: NeuronEcrKmsEncryption,
    info: 'The ECR repository does not encrypt images with a KMS key.',
    explanation:
      'Images carry the model server and often the model weights. With the default AES256 encryption, access ' +
      'cannot be controlled or audited through a key policy. Set EncryptionConfiguration.EncryptionType to KMS ' +
      'or KMS_DSSE with a customer managed key (encryption: ecr.RepositoryEncryption.KMS and encryptionKey), and ' +
      'grant kms:Decrypt to every role that pulls.',
  },
  {
    suffix: 'ModelImageByDigest',
    rule: NeuronModelImageByDigest,
    info: 'The SageMaker model references a container image by tag (or an implied :latest) instead of by digest.',
    explanation:
      'SageMaker runs whatever the tag names when the endpoint is created or updated. When the tag moves, the ' +
      'template does not change, so CloudFormation neither deploys the new image nor can it roll back to the old ' +
      'one, and two deployments of the same template can run different code. Reference the image as ' +
      '<repositoryUri>@sha256:<digest> (repository.repositoryUriForDigest(digest)).',
  },
  {
    suffix: 'EndpointNetworkIsolationHasModelData',
    rule: NeuronEndpointNetworkIsolationHasModelData,
    info: 'The SageMaker model enables network isolation but a container has no ModelDataUrl or ModelDataSource.',
    explanation:
      'A network-isolated container cannot reach S3 or the Hugging Face Hub, so a container that downloads its ' +
      'compiled Neuron artifacts at startup fails its health check. Ship the artifacts as model data ' +
      '(ModelDataUrl or ModelDataSource), which SageMaker places in /opt/ml/model, or acknowledge the finding ' +
      'with a reason if the image contains the weights.',
  },
];

/** Options for {@link NeuronChecks}. */
export interface NeuronChecksProps extends NagPackProps {
  /**
   * Which resources the rules check: `'all'`, every resource of the app; `'package'`, only those cdk-inferentia's
   * constructs created, so an unrelated repository or endpoint of the app is left to the app's own rules.
   *
   * @default 'all' - a pack registered by hand checks what it is given; {@link applyPolicyChecks} passes 'package'
   */
  readonly resources?: 'all' | 'package';
}

/**
 * cdk-nag rule pack for what AwsSolutions does not cover on Neuron inference stacks.
 *
 * Checks SageMaker endpoint configurations (KMS key, Trainium storage limits, Neuron instance types), SageMaker models
 * (images by digest, model data under network isolation) and ECR repositories (scan on push, immutable tags, KMS).
 * Every rule reads the synthesized L1 resource, so it applies to our constructs and to anyone else's alike, unless
 * `resources: 'package'` limits it to what cdk-inferentia created.
 *
 * Finding ids read `Neuron-<Rule>`, e.g. `Neuron-EcrScanOnPush`, and every finding is an error that fails synth.
 * Register the pack with `Validations.of(app).addPlugins(new NeuronChecks(app))` (or {@link applyPolicyChecks}), and
 * acknowledge a finding with `Validations.of(scope).acknowledge({ id: 'Neuron-EcrScanOnPush', reason })`.
 *
 * @see https://github.com/cdklabs/cdk-nag
 */
export class NeuronChecks extends NagPack {
  /** Plugin name shown in the validation report; also the namespace of `Neuron::Neuron-<Rule>` acknowledgements. */
  public readonly name = 'Neuron';

  /** Every finding id this pack can report, e.g. `Neuron-EcrScanOnPush`. */
  public readonly ruleIds: string[];

  /**
   * @param scope the app; only needed with `writeSuppressionsToCloudFormation`.
   * @param props cdk-nag pack options (`verbose` adds each rule's explanation and fix to its findings).
   */
  private readonly onlyPackageResources: boolean;

  constructor(scope?: IConstruct, props?: NeuronChecksProps) {
    super(scope, props);
    this.onlyPackageResources = props?.resources === 'package';
    this.packName = 'Neuron';
    this.ruleIds = RULES.map((rule) => `${this.packName}-${rule.suffix}`);
  }

  protected checkResource(node: CfnResource): void {
    if (this.onlyPackageResources && !isOwned(node)) {
      return;
    }
    for (const { suffix, rule, info, explanation } of RULES) {
      this.applyRule({ ruleSuffixOverride: suffix, info, explanation, level: NagMessageLevel.ERROR, rule, node });
    }
  }
}
