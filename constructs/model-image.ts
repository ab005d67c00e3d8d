import { Annotations, Stack, Token } from 'aws-cdk-lib';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Fact, FactName } from 'aws-cdk-lib/region-info';
import { Construct } from 'constructs';
import { NeuronInstanceType } from '../lib/catalog';
import { InputError } from '../lib/errors';
import { ECR_PULL_ACTIONS, ModelImageRepository } from './model-image-repository';
import { digestProblem } from './private/image-digest';
import { domainSuffix } from './private/image-via-service';

/** What a hosting construct needs from a bound {@link ModelImage}. */
export interface ModelImageConfig {
  /** Image URI the container runs, pinned by digest whenever one is known. */
  readonly imageUri: string;
}

/** Options of {@link ModelImage.fromNeuronDlc}. */
export interface NeuronDlcImageOptions {
  /**
   * Framework of the AWS Neuron Deep Learning Container.
   *
   * @default 'pytorch'
   */
  readonly framework?: 'pytorch';

  /**
   * The full DLC tag, `{framework version}-{neuron|neuronx}-py{XY}-sdk{X.Y.Z}-{os}`.
   *
   * `-neuronx-` tags run on Inf2 and Trn1 (`pytorch-inference-neuronx`, last published with Neuron SDK 2.31.x);
   * `-neuron-` tags run on Inf1 (`pytorch-inference-neuron`, last image SDK 2.20.2).
   *
   * @example '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04'
   * @see https://github.com/aws-neuron/deep-learning-containers
   */
  readonly tag: string;

  /**
   * Digest of the image behind the tag, `sha256:` and 64 hex digits.
   *
   * Strongly recommended: AWS does not move published DLC tags in practice, but only a digest guarantees that
   * every deploy and every promotion stage runs the same bytes.
   *
   * @default - the image is referenced by tag, with the synth warning `@cdk-inferentia/model-image:dlcTagNotPinned`
   */
  readonly digest?: string;
}

/**
 * The hosting families of Neuron DLC repositories (https://github.com/aws-neuron/deep-learning-containers README;
 * tag format from aws/deep-learning-containers `pytorch/inference/buildspec-neuron(x).yml`).
 */
interface DlcFamily {
  /** Marker in the tag: `neuron` (Inf1) or `neuronx` (Inf2/Trn1). */
  readonly marker: 'neuron' | 'neuronx';
  /** Repository name in the regional DLC registry. */
  readonly repository: string;
  /** Which instances it runs on, in user terms. */
  readonly instances: string;
  /** A tag users can copy. */
  readonly exampleTag: string;
  /**
   * Newest Neuron SDK release with a published image, as precise as the source says (`[2, 31]` is any 2.31.x);
   * newer tags do not exist (https://github.com/aws-neuron/deep-learning-containers README; Neuron release notes,
   * "Neuron Containers" component).
   */
  readonly lastSdk: readonly number[];
}

const DLC_FAMILIES: Record<'v1' | 'v2', DlcFamily> = {
  v1: {
    marker: 'neuron',
    repository: 'pytorch-inference-neuron',
    instances: 'Inf1',
    exampleTag: '1.13.1-neuron-py310-sdk2.20.2-ubuntu20.04',
    // NDLC README: the last pytorch-inference-neuron image listed is SDK 2.20.2.
    lastSdk: [2, 20, 2],
  },
  v2: {
    marker: 'neuronx',
    repository: 'pytorch-inference-neuronx',
    instances: 'Inf2/Trn1',
    exampleTag: '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04',
    // Neuron release notes, "Neuron Containers" component (2.32.0): no pytorch-inference-neuronx from SDK 2.32.0 on.
    lastSdk: [2, 31],
  },
};

/** `{framework version}-{neuron|neuronx}-py{XY}-sdk{X.Y.Z}-{os}` (DLCREPO buildspec-neuron(x).yml). */
const DLC_TAG = /^\d+\.\d+(?:\.\d+)?-(neuronx?)-py\d+-sdk(\d+)\.(\d+)\.(\d+)-[a-z]+[0-9.]*$/;

/**
 * The container image a Neuron model server runs.
 *
 * Always pinned: either an image in your ECR repository by digest, or an AWS Neuron Deep Learning Container by
 * tag and (recommended) digest. Binding grants the hosting role pull rights on exactly that repository.
 *
 * @example
 * ModelImage.fromRepository(images, 'sha256:0123...');
 * ModelImage.fromNeuronDlc({ tag: '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04', digest: 'sha256:...' });
 */
export abstract class ModelImage {
  /**
   * An image in an ECR repository, by digest.
   *
   * A {@link ModelImageRepository} also grants decrypt on its key; a plain `ecr.IRepository` gets ECR pull rights
   * only (grant decrypt yourself when it uses a customer managed key).
   *
   * @param repository the repository holding the image
   * @param digest `sha256:` and 64 hex digits; tags such as `latest` or `v1` are rejected, since they can move
   * @throws InputError when `digest` is not a digest
   */
  static fromRepository(repository: ecr.IRepository | ModelImageRepository, digest: string): ModelImage {
    const problem = digestProblem('ModelImage.fromRepository(repository, digest)', digest);
    InputError.throwIfAny(problem === undefined ? [] : [problem]);
    return new RepositoryImage(repository, digest);
  }

  /**
   * An AWS Neuron Deep Learning Container from the regional DLC registry.
   *
   * The repository follows the instance type at bind time: `pytorch-inference-neuron` on Inf1 (NeuronCore-v1),
   * `pytorch-inference-neuronx` on Inf2 and Trn1 (NeuronCore-v2). The registry account is the region's
   * `FactName.DLC_REPOSITORY_ACCOUNT` (763104351884 in most regions, not all).
   *
   * @throws InputError when the tag is not a Neuron DLC tag or the digest is not a digest
   * @see https://github.com/aws-neuron/deep-learning-containers
   */
  static fromNeuronDlc(options: NeuronDlcImageOptions): ModelImage {
    const problems: string[] = [];
    const framework = options.framework ?? 'pytorch';
    if (framework !== 'pytorch') {
      problems.push(`ModelImage.fromNeuronDlc: framework=${JSON.stringify(framework)} is not supported; use 'pytorch'`);
    }
    if (!Token.isUnresolved(options.tag) && !DLC_TAG.test(options.tag)) {
      problems.push(`ModelImage.fromNeuronDlc: tag=${JSON.stringify(options.tag)} is not a Neuron DLC tag `
        + '({framework version}-{neuron|neuronx}-py{XY}-sdk{X.Y.Z}-{os}); use a full tag such as '
        + `${DLC_FAMILIES.v2.exampleTag} (Inf2/Trn1) or ${DLC_FAMILIES.v1.exampleTag} (Inf1)`);
    }
    if (options.digest !== undefined) {
      const problem = digestProblem('ModelImage.fromNeuronDlc({ digest })', options.digest);
      if (problem !== undefined) {
        problems.push(problem);
      }
    }
    InputError.throwIfAny(problems);
    return new NeuronDlcImage(options.tag, options.digest);
  }

  /**
   * The Neuron SDK the image was built with (`2.31.1`), when known: read from a Neuron DLC tag's `-sdkX.Y.Z-`.
   * Hosting constructs derive the host AMI (its Neuron driver) from it.
   */
  readonly neuronSdkVersion?: string;

  /**
   * Grants `grantee` pull rights on the image's repository and returns its URI.
   *
   * @param scope the construct using the image (its stack decides region and partition)
   * @param grantee the role the model server runs as
   * @param instanceType the instance the image runs on
   */
  abstract bind(scope: Construct, grantee: iam.IGrantable, instanceType: NeuronInstanceType): ModelImageConfig;
}

class RepositoryImage extends ModelImage {
  constructor(private readonly repository: ecr.IRepository | ModelImageRepository, private readonly digest: string) {
    super();
  }

  bind(_scope: Construct, grantee: iam.IGrantable, _instanceType: NeuronInstanceType): ModelImageConfig {
    // A ModelImageRepository's grant also covers its KMS key.
    this.repository.grantPull(grantee);
    const imageUri = this.repository instanceof ModelImageRepository
      ? this.repository.imageUriForDigest(this.digest)
      : this.repository.repositoryUriForDigest(this.digest);
    return { imageUri };
  }
}

class NeuronDlcImage extends ModelImage {
  readonly neuronSdkVersion?: string;

  constructor(private readonly tag: string, private readonly digest: string | undefined) {
    super();
    const match = Token.isUnresolved(tag) ? null : DLC_TAG.exec(tag);
    this.neuronSdkVersion = match ? `${match[2]}.${match[3]}.${match[4]}` : undefined;
  }

  bind(scope: Construct, grantee: iam.IGrantable, instanceType: NeuronInstanceType): ModelImageConfig {
    const family = DLC_FAMILIES[instanceType.spec.coreVersion];
    const stack = Stack.of(scope);
    const problems: string[] = [];
    const match = Token.isUnresolved(this.tag) ? null : DLC_TAG.exec(this.tag);
    if (match && match[1] !== family.marker) {
      const other = family.marker === 'neuron' ? DLC_FAMILIES.v2 : DLC_FAMILIES.v1;
      problems.push(`ModelImage.fromNeuronDlc: tag ${this.tag} is a ${other.marker} (${other.instances}) image but the `
        + `instance ${instanceType.sageMakerName} is ${family.instances}; use ${family.repository} tags such as `
        + `${family.exampleTag}`);
    }
    if (!Token.isUnresolved(stack.region) && Fact.find(stack.region, FactName.DLC_REPOSITORY_ACCOUNT) === undefined) {
      problems.push(`ModelImage.fromNeuronDlc: region ${stack.region} has no known AWS Deep Learning Containers `
        + 'registry (aws-cdk-lib region-info DLC_REPOSITORY_ACCOUNT); copy the image into your own ECR repository '
        + 'and use ModelImage.fromRepository(repository, digest), or register the account with '
        + `Fact.register({ region: '${stack.region}', name: FactName.DLC_REPOSITORY_ACCOUNT, value: '<account>' })`);
    }
    InputError.throwIfAny(problems);

    if (match) {
      const sdk = [Number(match[2]), Number(match[3]), Number(match[4])].slice(0, family.lastSdk.length);
      if (compareVersions(sdk, family.lastSdk) > 0) {
        const last = family.lastSdk.join('.') + (family.lastSdk.length < 3 ? '.x' : '');
        Annotations.of(scope).addWarningV2('@cdk-inferentia/model-image:dlcSdkNotPublished',
          `Neuron DLC tag ${this.tag}: ${family.repository} images are not published after Neuron SDK ${last}, so `
          + `this tag most likely does not exist and the endpoint will fail to pull it; use e.g. ${family.exampleTag}.`);
      }
    }
    if (this.digest === undefined) {
      Annotations.of(scope).addWarningV2('@cdk-inferentia/model-image:dlcTagNotPinned',
        `Neuron DLC ${family.repository}:${this.tag} is referenced by tag; pass its digest (fromNeuronDlc({ digest })) `
        + 'so every deploy and every promotion stage runs the same image. Get it with `docker pull` then '
        + `\`docker inspect --format '{{index .RepoDigests 0}}'\`, or \`aws ecr describe-images --registry-id `
        + `<DLC account> --repository-name ${family.repository} --image-ids imageTag=${this.tag}\`.`);
    }

    const account = stack.regionalFact(FactName.DLC_REPOSITORY_ACCOUNT);
    const repositoryArn = stack.formatArn({
      service: 'ecr',
      account,
      resource: 'repository',
      resourceName: family.repository,
    });
    iam.Grant.addToPrincipal({ grantee, actions: [...ECR_PULL_ACTIONS], resourceArns: [repositoryArn] });
    iam.Grant.addToPrincipal({ grantee, actions: ['ecr:GetAuthorizationToken'], resourceArns: ['*'] });

    const reference = this.digest === undefined ? `:${this.tag}` : `@${this.digest}`;
    return { imageUri: `${account}.dkr.ecr.${stack.region}.${domainSuffix(scope)}/${family.repository}${reference}` };
  }
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) {
      return d;
    }
  }
  return 0;
}
