/**
 * `cdk-inferentia promote` run for real against a moto_server on 127.0.0.1: the CLI's own SDK clients (SSM, S3, ECR)
 * read and write state seeded here, so a wrong request shape, a missed pagination or a non-idempotent write shows as
 * it would against AWS. Both environments are in moto's one account, in two regions.
 *
 * ECR is aws-sdk-client-mock here, because moto lacks the APIs an image copy needs (BatchCheckLayerAvailability,
 * GetDownloadUrlForLayer, InitiateLayerUpload: "not yet implemented" in moto 5); test/bin/promote.test.ts covers the
 * layer copy with a real HTTP server. SSM and S3 are moto's.
 * Costs about 3 s: moto_server's start and a dozen requests.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import 'aws-sdk-client-mock-jest';
import { BatchCheckLayerAvailabilityCommand, BatchGetImageCommand, ECRClient, PutImageCommand } from '@aws-sdk/client-ecr';
import { mockClient } from 'aws-sdk-client-mock';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { runCli } from '../../bin/cli';
import { startMotoServer, type MotoServer } from '../support/moto-server';
import { describeWithTool } from '../support/stand-ins';

const REGION = 'us-east-1';
const ACCOUNT = '123456789012'; // moto's default account
const DIGEST = `sha256:${'a'.repeat(64)}`;
const MANIFEST = JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
  config: { mediaType: 'application/vnd.docker.container.image.v1+json', digest: `sha256:${'2'.repeat(64)}`, size: 10 },
  layers: [],
});

describeWithTool('moto_server', 'promote against AWS APIs served by moto_server', (motoServer) => {
  let moto: MotoServer;
  let dir: string;
  const saved = { ...process.env };
  const digest = DIGEST;
  const ecr = mockClient(ECRClient);

  beforeAll(async () => {
    moto = await startMotoServer(motoServer);
    Object.assign(process.env, moto.env, { AWS_REGION: REGION });
    const s3 = moto.client(S3Client);
    ecr.on(BatchGetImageCommand).resolves({ images: [{ imageId: { imageDigest: DIGEST }, imageManifest: MANIFEST,
      imageManifestMediaType: 'application/vnd.docker.distribution.manifest.v2+json' }] });
    ecr.on(BatchCheckLayerAvailabilityCommand).callsFake((input: { layerDigests: string[] }) => ({
      layers: input.layerDigests.map((layerDigest) => ({ layerDigest, layerAvailability: 'AVAILABLE' })) }));
    ecr.on(PutImageCommand).resolves({});
    for (const bucket of ['reports-dev', 'artifacts-dev', 'artifacts-staging']) {
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    }
    await s3.send(new PutObjectCommand({ Bucket: 'artifacts-dev', Key: 'compiled/bert/model.pt', Body: 'model bytes' }));
    await s3.send(new PutObjectCommand({ Bucket: 'artifacts-dev', Key: 'compiled/bert/config.json', Body: '{}' }));
    await s3.send(new PutObjectCommand({ Bucket: 'reports-dev', Key: 'smoke-benchmarks/dev-endpoint/latest.json', Body: JSON.stringify({
      schemaVersion: 1, name: 'dev-endpoint', environment: 'dev', fingerprint: 'fp-1', invokedAt: new Date(Date.now() - 3_600_000).toISOString(),
      complete: true, passed: true, failures: [], report: { requests: 500, errorRate: 0, throughputRps: 50, latencyMs: { p50: 4, p90: 5, p99: 7, max: 9 } },
    }) }));
    await moto.client(SSMClient).send(new PutParameterCommand({ Name: '/cdk-inferentia/bert/dev/deployment', Type: 'String', Value: JSON.stringify({
      schemaVersion: 1, application: 'bert', environment: 'dev', account: ACCOUNT, region: REGION, repositoryName: 'bert/dev',
      imageDigest: digest, fingerprint: 'fp-1', hosting: 'sagemaker', target: 'dev-endpoint',
      report: { bucket: 'reports-dev', key: 'smoke-benchmarks/dev-endpoint/latest.json' },
      plan: { profileId: 'bert-base-uncased', instanceType: 'ml.inf2.xlarge', instanceCount: 2, maxInstanceCount: 4, serving: 'stock',
        batchSize: 1, capacityRps: 600, predictedP99Ms: 7, hourlyCostUsd: 1.5 },
      artifact: { bucket: 'artifacts-dev', prefix: 'compiled/bert/' },
    }) }));
    dir = mkdtempSync(join(tmpdir(), 'promote-moto-'));
    const env = (name: string) => ({ name, account: ACCOUNT, region: REGION, profile: 'bert-base-uncased', repositoryName: `bert/${name}`,
      targets: { throughputRps: 200, p99Ms: 10 }, availability: { minInstances: 2 }, artifact: { bucket: `artifacts-${name}`, prefix: 'compiled/bert/' } });
    writeFileSync(join(dir, 'environments.json'), JSON.stringify({ application: 'bert', imageDigest: digest, environments: [env('dev'), env('staging')] }));
  }, 60_000);

  afterAll(async () => {
    // moto first: a failed beforeAll leaves `dir` unset, and a throw before stop() kept jest waiting on the server.
    await moto?.stop();
    process.env = { ...saved };
    if (dir !== undefined) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  async function promote(...flags: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(['promote', '--from', 'dev', '--config', join(dir, 'environments.json'), ...flags],
      { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
    return { code, stdout, stderr };
  }

  test('--check applies the gate to the seeded record and report', async () => {
    const out = await promote('--check');
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(out.stdout).toContain('gate of dev (bert): passed');
  });

  test('--dry-run reads everything and writes nothing', async () => {
    const out = await promote('--to', 'staging', '--dry-run', '--json');
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ dryRun: true, artifact: { objects: 2 } });
    const listed = await moto.client(S3Client).send(new ListObjectsV2Command({ Bucket: 'artifacts-staging' }));
    expect(listed.KeyCount ?? 0).toBe(0);
    await expect(moto.client(SSMClient).send(new GetParameterCommand({ Name: '/cdk-inferentia/bert/staging/release' })))
      .rejects.toMatchObject({ name: 'ParameterNotFound' });
  });

  test('a real promotion copies the image by digest, the artifact and the record, and a second run changes nothing', async () => {
    const first = await promote('--to', 'staging', '--json');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(ecr).toHaveReceivedCommandWith(PutImageCommand, { repositoryName: 'bert/staging', imageManifest: MANIFEST });
    const copied = await moto.client(S3Client).send(new GetObjectCommand({ Bucket: 'artifacts-staging', Key: 'compiled/bert/model.pt' }));
    expect(await copied.Body!.transformToString()).toBe('model bytes');
    const record = await moto.client(SSMClient).send(new GetParameterCommand({ Name: '/cdk-inferentia/bert/staging/release' }));
    expect(JSON.parse(record.Parameter!.Value!)).toMatchObject({ promotedFrom: 'dev', image: { digest } });

    const second = await promote('--to', 'staging', '--json');
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ record: { value: { image: { digest } } } });
    const objects = await moto.client(S3Client).send(new ListObjectsV2Command({ Bucket: 'artifacts-staging' }));
    expect(objects.KeyCount).toBe(2);
  });
});
