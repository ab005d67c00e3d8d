/**
 * `cdk-inferentia preflight` run for real against a moto_server on 127.0.0.1: the command's own SDK clients (EC2,
 * ECR, S3, SageMaker, pointed at moto by AWS_ENDPOINT_URL) answer from state seeded here, so a wrong request shape
 * (a missing registryId, a prefix listed as an object, an error name matched wrongly) shows as it would against AWS.
 *
 * What moto cannot serve stays aws-sdk-client-mock, covered in test/bin/preflight.test.ts and
 * test/io/preflight/preflight.test.ts:
 * - Service Quotas: moto 5 answers ListAWSDefaultServiceQuotas for the `vpc` service only and has no
 *   ListServiceQuotas, so the quota of `ml.inf2.xlarge for endpoint usage` is mocked here.
 * - ECR across accounts: moto has no repository policies, so the fallback to BatchGetImage when DescribeImages is
 *   denied on another account's repository (the Deep Learning Containers account) cannot happen in moto.
 * EC2 DescribeInstanceTypeOfferings is moto's, from the offerings it ships (inf2.xlarge in four us-east-1 zones).
 * Costs about 7 CPU-seconds measured (4 of them moto_server: its start and loading its EC2 and SageMaker models),
 * about 4 s of the suite's time on two cores.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { CreateRepositoryCommand, ECRClient, PutImageCommand } from '@aws-sdk/client-ecr';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateEndpointCommand, CreateEndpointConfigCommand, CreateModelCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { ListServiceQuotasCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { mockClient } from 'aws-sdk-client-mock';
import { runCli } from '../../bin/cli';
import type { CheckId, CheckResult, PreflightReport } from '../../io/preflight/index';
import { plan as planSingleCall } from '../../lib/planner';
import { requireProfile } from '../../lib/profiles';
import { startMotoServer, type MotoServer } from '../support/moto-server';
import { describeWithTool } from '../support/stand-ins';

const REGION = 'us-east-1';
const ACCOUNT = '123456789012'; // moto's default account
const REPOSITORY = 'bert/serve';
const MANIFEST = JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
  config: { mediaType: 'application/vnd.docker.container.image.v1+json', digest: `sha256:${'2'.repeat(64)}`, size: 10 },
  layers: [],
});

/** What `plan --json` prints: a real plan of 1 x ml.inf2.xlarge (up to 2). */
const PLAN = {
  request: { model: 'bert-base-uncased' },
  chosen: {
    ...planSingleCall(requireProfile('bert-base-uncased'), { throughputRps: 50, p99Ms: 100 },
      { region: REGION, hosting: 'sagemaker', instanceTypes: ['inf2.xlarge'] }),
    instanceCount: 1, maxInstanceCount: 2,
  },
  alternatives: [],
  rejected: [],
};

describeWithTool('moto_server', 'preflight against AWS APIs served by moto_server', (motoServer) => {
  let moto: MotoServer;
  let dir: string;
  let planFile: string;
  let digest: string;
  const saved = { ...process.env };
  const quotas = mockClient(ServiceQuotasClient);

  beforeAll(async () => {
    moto = await startMotoServer(motoServer);
    Object.assign(process.env, moto.env, { AWS_REGION: REGION });
    quotas.on(ListServiceQuotasCommand, { ServiceCode: 'sagemaker' })
      .resolves({ Quotas: [{ QuotaName: 'ml.inf2.xlarge for endpoint usage', QuotaCode: 'L-5A2C4A5B', Value: 4 }] });

    const ecr = moto.client(ECRClient);
    await ecr.send(new CreateRepositoryCommand({ repositoryName: REPOSITORY }));
    const pushed = await ecr.send(new PutImageCommand({ repositoryName: REPOSITORY, imageManifest: MANIFEST, imageTag: 'v1' }));
    digest = pushed.image!.imageId!.imageDigest!;

    const s3 = moto.client(S3Client);
    await s3.send(new CreateBucketCommand({ Bucket: 'models' }));
    await s3.send(new PutObjectCommand({ Bucket: 'models', Key: 'bert/model.pt', Body: 'compiled model' }));
    await s3.send(new PutObjectCommand({ Bucket: 'models', Key: 'bert.tar.gz', Body: 'model archive' }));

    const sageMaker = moto.client(SageMakerClient);
    await sageMaker.send(new CreateModelCommand({ ModelName: 'bert', ExecutionRoleArn: `arn:aws:iam::${ACCOUNT}:role/sagemaker`,
      PrimaryContainer: { Image: `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/${REPOSITORY}@${digest}` } }));
    // moto 5 validates ProductionVariants against an instance type list without inf2; the taken endpoint's type
    // does not matter to the check.
    await sageMaker.send(new CreateEndpointConfigCommand({ EndpointConfigName: 'bert-config',
      ProductionVariants: [{ VariantName: 'AllTraffic', ModelName: 'bert', InstanceType: 'ml.inf1.xlarge', InitialInstanceCount: 1 }] }));
    await sageMaker.send(new CreateEndpointCommand({ EndpointName: 'bert-taken', EndpointConfigName: 'bert-config' }));

    dir = mkdtempSync(join(tmpdir(), 'preflight-moto-'));
    planFile = join(dir, 'plan.json');
    writeFileSync(planFile, JSON.stringify(PLAN));
  }, 60_000);

  afterAll(async () => {
    await moto?.stop();
    process.env = { ...saved };
    quotas.restore();
    if (dir !== undefined) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const image = (d: string) => `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/${REPOSITORY}@${d}`;

  async function preflight(imageUri: string, modelData: string, endpointName: string) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['preflight', '--plan', planFile, '--image', imageUri, '--model-data', modelData,
      '--endpoint-name', endpointName, '--json'], { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
    const { passed, reports } = JSON.parse(stdout) as { passed: boolean; reports: PreflightReport[] };
    const checks = Object.fromEntries(reports[0].checks.map((c) => [c.id, c])) as Record<CheckId, CheckResult>;
    return { code, stderr, passed, checks };
  }

  test('an account with the image, the model files and a free name passes every check', async () => {
    const out = await preflight(image(digest), 's3://models/bert/', 'bert-prod');

    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.passed).toBe(true);
    expect(out.checks['instance-offering']).toMatchObject({ status: 'pass',
      detail: `inf2.xlarge is offered in 4 Availability Zones of ${REGION} (us-east-1a, us-east-1b, us-east-1c, us-east-1f)` });
    expect(out.checks['instance-quota']).toMatchObject({ status: 'pass' });
    expect(out.checks.image).toMatchObject({ status: 'pass', detail: expect.stringMatching(new RegExp(`^${REPOSITORY}@sha256:.* exists in account ${ACCOUNT} \\(pushed \\d{4}-`)) });
    expect(out.checks['model-data']).toMatchObject({ status: 'pass', detail: 's3://models/bert/ holds model files (e.g. bert/model.pt)' });
    expect(out.checks['endpoint-name']).toMatchObject({ status: 'pass', detail: `no endpoint named bert-prod in ${REGION}` });
  });

  test('a model archive given as an object is read with HeadObject', async () => {
    const out = await preflight(image(digest), 's3://models/bert.tar.gz', 'bert-prod');

    expect(out.code).toBe(0);
    expect(out.checks['model-data']).toMatchObject({ status: 'pass', detail: 's3://models/bert.tar.gz exists (13 bytes)' });
  });

  test('a missing model artifact, an unknown image digest and a taken endpoint name each fail with their fix', async () => {
    const out = await preflight(image(`sha256:${'e'.repeat(64)}`), 's3://models/bert/missing.tar.gz', 'bert-taken');

    expect(out.code).toBe(1);
    expect(out.passed).toBe(false);
    expect(out.stderr).toMatch(/preflight failed: 3 checks failed: image .*, model-data .*, endpoint-name /);
    expect(out.checks.image).toMatchObject({ status: 'fail',
      detail: `${REPOSITORY}@sha256:${'e'.repeat(64)} does not exist in account ${ACCOUNT} (${REGION})`, fix: expect.stringContaining('push the image') });
    expect(out.checks['model-data']).toMatchObject({ status: 'fail', detail: 's3://models/bert/missing.tar.gz does not exist' });
    expect(out.checks['endpoint-name']).toMatchObject({ status: 'fail',
      detail: expect.stringMatching(new RegExp(`^an endpoint named bert-taken already exists in ${REGION} \\(`)) });
    expect(out.checks['instance-offering'].status).toBe('pass');
  });

  test('an empty model prefix, a missing bucket and a missing repository fail', async () => {
    const empty = await preflight(`${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/nope@${digest}`, 's3://models/gpt/', 'bert-prod');
    expect(empty.checks['model-data']).toMatchObject({ status: 'fail', detail: 's3://models/gpt/ holds no object: the endpoint would start with no model' });
    expect(empty.checks.image).toMatchObject({ status: 'fail', detail: `repository nope does not exist in account ${ACCOUNT} (${REGION})` });

    const noBucket = await preflight(image(digest), 's3://no-such-bucket/bert/', 'bert-prod');
    expect(noBucket.checks['model-data']).toMatchObject({ status: 'fail', detail: 'bucket no-such-bucket does not exist' });
  });
});
