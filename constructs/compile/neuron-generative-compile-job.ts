import * as fs from 'fs';
import * as path from 'path';
import { CustomResource, Duration, Size, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, IDependable } from 'constructs';
import { NeuronInstanceType } from '../../lib/catalog/instance-type';
import { BUILT_IN_INSTANCES } from '../../lib/catalog/instances';
import { artifactPrefixOf, sha256Hex } from '../../lib/compile/hash';
import { CPU_COMPILE_HOST_AMI_PARAMETER, cpuCompileHostTypes } from '../../lib/compile/host';
import { vllmEngineOf } from '../../lib/generative/engine-config';
import { MAX_CUSTOM_RESOURCE_COMPILE_MINUTES } from '../../lib/compile/host';
import { COMPILED_ARTIFACTS_DIR, GENERATIVE_HOST_AMI_PARAMETER, HF_COMMIT, generativeCompileHash, generativeSpecForPlan, STAGED_MODEL_DIR, type GenerativeCompileDtype, type GenerativeCompileSpec, type GenerativePlanForArtifact, type GenerativeWeightsIdentity } from '../../lib/compile/generative-spec';
import { checkGenerativeArtifacts, generativeFactsOfSpec, normalizeSdkVersion, type GenerativeArtifactFacts } from '../../lib/compile/generative-check';
import { InputError } from '../../lib/errors';
import { readGenerativePlanForArtifact } from '../../lib/plan-document/read';
import type { ModelImage } from '../image/model-image';
import { ModelDataStore } from '../private/data-store';
import { NeuronFunction } from '../private/neuron-function';
import { throwIfProblems, within } from '../private/construct-errors';
import { markOwned } from '../private/ownership';
import { acknowledgeCompileFindings, compileHost, compileJobResource, grantCompileLaunch } from './private/compile-backend';

/** Options of {@link GenerativeWeights.fromS3Prefix}. */
export interface GenerativeWeightsS3Options {
  /**
   * A label to change when the files under the prefix change (a date, a commit of your training run), so the
   * compile's content hash changes with them.
   *
   * @default - the prefix is the identity: keep one prefix per version of the weights (the deploy refuses a cached
   * artifact whose weights' ETags changed under the same prefix)
   */
  readonly version?: string;
}

/** Options of {@link GenerativeWeights.fromHuggingFace}. */
export interface GenerativeWeightsHubOptions {
  /** Repository id `owner/name`, e.g. `meta-llama/Llama-3.1-8B-Instruct`. */
  readonly repository: string;
  /**
   * The commit to download: 40 hex digits. Branches (`main`) and tags are refused: both can be moved to other
   * weights, and the compile's cache would then serve artifacts built from the old ones.
   */
  readonly revision: string;
  /**
   * Secret whose string is a Hugging Face access token, for gated or private repositories (Llama needs one whose
   * account accepted the license). The compile host reads it at run time; it is never in the template, the user data
   * or an environment variable, and the host's role may read this one secret only.
   *
   * @default - no token: a public repository
   */
  readonly token?: secretsmanager.ISecret;
}

/**
 * The weights of a generative model, for the compile job (and, through its outputs, the hosting).
 *
 * Either an S3 prefix holding the uncompressed Hugging Face layout (`config.json`, `*.safetensors`, tokenizer
 * files), or a Hugging Face Hub repository at a commit, downloaded by the compile host and staged beside the
 * compiled artifacts so the hosting reads S3 only and never needs the token.
 *
 * @example
 * GenerativeWeights.fromS3Prefix(weightsBucket, 'llama-3.1-8b-instruct/2024-07-23/');
 * GenerativeWeights.fromHuggingFace({ repository: 'meta-llama/Llama-3.1-8B-Instruct',
 *   revision: '0e9e39f249a16976918f6564b8830bc894c89659', token: hfToken });
 */
export abstract class GenerativeWeights {
  /**
   * Weights already in S3 under `prefix`.
   *
   * @param prefix key prefix ending with `/`, e.g. `'llama-3.1-8b/v1/'`
   * @throws InputError when the prefix is empty, absolute, an `s3://` URI or lacks its trailing `/`
   */
  static fromS3Prefix(bucket: s3.IBucket, prefix: string, options: GenerativeWeightsS3Options = {}): GenerativeWeights {
    const problems: string[] = [];
    const where = 'GenerativeWeights.fromS3Prefix(bucket, prefix)';
    if (!Token.isUnresolved(prefix)) {
      if (prefix.startsWith('s3://')) {
        problems.push(`${where}: prefix=${JSON.stringify(prefix)} is a URI; pass the key prefix after the bucket name, ending with '/'`);
      } else if (prefix === '' || prefix === '/' || prefix.startsWith('/') || !prefix.endsWith('/') || /\s/.test(prefix)) {
        problems.push(`${where}: prefix=${JSON.stringify(prefix)} must be a key prefix without spaces, not starting with '/' and `
          + "ending with '/', e.g. 'llama-3.1-8b/v1/', so the compile reads that model directory only");
      }
    }
    if (options.version !== undefined && !/^[A-Za-z0-9._\-:+]+$/.test(options.version)) {
      problems.push(`${where}: version=${JSON.stringify(options.version)} must be letters, digits and . _ - : + only`);
    }
    InputError.throwIfAny(problems);
    return new S3Weights(bucket, prefix, options.version);
  }

  /**
   * Weights from the Hugging Face Hub at a commit.
   *
   * The compile host downloads them (its subnets need a route to huggingface.co) and uploads them beside the compiled
   * artifacts (`model/`), which the hosting then reads.
   *
   * @throws InputError when the repository is not `owner/name` or the revision is not a 40-hex-digit commit
   */
  static fromHuggingFace(options: GenerativeWeightsHubOptions): GenerativeWeights {
    const problems: string[] = [];
    const where = 'GenerativeWeights.fromHuggingFace';
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/.test(options.repository)) {
      problems.push(`${where}: repository=${JSON.stringify(options.repository)} is not a repository id; give owner/name, e.g. `
        + 'meta-llama/Llama-3.1-8B-Instruct');
    }
    if (!HF_COMMIT.test(options.revision)) {
      problems.push(`${where}: revision=${JSON.stringify(options.revision)} is not a commit; give the 40-hex-digit commit (the `
        + 'repository\'s "Files and versions" history, or `git ls-remote https://huggingface.co/<repository> main`): branches '
        + 'and tags can move to other weights, and the compile cache would serve artifacts built from the old ones');
    }
    InputError.throwIfAny(problems);
    return new HubWeights(options.repository, options.revision, options.token);
  }

  /** The secret holding the Hub token, when there is one. */
  readonly tokenSecret?: secretsmanager.ISecret;

  /**
   * The weights' identity as the compile spec records it.
   *
   * @param scope resolves an S3 bucket name that is a token, so the content hash stays stable across synths
   */
  abstract identity(scope: Stack): { readonly deploy: GenerativeWeightsIdentity; readonly hashed: GenerativeWeightsIdentity };

  /** Grants `grantee` (the compile host) what fetching the weights needs: the objects, or the token secret. */
  abstract grantFetch(grantee: iam.IGrantable): void;

  /** Grants `grantee` (the compile job's handler) the listing of S3 weights it checks before a launch. */
  abstract grantList(grantee: iam.IGrantable): void;
}

class S3Weights extends GenerativeWeights {
  constructor(readonly bucket: s3.IBucket, readonly prefix: string, private readonly version: string | undefined) {
    super();
  }

  identity(stack: Stack) {
    const name = this.bucket.bucketName;
    const stable = Token.isUnresolved(name) ? `cdk-ref-${JSON.stringify(stack.resolve(name)).replace(/[^A-Za-z0-9]/g, '').toLowerCase()}` : name;
    const version = this.version !== undefined ? { version: this.version } : {};
    return {
      deploy: { source: 's3' as const, s3Uri: `s3://${name}/${this.prefix}`, ...version },
      hashed: { source: 's3' as const, s3Uri: `s3://${stable.slice(0, 63)}/${this.prefix}`, ...version },
    };
  }

  grantFetch(grantee: iam.IGrantable): void {
    iam.Grant.addToPrincipal({ grantee, actions: ['s3:GetObject'], resourceArns: [this.bucket.arnForObjects(`${this.prefix}*`)] });
    this.grantList(grantee);
    this.bucket.encryptionKey?.grantDecrypt(grantee);
  }

  grantList(grantee: iam.IGrantable): void {
    iam.Grant.addToPrincipal({
      grantee, actions: ['s3:ListBucket'], resourceArns: [this.bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': [`${this.prefix}*`] } },
    });
  }
}

class HubWeights extends GenerativeWeights {
  constructor(readonly repository: string, readonly revision: string, readonly tokenSecret: secretsmanager.ISecret | undefined) {
    super();
  }

  identity() {
    const id = { source: 'huggingface' as const, repository: this.repository, revision: this.revision };
    return { deploy: id, hashed: id };
  }

  grantFetch(grantee: iam.IGrantable): void {
    this.tokenSecret?.grantRead(grantee);
  }

  grantList(): void {
    // Nothing to list: the Hub weights are identified by their commit.
  }
}

/** Candidates for compile_generative.py: beside the sources (this repository) and beside `dist/` (the package). */
const PROGRAM_CANDIDATES = [
  path.join(__dirname, '..', '..', 'serving', 'compile', 'compile_generative.py'),
  path.join(__dirname, '..', '..', '..', 'serving', 'compile', 'compile_generative.py'),
];

function compileProgram(): { path: string; content: Buffer } {
  const found = PROGRAM_CANDIDATES.find((p) => fs.existsSync(p));
  if (found === undefined) {
    throw new InputError(`the compile program serving/compile/compile_generative.py is not in ${PROGRAM_CANDIDATES.join(' or ')}; reinstall the package`);
  }
  return { path: found, content: fs.readFileSync(found) };
}

/**
 * Compiled generative artifacts as a hosting reads them: where `NEURON_COMPILED_ARTIFACTS` and the weights are, and
 * what the artifacts were compiled for (known at synth), to check against the hosting's plan and image before it
 * creates anything: `InputError.throwIfAny(checkGenerativeArtifacts(plan, imageSdk, artifacts.manifest, path))`.
 */
export interface ICompiledGenerativeArtifacts {
  /** Content hash of the spec and compile program: the artifacts' key and the model's fingerprint. */
  readonly hash: string;
  /** Bucket holding the artifacts under `artifactPrefix`. */
  readonly bucket: s3.IBucket;
  /** `<prefix><hash>/`. */
  readonly artifactPrefix: string;
  /** `s3://bucket/<prefix><hash>/compiled/`: copy it to the directory `NEURON_COMPILED_ARTIFACTS` names. */
  readonly s3Uri: string;
  /** `s3://` URI of the weights the engine loads (`--model`), staged beside the compiled artifacts. */
  readonly modelS3Uri: string;
  /** What the artifacts were compiled for: the manifest's facts, known at synth from the spec. */
  readonly manifest: GenerativeArtifactFacts;
  /** What a hosting waits for before it reads the files. */
  readonly resource: IDependable;
  /** Grants read on the compiled artifacts and the weights staged beside them. */
  grantRead(grantee: iam.IGrantable): void;
}

/** Props of {@link NeuronGenerativeCompileJob}. */
export interface NeuronGenerativeCompileJobProps {
  /** The plan the artifacts are for: its tensor parallel size, maximum sequences, model length, chip and LNC. */
  readonly plan: GenerativePlanForArtifact;
  readonly weights: GenerativeWeights;
  /**
   * The serving image (the vLLM Neuron DLC, by digest): the compile runs in it, so its Neuron SDK compiles.
   */
  readonly image: ModelImage;
  /**
   * Neuron SDK release of the image.
   *
   * @default - the image's own `neuronSdkVersion` (from a DLC tag); required when the image does not state it
   */
  readonly neuronSdkVersion?: string;
  /** Name used in messages and tags. @default - the plan's profile id, or 'model' */
  readonly model?: string;
  /** vLLM `--dtype` to compile with; pass the same to the hosting. @default 'auto' (the checkpoint's torch_dtype) */
  readonly dtype?: GenerativeCompileDtype;
  /** VPC of the compile host; its subnets need a route to S3, to the image's registry and, for Hub weights, to huggingface.co. */
  readonly vpc: ec2.IVpc;
  /** @default - the VPC's private subnets with egress */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** @default - the bucket `ModelData.fromAsset` uses (construct `NeuronModelData/Bucket`) */
  readonly bucket?: s3.IBucket;
  /** Key prefix of the artifacts; empty or ending with `/`. @default 'compiled/' */
  readonly prefix?: string;
  /**
   * Instance types to compile on, tried in order when EC2 lacks capacity; each must be of the plan's family with at
   * least the plan's tensor-parallel cores (the compile loads the model on them).
   *
   * @default - the plan's instance type
   */
  readonly compileInstanceTypes?: readonly string[];
  /** Longest the compile may run; at most 50 minutes (a custom resource's wait). @default Duration.minutes(45) */
  readonly timeout?: Duration;
  /**
   * Size of the weights on disk, which sizes the host's volume (weights, image, artifacts).
   *
   * @default - the plan's weights: unknown here, so 40 GiB
   */
  readonly weightsSize?: Size;
}

/**
 * Compiles a generative model for its plan as a deploy step: the serving image's vLLM compiles with NxD Inference for
 * the plan's tensor parallel size, maximum concurrent sequences and maximum model length, on one instance of the
 * plan's type, and the artifacts land in S3 under a content hash of the weights' identity, those settings, the SDK
 * and the compile program; an unchanged deploy finds them and compiles nothing.
 *
 * The same custom resource handler as {@link NeuronCompileJob} runs it (create, poll, delete). A hosting consumes
 * {@link ICompiledGenerativeArtifacts} and refuses at synth artifacts compiled for another plan or SDK.
 *
 * @see docs/compile.md#generative-models-vllm-on-neuron
 */
export class NeuronGenerativeCompileJob extends Construct implements ICompiledGenerativeArtifacts {
  /** The validated spec (weights identity as the hash sees it). */
  readonly spec: GenerativeCompileSpec;
  readonly hash: string;
  readonly bucket: s3.IBucket;
  readonly artifactPrefix: string;
  readonly manifest: GenerativeArtifactFacts;
  readonly resource: CustomResource;
  /** The compile host's role. */
  readonly instanceRole: iam.Role;

  constructor(scope: Construct, id: string, props: NeuronGenerativeCompileJobProps) {
    super(scope, id);
    markOwned(this);
    within(this, () => readGenerativePlanForArtifact(props.plan, 'plan'));
    const where = this.node.path;
    const stack = Stack.of(this);
    const identity = within(this, () => props.weights.identity(stack));
    const problems: string[] = [];
    const sdk = props.neuronSdkVersion ?? props.image.neuronSdkVersion;
    if (sdk === undefined) {
      problems.push(`${where}: the image states no Neuron SDK version; pass neuronSdkVersion (the SDK release of the serving `
        + 'image, e.g. "2.29.0") so the artifacts are keyed and checked by it');
    } else if (props.neuronSdkVersion !== undefined && props.image.neuronSdkVersion !== undefined
      && normalizeSdkVersion(props.neuronSdkVersion) !== normalizeSdkVersion(props.image.neuronSdkVersion)) {
      problems.push(`${where}: neuronSdkVersion=${props.neuronSdkVersion}, but the image is Neuron SDK ${props.image.neuronSdkVersion}; `
        + 'the compile runs in the image, so drop neuronSdkVersion or pass the image of that SDK');
    }
    const timeout = props.timeout ?? Duration.minutes(45);
    if (timeout.toMinutes({ integral: false }) > MAX_CUSTOM_RESOURCE_COMPILE_MINUTES) {
      problems.push(`${where}: timeout=${timeout.toMinutes({ integral: false })} minutes is longer than a custom resource can wait `
        + `(${MAX_CUSTOM_RESOURCE_COMPILE_MINUTES}); compile outside CloudFormation and pass the artifacts to the hosting by their prefix`);
    }
    const prefix = props.prefix ?? 'compiled/';
    if (prefix !== '' && (!prefix.endsWith('/') || prefix.startsWith('/'))) {
      problems.push(`${where}: prefix=${JSON.stringify(prefix)} must be empty or end with '/' and not start with '/', e.g. 'compiled/'`);
    }
    // A SageMaker plan names ml.<type>; the compile host is an EC2 instance of the same type. A Trn2/Trn3 plan compiles
    // on a CPU host sized to its weights (the vLLM Neuron plugin's CPU compilation, lib/compile/generative-spec.ts and host.ts).
    const cpuCompile = vllmEngineOf(props.plan.instance.family) === 'vllm-neuron-plugin';
    const planWeightsGiB = 'memoryGiB' in props.plan.generative
      ? (props.plan.generative as { memoryGiB: { weights: number } }).memoryGiB.weights : undefined;
    const hostWeightsGiB = props.weightsSize ? props.weightsSize.toMebibytes() / 1024 : planWeightsGiB ?? 40;
    const instanceTypes = (props.compileInstanceTypes ?? (cpuCompile ? cpuCompileHostTypes(hostWeightsGiB) : [props.plan.instanceType]))
      .map((t) => t.replace(/^ml\./, ''));
    if (!cpuCompile) problems.push(...hostProblems(where, props.plan, instanceTypes));
    const amiParameter = cpuCompile ? CPU_COMPILE_HOST_AMI_PARAMETER : GENERATIVE_HOST_AMI_PARAMETER;
    throwIfProblems(this, problems);

    const model = props.model ?? (('profileId' in props.plan ? String((props.plan as { profileId: unknown }).profileId) : '') || 'model');
    const spec = within(this, () => generativeSpecForPlan(props.plan,
      { model, weights: identity.hashed, neuronSdkVersion: sdk!, dtype: props.dtype }, 'spec'));
    this.spec = spec;
    const program = compileProgram();
    this.hash = generativeCompileHash(spec, program.content);
    this.bucket = props.bucket ?? ModelDataStore.of(this).bucket;
    this.artifactPrefix = artifactPrefixOf(prefix, this.hash);
    this.manifest = generativeFactsOfSpec(spec);
    const jobTag = this.node.addr;

    const entry = path.join(__dirname, '..', '..', 'lambdas', 'compile-job', 'index.ts');
    const onEvent = new NeuronFunction(this, 'OnEvent', {
      entry, description: `Starts or stops the generative compile of ${model}`, timeout: Duration.minutes(2),
      environment: { COMPILE_JOB_STEP: 'onEvent' },
    });
    const isComplete = new NeuronFunction(this, 'IsComplete', {
      entry, description: `Polls the generative compile of ${model}`, timeout: Duration.minutes(2),
      environment: { COMPILE_JOB_STEP: 'isComplete' },
    });
    for (const fn of [onEvent, isComplete]) {
      this.bucket.grantRead(fn, `${prefix}*`);
    }
    props.weights.grantList(onEvent);

    const role = new iam.Role(this, 'InstanceRole', {
      assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
      description: `Generative compile host of ${model}: reads the weights${props.weights.tokenSecret ? ' and the Hub token' : ''}, pulls the serving image, writes ${this.artifactPrefix}`,
    });
    this.instanceRole = role;
    const asset = new s3assets.Asset(this, 'Program', { path: program.path });
    asset.grantRead(role);
    this.bucket.grantPut(role, `${this.artifactPrefix}*`);
    props.weights.grantFetch(role);
    const image = props.image.bind(this, role, NeuronInstanceType.of(props.plan.instanceType));
    const { securityGroup, launch } = compileHost(this, role, props, instanceTypes,
      `Generative compile host of ${model}: no ingress; egress to S3, the image registry and the weights source`);
    grantCompileLaunch(this, onEvent, isComplete, role, securityGroup, amiParameter, jobTag, this.hash);
    acknowledgeCompileFindings(role, [onEvent, isComplete], this.artifactPrefix);

    const weightsGiB = props.weightsSize ? props.weightsSize.toMebibytes() / 1024 : 40;
    this.resource = compileJobResource(this, onEvent, isComplete, timeout, {
      kind: 'generative',
      spec: { ...spec, weights: identity.deploy },
      hash: this.hash,
      region: stack.region,
      bucket: this.bucket.bucketName,
      prefix,
      timeoutSeconds: Math.round(timeout.toSeconds()),
      image: image.imageUri,
      ...(props.weights.tokenSecret ? { tokenSecretArn: props.weights.tokenSecret.secretArn } : {}),
      instance: {
        ...launch,
        amiParameter,
        scriptS3Uri: asset.s3ObjectUrl,
        scriptSha256: sha256Hex(program.content),
        // The image (~20 GiB unpacked), the weights, a staged copy for Hub weights, the artifacts.
        extraVolumeGiB: Math.ceil(60 + 3 * weightsGiB),
        jobTag,
      },
    });
  }

  /** `s3://bucket/<prefix><hash>/compiled/`. */
  get s3Uri(): string {
    return this.bucket.s3UrlForObject(`${this.artifactPrefix}${COMPILED_ARTIFACTS_DIR}`);
  }

  /** The weights the engine loads, staged beside the artifacts: `s3://bucket/<prefix><hash>/model/`. */
  get modelS3Uri(): string {
    return this.bucket.s3UrlForObject(`${this.artifactPrefix}${STAGED_MODEL_DIR}`);
  }

  /** Neuron compiler's NxD Inference version the compile ran (resolved at deploy). */
  get nxdInferenceVersion(): string {
    return this.resource.getAttString('NxdInferenceVersion');
  }

  /** What the greedy check after the load answered (resolved at deploy). */
  get checkOutput(): string {
    return this.resource.getAttString('CheckOutput');
  }

  /**
   * Grants read on the artifact prefix, which holds the compiled artifacts and the weights staged beside them (from S3
   * or the Hub alike): the hosting never reads the weights' source, nor the Hub token the compile host downloaded with.
   */
  grantRead(grantee: iam.IGrantable): void {
    this.bucket.grantRead(grantee, `${this.artifactPrefix}*`);
  }
}

/** Compile hosts that cannot load the plan's replica: another family, or fewer cores than its tensor-parallel group. */
function hostProblems(where: string, plan: GenerativePlanForArtifact, types: readonly string[]): string[] {
  const problems: string[] = [];
  const tp = plan.generative.engine.tensorParallelSize;
  for (const type of types) {
    const spec = BUILT_IN_INSTANCES.find((i) => i.name === type);
    if (spec === undefined) {
      problems.push(`${where}: compileInstanceTypes: ${type} is not a Neuron instance type this library knows; use the plan's ${plan.instanceType.replace(/^ml\./, '')}`);
    } else if (spec.family !== plan.instance.family) {
      problems.push(`${where}: compileInstanceTypes: ${type} is ${spec.family}, the plan runs ${plan.instance.family}; the compile `
        + `must run on the plan's chip: use ${plan.instanceType} or a larger ${plan.instance.family} type`);
    } else if (spec.chips * spec.coresPerChip < tp) {
      problems.push(`${where}: compileInstanceTypes: ${type} has ${spec.chips * spec.coresPerChip} NeuronCores, fewer than the `
        + `plan's tensor parallel size ${tp}; the compile loads the model on them: use ${plan.instanceType}`);
    }
  }
  return problems;
}

/**
 * Refuses at synth generative artifacts that do not fit the hosting's plan and image: tensor parallel size, maximum
 * sequences, model length, Neuron SDK, chip, LNC. The one call a hosting makes with the artifacts it was given.
 *
 * @throws InputError listing every mismatch, each naming the field, both values and the fix
 */
export function assertGenerativeArtifactsMatchPlan(scope: Construct, artifacts: ICompiledGenerativeArtifacts,
  plan: GenerativePlanForArtifact, imageSdkVersion: string): void {
  const origin = artifacts instanceof Construct ? `compiled artifacts ${artifacts.node.path}` : 'compiled artifacts';
  throwIfProblems(scope, checkGenerativeArtifacts(plan, imageSdkVersion, artifacts.manifest, origin));
}
