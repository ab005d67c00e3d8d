/**
 * The compile job's state machine, shared by the custom resource's handlers and `cdk-inferentia compile`.
 *
 * start: a manifest already under `<prefix><hash>/` is the cache and returns at once; a compile instance already
 * running for the hash is adopted (a repeated Update, a CLI run beside a deploy); otherwise one instance is launched
 * from the Neuron DLAMI, trying the next subnet (Availability Zone) and then the next instance type on
 * `InsufficientInstanceCapacity`. With the Neo backend, a SageMaker compilation job is created instead.
 * check: the manifest means success; a failure record, an instance gone without either, or the timeout is a
 * failure with its reason. remove: terminates what still runs for the hash; the artifacts stay (they are the cache).
 */
import { randomBytes, createHash } from 'node:crypto';
import {
  DescribeImagesCommand,
  DescribeInstancesCommand,
  RunInstancesCommand,
  TerminateInstancesCommand,
  type _InstanceType,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  CreateCompilationJobCommand,
  DescribeCompilationJobCommand,
  StopCompilationJobCommand,
  type SageMakerClient,
  type TargetDevice,
} from '@aws-sdk/client-sagemaker';
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { renderBootScript } from '../../lib/compile/boot-script';
import { artifactPrefixOf } from '../../lib/compile/hash';
import { failureSchema, MANIFEST_FILE, MANIFEST_FORMAT_VERSION, parseManifest, type CompileFailure, type CompileManifest } from '../../lib/compile/manifest';
import { CHIP_CORE_VERSION, type CompileSpec } from '../../lib/compile/spec';

/** Tag naming the content hash on the compile instance, its volume and interface. */
export const HASH_TAG = 'cdk-inferentia:compile-hash';
/** Tag naming the launch attempt, whose failure record the job reads. */
export const ATTEMPT_TAG = 'cdk-inferentia:compile-attempt';
/** Names the job (a construct's address, or `cli`): the handler's terminate permission is scoped to it. */
export const JOB_TAG = 'cdk-inferentia:compile-job';

/** Where and how the compile host runs. */
export interface CompileInstanceSettings {
  /** Instance types in the order tried. */
  readonly instanceTypes: readonly string[];
  /** Subnets tried in order for each type (one per Availability Zone gives the capacity fallback its reach). */
  readonly subnetIds: readonly string[];
  readonly securityGroupIds: readonly string[];
  /** ARN of the instance profile whose role reads the source and the script and writes the artifacts. */
  readonly instanceProfileArn: string;
  /** SSM parameter holding the DLAMI's image id. */
  readonly amiParameter: string;
  /** Root volume GiB on top of the AMI's snapshot size (the model, its copies and the artifacts). */
  readonly extraVolumeGiB: number;
  /** KMS key ARN for the root volume. @default - the account's default EBS key */
  readonly kmsKeyArn?: string;
  /** `s3://` URI of `compile.py` and its SHA-256. */
  readonly scriptS3Uri: string;
  readonly scriptSha256: string;
  /** Value of the {@link JOB_TAG} tag, stable across the job's updates. @default 'cli' */
  readonly jobTag?: string;
}

/** SageMaker Neo settings. */
export interface CompileNeoSettings {
  readonly roleArn: string;
  /** `s3://.../model.tar.gz` holding the TorchScript model Neo compiles. */
  readonly modelS3Uri: string;
  /** PyTorch version of the model, e.g. `1.13`. */
  readonly frameworkVersion: string;
}

/** The whole job, as the construct renders it into the custom resource's `Config` property (JSON). */
export interface CompileJobConfig {
  readonly spec: CompileSpec;
  readonly hash: string;
  readonly region: string;
  readonly bucket: string;
  /** Key prefix under which each artifact gets `<hash>/`; empty or ending with `/`. */
  readonly prefix: string;
  readonly timeoutSeconds: number;
  readonly backend: 'instance' | 'neo';
  readonly instance?: CompileInstanceSettings;
  readonly neo?: CompileNeoSettings;
}

/** AWS clients the job uses. */
export interface CompileJobClients {
  readonly ec2: EC2Client;
  readonly s3: S3Client;
  readonly ssm: SSMClient;
  readonly sagemaker: SageMakerClient;
}

/** What `startCompileJob` did; carried between calls (the Provider passes it as `Data`). */
export interface CompileJobState {
  readonly status: 'cached' | 'launched' | 'adopted';
  readonly startedAt: number;
  readonly attemptId?: string;
  readonly instanceId?: string;
  readonly instanceType?: string;
  readonly neoJobName?: string;
  /** Types or subnets skipped for capacity, for the log. */
  readonly skipped: readonly string[];
  readonly manifest?: CompileManifest;
}

/** A compile that failed, with the reason CloudFormation or the CLI shows. */
export class CompileJobFailedError extends Error {
  constructor(readonly reason: string, readonly failure?: CompileFailure) {
    super(reason);
    this.name = 'CompileJobFailedError';
  }
}

/** `<prefix><hash>/`: where the artifacts and the manifest go. */
export function artifactPrefix(config: Pick<CompileJobConfig, 'prefix' | 'hash'>): string {
  return artifactPrefixOf(config.prefix, config.hash);
}

/** The Neo job name for a hash (Neo names: 1-63 characters, letters, digits and hyphens). */
export function neoJobName(hash: string): string {
  return `cdk-inferentia-${hash}`;
}

/** The AWS error's code or name, '' for anything else. */
export function errorName(e: unknown): string {
  return e instanceof Error ? ((e as { Code?: string }).Code ?? e.name) : '';
}

/** A JSON object from S3, or undefined when the key is absent. */
export async function readJson(clients: CompileJobClients, bucket: string, key: string): Promise<unknown | undefined> {
  try {
    const out = await clients.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const body = await out.Body?.transformToString();
    return body === undefined ? undefined : JSON.parse(body);
  } catch (e) {
    if (errorName(e) === 'NoSuchKey' || errorName(e) === 'NotFound') {
      return undefined;
    }
    throw e;
  }
}

/** The manifest for the config's hash, if a compile finished. */
export async function readManifest(config: CompileJobConfig, clients: CompileJobClients): Promise<CompileManifest | undefined> {
  const key = `${artifactPrefix(config)}${MANIFEST_FILE}`;
  const json = await readJson(clients, config.bucket, key);
  return json === undefined ? undefined : parseManifest(json, `s3://${config.bucket}/${key}`);
}

/** Compile hosts pending or running for the config's hash. */
export async function runningInstances(config: Pick<CompileJobConfig, 'hash'>, clients: CompileJobClients) {
  const out = await clients.ec2.send(new DescribeInstancesCommand({
    Filters: [
      { Name: `tag:${HASH_TAG}`, Values: [config.hash] },
      { Name: 'instance-state-name', Values: ['pending', 'running'] },
    ],
  }));
  return (out.Reservations ?? []).flatMap((r) => r.Instances ?? []);
}

const CAPACITY_ERRORS = new Set(['InsufficientInstanceCapacity', 'Unsupported', 'InsufficientCapacity']);

/** What a launch needs of a job, single-call or generative. */
export interface LaunchTarget {
  readonly hash: string;
  /** Model name, for the instance's Name tag. */
  readonly model: string;
}

/**
 * Launches one compile host from the settings' AMI, trying each instance type in each subnet on capacity errors.
 *
 * @param userDataFor renders the boot script for the instance type launched
 */
export async function launchCompileHost(target: LaunchTarget, settings: Omit<CompileInstanceSettings, 'scriptS3Uri' | 'scriptSha256'>,
  clients: CompileJobClients, now: number, attemptId: string, userDataFor: (instanceType: string) => string): Promise<CompileJobState> {
  const config = target;
  const parameter = await clients.ssm.send(new GetParameterCommand({ Name: settings.amiParameter }));
  const imageId = parameter.Parameter?.Value;
  if (!imageId) {
    throw new CompileJobFailedError(`SSM parameter ${settings.amiParameter} holds no AMI id; pass another DLAMI parameter`);
  }
  const image = (await clients.ec2.send(new DescribeImagesCommand({ ImageIds: [imageId] }))).Images?.[0];
  const rootName = image?.RootDeviceName ?? '/dev/sda1';
  const snapshotGiB = image?.BlockDeviceMappings?.find((m) => m.DeviceName === rootName)?.Ebs?.VolumeSize ?? 100;
  const skipped: string[] = [];
  for (const instanceType of settings.instanceTypes) {
    for (const subnetId of settings.subnetIds) {
      const userData = userDataFor(instanceType);
      const tags = [
        { Key: 'Name', Value: `cdk-inferentia-compile-${config.model}`.slice(0, 255) },
        { Key: HASH_TAG, Value: config.hash },
        { Key: ATTEMPT_TAG, Value: attemptId },
        { Key: JOB_TAG, Value: settings.jobTag ?? 'cli' },
      ];
      try {
        const out = await clients.ec2.send(new RunInstancesCommand({
          ImageId: imageId,
          InstanceType: instanceType as _InstanceType,
          MinCount: 1,
          MaxCount: 1,
          SubnetId: subnetId,
          SecurityGroupIds: [...settings.securityGroupIds],
          IamInstanceProfile: { Arn: settings.instanceProfileArn },
          InstanceInitiatedShutdownBehavior: 'terminate',
          MetadataOptions: { HttpTokens: 'required', HttpEndpoint: 'enabled', HttpPutResponseHopLimit: 1 },
          BlockDeviceMappings: [{
            DeviceName: rootName,
            Ebs: {
              VolumeSize: snapshotGiB + settings.extraVolumeGiB,
              VolumeType: 'gp3',
              Encrypted: true,
              DeleteOnTermination: true,
              ...(settings.kmsKeyArn ? { KmsKeyId: settings.kmsKeyArn } : {}),
            },
          }],
          UserData: Buffer.from(userData, 'utf8').toString('base64'),
          // Every resource the launch creates carries the tags: the handler's launch permission requires them on each.
          TagSpecifications: (['instance', 'volume', 'network-interface'] as const).map((ResourceType) => ({ ResourceType, Tags: tags })),
          // Same attempt, type and subnet: a retried call returns the same instance instead of a second one.
          ClientToken: createHash('sha256').update(`${config.hash}/${attemptId}/${instanceType}/${subnetId}`).digest('hex').slice(0, 64),
        }));
        const instanceId = out.Instances?.[0]?.InstanceId;
        return { status: 'launched', startedAt: now, attemptId, instanceId, instanceType, skipped };
      } catch (e) {
        if (!CAPACITY_ERRORS.has(errorName(e))) {
          throw e;
        }
        skipped.push(`${instanceType} in ${subnetId}: ${errorName(e)}`);
      }
    }
  }
  throw new CompileJobFailedError(`no capacity for the compile host: ${skipped.join('; ')}; add instance types `
    + '(compileInstanceTypes / --instance-type) or subnets in other Availability Zones, or retry later');
}

/** Neo target device per chip. */
const NEO_DEVICE: Readonly<Record<CompileSpec['chip'], TargetDevice>> = { inf1: 'ml_inf1', inf2: 'ml_inf2', trn1: 'ml_trn1' };

async function startNeo(config: CompileJobConfig, neo: CompileNeoSettings, clients: CompileJobClients, now: number): Promise<CompileJobState> {
  const name = neoJobName(config.hash);
  const shape = config.spec.sequenceLength !== undefined
    ? { input_ids: [config.spec.batchSizes[0], config.spec.sequenceLength], attention_mask: [config.spec.batchSizes[0], config.spec.sequenceLength] }
    : { input0: [config.spec.batchSizes[0], 3, config.spec.imageSize, config.spec.imageSize] };
  try {
    await clients.sagemaker.send(new CreateCompilationJobCommand({
      CompilationJobName: name,
      RoleArn: neo.roleArn,
      InputConfig: { S3Uri: neo.modelS3Uri, DataInputConfig: JSON.stringify(shape), Framework: 'PYTORCH', FrameworkVersion: neo.frameworkVersion },
      OutputConfig: { S3OutputLocation: `s3://${config.bucket}/${artifactPrefix(config)}`, TargetDevice: NEO_DEVICE[config.spec.chip] },
      StoppingCondition: { MaxRuntimeInSeconds: config.timeoutSeconds },
      Tags: [{ Key: HASH_TAG, Value: config.hash }],
    }));
    return { status: 'launched', startedAt: now, neoJobName: name, skipped: [] };
  } catch (e) {
    if (errorName(e) === 'ResourceInUse') {
      return { status: 'adopted', startedAt: now, neoJobName: name, skipped: [] };
    }
    throw e;
  }
}

/**
 * Starts the compile, or finds it done or under way.
 *
 * @param now milliseconds since the epoch (injected so tests and the CLI agree on the clock)
 * @param attemptId names this launch's failure record; a fresh random one by default
 */
export async function startCompileJob(config: CompileJobConfig, clients: CompileJobClients, now = Date.now(),
  attemptId = randomBytes(6).toString('hex')): Promise<CompileJobState> {
  const manifest = await readManifest(config, clients);
  if (manifest !== undefined) {
    return { status: 'cached', startedAt: now, manifest, skipped: [] };
  }
  if (config.backend === 'neo') {
    if (config.neo === undefined) {
      throw new CompileJobFailedError('backend neo without neo settings');
    }
    return startNeo(config, config.neo, clients, now);
  }
  if (config.instance === undefined) {
    throw new CompileJobFailedError('backend instance without instance settings');
  }
  const [running] = await runningInstances(config, clients);
  if (running !== undefined) {
    const attempt = running.Tags?.find((t) => t.Key === ATTEMPT_TAG)?.Value;
    return {
      status: 'adopted',
      startedAt: running.LaunchTime?.getTime() ?? now,
      attemptId: attempt,
      instanceId: running.InstanceId,
      instanceType: running.InstanceType,
      skipped: [],
    };
  }
  const settings = config.instance;
  return launchCompileHost({ hash: config.hash, model: config.spec.model }, settings, clients, now, attemptId, (instanceType) => renderBootScript({
    region: config.region,
    bucket: config.bucket,
    artifactPrefix: artifactPrefix(config),
    attemptId,
    instanceType,
    scriptS3Uri: settings.scriptS3Uri,
    scriptSha256: settings.scriptSha256,
    spec: config.spec,
    hash: config.hash,
    timeoutSeconds: config.timeoutSeconds,
  }));
}

/** Reads the failure record of an attempt, if the boot script wrote one. */
export async function readFailure(config: Pick<CompileJobConfig, 'bucket' | 'prefix' | 'hash'>, clients: CompileJobClients, attemptId: string): Promise<CompileFailure | undefined> {
  const json = await readJson(clients, config.bucket, `${artifactPrefix(config)}attempts/${attemptId}/failure.json`);
  return json === undefined ? undefined : failureSchema().parse(json);
}

/** Terminates an instance; one already gone is fine. */
export async function terminate(clients: CompileJobClients, instanceId: string | undefined): Promise<void> {
  if (instanceId === undefined) {
    return;
  }
  try {
    await clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }));
  } catch (e) {
    if (errorName(e) !== 'InvalidInstanceID.NotFound') {
      throw e;
    }
  }
}

/** The sentence a failure record becomes in the CloudFormation event or on the CLI. */
export function failureReason(failure: CompileFailure, logUri: string): string {
  const operators = failure.operators && failure.operators.length > 0 ? ` (${failure.operators.join(', ')})` : '';
  return `compile failed (${failure.kind}): ${failure.reason}${operators}; log: ${logUri}`;
}

async function writeNeoManifest(config: CompileJobConfig, clients: CompileJobClients, artifactUri: string, seconds: number): Promise<CompileManifest> {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(artifactUri);
  if (!match) {
    throw new CompileJobFailedError(`Neo reported an artifact location that is not an s3:// URI: ${artifactUri}`);
  }
  const object = await clients.s3.send(new GetObjectCommand({ Bucket: match[1], Key: match[2] }));
  const bytes = await object.Body?.transformToByteArray() ?? new Uint8Array();
  const prefix = artifactPrefix(config);
  const manifest: CompileManifest = {
    formatVersion: MANIFEST_FORMAT_VERSION,
    model: config.spec.model,
    hash: config.hash,
    chip: config.spec.chip,
    coreVersion: CHIP_CORE_VERSION[config.spec.chip],
    coresPerProcess: config.spec.coresPerProcess,
    batchSizes: config.spec.batchSizes.slice(0, 1),
    ...(config.spec.sequenceLength !== undefined ? { sequenceLength: config.spec.sequenceLength } : {}),
    ...(config.spec.imageSize !== undefined ? { imageSize: config.spec.imageSize } : {}),
    traceApi: 'sagemaker-neo',
    versions: { neuronSdk: config.spec.neuronSdkVersion, compiler: 'sagemaker-neo', runtime: 'unknown', torch: config.neo?.frameworkVersion ?? 'unknown', torchNeuron: 'unknown' },
    sourceSha256: createHash('sha256').update(config.neo?.modelS3Uri ?? '').digest('hex'),
    artifacts: [{
      batchSize: config.spec.batchSizes[0],
      file: match[2].startsWith(prefix) ? match[2].slice(prefix.length) : match[2],
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes: bytes.length,
    }],
    compileSeconds: seconds,
    // Neo runs no accuracy check of its own that it reports; the manifest says so rather than claiming one.
    accuracy: { passed: false, maxAbsError: 0, tolerance: config.spec.tolerance },
    hostInstanceType: 'sagemaker-neo',
    profile: null,
  };
  await clients.s3.send(new PutObjectCommand({
    Bucket: config.bucket, Key: `${prefix}${MANIFEST_FILE}`, Body: JSON.stringify(manifest, null, 2), ContentType: 'application/json',
  }));
  return manifest;
}

/**
 * One poll: the manifest when the compile is done, `undefined` while it runs.
 *
 * @throws CompileJobFailedError with the reason: the failure record, the instance gone without a result, Neo's
 * failure reason, or the timeout (the instance is then terminated)
 */
export async function checkCompileJob(config: CompileJobConfig, state: CompileJobState, clients: CompileJobClients,
  now = Date.now()): Promise<CompileManifest | undefined> {
  const manifest = state.manifest ?? await readManifest(config, clients);
  if (manifest !== undefined) {
    return manifest;
  }
  if (state.neoJobName !== undefined) {
    const job = await clients.sagemaker.send(new DescribeCompilationJobCommand({ CompilationJobName: state.neoJobName }));
    if (job.CompilationJobStatus === 'COMPLETED') {
      const seconds = ((job.CompilationEndTime?.getTime() ?? now) - (job.CompilationStartTime?.getTime() ?? now)) / 1000;
      return writeNeoManifest(config, clients, job.ModelArtifacts?.S3ModelArtifacts ?? '', Math.max(0, seconds));
    }
    if (job.CompilationJobStatus === 'FAILED' || job.CompilationJobStatus === 'STOPPED') {
      throw new CompileJobFailedError(`SageMaker Neo compilation job ${state.neoJobName} ${job.CompilationJobStatus}: ${job.FailureReason ?? 'no reason given'}`);
    }
    return undefined;
  }
  return pollCompileHost(config, state, clients, () => readManifest(config, clients),
    'raise the timeout, or run long compiles with `cdk-inferentia compile --spec FILE --wait` and deploy the artifact by hash', now);
}

/**
 * One poll of a compile host, for every engine: its failure record, the host gone without a result (the manifest
 * may have landed between the first read and the host powering off: `readResult` is asked again), or the timeout.
 *
 * @param readResult reads and accepts the engine's manifest
 * @param timeoutFix what the timeout message tells the user to do
 * @throws CompileJobFailedError with the reason (the host is terminated on a failure record or the timeout)
 */
export async function pollCompileHost<M>(config: Pick<CompileJobConfig, 'bucket' | 'prefix' | 'hash' | 'timeoutSeconds'>,
  state: Pick<CompileJobState, 'attemptId' | 'instanceId' | 'instanceType' | 'startedAt'>, clients: CompileJobClients,
  readResult: () => Promise<M | undefined>, timeoutFix: string, now: number): Promise<M | undefined> {
  const logUri = `s3://${config.bucket}/${artifactPrefix(config)}attempts/${state.attemptId}/compile.log`;
  if (state.attemptId !== undefined) {
    const failure = await readFailure(config, clients, state.attemptId);
    if (failure !== undefined) {
      await terminate(clients, state.instanceId);
      throw new CompileJobFailedError(failureReason(failure, logUri), failure);
    }
  }
  if (state.instanceId !== undefined) {
    const out = await clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [state.instanceId] }));
    const instance = out.Reservations?.[0]?.Instances?.[0];
    const stateName = instance?.State?.Name ?? 'terminated';
    if (stateName !== 'pending' && stateName !== 'running') {
      const late = await readResult();
      if (late !== undefined) {
        return late;
      }
      throw new CompileJobFailedError(`compile instance ${state.instanceId} (${state.instanceType}) is ${stateName} without a `
        + `manifest or a failure record (${instance?.StateReason?.Message ?? 'no state reason'}); see its console output `
        + `and ${logUri}`);
    }
  }
  if (now - state.startedAt > config.timeoutSeconds * 1000) {
    await terminate(clients, state.instanceId);
    throw new CompileJobFailedError(`compile timed out after ${config.timeoutSeconds} s on ${state.instanceType}; ${timeoutFix}`);
  }
  return undefined;
}

/** Terminates the compile hosts still running for the config's hash. Returns their ids. */
export async function stopCompileHosts(config: Pick<CompileJobConfig, 'hash'>, clients: CompileJobClients): Promise<string[]> {
  const ids = (await runningInstances(config, clients)).map((i) => i.InstanceId).filter((id): id is string => id !== undefined);
  if (ids.length > 0) {
    await clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: ids }));
  }
  return ids;
}

/** Stops what still runs for the config's hash; the artifacts stay, they are the cache. Returns what was stopped. */
export async function stopCompileJob(config: CompileJobConfig, clients: CompileJobClients): Promise<string[]> {
  if (config.backend === 'neo') {
    try {
      await clients.sagemaker.send(new StopCompilationJobCommand({ CompilationJobName: neoJobName(config.hash) }));
      return [neoJobName(config.hash)];
    } catch (e) {
      if (errorName(e) === 'ResourceNotFound' || errorName(e) === 'ValidationException') {
        return [];
      }
      throw e;
    }
  }
  return stopCompileHosts(config, clients);
}
