import * as fs from 'fs';
import * as path from 'path';
import { Annotations, CustomResource, Duration, Size, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import { Construct } from 'constructs';
import { compiledArtifactProblems, type CompiledArtifactFacts, type PlanForArtifact } from '../../lib/compile/check';
import { artifactPrefixOf, compileHash, sha256Hex } from '../../lib/compile/hash';
import { compileHostTypes, DLAMI_PARAMETERS, MAX_CUSTOM_RESOURCE_COMPILE_MINUTES } from '../../lib/compile/host';
import { parseCompileSpec, type CompileSpec, type CompileSpecInput } from '../../lib/compile/spec';
import { InputError } from '../../lib/errors';
import { readPlanForArtifact } from '../../lib/plan-document/read';
import { ICompiledModelArtifacts, ModelData } from '../model/model-data';
import { ModelDataStore } from '../private/data-store';
import { NeuronFunction } from '../private/neuron-function';
import { acknowledgeCompileFindings, compileHost, compileJobResource, grantCompileLaunch, neoProblems } from './private/compile-backend';
import { throwIfProblems, within } from '../private/construct-errors';
import { markOwned } from '../private/ownership';

/** Settings of the SageMaker Neo backend. */
export interface NeoBackendOptions {
  /** `s3://.../model.tar.gz`: the TorchScript model Neo compiles, in the bucket `modelBucket`. */
  readonly modelS3Uri: string;
  /** Bucket of `modelS3Uri`, read by Neo's role. */
  readonly modelBucket: s3.IBucket;
  /** PyTorch version of the model (Neo's `FrameworkVersion`), e.g. `1.13`. */
  readonly frameworkVersion: string;
}

/**
 * Where the compile runs: an EC2 instance from the Neuron DLAMI (the default; it also measures the artifact when it
 * runs on the target chip) or SageMaker Neo.
 */
export class CompileBackend {
  /** A compile instance from the Neuron DLAMI, on the target chip. */
  static instance(): CompileBackend {
    return new CompileBackend('instance');
  }

  /**
   * SageMaker Neo `CreateCompilationJob` for `ml_inf1`, `ml_inf2` or `ml_trn1`. Neo compiles one shape (one batch
   * size), writes a compressed `model.tar.gz`, and measures nothing.
   */
  static neo(options: NeoBackendOptions): CompileBackend {
    return new CompileBackend('neo', options);
  }

  private constructor(
    /** Where the compile runs. */
    readonly kind: 'instance' | 'neo',
    /** The Neo settings, for `neo`. */
    readonly neo?: NeoBackendOptions,
  ) {}
}

/** Props of {@link NeuronCompileJob}. */
export interface NeuronCompileJobProps {
  /** The compile spec (format: docs/compile.md), e.g. `JSON.parse(fs.readFileSync('compile-spec.json', 'utf8'))`. */
  readonly spec: CompileSpecInput;

  /**
   * The plan the artifact is for: its chip, cores per process and batch size are checked against the spec at synth.
   *
   * @default - no check here; hostings check it when they consume the job's model data
   */
  readonly plan?: PlanForArtifact;

  /** VPC of the compile instance. Its subnets need a route to S3 (and to the Hub for a Hub source). */
  readonly vpc: ec2.IVpc;

  /**
   * Subnets the compile instance may use; each further subnet (Availability Zone) is a capacity fallback.
   *
   * @default - the VPC's private subnets with egress
   */
  readonly vpcSubnets?: ec2.SubnetSelection;

  /**
   * Bucket the artifacts go to, under `<prefix><hash>/`.
   *
   * @default - the bucket `ModelData.fromAsset` uses (construct `NeuronModelData/Bucket`)
   */
  readonly bucket?: s3.IBucket;

  /** Key prefix of the artifacts; empty or ending with `/`. @default 'compiled/' */
  readonly prefix?: string;

  /**
   * Bucket holding an `s3://` source of the spec; the compile instance gets read on the source prefix.
   *
   * @default - none: required when the spec's source is an s3Uri
   */
  readonly sourceBucket?: s3.IBucket;

  /**
   * Size of the model's weights on disk, which sizes the compile host's RAM.
   *
   * @default Size.gibibytes(1)
   */
  readonly modelSize?: Size;

  /**
   * Instance types to compile on, tried in order when EC2 lacks capacity.
   *
   * @default - the smallest instance of the target chip with 1.5 x the RAM the compile needs, then two larger ones
   */
  readonly compileInstanceTypes?: readonly string[];

  /**
   * Longest the compile may run; at most 50 minutes, what a CloudFormation custom resource can wait. Longer
   * compiles run with `cdk-inferentia compile --spec FILE --wait`, and the stack uses the artifact by its hash.
   *
   * @default Duration.minutes(45)
   */
  readonly timeout?: Duration;

  /** @default CompileBackend.instance() */
  readonly backend?: CompileBackend;

  /**
   * SSM parameter of the AMI to boot.
   *
   * @default - the Neuron DLAMI for the chip: multi-framework Ubuntu 24.04 (Inf2, Trn1), PyTorch 1.13 Inf1 Ubuntu 22.04
   */
  readonly amiParameter?: string;
}

/** Candidates for compile.py: beside the sources (this repository) and beside `dist/` (the package). */
const SCRIPT_CANDIDATES = [
  path.join(__dirname, '..', '..', 'serving', 'compile', 'compile.py'),
  path.join(__dirname, '..', '..', '..', 'serving', 'compile', 'compile.py'),
];

/**
 * The compile script's path and bytes.
 *
 * Declared as `Uint8Array`, the language's byte array (Node's own is a subclass): the published declaration then needs no Node types, which
 * a consumer compiling with TypeScript 7's default `types: []` does not have.
 */
export function compileScript(): { path: string; content: Uint8Array } {
  const found = SCRIPT_CANDIDATES.find((p) => fs.existsSync(p));
  if (found === undefined) {
    throw new InputError(`the compile script serving/compile/compile.py is not in ${SCRIPT_CANDIDATES.join(' or ')}; `
      + 'reinstall the package');
  }
  return { path: found, content: fs.readFileSync(found) };
}

/**
 * Compiles a model for a Neuron chip as a deploy step, keyed by a content hash of the spec and the compile script.
 *
 * A custom resource (Provider framework with `isComplete`) launches one compile instance from the Neuron DLAMI
 * (IMDSv2 only, encrypted root volume, terminate on shutdown, a role that reads the source and writes only this
 * artifact's prefix, a security group without ingress), or a SageMaker Neo job, and waits for `manifest.json`.
 * A manifest already there for the hash launches nothing: unchanged specs never recompile. Failures (out of
 * memory, unsupported operators, accuracy, timeout) reach the CloudFormation event with their reason. Delete keeps
 * the artifacts and terminates a running compile.
 *
 * Hostings consume {@link modelData} and check {@link artifact} against their plan with
 * {@link assertArtifactMatchesPlan}.
 *
 * @see docs/compile.md
 */
export class NeuronCompileJob extends Construct implements ICompiledModelArtifacts {
  /** The validated spec, defaults filled in. */
  readonly spec: CompileSpec;
  /** Content hash of spec and compile script: the artifact's key. */
  readonly hash: string;
  /** Bucket holding the artifacts. */
  readonly bucket: s3.IBucket;
  /** `<prefix><hash>/`: the key prefix of the artifacts, known at synth. */
  readonly artifactPrefix: string;
  /** Facts of the artifact a hosting checks against its plan, from the spec (known at synth). */
  readonly artifact: CompiledArtifactFacts;
  /** The custom resource; its attributes are read after the compile finished. */
  readonly resource: CustomResource;
  /** The compile instance's role (undefined for Neo). */
  readonly instanceRole?: iam.Role;

  constructor(scope: Construct, id: string, props: NeuronCompileJobProps) {
    super(scope, id);
    markOwned(this);
    if (props.plan !== undefined) {
      within(this, () => readPlanForArtifact(props.plan, 'plan'));
    }
    const spec = within(this, () => parseCompileSpec(props.spec, 'spec'));
    const backend = props.backend ?? CompileBackend.instance();
    const timeout = props.timeout ?? Duration.minutes(45);
    const prefix = props.prefix ?? 'compiled/';
    const script = compileScript();
    const hash = compileHash(spec, [{ name: 'compile.py', content: script.content }]);
    const region = Stack.of(this).region;
    const problems: string[] = [];
    if (timeout.toMinutes({ integral: false }) > MAX_CUSTOM_RESOURCE_COMPILE_MINUTES) {
      problems.push(`${this.node.path}: timeout=${timeout.toMinutes({ integral: false })} minutes is longer than a CloudFormation `
        + `custom resource can wait for a compile (${MAX_CUSTOM_RESOURCE_COMPILE_MINUTES} minutes); run \`cdk-inferentia compile `
        + `--spec FILE --wait\` (no time limit) and use the artifact with ModelData.fromBucket(bucket, '${prefix}${hash}/')`);
    }
    if (!Token.isUnresolved(prefix) && prefix !== '' && (!prefix.endsWith('/') || prefix.startsWith('/'))) {
      problems.push(`${this.node.path}: prefix=${JSON.stringify(prefix)} must be empty or end with '/' and not start with '/', e.g. 'compiled/'`);
    }
    if ('s3Uri' in spec.source && props.sourceBucket === undefined && backend.kind === 'instance') {
      problems.push(`${this.node.path}: the spec's source is ${spec.source.s3Uri}; pass sourceBucket (the IBucket holding it) so the `
        + 'compile instance may read it');
    }
    if (backend.kind === 'neo') {
      problems.push(...neoProblems(this.node.path, spec, backend.neo!, region));
    }
    if (props.plan !== undefined) {
      problems.push(...compiledArtifactProblems(spec, props.plan, 'spec'));
    }
    const modelSizeGiB = (props.modelSize ?? Size.gibibytes(1)).toMebibytes() / 1024;
    const instanceTypes = compileHostTypes(spec, modelSizeGiB, props.compileInstanceTypes);
    if (backend.kind === 'instance' && instanceTypes.length === 0) {
      problems.push(`${this.node.path}: no ${spec.chip} instance has the ${Math.ceil(modelSizeGiB)} GiB model's compile RAM; `
        + 'pass compileInstanceTypes');
    }
    throwIfProblems(this, problems);

    this.spec = spec;
    this.hash = hash;
    this.bucket = props.bucket ?? ModelDataStore.of(this).bucket;
    this.artifactPrefix = artifactPrefixOf(prefix, hash);
    this.artifact = { chip: spec.chip, coresPerProcess: spec.coresPerProcess, batchSizes: spec.batchSizes };
    const jobTag = this.node.addr;

    const onEvent = new NeuronFunction(this, 'OnEvent', {
      entry: path.join(__dirname, '..', '..', 'lambdas', 'compile-job', 'index.ts'),
      description: `Starts or stops the Neuron compile of ${spec.model}`,
      timeout: Duration.minutes(2),
      environment: { COMPILE_JOB_STEP: 'onEvent' },
    });
    const isComplete = new NeuronFunction(this, 'IsComplete', {
      entry: path.join(__dirname, '..', '..', 'lambdas', 'compile-job', 'index.ts'),
      description: `Polls the Neuron compile of ${spec.model}`,
      timeout: Duration.minutes(2),
      environment: { COMPILE_JOB_STEP: 'isComplete' },
    });
    const handlers = [onEvent, isComplete];
    // Manifests and failure records of any hash under the prefix: a Delete after an Update names the old hash.
    for (const fn of handlers) {
      this.bucket.grantRead(fn, `${prefix}*`);
    }

    let config: Record<string, unknown>;
    if (backend.kind === 'instance') {
      const asset = new s3assets.Asset(this, 'Script', { path: script.path });
      const role = new iam.Role(this, 'InstanceRole', {
        assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
        description: `Neuron compile host of ${spec.model}: reads the source and the script, writes ${this.artifactPrefix}`,
      });
      asset.grantRead(role);
      this.bucket.grantPut(role, `${this.artifactPrefix}*`);
      if ('s3Uri' in spec.source && props.sourceBucket) {
        props.sourceBucket.grantRead(role, `${spec.source.s3Uri.replace(/^s3:\/\/[^/]+\//, '')}*`);
      }
      const { securityGroup, launch } = compileHost(this, role, props, instanceTypes,
        `Neuron compile host of ${spec.model}: no ingress; egress to S3 and the model source`);
      this.instanceRole = role;
      const amiParameter = props.amiParameter ?? DLAMI_PARAMETERS[spec.chip];
      config = {
        instance: {
          ...launch,
          amiParameter,
          extraVolumeGiB: Math.ceil(20 + 4 * modelSizeGiB),
          scriptS3Uri: asset.s3ObjectUrl,
          scriptSha256: sha256Hex(script.content),
          jobTag,
        },
      };
      grantCompileLaunch(this, onEvent, isComplete, role, securityGroup, amiParameter, jobTag, hash);
      acknowledgeCompileFindings(role, handlers, this.artifactPrefix);
    } else {
      const neo = backend.neo!;
      const role = new iam.Role(this, 'NeoRole', {
        assumedBy: new iam.ServicePrincipal('sagemaker.amazonaws.com'),
        description: `SageMaker Neo compile of ${spec.model}`,
      });
      neo.modelBucket.grantRead(role, neo.modelS3Uri.replace(/^s3:\/\/[^/]+\//, ''));
      this.bucket.grantPut(role, `${this.artifactPrefix}*`);
      const jobArn = Stack.of(this).formatArn({ service: 'sagemaker', resource: 'compilation-job', resourceName: 'cdk-inferentia-*' });
      onEvent.addToRolePolicy(new iam.PolicyStatement({ actions: ['sagemaker:CreateCompilationJob', 'sagemaker:StopCompilationJob', 'sagemaker:AddTags'], resources: [jobArn] }));
      isComplete.addToRolePolicy(new iam.PolicyStatement({ actions: ['sagemaker:DescribeCompilationJob'], resources: [jobArn] }));
      role.grantPassRole(onEvent.grantPrincipal);
      this.bucket.grantPut(isComplete, `${this.artifactPrefix}${'manifest.json'}`);
      config = { neo: { roleArn: role.roleArn, modelS3Uri: neo.modelS3Uri, frameworkVersion: neo.frameworkVersion } };
      acknowledgeCompileFindings(role, handlers, this.artifactPrefix);
    }

    this.resource = compileJobResource(this, onEvent, isComplete, timeout, {
      spec, hash, region, bucket: this.bucket.bucketName, prefix,
      timeoutSeconds: Math.round(timeout.toSeconds()), backend: backend.kind, ...config,
    });
    if (backend.kind === 'neo') {
      Annotations.of(this).addWarningV2('cdk-inferentia:compile-neo-tarball',
        'SageMaker Neo writes a compressed model.tar.gz and runs no accuracy check or measurement: the hostings mount '
        + 'the artifact prefix uncompressed, so unpack it in your handler or use the instance backend');
    }
  }

  /** The artifacts as model data for a hosting (`ModelData.fromCompileJob(this)`). */
  get modelData(): ModelData {
    return ModelData.fromCompileJob(this);
  }

  /** `s3://bucket/<prefix><hash>/`. */
  get artifactS3Uri(): string {
    return this.bucket.s3UrlForObject(this.artifactPrefix);
  }

  /** Compiler version the compile host ran (resolved at deploy). */
  get compilerVersion(): string {
    return this.resource.getAttString('CompilerVersion');
  }

  /** Neuron runtime version on the compile host (resolved at deploy). */
  get runtimeVersion(): string {
    return this.resource.getAttString('RuntimeVersion');
  }

  /** `s3://.../profile.json` the compile measured on the chip, or empty (resolved at deploy). */
  get profileS3Uri(): string {
    return this.resource.getAttString('ProfileS3Uri');
  }

  /** Seconds the compile took, or the original compile's for a cache hit (resolved at deploy). */
  get compileSeconds(): string {
    return this.resource.getAttString('CompileSeconds');
  }
}

/**
 * Refuses at synth an artifact that does not fit `plan`: chip, NeuronCore generation, cores per process, batch size.
 *
 * The one call a hosting makes with the model data it was given:
 * `assertArtifactMatchesPlan(this, props.compileJob, props.plan)`.
 *
 * @param scope named in each message (the hosting)
 * @param artifact the compile job, or its `artifact` facts
 * @throws InputError listing every mismatch
 */
export function assertArtifactMatchesPlan(scope: Construct, artifact: NeuronCompileJob | CompiledArtifactFacts,
  plan: PlanForArtifact): void {
  const facts = artifact instanceof NeuronCompileJob ? artifact.artifact : artifact;
  const origin = artifact instanceof NeuronCompileJob ? `compile job ${artifact.node.path}` : 'compiled artifact';
  throwIfProblems(scope, compiledArtifactProblems(facts, plan, origin));
}
