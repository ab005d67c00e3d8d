/**
 * `cdk-inferentia preflight` through the whole CLI: plans and synthesized stacks in, a table or JSON out, exit codes.
 * AWS is aws-sdk-client-mock, which stubs every client of a class, so the command's own clients are used.
 */
import 'aws-sdk-client-mock-jest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { DescribeAvailabilityZonesCommand, DescribeInstanceTypeOfferingsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { DescribeImagesCommand, ECRClient } from '@aws-sdk/client-ecr';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { DescribeEndpointCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { ListAWSDefaultServiceQuotasCommand, ListServiceQuotasCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { mockClient } from 'aws-sdk-client-mock';
import { runCli } from '../../bin/cli';
import { plan as planSingleCall } from '../../lib/planner';
import { requireProfile } from '../../lib/profiles';
import type { PreflightReport } from '../../io/preflight/index';
import { withoutCredentials } from '../support/aws-env';

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

const DIGEST = `sha256:${'d'.repeat(64)}`;
const DLC = `763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-inference-neuronx@${DIGEST}`;

const ec2 = mockClient(EC2Client);
const quotas = mockClient(ServiceQuotasClient);
const sageMaker = mockClient(SageMakerClient);
const s3 = mockClient(S3Client);
const ecr = mockClient(ECRClient);

/**
 * What `plan --json` prints: a real plan of 1 x ml.inf2.xlarge (up to 2) in us-west-2, with a field a later planner
 * might add, which the reader lets pass.
 */
const planned = planSingleCall(requireProfile('bert-base-uncased'), { throughputRps: 50, p99Ms: 100 },
  { region: 'us-west-2', hosting: 'sagemaker', instanceTypes: ['inf2.xlarge'] });
const plan = {
  request: { model: 'bert-base-uncased' },
  chosen: { ...planned, instanceCount: 1, maxInstanceCount: 2, someFieldAddedLater: true },
  alternatives: [],
  rejected: [],
};

/** A synthesized stack as the example writes it: the model data bucket and upload belong to the stack. */
const template = {
  Resources: {
    Endpoint: { Type: 'AWS::SageMaker::Endpoint', Properties: { EndpointName: 'inference-endpoint-x', EndpointConfigName: { 'Fn::GetAtt': ['Config', 'EndpointConfigName'] } } },
    Config: {
      Type: 'AWS::SageMaker::EndpointConfig',
      Properties: {
        ProductionVariants: [{ InstanceType: 'ml.inf2.xlarge', InitialInstanceCount: 2, ModelName: { 'Fn::GetAtt': ['Model', 'ModelName'] }, VariantName: 'AllTraffic' }],
      },
    },
    Model: {
      Type: 'AWS::SageMaker::Model',
      Properties: {
        PrimaryContainer: {
          Image: DLC,
          ModelDataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: { 'Fn::Join': ['', ['s3://', { Ref: 'Bucket' }, '/models/abc/']] } } },
        },
      },
    },
    Scaling: {
      Type: 'AWS::ApplicationAutoScaling::ScalableTarget',
      Properties: { ServiceNamespace: 'sagemaker', ScalableDimension: 'sagemaker:variant:DesiredInstanceCount', MinCapacity: 2, MaxCapacity: 4 },
    },
  },
};

const savedEnv = { ...process.env };
afterEach(() => {
  process.env = { ...savedEnv };
});

let dir: string;
beforeEach(() => {
  // The command resolves credentials once before its checks; the mocked clients need no real ones.
  process.env.AWS_ACCESS_KEY_ID = 'AKIDPREFLIGHTTEST';
  process.env.AWS_SECRET_ACCESS_KEY = 'preflight-test-secret';
  dir = mkdtempSync(join(tmpdir(), 'preflight-cli-'));
  for (const mock of [ec2, quotas, sageMaker, s3, ecr]) {
    mock.reset();
  }
  ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({
    InstanceTypeOfferings: ['us-west-2a', 'us-west-2b'].map((Location) => ({ InstanceType: 'inf2.xlarge', LocationType: 'availability-zone', Location })),
  });
  quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [{ QuotaName: 'ml.inf2.xlarge for endpoint usage', QuotaCode: 'L-X', Value: 8 }] });
  ecr.on(DescribeImagesCommand).resolves({ imageDetails: [{}] });
  s3.on(ListObjectsV2Command).resolves({ KeyCount: 1, Contents: [{ Key: 'bert/model.pt' }] });
  sageMaker.on(DescribeEndpointCommand).rejects(
    Object.assign(new Error('Could not find endpoint "x".'), { name: 'ValidationException', $metadata: { httpStatusCode: 400 } }),
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

describe('preflight of a plan', () => {
  test('GIVEN a bad endpoint name, a non-S3 model URI and a non-ECR image THEN exit 2 naming each, before any AWS call', async () => {
    const file = write('plan.json', plan);

    const { code, stdout, stderr } = await run('preflight', '--plan', file, '--image', 'nginx:latest',
      '--model-data', 'http://example.com/m.tar.gz', '--endpoint-name', 'bad name!');

    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toContain('--endpoint-name "bad name!": not a SageMaker endpoint name');
    expect(stderr).toContain('--model-data "http://example.com/m.tar.gz": not an s3://bucket/key URI');
    expect(stderr).toContain('--image "nginx:latest": SageMaker pulls images only from ECR');
    for (const mock of [ec2, quotas, sageMaker, s3, ecr]) {
      expect(mock.calls()).toHaveLength(0);
    }
  });

  test('GIVEN an endpoint name of 64 characters THEN exit 2 with the length; 63 is accepted', async () => {
    const file = write('plan.json', plan);
    const long = await run('preflight', '--plan', file, '--endpoint-name', 'a'.repeat(64));
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('64 characters, SageMaker allows 63');
    const ok = await run('preflight', '--plan', file, '--endpoint-name', `a-${'b'.repeat(61)}`, '--skip', 'image,model-data');
    expect(ok.code).toBe(0);
  });

  test('GIVEN a SageMaker plan and an image in another region\'s ECR THEN exit 2 before any AWS call, naming both regions', async () => {
    // SageMaker pulls a model's image only from ECR in the endpoint's region (API reference, ContainerDefinition.Image).
    const file = write('plan.json', plan);
    const { code, stderr } = await run('preflight', '--plan', file, '--image', DLC.replace('us-west-2', 'eu-west-1'));
    expect(code).toBe(2);
    expect(stderr).toContain('its repository is in eu-west-1, the plan\'s endpoint in us-west-2; SageMaker pulls only from ECR in the '
      + 'endpoint\'s region: copy the image to us-west-2');
    for (const mock of [ec2, quotas, sageMaker, s3, ecr]) {
      expect(mock.calls()).toHaveLength(0);
    }
  });

  test('GIVEN a plan, an image, model data and a free name WHEN every check passes THEN exit 0 with a table of PASS', async () => {
    const file = write('plan.json', plan);

    const { code, stdout, stderr } = await run('preflight', '--plan', file, '--image', DLC, '--model-data', 's3://models/bert/', '--endpoint-name', 'bert-prod');

    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(new RegExp(`^Preflight of ${file}: 1 x ml.inf2.xlarge \\(up to 2\\) on sagemaker in us-west-2\\n`));
    for (const id of ['instance-offering', 'instance-quota', 'image', 'model-data', 'endpoint-name']) {
      expect(stdout).toMatch(new RegExp(`│ ${id}\\s+│ PASS`));
    }
    expect(stdout).toMatch(/All checks pass\.\n$/);
  });

  test('GIVEN a new account with quota 0 WHEN --json THEN exit 1, the JSON names the failure and its fix, stderr one line', async () => {
    quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [] });
    quotas.on(ListAWSDefaultServiceQuotasCommand).resolves({ Quotas: [{ QuotaName: 'ml.inf2.xlarge for endpoint usage', QuotaCode: 'L-X', Value: 0 }] });
    const file = write('plan.json', plan);

    const { code, stdout, stderr } = await run('preflight', '--plan', file, '--json');

    expect(code).toBe(1);
    const { passed, reports } = JSON.parse(stdout) as { passed: boolean; reports: PreflightReport[] };
    expect(passed).toBe(false);
    expect(reports[0].checks.map((c) => [c.id, c.status])).toEqual([
      ['instance-offering', 'pass'],
      ['instance-quota', 'fail'],
      ['instance-pools', 'skip'],
      ['capacity-block', 'skip'],
      ['image', 'skip'],
      ['model-data', 'skip'],
      ['endpoint-name', 'skip'],
    ]);
    expect(reports[0].checks[1].fix).toMatch(/--desired-value 4 --region us-west-2/);
    expect(reports[0].checks.find((c) => c.id === 'image')).toMatchObject({ detail: 'a plan names no image: add --image <uri@sha256:...>' });
    expect(stderr).toBe(`error: preflight failed: 1 check failed: instance-quota (${file}); fix them before deploying\n`);
  });

  test.each([
    ['neither --plan nor --stack', [], 'error: give one of --plan plan.json (from `cdk-inferentia plan ... --json`) or --stack cdk.out\n'],
    ['an unknown check to skip', ['--plan', 'PLAN', '--skip', 'quota'], /--skip quota: not a check; the checks are instance-offering, instance-quota, instance-pools, capacity-block, image, model-data, endpoint-name/],
    ['--image with a stack', ['--stack', 'DIR', '--image', DLC], /--image: applies to --plan; a stack names its own/],
    ['a plan with no chosen deployment', ['--plan', 'NOPLAN'], /the plan has no chosen deployment \(no plan fits\)/],
    ['a plan missing fields', ['--plan', 'BADPLAN'], /bad\.json: chosen\.maxInstanceCount: expected a positive integer, got nothing .*plan again with it/s],
    ['a region that is not one', ['--plan', 'PLAN', '--region', 'mars-1'], /--region mars-1: not an AWS region code/],
    ['a flag given twice', ['--plan', 'PLAN', '--plan', 'PLAN'], /--plan is given twice/],
    ['a template file without --region', ['--stack', 'TEMPLATE'], /a template file does not say its region; add --region/],
  ])('GIVEN %s THEN exit 2 before any AWS call', async (_what, args, message) => {
    const files: Record<string, string> = {
      PLAN: write('plan.json', plan),
      NOPLAN: write('none.json', { ...plan, chosen: null }),
      BADPLAN: write('bad.json', { chosen: { ...plan.chosen, maxInstanceCount: undefined } }),
      TEMPLATE: write('stack.template.json', template),
      DIR: dir,
    };
    const { code, stderr } = await run('preflight', ...(args as string[]).map((a) => files[a] ?? a));

    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(ec2).not.toHaveReceivedAnyCommand();
  });
});

describe('preflight without credentials', () => {
  test('GIVEN the SDK chain finds no credentials THEN exit 1 with one line naming them and the fix, before any check', async () => {
    withoutCredentials();

    const { code, stdout, stderr } = await run('preflight', '--plan', write('plan.json', plan));
    const json = await run('preflight', '--plan', write('plan.json', plan), '--json');

    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ passed: false, error: expect.stringMatching(/no AWS credentials found/), reports: [] });
    expect(stderr).toMatch(/^error: preflight: reading AWS credentials failed: no AWS credentials found \(CredentialsProviderError: .+\); give the AWS SDK credentials: set AWS_PROFILE/);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(ec2).not.toHaveReceivedAnyCommand();
  });
});

describe('preflight of a synthesized stack', () => {
  test('GIVEN a cdk.out WHEN checked THEN region from the manifest, ceiling from the scaling target, stack-made data skipped', async () => {
    // GIVEN a cdk.out with one stack in us-west-2
    const out = join(dir, 'cdk.out');
    mkdirSync(out);
    writeFileSync(join(out, 'Inference.template.json'), JSON.stringify(template));
    writeFileSync(
      join(out, 'manifest.json'),
      JSON.stringify({
        artifacts: {
          Inference: { type: 'aws:cloudformation:stack', environment: 'aws://123456789012/us-west-2', properties: { templateFile: 'Inference.template.json' } },
          Tree: { type: 'cdk:tree' },
        },
      }),
    );

    // AND a quota of 6, short of a blue/green update at the ceiling of 4
    quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [{ QuotaName: 'ml.inf2.xlarge for endpoint usage', QuotaCode: 'L-X', Value: 6 }] });

    // WHEN
    const { code, stdout } = await run('preflight', '--stack', out, '--json');

    // THEN
    expect(code).toBe(1);
    const { reports } = JSON.parse(stdout) as { reports: PreflightReport[] };
    expect(reports[0].target).toMatchObject({ region: 'us-west-2', instanceType: 'ml.inf2.xlarge', instanceCount: 2, maxInstanceCount: 4, image: DLC, endpointName: 'inference-endpoint-x' });
    expect(reports[0].checks.map((c) => [c.id, c.status])).toEqual([
      ['instance-offering', 'pass'],
      ['instance-quota', 'fail'],
      ['instance-pools', 'skip'],
      ['capacity-block', 'skip'],
      ['image', 'pass'],
      ['model-data', 'skip'],
      ['endpoint-name', 'pass'],
    ]);
    expect(reports[0].checks.find((c) => c.id === 'model-data')?.detail).toBe('the model data is uploaded by the stack itself during the deploy');
    expect(ecr).toHaveReceivedCommandWith(DescribeImagesCommand, { registryId: '763104351884', repositoryName: 'pytorch-inference-neuronx' });
    expect(sageMaker).toHaveReceivedCommandWith(DescribeEndpointCommand, { EndpointName: 'inference-endpoint-x' });
  });

  test('GIVEN a cdk.out of several stacks WHEN --stack-name picks one, or none is SageMaker, or the stack is environment-agnostic THEN it says so', async () => {
    const out = join(dir, 'cdk.out');
    mkdirSync(out);
    writeFileSync(join(out, 'A.template.json'), JSON.stringify(template));
    writeFileSync(join(out, 'B.template.json'), JSON.stringify({ Resources: { Q: { Type: 'AWS::SQS::Queue' } } }));
    const manifest = (envA: string) =>
      writeFileSync(
        join(out, 'manifest.json'),
        JSON.stringify({
          artifacts: {
            A: { type: 'aws:cloudformation:stack', environment: envA, properties: { templateFile: 'A.template.json' } },
            B: { type: 'aws:cloudformation:stack', environment: 'aws://123456789012/eu-west-1', properties: { templateFile: 'B.template.json' } },
          },
        }),
      );

    manifest('aws://123456789012/eu-west-1');
    const onlyB = await run('preflight', '--stack', out, '--stack-name', 'B');
    const missing = await run('preflight', '--stack', out, '--stack-name', 'C');
    manifest('aws://unknown-account/unknown-region');
    const agnostic = await run('preflight', '--stack', out);
    const withRegion = await run('preflight', '--stack', out, '--region', 'us-west-2', '--json');

    expect(onlyB).toMatchObject({ code: 2, stderr: expect.stringMatching(/no stack with a SageMaker endpoint or an ECS service/) });
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringMatching(/--stack-name C: not in .*cdk.out; stacks: A, B/) });
    expect(agnostic).toMatchObject({ code: 2, stderr: expect.stringMatching(/stack A is environment-agnostic \(aws:\/\/unknown-account\/unknown-region\): add --region/) });
    expect(JSON.parse(withRegion.stdout).reports.map((r: PreflightReport) => r.target.region)).toEqual(['us-west-2']);
  });

  test('GIVEN a cdk.out with a stage and an ECS stack THEN every stack is checked, the stage image resolved through its Release stack', async () => {
    // GIVEN the shapes the example app writes: dev/Release exports its repository, dev/Inference joins the image URI
    // from it; BertBaseUncasedEcs runs inf2.xlarge instances through an Auto Scaling group.
    const out = join(dir, 'cdk.out');
    mkdirSync(join(out, 'assembly-dev'), { recursive: true });
    const digest = `sha256:${'0'.repeat(64)}`;
    const release = {
      Resources: { Repo: { Type: 'AWS::ECR::Repository', Properties: { RepositoryName: 'bert/dev' } } },
      Outputs: {
        Arn: { Value: { 'Fn::GetAtt': ['Repo', 'Arn'] }, Export: { Name: 'dev-Release:RepoArn' } },
        Name: { Value: { Ref: 'Repo' }, Export: { Name: 'dev-Release:RepoName' } },
      },
    };
    const imported = (name: string, index: number) => ({ 'Fn::Select': [index, { 'Fn::Split': [':', { 'Fn::ImportValue': name }] }] });
    const stageImage = { 'Fn::Join': ['', [imported('dev-Release:RepoArn', 4), '.dkr.ecr.', imported('dev-Release:RepoArn', 3), '.',
      { Ref: 'AWS::URLSuffix' }, '/', { 'Fn::ImportValue': 'dev-Release:RepoName' }, `@${digest}`]] };
    const inference = JSON.parse(JSON.stringify(template));
    inference.Resources.Model.Properties.PrimaryContainer.Image = stageImage;
    const ecs = {
      Resources: {
        Service: { Type: 'AWS::ECS::Service', Properties: {} },
        LaunchTemplate: { Type: 'AWS::EC2::LaunchTemplate', Properties: { LaunchTemplateData: { InstanceType: 'inf2.xlarge' } } },
        // A CDK VPC without named zones: its subnets take the first zones of Fn::GetAZs
        Group: { Type: 'AWS::AutoScaling::AutoScalingGroup', Properties: { MinSize: '2', MaxSize: '6',
          VPCZoneIdentifier: [{ Ref: 'Subnet1' }, { Ref: 'Subnet2' }] } },
        Subnet1: { Type: 'AWS::EC2::Subnet', Properties: { AvailabilityZone: { 'Fn::Select': [0, { 'Fn::GetAZs': '' }] } } },
        Subnet2: { Type: 'AWS::EC2::Subnet', Properties: { AvailabilityZone: { 'Fn::Select': [1, { 'Fn::GetAZs': '' }] } } },
        Task: { Type: 'AWS::ECS::TaskDefinition', Properties: { ContainerDefinitions: [{ Image: { 'Fn::Join': ['',
          ['111111111111.dkr.ecr.us-west-2.', { Ref: 'AWS::URLSuffix' }, `/bert-server@${digest}`]] } }] } },
      },
    };
    writeFileSync(join(out, 'assembly-dev', 'devRelease.template.json'), JSON.stringify(release));
    writeFileSync(join(out, 'assembly-dev', 'devInference.template.json'), JSON.stringify(inference));
    writeFileSync(join(out, 'assembly-dev', 'manifest.json'), JSON.stringify({ artifacts: {
      devRelease: { type: 'aws:cloudformation:stack', environment: 'aws://111111111111/us-west-2', displayName: 'dev/Release', properties: { templateFile: 'devRelease.template.json' } },
      devInference: { type: 'aws:cloudformation:stack', environment: 'aws://111111111111/us-west-2', displayName: 'dev/Inference', properties: { templateFile: 'devInference.template.json' } },
    } }));
    writeFileSync(join(out, 'Ecs.template.json'), JSON.stringify(ecs));
    writeFileSync(join(out, 'manifest.json'), JSON.stringify({ artifacts: {
      'assembly-dev': { type: 'cdk:cloud-assembly', properties: { directoryName: 'assembly-dev' } },
      Ecs: { type: 'aws:cloudformation:stack', environment: 'aws://111111111111/us-west-2', properties: { templateFile: 'Ecs.template.json' } },
    } }));
    quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [
      { QuotaName: 'ml.inf2.xlarge for endpoint usage', QuotaCode: 'L-X', Value: 8 },
      { QuotaName: 'Running On-Demand Inf instances', QuotaCode: 'L-1945791B', Value: 64 },
    ] });
    ec2.on(DescribeAvailabilityZonesCommand).resolves({ AvailabilityZones: ['us-west-2c', 'us-west-2b', 'us-west-2a'].map((ZoneName) => ({ ZoneName })) });

    // WHEN
    const { code, stdout } = await run('preflight', '--stack', out, '--json');

    // THEN the stage's image is checked in its repository, and the ECS stack is a target of its own
    const reports = JSON.parse(stdout).reports as PreflightReport[];
    expect(reports.map((r) => [r.target.source.split(':')[0], r.target.hosting, r.target.instanceType])).toEqual([
      ['dev/Inference', 'sagemaker', 'ml.inf2.xlarge'], ['Ecs', 'ec2', 'inf2.xlarge'],
    ]);
    expect(reports[0].target.image).toBe(`111111111111.dkr.ecr.us-west-2.amazonaws.com/bert/dev@${digest}`);
    expect(reports[1].target).toMatchObject({ instanceCount: 2, maxInstanceCount: 6, vcpus: 4,
      image: `111111111111.dkr.ecr.us-west-2.amazonaws.com/bert-server@${digest}`, subnets: [{ getAzsIndex: 0 }, { getAzsIndex: 1 }] });
    // AND the ECS instance type is offered in the zones of the service's subnets (Fn::GetAZs lists them alphabetically)
    expect(reports[1].checks[0]).toMatchObject({ id: 'instance-offering', status: 'pass',
      detail: expect.stringContaining('every zone of the service\'s subnets among them') });
    expect(ecr).toHaveReceivedCommandWith(DescribeImagesCommand, { repositoryName: 'bert/dev', imageIds: [{ imageDigest: digest }] });
    expect(ecr).toHaveReceivedCommandWith(DescribeImagesCommand, { repositoryName: 'bert-server' });
    expect(code).toBe(0);
  });

  test('GIVEN a template file and --region WHEN the quota of 8 allows 2 x 4 THEN exit 0', async () => {
    const { code, stdout } = await run('preflight', '--stack', write('s.template.json', template), '--region', 'us-west-2');

    expect(code).toBe(0);
    expect(stdout).toMatch(/│ model-data\s+│ SKIP/);
  });
});
