/**
 * The compile job's custom resource handler (both Provider steps) against a moto_server on 127.0.0.1: its own
 * module-level EC2 and S3 clients launch, find, poll and terminate a compile instance in moto's EC2 and read the
 * manifest and failure record from moto's S3, so request shapes, tag filters and state names are checked by a
 * service model rather than by a stub's shape.
 *
 * What moto cannot serve stays aws-sdk-client-mock (test/lambdas/compile-job/handler.test.ts covers it):
 * - the public SSM parameter of the Neuron DLAMI (/aws/service/neuron/...): moto ships only the Amazon Linux and
 *   ECS public parameters and refuses PutParameter under /aws/, so GetParameter is mocked here and answers with
 *   a DLAMI of moto's own image list;
 * - InsufficientInstanceCapacity (the subnet and type fallback): moto always has capacity;
 * - the Neo backend: moto's CreateCompilationJob completes at once and reports its output prefix as the model
 *   artifact (SageMaker reports the model.tar.gz), and moto has no StopCompilationJob.
 * Costs about 7 CPU-seconds measured (4 of them moto_server: its start and loading its EC2 model, the slowest),
 * about 4 s of the suite's time on two cores.
 */
import {
  CreateSecurityGroupCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  DescribeImagesCommand,
  DescribeInstanceAttributeCommand,
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  EC2Client,
  TerminateInstancesCommand,
  type Instance,
} from '@aws-sdk/client-ec2';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import type { IsCompleteResult, OnEventResult } from '../../../lambdas/compile-job/index';
import { ATTEMPT_TAG, HASH_TAG, JOB_TAG, type CompileJobConfig } from '../../../io/compile/job';
import { parseCompileSpec, sha256Hex } from '../../../lib/compile';
import { startMotoServer, type MotoServer } from '../../support/moto-server';
import { describeWithTool } from '../../support/stand-ins';
import { compileJobEvent } from './compile-job-event';

const REGION = 'us-east-1';
const BUCKET = 'compile-artifacts';
const DLAMI_PARAMETER = '/aws/service/neuron/dlami/multi-framework/ubuntu-24.04/latest/image_id';

const SPEC = parseCompileSpec({
  model: 'bert-base-uncased', source: { hubModelId: 'bert-base-uncased' }, task: 'feature-extraction', sequenceLength: 128,
  batchSizes: [1], chip: 'inf2', coresPerProcess: 1, neuronSdkVersion: '2.26.1',
}, 'spec');

function manifestFor(hash: string) {
  return {
    formatVersion: 1, model: 'bert-base-uncased', hash, chip: 'inf2', coreVersion: 'v2', coresPerProcess: 1,
    batchSizes: [1], sequenceLength: 128, traceApi: 'torch_neuronx',
    versions: { neuronSdk: '2.26.1', compiler: '2.21.0', runtime: '2.28.0', torch: '2.8.0', torchNeuron: '2.8.0.2.10' },
    sourceSha256: 'a'.repeat(64), artifacts: [{ batchSize: 1, file: 'model.pt', sha256: 'b'.repeat(64), bytes: 1000 }],
    compileSeconds: 312.5, accuracy: { passed: true, maxAbsError: 0.004, tolerance: 0.02 }, hostInstanceType: 'inf2.xlarge',
    profile: null,
  };
}

type Handler = (event: unknown) => Promise<OnEventResult | IsCompleteResult>;

describeWithTool('moto_server', 'the compile-job handler against EC2 and S3 served by moto_server', (motoServer) => {
  let moto: MotoServer;
  let onEvent: Handler;
  let isComplete: Handler;
  let ec2: EC2Client;
  let s3: S3Client;
  let dlami: { id: string; rootGiB: number };
  let settings: NonNullable<CompileJobConfig['instance']>;
  const saved = { ...process.env };
  const ssm = mockClient(SSMClient);

  beforeAll(async () => {
    moto = await startMotoServer(motoServer);
    Object.assign(process.env, moto.env, { AWS_REGION: REGION });
    ec2 = moto.client(EC2Client);
    s3 = moto.client(S3Client);
    // Imported once the environment points at moto: the handler's clients are created at module load.
    ({ onEvent, isComplete } = await import('../../../lambdas/compile-job/index') as unknown as { onEvent: Handler; isComplete: Handler });

    const [image] = (await ec2.send(new DescribeImagesCommand({ Owners: ['amazon'], Filters: [{ Name: 'name', Values: ['Deep Learning AMI Ubuntu*'] }] }))).Images ?? [];
    const root = image.BlockDeviceMappings?.find((m) => m.DeviceName === image.RootDeviceName)?.Ebs?.VolumeSize;
    dlami = { id: image.ImageId!, rootGiB: root ?? 100 };
    ssm.on(GetParameterCommand, { Name: DLAMI_PARAMETER }).resolves({ Parameter: { Name: DLAMI_PARAMETER, Value: dlami.id } });

    const vpc = (await ec2.send(new CreateVpcCommand({ CidrBlock: '10.0.0.0/16' }))).Vpc!.VpcId!;
    const subnets = await Promise.all(['a', 'b'].map(async (zone, i) =>
      (await ec2.send(new CreateSubnetCommand({ VpcId: vpc, CidrBlock: `10.0.${i}.0/24`, AvailabilityZone: `${REGION}${zone}` }))).Subnet!.SubnetId!));
    const group = (await ec2.send(new CreateSecurityGroupCommand({ VpcId: vpc, GroupName: 'compile', Description: 'compile host' }))).GroupId!;
    const profile = await createInstanceProfile('compile');
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    settings = {
      instanceTypes: ['inf2.xlarge', 'inf2.8xlarge'], subnetIds: subnets, securityGroupIds: [group], instanceProfileArn: profile,
      amiParameter: DLAMI_PARAMETER, extraVolumeGiB: 40, scriptS3Uri: `s3://${BUCKET}/scripts/compile.py`, scriptSha256: sha256Hex('script'),
      jobTag: 'Serving/Compile',
    };
  }, 60_000);

  /**
   * moto's RunInstances checks that the instance profile exists. The project has no IAM SDK client, so this one
   * IAM Query call is made by hand; moto picks the service from the credential scope and does not check signatures.
   */
  async function createInstanceProfile(name: string): Promise<string> {
    const answer = await fetch(moto.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `AWS4-HMAC-SHA256 Credential=testing/20260101/${REGION}/iam/aws4_request, SignedHeaders=host, Signature=0`,
      },
      body: new URLSearchParams({ Action: 'CreateInstanceProfile', InstanceProfileName: name, Version: '2010-05-08' }).toString(),
    });
    const xml = await answer.text();
    const arn = /<Arn>([^<]+)<\/Arn>/.exec(xml)?.[1];
    if (!answer.ok || arn === undefined) {
      throw new Error(`moto IAM CreateInstanceProfile answered ${answer.status}: ${xml}`);
    }
    return arn;
  }

  afterAll(async () => {
    await moto?.stop();
    process.env = { ...saved };
    ssm.restore();
  });

  const config = (hash: string): CompileJobConfig => ({
    spec: SPEC, hash, region: REGION, bucket: BUCKET, prefix: 'compiled/', timeoutSeconds: 2700, backend: 'instance', instance: settings,
  });

  /** Every instance moto holds for a hash, in any state. */
  async function instancesOf(hash: string): Promise<Instance[]> {
    const out = await ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: `tag:${HASH_TAG}`, Values: [hash] }] }));
    return (out.Reservations ?? []).flatMap((r) => r.Instances ?? []);
  }

  /** Runs onEvent with its log line kept out of the test output. */
  async function quietly<T>(run: () => Promise<T>): Promise<T> {
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      return await run();
    } finally {
      log.mockRestore();
    }
  }

  test('create launches one tagged DLAMI instance, a repeated create adopts it, the manifest completes it, delete terminates it', async () => {
    const job = config('a1'.repeat(12));
    const created = await quietly(() => onEvent(compileJobEvent('Create', job))) as OnEventResult;

    const state = JSON.parse(created.Data!.State) as { status: string; instanceId: string; attemptId: string };
    expect(state.status).toBe('launched');
    const [instance, ...others] = await instancesOf(job.hash);
    expect(others).toHaveLength(0);
    expect(instance).toMatchObject({
      InstanceId: state.instanceId, ImageId: dlami.id, InstanceType: 'inf2.xlarge', SubnetId: settings.subnetIds[0],
      IamInstanceProfile: { Arn: settings.instanceProfileArn }, SecurityGroups: [expect.objectContaining({ GroupId: settings.securityGroupIds[0] })],
    });
    expect(instance.Tags).toEqual(expect.arrayContaining([
      { Key: HASH_TAG, Value: job.hash }, { Key: ATTEMPT_TAG, Value: state.attemptId }, { Key: JOB_TAG, Value: 'Serving/Compile' },
    ]));
    const shutdown = await ec2.send(new DescribeInstanceAttributeCommand({ InstanceId: state.instanceId, Attribute: 'instanceInitiatedShutdownBehavior' }));
    expect(shutdown.InstanceInitiatedShutdownBehavior?.Value).toBe('terminate');
    const userData = await ec2.send(new DescribeInstanceAttributeCommand({ InstanceId: state.instanceId, Attribute: 'userData' }));
    expect(Buffer.from(userData.UserData!.Value!, 'base64').toString('utf8')).toContain(`compiled/${job.hash}/`);
    const volumes = await ec2.send(new DescribeVolumesCommand({ Filters: [{ Name: 'attachment.instance-id', Values: [state.instanceId] }] }));
    expect(volumes.Volumes).toEqual([expect.objectContaining({ Size: dlami.rootGiB + 40, Encrypted: true })]);

    // A CloudFormation retry of the create finds the running instance and launches nothing.
    const again = await quietly(() => onEvent(compileJobEvent('Update', job))) as OnEventResult;
    expect(JSON.parse(again.Data!.State)).toMatchObject({ status: 'adopted', instanceId: state.instanceId, attemptId: state.attemptId });
    expect(await instancesOf(job.hash)).toHaveLength(1);

    expect(await isComplete(compileJobEvent('Create', job, created.Data))).toEqual({ IsComplete: false });
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `compiled/${job.hash}/manifest.json`, Body: JSON.stringify(manifestFor(job.hash)) }));
    const done = await isComplete(compileJobEvent('Create', job, created.Data)) as IsCompleteResult;
    expect(done).toMatchObject({ IsComplete: true, Data: { Hash: job.hash, ArtifactS3Uri: `s3://${BUCKET}/compiled/${job.hash}/`, Cached: 'false' } });

    await quietly(() => onEvent(compileJobEvent('Delete', job)));
    expect((await instancesOf(job.hash)).map((i) => i.State?.Name)).toEqual([expect.stringMatching(/^(shutting-down|terminated)$/)]);
    const kept = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `compiled/${job.hash}/` }));
    expect(kept.KeyCount).toBe(1);
  });

  test('a manifest already in S3 is the cache: create launches nothing', async () => {
    const job = config('c4'.repeat(12));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `compiled/${job.hash}/manifest.json`, Body: JSON.stringify(manifestFor(job.hash)) }));

    const created = await quietly(() => onEvent(compileJobEvent('Create', job))) as OnEventResult;

    expect(created.Data).toMatchObject({ Cached: 'true', Hash: job.hash });
    expect(await instancesOf(job.hash)).toHaveLength(0);
  });

  test('a failure record fails the poll with its reason and terminates the instance', async () => {
    const job = config('b2'.repeat(12));
    const created = await quietly(() => onEvent(compileJobEvent('Create', job))) as OnEventResult;
    const { attemptId } = JSON.parse(created.Data!.State) as { attemptId: string };
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `compiled/${job.hash}/attempts/${attemptId}/failure.json`,
      Body: JSON.stringify({ kind: 'unsupported-operators', reason: 'neuronx-cc exited 70', operators: ['aten::unique'] }) }));

    await expect(isComplete(compileJobEvent('Create', job, created.Data))).rejects.toThrow(
      `compile failed (unsupported-operators): neuronx-cc exited 70 (aten::unique); log: s3://${BUCKET}/compiled/${job.hash}/attempts/${attemptId}/compile.log`);
    expect((await instancesOf(job.hash)).map((i) => i.State?.Name)).toEqual([expect.stringMatching(/^(shutting-down|terminated)$/)]);
  });

  test('an instance gone without a manifest or a failure record fails the poll naming its state', async () => {
    const job = config('d3'.repeat(12));
    const created = await quietly(() => onEvent(compileJobEvent('Create', job))) as OnEventResult;
    const { instanceId } = JSON.parse(created.Data!.State) as { instanceId: string };
    await ec2.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }));

    await expect(isComplete(compileJobEvent('Create', job, created.Data))).rejects.toThrow(
      new RegExp(`^compile instance ${instanceId} \\(inf2.xlarge\\) is (shutting-down|terminated) without a manifest or a failure record`));
  });
});
