import * as fs from 'fs';
import * as path from 'path';
import { Stack, SymlinkFollowMode, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct, IConstruct, IDependable } from 'constructs';
import type { CompiledArtifact, CompiledArtifactFacts } from '../../lib/compile';
import { InputError } from '../../lib/errors';
import { DeployRefusal } from '../proof/deploy-refusal';
import { MAX_LAMBDA_STORAGE_MIB, ModelDirectory, inspectModelDirectory, uploadStorage, uploadStorageMiB } from './private/data-directory';
import { nagResource } from '../private/data-nag';
import { ModelDataStore } from '../private/data-store';
import { viaService } from '../private/image-via-service';

/**
 * A compile job's output as model data reads it: the artifact's contract from `lib/compile` plus where its files are
 * and what creates them. `NeuronCompileJob` implements it; any construct that compiles into S3 can.
 */
export interface ICompiledModelArtifacts extends CompiledArtifact {
  /** Bucket holding the artifact's files under `artifactPrefix`. */
  readonly bucket: s3.IBucket;
  /** What a hosting must wait for before it reads the files (the compile job's custom resource). */
  readonly resource: IDependable;
}

/** What a hosting construct needs from a bound {@link ModelData}. */
export interface ModelDataConfig {
  /**
   * `s3://bucket/prefix/`: an uncompressed S3 prefix, with its trailing slash.
   *
   * Use it as `ModelDataSource.S3DataSource` with `S3DataType: 'S3Prefix'` and `CompressionType: 'None'`;
   * SageMaker copies the objects under it to `/opt/ml/model`.
   */
  readonly s3Uri: string;

  /**
   * What the SageMaker Model must wait for, e.g. the deployment that uploads the files.
   *
   * @default - nothing: the files are already there
   */
  readonly dependable?: IDependable;

  /**
   * Content hash of the model files; changes exactly when the files do.
   *
   * Fold it into anything that must re-run when the model changes (the smoke benchmark).
   *
   * @default - unknown (files someone else uploaded)
   */
  readonly fingerprint?: string;

  /**
   * What the files were compiled for (chip, cores per process, batch sizes), when a compile job made them.
   *
   * A hosting checks it against its plan: `if (config.compiledArtifact) assertArtifactMatchesPlan(this,
   * config.compiledArtifact, plan)`.
   *
   * @default - unknown: files compiled elsewhere are not checked
   */
  readonly compiledArtifact?: CompiledArtifactFacts;
}

/** Options of {@link ModelData.fromBucket}. */
export interface ModelDataBucketOptions {
  /**
   * What the files were compiled for (chip, cores per process, batch sizes), e.g. the `manifest.json` of a compile
   * whose artifact you copied there: a hosting then checks it against its plan, and picks it for the instance pools
   * it fits (`NeuronSageMakerEndpoint.poolModelData`).
   *
   * @default - unknown: the files are not checked against a plan
   */
  readonly compiledArtifact?: CompiledArtifactFacts;
}

/** Options of {@link ModelData.fromAsset}. */
export interface ModelDataAssetOptions {
  /**
   * Bucket to upload the files to.
   *
   * @default - a bucket this library defines once per stack (construct `NeuronModelData/Bucket`): KMS-encrypted,
   * versioned, TLS only, public access blocked, server access logs, retained on delete
   */
  readonly bucket?: s3.IBucket;

  /**
   * Key prefix under which each version of the files gets its own `<content hash>/` prefix.
   *
   * Empty, or ending with `/`.
   *
   * @default 'models/'
   */
  readonly prefix?: string;

  /**
   * Files the model server loads from the directory, relative to it (`/` separated), e.g. `['model.pt',
   * 'tokenizer_config.json', 'vocab.txt']`.
   *
   * Checked at synth: when one is missing, synth warns naming it and the stack's deploy is refused by CloudFormation
   * before any resource is created (see `DeployRefusal`), instead of an endpoint that fails its health check after
   * 15-25 minutes of instance time and rolls back.
   *
   * @default - only that the directory holds at least one file
   */
  readonly requiredFiles?: readonly string[];
}

/**
 * The files a model server loads, as an uncompressed S3 prefix.
 *
 * SageMaker copies every object under the prefix to `/opt/ml/model` before the container starts; no tarball to
 * build or unpack. Binding grants the hosting role read on exactly that prefix.
 *
 * @example
 * ModelData.fromAsset(path.join(__dirname, 'model'));
 * ModelData.fromBucket(bucket, 'bert-base/2024-06-01/');
 *
 * @see https://docs.aws.amazon.com/sagemaker/latest/dg/large-model-inference-uncompressed.html
 */
export abstract class ModelData {
  /**
   * What a compiled artifact was compiled for (chip, cores per process, batch sizes), known at synth, so a hosting
   * refuses a mismatch with its plan before it creates anything; undefined for data that is not a compile job's.
   */
  readonly compiledArtifact?: CompiledArtifactFacts;

  /**
   * Files from a local directory, uploaded at deploy time to `<prefix><content hash>/`.
   *
   * A change of any file gives a new prefix, hence a new SageMaker Model and a proper blue/green update; the
   * previous prefix stays for rollback. Uploading runs CDK's `BucketDeployment` Lambda, which unzips in its
   * ephemeral storage: directories up to about 4.5 GiB fit; upload larger models yourself and use
   * {@link fromBucket}.
   *
   * @param path directory holding the model files, e.g. `model.pt` and `code/inference.py`
   * @throws InputError when `path` is not a directory with files, when it is too large, or when the prefix is bad
   */
  static fromAsset(path: string, options: ModelDataAssetOptions = {}): ModelData {
    const problems: string[] = [];
    const directory = inspectModelDirectory(path);
    if (typeof directory === 'string') {
      problems.push(directory);
    } else if (uploadStorageMiB(directory.bytes) > MAX_LAMBDA_STORAGE_MIB) {
      problems.push(`ModelData.fromAsset(path): path=${JSON.stringify(path)} holds ${gib(directory.bytes)} GiB, more than `
        + 'the upload Lambda can unpack in its 10 GiB of ephemeral storage; upload the files with '
        + '`aws s3 sync DIR s3://BUCKET/PREFIX/` and use ModelData.fromBucket(bucket, \'PREFIX/\')');
    }
    const prefix = options.prefix ?? 'models/';
    if (!Token.isUnresolved(prefix) && prefix !== '') {
      const problem = prefixProblem('ModelData.fromAsset(path, { prefix })', prefix);
      if (problem !== undefined) {
        problems.push(problem);
      }
    }
    const required = options.requiredFiles ?? [];
    problems.push(...required.map((f) => requiredFileProblem(f)).filter((p): p is string => p !== undefined));
    InputError.throwIfAny(problems);
    const dir = directory as ModelDirectory;
    return new AssetModelData(dir, options.bucket, prefix, missingFiles(dir.path, required));
  }

  /**
   * Files already in S3 under `prefix`, e.g. uploaded by a build pipeline.
   *
   * When the bucket is encrypted with a customer managed key that the `IBucket` does not carry (an imported
   * bucket), grant `kms:Decrypt` on it yourself.
   *
   * @param prefix the key prefix, ending with `/` (e.g. `'bert-base/v3/'`)
   * @throws InputError when the prefix is empty, absolute, an `s3://` URI, or lacks its trailing `/`
   */
  static fromBucket(bucket: s3.IBucket, prefix: string, options: ModelDataBucketOptions = {}): ModelData {
    const problem = Token.isUnresolved(prefix) ? undefined : prefixProblem('ModelData.fromBucket(bucket, prefix)', prefix);
    InputError.throwIfAny(problem === undefined ? [] : [problem]);
    return new BucketModelData(bucket, prefix, options.compiledArtifact);
  }

  /**
   * The artifacts of a `NeuronCompileJob` (or any {@link ICompiledModelArtifacts}): its `<prefix><hash>/` prefix, read once the compile finished.
   *
   * The SageMaker Model (or task) waits for the job's custom resource; the fingerprint is the content hash, so a new
   * spec or compile script gives a new model. Check the artifact against the hosting's plan with
   * `assertArtifactMatchesPlan(scope, job, plan)`.
   */
  static fromCompileJob(job: ICompiledModelArtifacts): ModelData {
    return new CompiledModelData(job);
  }

  /**
   * Grants `grantee` read on the files and returns where they are.
   *
   * Grants `s3:GetObject` on `prefix*` objects, `s3:ListBucket` on the bucket for keys under the prefix only
   * (an `s3:prefix` condition), and `kms:Decrypt` through S3 on the bucket's key when it has one.
   *
   * @param scope the construct using the model data
   * @param grantee the role the model server runs as
   */
  abstract bind(scope: Construct, grantee: iam.IGrantable): ModelDataConfig;
}

/** Grants read on one prefix of one bucket; shared by both kinds of model data. */
function grantReadPrefix(scope: IConstruct, grantee: iam.IGrantable, bucket: s3.IBucket, prefix: string): void {
  const objects = bucket.arnForObjects(`${prefix}*`);
  iam.Grant.addToPrincipal({ grantee, actions: ['s3:GetObject'], resourceArns: [objects] });
  // The wildcard is the prefix itself: the finding names this one prefix, so acknowledging it hides nothing else.
  const principal = grantee.grantPrincipal;
  if (Construct.isConstruct(principal)) {
    Validations.of(principal).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagResource(principal, objects)}]`,
      reason: 'Read on the objects under one model-data prefix; SageMaker copies every object under it to '
        + '/opt/ml/model, and their names are not known when the policy is written.',
    });
  }
  iam.Grant.addToPrincipal({
    grantee,
    actions: ['s3:ListBucket'],
    resourceArns: [bucket.bucketArn],
    conditions: { StringLike: { 's3:prefix': [`${prefix}*`] } },
  });
  if (bucket.encryptionKey) {
    iam.Grant.addToPrincipal({
      grantee,
      actions: ['kms:Decrypt'],
      resourceArns: [bucket.encryptionKey.keyArn],
      conditions: { StringEquals: { 'kms:ViaService': viaService(scope, 's3') } },
    });
  }
}

class BucketModelData extends ModelData {
  constructor(private readonly bucket: s3.IBucket, private readonly prefix: string, readonly compiledArtifact?: CompiledArtifactFacts) {
    super();
  }

  bind(scope: Construct, grantee: iam.IGrantable): ModelDataConfig {
    grantReadPrefix(scope, grantee, this.bucket, this.prefix);
    return { s3Uri: this.bucket.s3UrlForObject(this.prefix), ...(this.compiledArtifact ? { compiledArtifact: this.compiledArtifact } : {}) };
  }
}

class CompiledModelData extends ModelData {
  readonly compiledArtifact: CompiledArtifactFacts;

  constructor(private readonly job: ICompiledModelArtifacts) {
    super();
    this.compiledArtifact = job.artifact;
  }

  bind(scope: Construct, grantee: iam.IGrantable): ModelDataConfig {
    grantReadPrefix(scope, grantee, this.job.bucket, this.job.artifactPrefix);
    return {
      s3Uri: this.job.bucket.s3UrlForObject(this.job.artifactPrefix),
      dependable: this.job.resource,
      fingerprint: this.job.hash,
      compiledArtifact: this.job.artifact,
    };
  }
}

/** One upload of the files per stack, however many endpoints bind them. */
interface Upload {
  readonly bucket: s3.IBucket;
  readonly prefix: string;
  readonly deployment: s3deploy.BucketDeployment;
  readonly fingerprint: string;
}

class AssetModelData extends ModelData {
  private readonly uploads = new Map<Stack, Upload>();

  constructor(
    private readonly directory: ModelDirectory,
    private readonly bucket: s3.IBucket | undefined,
    private readonly basePrefix: string,
    private readonly missing: readonly string[],
  ) {
    super();
  }

  bind(scope: Construct, grantee: iam.IGrantable): ModelDataConfig {
    if (this.missing.length > 0) {
      const files = this.missing.join(', ');
      new DeployRefusal(scope, 'ModelFilesMissing', {
        message: `Model data ${shownPath(this.directory.path)} lacks ${files}, which the model server loads at startup: the `
          + 'endpoint would fail its health check after 15-25 minutes of instance time and roll back. Put '
          + `${this.missing.length === 1 ? 'it' : 'them'} in the directory (e.g. compile the model and save its `
          + 'tokenizer there), then synth again.',
      });
    }
    const upload = this.upload(scope);
    grantReadPrefix(scope, grantee, upload.bucket, upload.prefix);
    return {
      s3Uri: upload.bucket.s3UrlForObject(upload.prefix),
      dependable: upload.deployment,
      fingerprint: upload.fingerprint,
    };
  }

  private upload(scope: Construct): Upload {
    const stack = Stack.of(scope);
    const existing = this.uploads.get(stack);
    if (existing) {
      return existing;
    }
    const bucket = this.bucket ?? ModelDataStore.of(scope).bucket;
    const container = new Construct(scope, uniqueId(scope, 'ModelData'));
    const asset = new s3assets.Asset(container, 'Files', {
      path: this.directory.path,
      // Hugging Face snapshots are symlinks into a blob cache: upload the files, not dangling links.
      followSymlinks: SymlinkFollowMode.ALWAYS,
    });
    const prefix = `${this.basePrefix}${asset.assetHash}/`;
    const deployment = new s3deploy.BucketDeployment(container, 'Upload', {
      sources: [s3deploy.Source.bucket(asset.bucket, asset.s3ObjectKey)],
      destinationBucket: bucket,
      destinationKeyPrefix: prefix,
      extract: true,
      // Each version owns its prefix: nothing to prune, and a rollback needs the old files.
      prune: false,
      retainOnDelete: true,
      ephemeralStorageSize: uploadStorage(this.directory.bytes),
    });
    acknowledgeUploadHandler(deployment, asset, bucket);
    const upload = { bucket, prefix, deployment, fingerprint: asset.assetHash };
    this.uploads.set(stack, upload);
    return upload;
  }
}

/**
 * Acknowledges, on the upload Lambda only, the cdk-nag findings CDK's BucketDeployment handler always raises.
 *
 * The handler is a singleton function at stack level that CDK defines and this library cannot change; each
 * acknowledgement names exactly the action or resource the handler's policy holds.
 */
function acknowledgeUploadHandler(deployment: s3deploy.BucketDeployment, asset: s3assets.Asset, bucket: s3.IBucket): void {
  const role = deployment.handlerRole;
  const handler = role.node.scope;
  const reason = 'CDK BucketDeployment handler (aws-cdk-lib, not ours): it copies the model zip from the CDK asset '
    + 'bucket and writes the extracted files to the model bucket, using the L2 grant methods '
    + '(grantRead on the asset bucket, grantReadWrite on the destination), whose action and object wildcards '
    + 'cannot be narrowed from outside.';
  Validations.of(role).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'CDK BucketDeployment handler (aws-cdk-lib, not ours): CDK attaches AWSLambdaBasicExecutionRole so '
        + 'the handler can write its own CloudWatch logs; it grants nothing else.',
    },
    ...['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:DeleteObject*', 's3:Abort*',
      'kms:GenerateDataKey*', 'kms:ReEncrypt*']
      .map((action) => ({ id: `AwsSolutions-IAM5[Action::${action}]`, reason })),
    { id: `AwsSolutions-IAM5[Resource::${nagResource(role, asset.bucket.arnForObjects('*'))}]`, reason },
    { id: `AwsSolutions-IAM5[Resource::${nagResource(role, bucket.arnForObjects('*'))}]`, reason },
  );
  if (handler) {
    Validations.of(handler).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'CDK BucketDeployment handler (aws-cdk-lib, not ours): aws-cdk-lib pins the Python runtime its '
        + 'bundled code is tested with; it moves to newer runtimes with aws-cdk-lib upgrades.',
    });
  }
}

/** A `requiredFiles` entry that cannot name a file inside the directory, or undefined. */
function requiredFileProblem(file: string): string | undefined {
  const parts = file.split('/');
  if (file.trim() === '' || file.startsWith('/') || parts.includes('..') || /^[a-zA-Z]:/.test(file)) {
    return `ModelData.fromAsset(path, { requiredFiles }): ${JSON.stringify(file)} is not a path inside the model `
      + "directory; give it relative to the directory, '/' separated, e.g. 'model.pt' or 'code/inference.py'";
  }
  return undefined;
}

/** `dir` relative to the working directory when inside it, so templates do not carry one machine's paths. */
function shownPath(dir: string): string {
  const relative = path.relative(process.cwd(), dir);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : dir;
}

/** The `required` files that are not regular files (symlinks followed) under `dir`. */
function missingFiles(dir: string, required: readonly string[]): string[] {
  return required.filter((file) => {
    try {
      return !fs.statSync(path.join(dir, ...file.split('/'))).isFile();
    } catch {
      return true;
    }
  });
}

function prefixProblem(field: string, prefix: string): string | undefined {
  const received = JSON.stringify(prefix);
  if (prefix.startsWith('s3://')) {
    return `${field}: prefix=${received} is a URI; pass only the key prefix after the bucket name, ending with '/'`;
  }
  if (prefix === '' || prefix === '/') {
    return `${field}: prefix=${received} is the whole bucket; put the model files under a prefix such as 'models/bert/' `
      + 'so the role reads only them';
  }
  if (prefix.startsWith('/')) {
    return `${field}: prefix=${received} starts with '/'; S3 keys have no leading slash, use ${JSON.stringify(prefix.replace(/^\/+/, ''))}`;
  }
  if (!prefix.endsWith('/')) {
    return `${field}: prefix=${received} must end with '/', or it also matches keys such as ${JSON.stringify(`${prefix}-old/`)}; `
      + `use ${JSON.stringify(`${prefix}/`)}`;
  }
  return undefined;
}

function uniqueId(scope: Construct, base: string): string {
  let id = base;
  for (let n = 2; scope.node.tryFindChild(id) !== undefined; n++) {
    id = `${base}${n}`;
  }
  return id;
}

function gib(bytes: number): string {
  return (bytes / 1024 ** 3).toFixed(1);
}
