import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { DescribeImagesCommand, DescribeInstancesCommand, EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { Command } from 'commander';
import { runCli } from '../../bin/cli';
import { registerCompileCommand } from '../../bin/commands/compile';
import type { CliIo } from '../../bin/commands/io';
import { CompileJobFailedError } from '../../io/compile/job';

const ec2 = mockClient(EC2Client);
const s3 = mockClient(S3Client);
const ssm = mockClient(SSMClient);

let dir: string;
let specFile: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cdk-inferentia-compile-cli-'));
  specFile = join(dir, 'spec.json');
  writeFileSync(specFile, JSON.stringify({
    model: 'bert-base-uncased', source: { hubModelId: 'bert-base-uncased' }, task: 'feature-extraction', sequenceLength: 128,
    batchSizes: [1], chip: 'inf2', coresPerProcess: 1, neuronSdkVersion: '2.26.1',
  }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const notFound = () => Object.assign(new Error('no such key'), { name: 'NoSuchKey' });
const body = (json: unknown) => ({ Body: { transformToString: async () => JSON.stringify(json) } }) as never;
const manifestFor = (hash: string) => ({
  formatVersion: 1, model: 'bert-base-uncased', hash, chip: 'inf2', coreVersion: 'v2', coresPerProcess: 1, batchSizes: [1],
  traceApi: 'torch_neuronx', versions: { neuronSdk: '2.26.1', compiler: '2.21.0', runtime: '2.28.0', torch: '2.8.0', torchNeuron: '2.8.0' },
  sourceSha256: 'a'.repeat(64), artifacts: [{ batchSize: 1, file: 'model.pt', sha256: 'b'.repeat(64), bytes: 10 }],
  compileSeconds: 300, accuracy: { passed: true, maxAbsError: 0.003, tolerance: 0.02 }, hostInstanceType: 'inf2.xlarge', profile: null,
});

const FLAGS = ['--bucket', 'artifacts', '--region', 'us-east-1', '--instance-profile', 'arn:aws:iam::111111111111:instance-profile/c',
  '--subnets', 'subnet-0a1b2c3d,subnet-0123456789abcdef0', '--security-groups', 'sg-0123456789abcdef0'];

/** Runs `compile` with mocked AWS and no waiting between polls. */
async function run(argv: string[]): Promise<{ stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) };
  const program = new Command().exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  registerCompileCommand(program, io, () => ({ ec2: new EC2Client({}), s3: new S3Client({}), ssm: new SSMClient({}), sagemaker: new SageMakerClient({}) }),
    async () => undefined);
  program.commands.forEach((c) => c.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr }));
  await program.parseAsync(['compile', ...argv], { from: 'user' });
  return { stdout, stderr };
}

beforeEach(() => {
  ec2.reset();
  s3.reset();
  ssm.reset();
  ssm.on(GetParameterCommand).resolves({ Parameter: { Value: 'ami-1' } });
  ec2.on(DescribeImagesCommand).resolves({ Images: [{ RootDeviceName: '/dev/sda1' }] });
  ec2.on(DescribeInstancesCommand).resolves({ Reservations: [] });
  ec2.on(RunInstancesCommand).resolves({ Instances: [{ InstanceId: 'i-1' }] });
});

describe('cdk-inferentia compile runs the compile job outside CloudFormation', () => {
  test('a cached artifact prints its manifest and launches nothing', async () => {
    // GIVEN the manifest for the spec's hash is in S3
    s3.on(GetObjectCommand).callsFake((input: { Key: string }) => {
      const hash = /compiled\/([0-9a-f]+)\/manifest\.json/.exec(input.Key)?.[1];
      if (hash) {
        return body(manifestFor(hash));
      }
      throw notFound();
    });
    // WHEN compile runs with --json
    const { stdout } = await run(['--spec', specFile, ...FLAGS, '--json']);
    // THEN it prints the manifest, uploaded the script under scripts/, and launched nothing
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ cached: true, manifest: { chip: 'inf2', compileSeconds: 300 } });
    expect(out.artifactS3Uri).toBe(`s3://artifacts/compiled/${out.manifest.hash}/`);
    expect(s3).toHaveReceivedCommandWith(PutObjectCommand, { Bucket: 'artifacts', Key: expect.stringMatching(/^compiled\/scripts\/[0-9a-f]{64}\.py$/) });
    expect(ec2).not.toHaveReceivedCommand(RunInstancesCommand);
  });

  test('--wait launches, shows progress while the instance runs, and prints the manifest when it lands', async () => {
    // GIVEN no manifest on the first two reads, then the manifest
    let reads = 0;
    s3.on(GetObjectCommand).callsFake((input: { Key: string }) => {
      const hash = /compiled\/([0-9a-f]+)\/manifest\.json/.exec(input.Key)?.[1];
      if (hash && ++reads > 2) {
        return body(manifestFor(hash));
      }
      throw notFound();
    });
    ec2.on(DescribeInstancesCommand, { InstanceIds: ['i-1'] }).resolves({ Reservations: [{ Instances: [{ State: { Name: 'running' } }] }] });
    // WHEN compile --wait runs
    const { stdout, stderr } = await run(['--spec', specFile, ...FLAGS, '--wait']);
    // THEN one instance was launched, progress went to stderr, and the summary names the artifact and the versions
    expect(ec2).toHaveReceivedCommandTimes(RunInstancesCommand, 1);
    expect(stderr).toMatch(/launched i-1 \(inf2.xlarge\)\ncompiling on inf2.xlarge \(i-1\): 0m0\ds/);
    expect(stdout).toContain('compiled: bert-base-uncased for inf2 (NeuronCore-v2), 1 core(s) per process, batch 1');
    expect(stdout).toContain('compiler 2.21.0, runtime 2.28.0, Neuron SDK 2.26.1, on inf2.xlarge in 300 s');
  });

  test('a failure record ends --wait with the reason', async () => {
    s3.on(GetObjectCommand).callsFake((input: { Key: string }) => {
      if (input.Key.endsWith('failure.json')) {
        return body({ kind: 'out-of-memory', reason: 'the model needs more RAM than inf2.xlarge has' });
      }
      throw notFound();
    });
    await expect(run(['--spec', specFile, ...FLAGS, '--wait'])).rejects.toThrow(CompileJobFailedError);
  });

  test('a bad spec exits 2 naming the file and the field, before any AWS call', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ model: 'm', chip: 'inf9' }));
    let stderr = '';
    const code = await runCli(['compile', '--spec', bad, ...FLAGS], { stdout: () => undefined, stderr: (s) => (stderr += s) });
    expect(code).toBe(2);
    expect(stderr).toContain(`${bad}: chip: expected 'inf1', 'inf2' or 'trn1', got "inf9"`);
    expect(s3).not.toHaveReceivedCommand(PutObjectCommand);
  });

  test('every bad flag exits 2, each named with its value and fix, before any AWS call or output', async () => {
    // GIVEN the flags of the issue: a bucket, profile, subnets, region and instance type that cannot exist
    let stderr = '';
    let stdout = '';
    const code = await runCli(['compile', '--spec', specFile, '--bucket', 'Not A Bucket!', '--instance-profile', 'not-an-arn',
      '--subnets', ',', '--security-groups', 'sg-1', '--region', 'mars-1', '--instance-types', 'inf9.huge'],
    { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
    // THEN one refusal lists them all, and no s3:// location was printed
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).not.toContain('s3://');
    for (const part of ['--region "mars-1": not an AWS region code', '--bucket "Not A Bucket!": not an S3 bucket name',
      '--instance-profile "not-an-arn": not an instance profile ARN', '--subnets: names none',
      '--security-groups "sg-1": not a security group ID', '--instance-types "inf9.huge": not an instance type with the spec\'s inf2 chip']) {
      expect(stderr).toContain(part);
    }
    expect(s3).not.toHaveReceivedCommand(PutObjectCommand);
    expect(ec2).not.toHaveReceivedCommand(RunInstancesCommand);
  });

  test('a batch size past the compile limit is refused offline', async () => {
    const big = join(dir, 'big.json');
    writeFileSync(big, JSON.stringify({
      model: 'm', source: { hubModelId: 'm' }, task: 'feature-extraction', sequenceLength: 128,
      batchSizes: [1000000000], chip: 'inf2', coresPerProcess: 1, neuronSdkVersion: '2.26.1',
    }));
    let stderr = '';
    const code = await runCli(['compile', '--spec', big, ...FLAGS], { stdout: () => undefined, stderr: (s) => (stderr += s) });
    expect(code).toBe(2);
    expect(stderr).toContain('batchSizes[0]: expected at most 1024');
    expect(s3).not.toHaveReceivedCommand(PutObjectCommand);
  });
});
