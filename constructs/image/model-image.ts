import * as fs from 'node:fs';
import { Annotations, Stack, Token, Validations } from 'aws-cdk-lib';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import { DockerImageAsset, Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Fact, FactName, RegionInfo } from 'aws-cdk-lib/region-info';
import { Construct } from 'constructs';
import { NeuronInstanceType } from '../../lib/catalog';
import type { CoreVersion } from '../../lib/catalog/types';
import { InputError } from '../../lib/errors';
import { ECR_PULL_ACTIONS, ModelImageRepository } from './model-image-repository';
import { DIGEST_FIX, digestProblem } from './private/image-digest';
import { domainSuffix } from '../private/image-via-service';
import { MODEL_SERVER_DIRECTORY, stageServerWithHandler } from './private/server-directory';

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

/** Options of {@link ModelImage.fromServer}: the Neuron DLC the server image starts from. */
/** Options of {@link ModelImage.fromRepository}. */
export interface RepositoryImageOptions {
  /**
   * Whether the image runs the cdk-inferentia model server: an image built from `serving/` (or FROM one), pushed
   * to your repository. Hosting constructs then render the server's environment from the plan and accept
   * `batching` plans; otherwise they treat it as a stock Neuron DLC derivative (TorchServe through the SageMaker
   * PyTorch toolkit).
   *
   * @default false
   */
  readonly modelServer?: boolean;

  /**
   * The Neuron SDK the image was built with (`2.31.1`), when you know it: hosting constructs derive the host AMI's
   * Neuron driver from it.
   *
   * @default - unknown
   */
  readonly neuronSdkVersion?: string;
}

export interface ModelServerImageOptions {
  /**
   * The full tag of the Neuron DLC to build on, `{framework version}-{neuron|neuronx}-py{XY}-sdk{X.Y.Z}-{os}`: a
   * `-neuronx-` tag for Inf2/Trn1, a `-neuron-` tag for Inf1 (checked against the instance when the image is bound).
   *
   * @example '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04'
   * @see https://github.com/aws-neuron/deep-learning-containers
   */
  readonly tag: string;

  /**
   * Digest of the DLC image behind the tag, `sha256:` and 64 hex digits. Required: the build starts `FROM` it, so a
   * rebuild never picks up another Neuron runtime.
   */
  readonly digest: string;

  /**
   * A directory with your handler (`inference.py` with `model_fn`, `input_fn`, `predict_fn`, `output_fn`, and the
   * modules it imports; a `requirements.txt` is installed at build), copied into the image. The model data then
   * needs only the model, e.g. a `NeuronCompileJob`'s artifact, and the image digest pins the code with the
   * server.
   *
   * @default - the handler comes with the model data, in `code/` (SageMaker's convention)
   */
  readonly handler?: string;
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

const NEURONX: DlcFamily = {
  marker: 'neuronx',
  repository: 'pytorch-inference-neuronx',
  instances: 'Inf2/Trn1/Trn2',
  exampleTag: '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04',
  // Neuron release notes, "Neuron Containers" component (2.32.0): no pytorch-inference-neuronx from SDK 2.32.0 on.
  lastSdk: [2, 31],
};

/** By NeuronCore version: the neuronx images serve every NeuronCore-v2 and v3 instance (Inf2, Trn1, Trn2). */
const DLC_FAMILIES: Record<CoreVersion, DlcFamily> = {
  v1: {
    marker: 'neuron',
    repository: 'pytorch-inference-neuron',
    instances: 'Inf1',
    exampleTag: '1.13.1-neuron-py310-sdk2.20.2-ubuntu20.04',
    // NDLC README: the last pytorch-inference-neuron image listed is SDK 2.20.2.
    lastSdk: [2, 20, 2],
  },
  v2: NEURONX,
  v3: NEURONX,
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
   * @param options what the image runs
   * @throws InputError when `digest` is not a digest or `neuronSdkVersion` is not a version
   */
  static fromRepository(repository: ecr.IRepository | ModelImageRepository, digest: string, options: RepositoryImageOptions = {}): ModelImage {
    const problems: string[] = [];
    const problem = digestProblem('ModelImage.fromRepository(repository, digest)', digest);
    if (problem !== undefined) {
      problems.push(problem);
    }
    if (options.neuronSdkVersion !== undefined && !/^\d+\.\d+\.\d+$/.test(options.neuronSdkVersion)) {
      problems.push(`ModelImage.fromRepository: neuronSdkVersion=${JSON.stringify(options.neuronSdkVersion)} is not a `
        + 'Neuron SDK version; pass it as X.Y.Z, e.g. "2.31.1"');
    }
    InputError.throwIfAny(problems);
    return new RepositoryImage(repository, digest, options.modelServer ?? false, options.neuronSdkVersion);
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
   * The cdk-inferentia model server (`serving/`: dynamic batching, one worker per NeuronCore group) on a Neuron DLC,
   * built with Docker at deploy time.
   *
   * `cdk synth` stays offline and needs no Docker: it only stages `serving/` as a `DockerImageAsset`. `cdk deploy`
   * then builds it for linux/amd64 with `--build-arg BASE_IMAGE=<DLC registry>/<repository>@<digest>` and pushes it
   * to the CDK bootstrap container-asset repository under its content-hash tag. That repository has immutable tags
   * (the bootstrap template's `ImageTagMutability: IMMUTABLE`), so the tag names one image for good, as a digest
   * would. The build pulls the DLC, so log Docker in to the DLC registry first:
   * `aws ecr get-login-password --region <region> | docker login --username AWS --password-stdin
   * 763104351884.dkr.ecr.<region>.amazonaws.com` (the account is the region's DLC account).
   *
   * The repository follows the instance type at bind time, as with {@link fromNeuronDlc}; the stack needs a concrete
   * region, whose DLC registry the build pulls from. Hosting constructs set the server's environment from the plan.
   *
   * @throws InputError when the tag is not a Neuron DLC tag or the digest is missing or not a digest
   * @see https://docs.aws.amazon.com/AmazonECR/latest/userguide/registry_auth.html
   */
  static fromServer(options: ModelServerImageOptions): ModelImage {
    const problems: string[] = [];
    if (!Token.isUnresolved(options.tag) && !DLC_TAG.test(options.tag)) {
      problems.push(`ModelImage.fromServer: tag=${JSON.stringify(options.tag)} is not a Neuron DLC tag `
        + '({framework version}-{neuron|neuronx}-py{XY}-sdk{X.Y.Z}-{os}); use a full tag such as '
        + `${DLC_FAMILIES.v2.exampleTag} (Inf2/Trn1) or ${DLC_FAMILIES.v1.exampleTag} (Inf1)`);
    }
    if (Token.isUnresolved(options.tag) || Token.isUnresolved(options.digest)) {
      problems.push('ModelImage.fromServer: tag and digest must be known at synth (the image is built from them '
        + 'before CloudFormation runs); pass literal strings');
    } else if ((options.digest as string | undefined) === undefined) {
      problems.push('ModelImage.fromServer: digest is missing; the server image must start from a DLC pinned by '
        + `digest: ${DIGEST_FIX}`);
    } else {
      const problem = digestProblem('ModelImage.fromServer({ digest })', options.digest);
      if (problem !== undefined) {
        problems.push(problem);
      }
    }
    if (MODEL_SERVER_DIRECTORY === undefined) {
      problems.push('ModelImage.fromServer: the model server sources (serving/Dockerfile) are not in this '
        + 'installation of cdk-inferentia; reinstall the package');
    }
    if (options.handler !== undefined
      && !(fs.existsSync(options.handler) && fs.readdirSync(options.handler).some((f) => f.endsWith('.py')))) {
      problems.push(`ModelImage.fromServer: handler=${JSON.stringify(options.handler)} holds no Python handler module; `
        + 'pass the directory with your inference.py (model_fn, input_fn, predict_fn, output_fn)');
    }
    InputError.throwIfAny(problems);
    const directory = options.handler === undefined
      ? MODEL_SERVER_DIRECTORY as string
      : stageServerWithHandler(MODEL_SERVER_DIRECTORY as string, options.handler);
    return new ModelServerImage(options.tag, options.digest, directory);
  }

  /**
   * Whether the image runs the cdk-inferentia model server (`serving/`), which reads its sizing from the
   * environment the hosting construct renders from the plan, and batches requests: only such an image can hold a
   * `batching` plan.
   */
  readonly modelServer: boolean = false;

  /**
   * Whether the image holds no model and serves the model data its hosting mounts at `/opt/ml/model` (the
   * {@link fromServer} image): a hosting without model data must refuse it.
   */
  readonly needsModelData: boolean = false;

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
  constructor(
    private readonly repository: ecr.IRepository | ModelImageRepository,
    private readonly digest: string,
    readonly modelServer: boolean,
    readonly neuronSdkVersion: string | undefined,
  ) {
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
    const family = checkDlcTag(scope, 'ModelImage.fromNeuronDlc', this.tag, instanceType, []);
    const stack = Stack.of(scope);
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

class ModelServerImage extends ModelImage {
  readonly neuronSdkVersion?: string;
  readonly modelServer: boolean = true;
  readonly needsModelData: boolean = true;

  constructor(private readonly tag: string, private readonly digest: string, private readonly directory: string) {
    super();
    const match = DLC_TAG.exec(tag);
    this.neuronSdkVersion = match ? `${match[2]}.${match[3]}.${match[4]}` : undefined;
  }

  bind(scope: Construct, grantee: iam.IGrantable, instanceType: NeuronInstanceType): ModelImageConfig {
    const stack = Stack.of(scope);
    const problems: string[] = [];
    if (Token.isUnresolved(stack.region)) {
      problems.push(`ModelImage.fromServer: the stack ${stack.stackName} has no region at synth, but the image is `
        + 'built from the Neuron DLC in a regional registry before CloudFormation runs; give the stack '
        + "env: { account, region } (e.g. region: process.env.CDK_DEFAULT_REGION in bin/)");
    }
    const family = checkDlcTag(scope, 'ModelImage.fromServer', this.tag, instanceType, problems);

    // The build arguments are part of the asset's hash, so the base image must be a literal, not a token.
    const region = stack.region;
    const account = Fact.find(region, FactName.DLC_REPOSITORY_ACCOUNT) as string;
    const suffix = RegionInfo.get(region).domainSuffix ?? 'amazonaws.com';
    const registry = `${account}.dkr.ecr.${region}.${suffix}`;
    const baseImage = `${registry}/${family.repository}@${this.digest}`;

    // Bound twice in one scope (two variants, a re-bind), the image is built once.
    const id = `ModelServerImage${family.marker === 'neuron' ? 'Inf1' : ''}`;
    const asset = (scope.node.tryFindChild(id) as DockerImageAsset | undefined) ?? new DockerImageAsset(scope, id, {
      directory: this.directory,
      buildArgs: { BASE_IMAGE: baseImage },
      // Inferentia and Trainium hosts are x86_64; a build on an arm64 laptop must still produce amd64.
      platform: Platform.LINUX_AMD64,
      displayName: `cdk-inferentia model server on ${family.repository}`,
    });
    Annotations.of(scope).addInfo(`ModelImage.fromServer: cdk deploy builds the model server image FROM ${baseImage}; `
      + `log Docker in to that registry first: aws ecr get-login-password --region ${region} | docker login `
      + `--username AWS --password-stdin ${registry}`);
    Validations.of(scope).acknowledge({
      id: 'Neuron::Neuron-ModelImageByDigest',
      reason: 'The model server image is a CDK Docker asset: its tag is the hash of its build context and build '
        + 'arguments (the DLC digest included), in the bootstrap container-asset repository, whose tags are immutable '
        + '(aws-cdk bootstrap template, ContainerAssetsRepository ImageTagMutability IMMUTABLE), so the tag names one '
        + 'image for good, as a digest does.',
    });
    asset.repository.grantPull(grantee);
    return { imageUri: asset.imageUri };
  }
}

/**
 * The DLC family of the instance, after checking a DLC tag against it and the stack's region against the known DLC
 * registries. Throws the collected problems (with those passed in) when there is any.
 */
function checkDlcTag(
  scope: Construct, caller: string, tag: string, instanceType: NeuronInstanceType, problems: string[],
): DlcFamily {
  const family = DLC_FAMILIES[instanceType.spec.coreVersion];
  const stack = Stack.of(scope);
  const match = Token.isUnresolved(tag) ? null : DLC_TAG.exec(tag);
  if (match && match[1] !== family.marker) {
    const other = family.marker === 'neuron' ? DLC_FAMILIES.v2 : DLC_FAMILIES.v1;
    problems.push(`${caller}: tag ${tag} is a ${other.marker} (${other.instances}) image but the `
      + `instance ${instanceType.sageMakerName} is ${family.instances}; use ${family.repository} tags such as `
      + `${family.exampleTag}`);
  }
  if (!Token.isUnresolved(stack.region) && Fact.find(stack.region, FactName.DLC_REPOSITORY_ACCOUNT) === undefined) {
    problems.push(`${caller}: region ${stack.region} has no known AWS Deep Learning Containers `
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
        `Neuron DLC tag ${tag}: ${family.repository} images are not published after Neuron SDK ${last}, so `
        + `this tag most likely does not exist and the endpoint will fail to pull it; use e.g. ${family.exampleTag}.`);
    }
  }
  return family;
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
