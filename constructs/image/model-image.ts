import * as fs from 'node:fs';
import { Annotations, Stack, Token, Validations } from 'aws-cdk-lib';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import { DockerImageAsset, Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Fact, FactName, RegionInfo } from 'aws-cdk-lib/region-info';
import { Construct } from 'constructs';
import { NeuronInstanceType } from '../../lib/catalog/instance-type';
import { InputError } from '../../lib/errors';
import type { VllmReplicaConfig } from '../../lib/generative/engine-config';
import { parseVllmDlcTag, VLLM_DLC_PINS, vllmContainerEnvironment } from '../../lib/generative/engine-image';
import type { EngineMetricsTarget, VllmDlcTag } from '../../lib/generative/engine-image';
import { ECR_PULL_ACTIONS, ModelImageRepository } from './model-image-repository';
import { DIGEST_FIX, digestProblem } from './private/image-digest';
import { domainSuffix } from '../private/image-via-service';
import { checkDlcTag, DLC_FAMILIES, DLC_TAG } from './private/dlc-family';
import { bindVllmImage, stageVllmImageContext, VLLM_DLC_PUBLIC_REGISTRY } from './private/vllm-image';
import type { VllmImageSource } from './private/vllm-image';
import { MODEL_SERVER_DIRECTORY, stageServerWithHandler } from './private/server-directory';

/** What a hosting construct needs from a bound {@link ModelImage}. */
export interface ModelImageConfig {
  /** Image URI the container runs, pinned by digest whenever one is known. */
  readonly imageUri: string;
  /**
   * With {@link ModelImage.fromNeuronVllm}: how to run the engine in it.
   *
   * @default - not a vLLM image
   */
  readonly vllm?: VllmImageBinding;
}

/** How a hosting runs one replica of a bound {@link ModelImage.fromNeuronVllm} image. */
export interface VllmImageBinding {
  /** Neuron SDK of the DLC (`2.29.1`): the compile job must compile with it. */
  readonly neuronSdkVersion: string;
  /** vLLM version of the DLC (`0.16.0`). */
  readonly vllmVersion: string;
  /** Container command: SageMaker starts every container with `serve`; ECS should pass the same. */
  readonly command: readonly string[];
  /** Path of the engine's health route on the replica's port (`GET /health`: 200 once the model is loaded). */
  readonly healthCheckPath: string;
  /**
   * The container environment of one replica: its engine variables, its `vllm serve` arguments as JSON, and where
   * its metrics go (lib/generative/engine-image.ts `vllmContainerEnvironment`).
   *
   * @throws InputError when the arguments do not fit one SageMaker environment value, or the metrics target is bad
   */
  environment(replica: VllmReplicaConfig, metrics: EngineMetricsTarget): Record<string, string>;
}

/** Options of {@link ModelImage.fromNeuronVllm}. */
export interface NeuronVllmImageOptions {
  /**
   * The Neuron vLLM DLC tag, `{vLLM version}-neuronx-py{XY}-sdk{X.Y.Z}-ubuntu{XX.YY}`: `VLLM_DLC_PINS.inf2Trn1.tag`
   * for Inf2/Trn1 (NxD Inference runs there only up to SDK 2.28), `VLLM_DLC_PINS.trn2.tag` for Trn2. Checked
   * against the instance when the image is bound.
   *
   * @example '0.16.0-neuronx-py312-sdk2.29.1-ubuntu24.04'
   * @see https://github.com/aws-neuron/deep-learning-containers
   */
  readonly tag: string;

  /**
   * Digest of the DLC behind the tag, `sha256:` and 64 hex digits. Required: the wrapper image starts `FROM` it, so
   * a rebuild never picks up another engine. `docker pull public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:<tag>`
   * then `docker inspect --format '{{index .RepoDigests 0}}'`.
   */
  readonly digest: string;

  /**
   * Registry to pull the DLC from (a pull-through cache or a private copy holding `pytorch-inference-vllm-neuronx`).
   *
   * @default 'public.ecr.aws/neuron' (ECR Public, where AWS publishes it)
   */
  readonly registry?: string;
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
   * vLLM on Neuron (NxD Inference) in the AWS Neuron vLLM deep learning container, wrapped by cdk-inferentia: an
   * entrypoint that starts `vllm serve` with the arguments the hosting renders from the plan and exports the
   * engine's metrics (running and waiting requests, KV cache usage, TTFT and TPOT percentiles, tokens) and NeuronCore
   * utilization as CloudWatch embedded-metric-format lines (`serving/vllm/`).
   *
   * `cdk synth` stays offline and needs no Docker: it stages the wrapper's sources as a `DockerImageAsset`;
   * `cdk deploy` builds it FROM `<registry>/pytorch-inference-vllm-neuronx@<digest>` for linux/amd64 and pushes it to
   * the CDK bootstrap repository (immutable tags), the private regional ECR repository SageMaker requires.
   *
   * @throws InputError when the tag is not a Neuron vLLM DLC tag or the digest is missing or not a digest; binding
   * to an instance throws when the tag's SDK or plugin cannot serve it (an SDK newer than 2.28 on Inf2/Trn1)
   * @see https://github.com/aws-neuron/deep-learning-containers
   */
  static fromNeuronVllm(options: NeuronVllmImageOptions): ModelImage {
    const problems: string[] = [];
    const known = !Token.isUnresolved(options.tag) && !Token.isUnresolved(options.digest);
    if (!known) {
      problems.push('ModelImage.fromNeuronVllm: tag and digest must be known at synth (the image is built from them '
        + 'before CloudFormation runs); pass literal strings');
    } else if (parseVllmDlcTag(options.tag) === undefined) {
      problems.push(`ModelImage.fromNeuronVllm: tag=${JSON.stringify(options.tag)} is not a Neuron vLLM DLC tag `
        + `({vLLM version}-neuronx-py{XY}-sdk{X.Y.Z}-ubuntu{XX.YY}); use ${VLLM_DLC_PINS.trn2.tag} (Trn2) or `
        + `${VLLM_DLC_PINS.inf2Trn1.tag} (Inf2/Trn1)`);
    }
    if (known && (options.digest as string | undefined) === undefined) {
      problems.push(`ModelImage.fromNeuronVllm: digest is missing; the image must start from a DLC pinned by digest: ${DIGEST_FIX}`);
    } else if (known) {
      const problem = digestProblem('ModelImage.fromNeuronVllm({ digest })', options.digest);
      if (problem !== undefined) problems.push(problem);
    }
    const registry = options.registry ?? VLLM_DLC_PUBLIC_REGISTRY;
    if (Token.isUnresolved(registry) || !/^[a-z0-9.-]+(?::\d+)?(?:\/[a-z0-9._-]+)*$/.test(registry)) {
      problems.push(`ModelImage.fromNeuronVllm: registry=${JSON.stringify(options.registry)} is not a registry host `
        + `and path; use e.g. ${VLLM_DLC_PUBLIC_REGISTRY} or <account>.dkr.ecr.<region>.amazonaws.com/<prefix>`);
    }
    const context = stageVllmImageContext();
    if (context === undefined) {
      problems.push('ModelImage.fromNeuronVllm: the vLLM image sources (serving/vllm/) are not in this installation '
        + 'of cdk-inferentia; reinstall the package');
    }
    InputError.throwIfAny(problems);
    return new NeuronVllmImage({ tag: options.tag, digest: options.digest, registry, context: context as string });
  }

  /** Whether the image runs vLLM ({@link fromNeuronVllm}): only such an image can serve a generative plan. */
  readonly vllmEngine: boolean = false;

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

class NeuronVllmImage extends ModelImage {
  readonly vllmEngine: boolean = true;
  readonly neuronSdkVersion: string;
  private readonly vllmVersion: string;

  constructor(private readonly source: VllmImageSource) {
    super();
    const tag = parseVllmDlcTag(source.tag) as VllmDlcTag;
    this.neuronSdkVersion = tag.neuronSdkVersion;
    this.vllmVersion = tag.vllmVersion;
  }

  bind(scope: Construct, grantee: iam.IGrantable, instanceType: NeuronInstanceType): ModelImageConfig {
    const imageUri = bindVllmImage(scope, grantee, instanceType, this.source);
    return {
      imageUri,
      vllm: {
        neuronSdkVersion: this.neuronSdkVersion,
        vllmVersion: this.vllmVersion,
        command: ['serve'],
        healthCheckPath: '/health',
        environment: (replica, metrics) => vllmContainerEnvironment(replica, metrics),
      },
    };
  }
}
