/**
 * The compile job's handler steps against mocked control-plane calls (EC2, S3, SSM, SageMaker), one test per state
 * of the job: cache hit, launch, running, success, failure record, out of memory, capacity fallback, timeout,
 * Delete with a running instance, repeated Update, and the Neo backend.
 */
import {
  DescribeImagesCommand,
  DescribeInstancesCommand,
  RunInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { CreateCompilationJobCommand, DescribeCompilationJobCommand, SageMakerClient, StopCompilationJobCommand } from '@aws-sdk/client-sagemaker';
import { GetParameterCommand } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { isComplete, onEvent } from '../../../lambdas/compile-job/index';
import { parseCompileSpec, sha256Hex } from '../../../lib/compile';
import type { CompileJobConfig } from '../../../io/compile/job';
import { bertCompileSpec } from '../../support/compile-spec';
import { compileJobEvent, mockCompileJobClients } from './compile-job-event';

const { ec2, s3, ssm } = mockCompileJobClients();
const sagemaker = mockClient(SageMakerClient);

const SPEC = parseCompileSpec(bertCompileSpec(), 'spec');

const CONFIG: CompileJobConfig = {
  spec: SPEC,
  hash: 'abc123abc123abc123abc123',
  region: 'us-east-1',
  bucket: 'artifacts',
  prefix: 'compiled/',
  timeoutSeconds: 2700,
  backend: 'instance',
  instance: {
    instanceTypes: ['inf2.xlarge', 'inf2.8xlarge'],
    subnetIds: ['subnet-a', 'subnet-b'],
    securityGroupIds: ['sg-1'],
    instanceProfileArn: 'arn:aws:iam::111111111111:instance-profile/compile',
    amiParameter: '/aws/service/neuron/dlami/multi-framework/ubuntu-24.04/latest/image_id',
    extraVolumeGiB: 40,
    scriptS3Uri: 's3://assets/compile.py',
    scriptSha256: sha256Hex('script'),
  },
};
const PREFIX = 'compiled/abc123abc123abc123abc123/';

const MANIFEST = {
  formatVersion: 1, model: 'bert-base-uncased', hash: CONFIG.hash, chip: 'inf2', coreVersion: 'v2', coresPerProcess: 1,
  batchSizes: [1], sequenceLength: 128, traceApi: 'torch_neuronx',
  versions: { neuronSdk: '2.26.1', compiler: '2.21.0', runtime: '2.28.0', torch: '2.8.0', torchNeuron: '2.8.0.2.10' },
  sourceSha256: 'a'.repeat(64), artifacts: [{ batchSize: 1, file: 'model.pt', sha256: 'b'.repeat(64), bytes: 1000 }],
  compileSeconds: 312.5, accuracy: { passed: true, maxAbsError: 0.004, tolerance: 0.02 }, hostInstanceType: 'inf2.xlarge',
  profile: 'profile.json',
};

function event(type: 'Create' | 'Update' | 'Delete', config: CompileJobConfig = CONFIG, data?: Record<string, string>) {
  return compileJobEvent(type, config, data);
}

const notFound = () => Object.assign(new Error('The specified key does not exist.'), { name: 'NoSuchKey' });
const body = (json: unknown) => ({ Body: { transformToString: async () => JSON.stringify(json) } }) as never;
const capacity = () => Object.assign(new Error('We currently do not have sufficient capacity'), { name: 'InsufficientInstanceCapacity' });

/** S3 answers: these keys exist with these documents, every other key is missing. */
function objects(found: Record<string, unknown>): void {
  s3.on(GetObjectCommand).callsFake((input: { Key: string }) => {
    if (input.Key in found) {
      return body(found[input.Key]);
    }
    throw notFound();
  });
}

function instanceIs(state: string, reason?: string): void {
  ec2.on(DescribeInstancesCommand, { InstanceIds: ['i-1'] }).resolves({
    Reservations: [{ Instances: [{ InstanceId: 'i-1', State: { Name: state as never }, ...(reason ? { StateReason: { Message: reason } } : {}) }] }],
  });
}

beforeEach(() => {
  ec2.reset();
  s3.reset();
  ssm.reset();
  sagemaker.reset();
  ssm.on(GetParameterCommand).resolves({ Parameter: { Value: 'ami-123' } });
  ec2.on(DescribeImagesCommand).resolves({
    Images: [{ RootDeviceName: '/dev/sda1', BlockDeviceMappings: [{ DeviceName: '/dev/sda1', Ebs: { VolumeSize: 150 } }] }],
  });
  ec2.on(DescribeInstancesCommand).resolves({ Reservations: [] });
  ec2.on(RunInstancesCommand).resolves({ Instances: [{ InstanceId: 'i-1' }] });
});

async function started(): Promise<Record<string, string>> {
  objects({});
  const result = await onEvent(event('Create'));
  return result.Data!;
}

describe('onEvent starts a compile only when no artifact or running compile exists for the hash', () => {
  test('a manifest already in S3 returns its fields at once and launches nothing', async () => {
    // GIVEN the manifest for the hash is in S3
    objects({ [`${PREFIX}manifest.json`]: MANIFEST });
    // WHEN the resource is created
    const result = await onEvent(event('Create'));
    // THEN nothing is launched and the attributes come from the manifest
    expect(ec2).not.toHaveReceivedCommand(RunInstancesCommand);
    expect(result.PhysicalResourceId).toBe(`compile-${CONFIG.hash}`);
    expect(result.Data).toMatchObject({
      ArtifactS3Uri: `s3://artifacts/${PREFIX}`, Chip: 'inf2', CoreVersion: 'v2', BatchSizes: '1', Cached: 'true',
      CompilerVersion: '2.21.0', ProfileS3Uri: `s3://artifacts/${PREFIX}profile.json`,
    });
    // AND isComplete is done at once
    expect(await isComplete(event('Create', CONFIG, result.Data))).toEqual({ IsComplete: true });
  });

  test('otherwise it launches one DLAMI instance: IMDSv2, encrypted volume, terminate on shutdown, tagged, boot script', async () => {
    const data = await started();
    expect(ssm).toHaveReceivedCommandWith(GetParameterCommand, { Name: CONFIG.instance!.amiParameter });
    expect(ec2).toHaveReceivedCommandTimes(RunInstancesCommand, 1);
    const input = ec2.commandCalls(RunInstancesCommand)[0].args[0].input;
    expect(input).toMatchObject({
      ImageId: 'ami-123', InstanceType: 'inf2.xlarge', SubnetId: 'subnet-a', SecurityGroupIds: ['sg-1'],
      InstanceInitiatedShutdownBehavior: 'terminate',
      MetadataOptions: { HttpTokens: 'required' },
      IamInstanceProfile: { Arn: CONFIG.instance!.instanceProfileArn },
      BlockDeviceMappings: [{ DeviceName: '/dev/sda1', Ebs: { VolumeSize: 190, Encrypted: true, DeleteOnTermination: true } }],
    });
    expect(input.TagSpecifications?.[0].Tags).toEqual(expect.arrayContaining([{ Key: 'cdk-inferentia:compile-hash', Value: CONFIG.hash }]));
    const script = Buffer.from(input.UserData!, 'base64').toString('utf8');
    expect(script).toContain(`readonly ARTIFACTS='${PREFIX}'`);
    expect(JSON.parse(data.State)).toMatchObject({ status: 'launched', instanceId: 'i-1', instanceType: 'inf2.xlarge' });
  });

  test('no capacity for the first type in either subnet: the next subnet, then the next type is tried', async () => {
    // GIVEN inf2.xlarge has no capacity in subnet-a nor subnet-b
    ec2.on(RunInstancesCommand, { InstanceType: 'inf2.xlarge' }).rejects(capacity());
    ec2.on(RunInstancesCommand, { InstanceType: 'inf2.8xlarge' }).resolves({ Instances: [{ InstanceId: 'i-2' }] });
    const data = await started();
    // THEN three launches were asked for and the job runs on inf2.8xlarge in subnet-a
    const calls = ec2.commandCalls(RunInstancesCommand).map((c) => `${c.args[0].input.InstanceType}/${c.args[0].input.SubnetId}`);
    expect(calls).toEqual(['inf2.xlarge/subnet-a', 'inf2.xlarge/subnet-b', 'inf2.8xlarge/subnet-a']);
    expect(JSON.parse(data.State)).toMatchObject({ instanceId: 'i-2', instanceType: 'inf2.8xlarge' });
  });

  test('no capacity anywhere fails the create naming what was tried', async () => {
    ec2.on(RunInstancesCommand).rejects(capacity());
    objects({});
    await expect(onEvent(event('Create'))).rejects.toThrow(/no capacity for the compile host: inf2.xlarge in subnet-a: InsufficientInstanceCapacity;.*inf2.8xlarge in subnet-b/);
  });

  test('a repeated Update while the compile runs adopts the running instance instead of launching a second', async () => {
    // GIVEN an instance for the hash is running
    objects({});
    ec2.on(DescribeInstancesCommand).resolves({
      Reservations: [{ Instances: [{ InstanceId: 'i-9', InstanceType: 'inf2.xlarge', LaunchTime: new Date(1000), Tags: [{ Key: 'cdk-inferentia:compile-attempt', Value: 'att9' }] }] }],
    });
    // WHEN the same Update arrives again
    const result = await onEvent(event('Update'));
    // THEN it launches nothing and follows the running attempt
    expect(ec2).not.toHaveReceivedCommand(RunInstancesCommand);
    expect(JSON.parse(result.Data!.State)).toMatchObject({ status: 'adopted', instanceId: 'i-9', attemptId: 'att9', startedAt: 1000 });
  });
});

describe('isComplete follows the compile to its manifest or its failure', () => {
  test('while the instance runs and nothing is in S3, it is not complete', async () => {
    const data = await started();
    instanceIs('running');
    expect(await isComplete(event('Create', CONFIG, data))).toEqual({ IsComplete: false });
  });

  test('when the manifest lands it completes with the manifest fields as attributes', async () => {
    const data = await started();
    objects({ [`${PREFIX}manifest.json`]: MANIFEST });
    const result = await isComplete(event('Create', CONFIG, data));
    expect(result).toMatchObject({ IsComplete: true, Data: { Hash: CONFIG.hash, CoresPerProcess: '1', Cached: 'false', CompileSeconds: '312.5' } });
  });

  test('a failure record fails the resource with its reason and terminates the instance', async () => {
    const data = await started();
    const attempt = JSON.parse(data.State).attemptId;
    objects({ [`${PREFIX}attempts/${attempt}/failure.json`]: { kind: 'unsupported-operators', reason: 'the compiler does not support operators of this model', operators: ['aten::stft'] } });
    await expect(isComplete(event('Create', CONFIG, data))).rejects.toThrow(
      `compile failed (unsupported-operators): the compiler does not support operators of this model (aten::stft); log: s3://artifacts/${PREFIX}attempts/${attempt}/compile.log`,
    );
    expect(ec2).toHaveReceivedCommandWith(TerminateInstancesCommand, { InstanceIds: ['i-1'] });
  });

  test('the compiler killed for memory fails with "needs more RAM than inf2.xlarge has"', async () => {
    const data = await started();
    const attempt = JSON.parse(data.State).attemptId;
    objects({ [`${PREFIX}attempts/${attempt}/failure.json`]: { kind: 'out-of-memory', exitCode: 137, instanceType: 'inf2.xlarge',
      reason: 'the compiler was killed for memory (exit 137, SIGKILL): the model needs more RAM than inf2.xlarge has; set a larger compile instance type' } });
    await expect(isComplete(event('Create', CONFIG, data))).rejects.toThrow(/compile failed \(out-of-memory\).*needs more RAM than inf2.xlarge has/);
  });

  test('an instance gone without manifest or record fails naming its state reason', async () => {
    const data = await started();
    instanceIs('terminated', 'Client.InstanceInitiatedShutdown');
    await expect(isComplete(event('Create', CONFIG, data))).rejects.toThrow(/i-1 \(inf2.xlarge\) is terminated without a manifest or a failure record \(Client.InstanceInitiatedShutdown\)/);
  });

  test('past the timeout the instance is terminated and the reason names the CLI route', async () => {
    const data = await started();
    instanceIs('running');
    const state = { ...JSON.parse(data.State), startedAt: Date.now() - 2701_000 };
    await expect(isComplete(event('Create', CONFIG, { State: JSON.stringify(state) }))).rejects.toThrow(/timed out after 2700 s.*cdk-inferentia compile --spec FILE --wait/);
    expect(ec2).toHaveReceivedCommandWith(TerminateInstancesCommand, { InstanceIds: ['i-1'] });
  });
});

describe('Delete keeps the artifacts and terminates a running compile', () => {
  test('a running instance for the hash is terminated; no S3 object is deleted', async () => {
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [{ Instances: [{ InstanceId: 'i-7' }] }] });
    const result = await onEvent(event('Delete'));
    expect(result.PhysicalResourceId).toBe(`compile-${CONFIG.hash}`);
    expect(ec2).toHaveReceivedCommandWith(TerminateInstancesCommand, { InstanceIds: ['i-7'] });
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
    expect(await isComplete(event('Delete'))).toEqual({ IsComplete: true });
  });

  test('with nothing running it terminates nothing', async () => {
    await onEvent(event('Delete'));
    expect(ec2).not.toHaveReceivedCommand(TerminateInstancesCommand);
  });
});

describe('the Neo backend runs a SageMaker compilation job instead of an instance', () => {
  const NEO: CompileJobConfig = {
    ...CONFIG, backend: 'neo', instance: undefined,
    neo: { roleArn: 'arn:aws:iam::111111111111:role/neo', modelS3Uri: 's3://models/bert/model.tar.gz', frameworkVersion: '1.13' },
  };

  test('create starts CreateCompilationJob for ml_inf2 with the input shape; completion writes the manifest', async () => {
    objects({});
    const result = await onEvent(event('Create', NEO));
    expect(sagemaker).toHaveReceivedCommandWith(CreateCompilationJobCommand, {
      CompilationJobName: `cdk-inferentia-${CONFIG.hash}`,
      OutputConfig: { S3OutputLocation: `s3://artifacts/${PREFIX}`, TargetDevice: 'ml_inf2' },
      InputConfig: expect.objectContaining({ Framework: 'PYTORCH', DataInputConfig: '{"input_ids":[1,128],"attention_mask":[1,128]}' }),
    });
    sagemaker.on(DescribeCompilationJobCommand).resolves({ CompilationJobStatus: 'INPROGRESS' });
    expect(await isComplete(event('Create', NEO, result.Data))).toEqual({ IsComplete: false });
    sagemaker.on(DescribeCompilationJobCommand).resolves({
      CompilationJobStatus: 'COMPLETED', CompilationStartTime: new Date(0), CompilationEndTime: new Date(60_000),
      ModelArtifacts: { S3ModelArtifacts: `s3://artifacts/${PREFIX}model-ml_inf2.tar.gz` },
    });
    s3.on(GetObjectCommand, { Key: `${PREFIX}model-ml_inf2.tar.gz` }).resolves({ Body: { transformToByteArray: async () => new Uint8Array([1, 2, 3]) } } as never);
    const done = await isComplete(event('Create', NEO, result.Data));
    expect(done).toMatchObject({ IsComplete: true, Data: { CompilerVersion: 'sagemaker-neo', CompileSeconds: '60' } });
    expect(s3).toHaveReceivedCommandWith(PutObjectCommand, { Key: `${PREFIX}manifest.json` });
  });

  test('a failed Neo job fails the resource with its reason; Delete stops it', async () => {
    sagemaker.on(DescribeCompilationJobCommand).resolves({ CompilationJobStatus: 'FAILED', FailureReason: 'ClientError: unsupported op' });
    objects({});
    await expect(isComplete(event('Create', NEO, { State: JSON.stringify({ status: 'launched', startedAt: Date.now(), neoJobName: 'n', skipped: [] }) })))
      .rejects.toThrow('SageMaker Neo compilation job n FAILED: ClientError: unsupported op');
    await onEvent(event('Delete', NEO));
    expect(sagemaker).toHaveReceivedCommandWith(StopCompilationJobCommand, { CompilationJobName: `cdk-inferentia-${CONFIG.hash}` });
  });
});
