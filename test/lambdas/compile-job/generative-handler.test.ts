/**
 * The compile job's handler with a generative Config, against mocked control-plane calls: the same create, poll and
 * delete flow as single-call compiles, with the weights checked before anything launches.
 */
import { DescribeImagesCommand, DescribeInstancesCommand, RunInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { GetParameterCommand } from '@aws-sdk/client-ssm';
import 'aws-sdk-client-mock-jest';
import { isComplete, onEvent } from '../../../lambdas/compile-job/index';
import { sha256Hex } from '../../../lib/compile';
import {
  GENERATIVE_HOST_AMI_PARAMETER,
  parseGenerativeCompileSpec,
} from '../../../lib/compile/generative-spec';
import { weightsDigest } from '../../../lib/compile/generative-manifest';
import type { GenerativeCompileJobConfig } from '../../../io/compile/generative-job';
import { compileJobEvent as event, mockCompileJobClients } from './compile-job-event';

const { ec2, s3, ssm } = mockCompileJobClients();

const IMAGE = `public.ecr.aws/neuron/pytorch-inference-vllm-neuronx@sha256:${'c'.repeat(64)}`;
const spec = (weights: unknown) => parseGenerativeCompileSpec({
  model: 'llama-3.1-8b-instruct', weights, tensorParallelSize: 2, maxNumSeqs: 8, maxModelLen: 1280,
  chip: 'inf2', neuronSdkVersion: '2.29.0',
}, 'spec');
const S3_WEIGHTS = { source: 's3', s3Uri: 's3://weights/llama/' };
const HUB_WEIGHTS = { source: 'huggingface', repository: 'meta-llama/Llama-3.1-8B-Instruct', revision: '0e9e39f249a16976918f6564b8830bc894c89659' };

function config(weights: unknown = S3_WEIGHTS, extra: Partial<GenerativeCompileJobConfig> = {}): GenerativeCompileJobConfig {
  return {
    kind: 'generative', spec: spec(weights), hash: 'feedfeedfeedfeedfeedfeed', region: 'us-east-1', bucket: 'artifacts',
    prefix: 'compiled/', timeoutSeconds: 2700, image: IMAGE,
    instance: {
      instanceTypes: ['inf2.8xlarge'], subnetIds: ['subnet-a'], securityGroupIds: ['sg-1'],
      instanceProfileArn: 'arn:aws:iam::111111111111:instance-profile/compile', amiParameter: GENERATIVE_HOST_AMI_PARAMETER, extraVolumeGiB: 100,
      scriptS3Uri: 's3://assets/compile_generative.py', scriptSha256: sha256Hex('program'),
    },
    ...extra,
  };
}
const PREFIX = 'compiled/feedfeedfeedfeedfeedfeed/';
const WEIGHTS = [
  { Key: 'llama/config.json', ETag: '"e1"', Size: 800 },
  { Key: 'llama/model-00001-of-00002.safetensors', ETag: '"e2-3"', Size: 5_000_000_000 },
  { Key: 'llama/tokenizer.json', ETag: '"e3"', Size: 9_000_000 },
];
const DIGEST = weightsDigest(WEIGHTS.map((o) => ({ key: o.Key.slice('llama/'.length), etag: o.ETag, size: o.Size })));

function manifest(overrides: Record<string, unknown> = {}) {
  return {
    formatVersion: 1, kind: 'generative', model: 'llama-3.1-8b-instruct', hash: 'feedfeedfeedfeedfeedfeed', weights: S3_WEIGHTS,
    weightsDigest: DIGEST, tensorParallelSize: 2, maxNumSeqs: 8, maxModelLen: 1280, neuronSdkVersion: '2.29.0', chip: 'inf2',
    logicalNeuronCoreConfig: 1, dtype: 'bfloat16', compiledArtifacts: 'compiled/', stagedModel: null,
    versions: { vllm: '0.16.0', vllmNeuron: '0.5.0', nxdInference: '0.9.0', neuronxCc: '2.22.0' }, compileSeconds: 1200,
    check: { prompt: 'The capital of France is', output: ' Paris.' }, hostInstanceType: 'inf2.8xlarge', image: IMAGE,
    ...overrides,
  };
}

function objects(found: Record<string, unknown>): void {
  s3.on(GetObjectCommand).callsFake((input: { Key: string }) => {
    if (input.Key in found) {
      return { Body: { transformToString: async () => JSON.stringify(found[input.Key]) } };
    }
    throw Object.assign(new Error('no such key'), { name: 'NoSuchKey' });
  });
}

beforeEach(() => {
  ec2.reset();
  s3.reset();
  ssm.reset();
  ssm.on(GetParameterCommand).resolves({ Parameter: { Value: 'ami-ecs-neuron' } });
  ec2.on(DescribeImagesCommand).resolves({ Images: [{ RootDeviceName: '/dev/xvda', BlockDeviceMappings: [{ DeviceName: '/dev/xvda', Ebs: { VolumeSize: 30 } }] }] });
  ec2.on(DescribeInstancesCommand).resolves({ Reservations: [] });
  ec2.on(RunInstancesCommand).resolves({ Instances: [{ InstanceId: 'i-1' }] });
  s3.on(ListObjectsV2Command).resolves({ Contents: WEIGHTS });
});

describe('a generative compile starts only when no artifact or running compile exists, after the weights are checked', () => {
  test('S3 weights without a safetensors file fail the create before any instance launches', async () => {
    s3.on(ListObjectsV2Command).resolves({ Contents: [WEIGHTS[0]] });
    objects({});
    await expect(onEvent(event('Create', config()))).rejects.toThrow(
      /the weights at s3:\/\/weights\/llama\/ lack \*\.safetensors \(found 1 objects\); upload the uncompressed Hugging Face layout/);
    expect(ec2).not.toHaveReceivedCommand(RunInstancesCommand);
  });

  test('a manifest for the hash with the same weights is the cache: nothing launches, the attributes come from it', async () => {
    objects({ [`${PREFIX}manifest.json`]: manifest() });
    const result = await onEvent(event('Create', config()));
    expect(ec2).not.toHaveReceivedCommand(RunInstancesCommand);
    expect(result.Data).toMatchObject({
      CompiledArtifactsS3Uri: `s3://artifacts/${PREFIX}compiled/`, ModelS3Uri: 's3://weights/llama/', TensorParallelSize: '2',
      MaxNumSeqs: '8', MaxModelLen: '1280', NeuronSdkVersion: '2.29.0', Dtype: 'bfloat16', Cached: 'true',
    });
    expect(await isComplete(event('Create', config(), result.Data))).toEqual({ IsComplete: true });
  });

  test('a cached artifact whose weights changed under the prefix is refused, naming both digests and the fix', async () => {
    objects({ [`${PREFIX}manifest.json`]: manifest({ weightsDigest: 'a'.repeat(64) }) });
    await expect(onEvent(event('Create', config()))).rejects.toThrow(
      /weights: the objects under s3:\/\/weights\/llama\/ changed since the compile \(ETag digest aaaaaaaaaaaa then, .* now\); put new weights under a new prefix/);
  });

  test('otherwise one host of the plan family launches from the ECS Neuron AMI with the generative boot script', async () => {
    objects({});
    const result = await onEvent(event('Create', config()));
    const input = ec2.commandCalls(RunInstancesCommand)[0].args[0].input;
    expect(ssm).toHaveReceivedCommandWith(GetParameterCommand, { Name: GENERATIVE_HOST_AMI_PARAMETER });
    expect(input).toMatchObject({ ImageId: 'ami-ecs-neuron', InstanceType: 'inf2.8xlarge', InstanceInitiatedShutdownBehavior: 'terminate',
      BlockDeviceMappings: [{ DeviceName: '/dev/xvda', Ebs: { VolumeSize: 130, Encrypted: true } }] });
    const script = Buffer.from(input.UserData!, 'base64').toString('utf8');
    expect(script).toContain(`readonly IMAGE='${IMAGE}'`);
    expect(script).toContain(`"weightsDigest":"${DIGEST}"`);
    expect(script).toContain("aws s3 cp --only-show-errors --recursive 's3://weights/llama/' \"$WORK/model/\"");
    expect(JSON.parse(result.Data!.State)).toMatchObject({ status: 'launched', instanceId: 'i-1', weightsDigest: DIGEST });
  });

  test('Hub weights list nothing in S3 and name the token secret, never its value, in the user data', async () => {
    objects({});
    const secret = 'arn:aws:secretsmanager:us-east-1:111111111111:secret:hf-token-AbCdEf';
    await onEvent(event('Create', config(HUB_WEIGHTS, { tokenSecretArn: secret })));
    expect(s3).not.toHaveReceivedCommand(ListObjectsV2Command);
    const script = Buffer.from(ec2.commandCalls(RunInstancesCommand)[0].args[0].input.UserData!, 'base64').toString('utf8');
    expect(script).toContain(`aws secretsmanager get-secret-value --secret-id '${secret}'`);
  });
});

describe('isComplete follows the generative compile to a manifest that fits the spec', () => {
  async function started(cfg = config()): Promise<Record<string, string>> {
    objects({});
    return (await onEvent(event('Create', cfg))).Data!;
  }

  test('running without a manifest: not complete; the manifest lands: complete with its attributes', async () => {
    const data = await started();
    ec2.on(DescribeInstancesCommand, { InstanceIds: ['i-1'] }).resolves({ Reservations: [{ Instances: [{ InstanceId: 'i-1', State: { Name: 'running' } }] }] });
    expect(await isComplete(event('Create', config(), data))).toEqual({ IsComplete: false });
    objects({ [`${PREFIX}manifest.json`]: manifest() });
    expect(await isComplete(event('Create', config(), data))).toMatchObject({ IsComplete: true, Data: { Cached: 'false', CheckOutput: ' Paris.' } });
  });

  test('a manifest compiled for another TP degree fails the resource instead of completing', async () => {
    const data = await started();
    objects({ [`${PREFIX}manifest.json`]: manifest({ tensorParallelSize: 8 }) });
    await expect(isComplete(event('Create', config(), data))).rejects.toThrow(/does not fit its spec: tensorParallelSize: manifest 8, spec 2/);
  });

  test('a manifest compiled with FP8 under a spec without it fails the resource naming both settings', async () => {
    const data = await started();
    const engine = { additional_config: { override_neuron_config: { quantized: true } } };
    objects({ [`${PREFIX}manifest.json`]: manifest({ engine }) });
    await expect(isComplete(event('Create', config(), data))).rejects.toThrow(
      /does not fit its spec: engine: manifest \{"additional_config":\{"override_neuron_config":\{"quantized":true\}\}\}, spec \{\}/);
  });

  test('a failure record from the compile reaches the event and the host is terminated', async () => {
    const data = await started();
    const attempt = JSON.parse(data.State).attemptId as string;
    objects({ [`${PREFIX}attempts/${attempt}/failure.json`]: { kind: 'out-of-memory', reason: 'killed for memory', exitCode: 137 } });
    await expect(isComplete(event('Create', config(), data))).rejects.toThrow(/compile failed \(out-of-memory\): killed for memory/);
    expect(ec2).toHaveReceivedCommandWith(TerminateInstancesCommand, { InstanceIds: ['i-1'] });
  });

  test('Delete terminates the running host for the hash and keeps the artifacts', async () => {
    ec2.on(DescribeInstancesCommand).resolves({ Reservations: [{ Instances: [{ InstanceId: 'i-7' }] }] });
    await onEvent(event('Delete', config()));
    expect(ec2).toHaveReceivedCommandWith(TerminateInstancesCommand, { InstanceIds: ['i-7'] });
  });
});
