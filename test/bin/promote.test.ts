/**
 * `cdk-inferentia promote` through the whole CLI. Control plane (ECR, S3, SSM) is aws-sdk-client-mock, which stubs
 * every client of a class, so the command's own clients run; a layer the target lacks is downloaded from a real HTTP
 * server on 127.0.0.1, as ECR's presigned layer URL would serve it.
 */
import 'aws-sdk-client-mock-jest';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Readable } from 'stream';
import {
  BatchCheckLayerAvailabilityCommand, BatchGetImageCommand, CompleteLayerUploadCommand, ECRClient,
  GetDownloadUrlForLayerCommand, InitiateLayerUploadCommand, PutImageCommand, UploadLayerPartCommand,
} from '@aws-sdk/client-ecr';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetParameterCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { runCli } from '../../bin/cli';
import type { PromotionResult } from '../../bin/commands/promote';
import { startHttpServer } from '../support/http-server';

const temporaryCredentials: unknown[] = [];
jest.mock('@aws-sdk/credential-providers', () => ({
  fromTemporaryCredentials: (options: unknown) => {
    temporaryCredentials.push(options);
    return async () => ({ accessKeyId: 'AKIDTEST', secretAccessKey: 'secret', sessionToken: 'token' });
  },
}));

const DIGEST = `sha256:${'a'.repeat(64)}`;
const OTHER_DIGEST = `sha256:${'b'.repeat(64)}`;
const FINGERPRINT = 'fp-current';
const NOW = Date.now();
const LAYER = Buffer.from('layer bytes of the model server image');
const LAYER_DIGEST = `sha256:${'1'.repeat(64)}`;
const CONFIG_DIGEST = `sha256:${'2'.repeat(64)}`;
const MANIFEST = JSON.stringify({
  schemaVersion: 2,
  mediaType: 'application/vnd.oci.image.manifest.v1+json',
  config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: CONFIG_DIGEST, size: 10 },
  layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: LAYER_DIGEST, size: LAYER.length }],
}, null, 3);

const ecr = mockClient(ECRClient);
const s3 = mockClient(S3Client);
const ssm = mockClient(SSMClient);

let dir: string;

const GENERATIVE = {
  targets: { requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60 },
};

function config(overrides: { imageDigest?: string | null; generative?: boolean } = {}) {
  const env = (name: string, account: string, region: string, extra: object = {}) => ({
    name, account, region, profile: 'bert-base-uncased',
    targets: { throughputRps: 200, p99Ms: 10 }, availability: { minInstances: 2 },
    artifact: { bucket: `artifacts-${name}`, prefix: 'compiled/bert/' },
    ...(overrides.generative ? { generative: GENERATIVE } : {}), ...extra,
  });
  const json: Record<string, unknown> = {
    application: 'bert',
    imageDigest: DIGEST,
    ...(overrides.generative ? { generativeImageDigest: OTHER_DIGEST } : {}),
    environments: [
      env('dev', '111111111111', 'us-east-1'),
      env('staging', '222222222222', 'us-west-2', { promotionRoleArn: 'arn:aws:iam::222222222222:role/promote' }),
      env('prod', '333333333333', 'us-west-2', { promotionRoleArn: 'arn:aws:iam::333333333333:role/promote' }),
    ],
  };
  if (overrides.imageDigest === null) {
    delete json.imageDigest;
  } else if (overrides.imageDigest !== undefined) {
    json.imageDigest = overrides.imageDigest;
  }
  writeFileSync(join(dir, 'environments.json'), JSON.stringify(json));
}

function deploymentRecord(digest = DIGEST) {
  return JSON.stringify({
    schemaVersion: 1, application: 'bert', environment: 'dev', account: '111111111111', region: 'us-east-1',
    repositoryName: 'bert/dev', imageDigest: digest, fingerprint: FINGERPRINT, hosting: 'sagemaker', target: 'dev-endpoint',
    report: { bucket: 'reports-dev', key: 'smoke-benchmarks/dev-endpoint/latest.json' },
    plan: { profileId: 'bert-base-uncased', instanceType: 'ml.inf2.xlarge', instanceCount: 2, maxInstanceCount: 4,
      serving: 'stock', batchSize: 1, capacityRps: 600, predictedP99Ms: 7, hourlyCostUsd: 1.5 },
  });
}

function smokeReport(overrides: Record<string, unknown> = {}) {
  return JSON.stringify({
    schemaVersion: 1, name: 'dev-endpoint', environment: 'dev', fingerprint: FINGERPRINT,
    invokedAt: new Date(NOW - 3_600_000).toISOString(), complete: true, passed: true, failures: [],
    report: { requests: 500, errorRate: 0, throughputRps: 50, latencyMs: { p50: 4, p90: 5, p99: 7, max: 9 } },
    ...overrides,
  });
}

function body(text: string) {
  return { transformToString: async () => text } as never;
}

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
    return { code, stdout, stderr };
  } finally {
    process.chdir(cwd);
  }
}

function prices() {
  writeFileSync(join(dir, 'prices.json'), JSON.stringify({
    prices: ['inf2.xlarge', 'inf2.8xlarge'].map((t, i) => ({ instanceType: t, region: 'us-west-2', hosting: 'sagemaker', usdPerHour: [0.99, 2.2][i] })),
  }));
}

const FLAGS = ['--config', 'environments.json', '--prices', 'prices.json'];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'promote-'));
  prices();
  config();
  temporaryCredentials.length = 0;
  ecr.reset();
  s3.reset();
  ssm.reset();
  ssm.on(GetParameterCommand, { Name: '/cdk-inferentia/bert/dev/deployment' }).resolves({ Parameter: { Value: deploymentRecord() } });
  s3.on(GetObjectCommand, { Bucket: 'reports-dev' }).resolves({ Body: body(smokeReport()) });
  s3.on(ListObjectsV2Command, { Bucket: 'artifacts-dev' }).resolves({
    Contents: [
      { Key: 'compiled/bert/model.pt', Size: 1000, ETag: '"e1"' },
      { Key: 'compiled/bert/config.json', Size: 20, ETag: '"e2"' },
    ],
  });
  s3.on(GetObjectCommand, { Bucket: 'artifacts-dev' }).callsFake((input: { Key: string }) => ({
    Body: Readable.from([Buffer.from(`bytes of ${input.Key}`)]), ContentLength: 100, ContentType: 'application/octet-stream',
  }));
  ecr.on(BatchGetImageCommand).resolves({
    images: [{ imageId: { imageDigest: DIGEST }, imageManifest: MANIFEST, imageManifestMediaType: 'application/vnd.oci.image.manifest.v1+json' }],
  });
  ecr.on(BatchCheckLayerAvailabilityCommand).resolves({
    layers: [{ layerDigest: CONFIG_DIGEST, layerAvailability: 'AVAILABLE' }, { layerDigest: LAYER_DIGEST, layerAvailability: 'AVAILABLE' }],
  });
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

function expectNothingWritten() {
  expect(ecr).not.toHaveReceivedCommand(PutImageCommand);
  expect(ecr).not.toHaveReceivedCommand(InitiateLayerUploadCommand);
  expect(s3).not.toHaveReceivedCommand(PutObjectCommand);
  expect(ssm).not.toHaveReceivedCommand(PutParameterCommand);
}

const HASH = '0123456789abcdef01234567';
const NOT_FOUND = Object.assign(new Error('missing'), { name: 'ParameterNotFound' });

function generativeRecord(env: string, overrides: Record<string, unknown> = {}) {
  return JSON.stringify({
    schemaVersion: 1, application: 'bert', environment: env, profileId: 'llama-3.1-8b-instruct', imageDigest: OTHER_DIGEST,
    hash: HASH, artifact: { bucket: `artifacts-${env}`, prefix: `compiled/bert/${HASH}/` }, ...overrides,
  });
}

/** dev serves the generative replica HASH from its artifact prefix, beside the single-call artifact. */
function generativeDev() {
  config({ generative: true });
  ssm.on(GetParameterCommand, { Name: '/cdk-inferentia/bert/dev/generative-deployment' }).resolves({ Parameter: { Value: generativeRecord('dev') } });
  ssm.on(GetParameterCommand, { Name: '/cdk-inferentia/bert/dev/release' }).rejects(NOT_FOUND);
  s3.on(ListObjectsV2Command, { Bucket: 'artifacts-dev' }).resolves({
    Contents: [
      { Key: 'compiled/bert/model.pt', Size: 1000, ETag: '"e1"' },
      { Key: `compiled/bert/${HASH}/compiled/model.neff`, Size: 3000, ETag: '"e3"' },
    ],
  });
}

describe('promote moves the generative model\'s recorded replica and names it in the release record', () => {
  test('GIVEN dev\'s generative record WHEN promoting dev to staging THEN the result and the release record name its vLLM digest, hash and promoted prefix', async () => {
    generativeDev();
    const { code, stdout, stderr } = await run('promote', '--from', 'dev', '--to', 'staging', ...FLAGS, '--json');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as PromotionResult;
    expect(result.generative).toEqual({
      profile: 'llama-3.1-8b-instruct',
      imageDigest: OTHER_DIGEST,
      hash: HASH,
      compiledPrefix: `s3://artifacts-staging/compiled/bert/${HASH}/`,
      gate: 'the token proof of staging-Generative, which fails its deploy (CloudFormation rolls back) on a miss',
    });
    expect(s3).toHaveReceivedCommandWith(PutObjectCommand, { Bucket: 'artifacts-staging', Key: `compiled/bert/${HASH}/compiled/model.neff` });
    const record = JSON.parse(ssm.commandCalls(PutParameterCommand)[0].args[0].input.Value!);
    expect(record.generative).toEqual({
      profileId: 'llama-3.1-8b-instruct', imageDigest: OTHER_DIGEST, hash: HASH, bucket: 'artifacts-staging', prefix: `compiled/bert/${HASH}/`,
    });
    const human = await run('promote', '--from', 'dev', '--to', 'staging', ...FLAGS, '--dry-run');
    expect(human.stdout).toContain(`generative llama-3.1-8b-instruct: compiled replica ${HASH} at s3://artifacts-staging/compiled/bert/${HASH}/ `
      + `travels in the artifact prefix; vLLM image ${OTHER_DIGEST} is pinned in the config, not copied`);
  });

  test('GIVEN no generative record in dev WHEN promoting THEN refused, saying to deploy its Generative stack', async () => {
    generativeDev();
    ssm.on(GetParameterCommand, { Name: '/cdk-inferentia/bert/dev/generative-deployment' }).rejects(NOT_FOUND);
    const { code, stderr } = await run('promote', '--from', 'dev', '--to', 'staging', ...FLAGS);
    expect(code).toBe(1);
    expect(stderr).toContain('dev has no generative deployment record at ssm:/cdk-inferentia/bert/dev/generative-deployment '
      + "(111111111111, us-east-1): deploy dev/Generative (npx cdk deploy 'dev/*') and let its token proof pass");
    expectNothingWritten();
  });

  test('GIVEN dev\'s generative model on another vLLM digest than the config WHEN promoting or checking THEN refused naming generativeImageDigest', async () => {
    generativeDev();
    ssm.on(GetParameterCommand, { Name: '/cdk-inferentia/bert/dev/generative-deployment' })
      .resolves({ Parameter: { Value: generativeRecord('dev', { imageDigest: DIGEST }) } });
    for (const flags of [['--to', 'staging'], ['--check']]) {
      const { code, stderr } = await run('promote', '--from', 'dev', ...flags, ...FLAGS);
      expect(code).toBe(1);
      expect(stderr).toContain(`generativeImageDigest: dev's generative model runs vLLM image ${DIGEST}, not ${OTHER_DIGEST} `
        + "that the environments config rolls out; deploy dev with it first (npx cdk deploy 'dev/*')");
    }
    expectNothingWritten();
  });

  test('GIVEN staging serving another generative hash than was promoted into it WHEN promoting to prod THEN refused naming both hashes and the fix', async () => {
    config({ generative: true });
    const served = 'fedcba9876543210fedcba98';
    ssm.on(GetParameterCommand, { Name: '/cdk-inferentia/bert/staging/deployment' }).resolves({ Parameter: { Value: deploymentRecord() } });
    ssm.on(GetParameterCommand, { Name: '/cdk-inferentia/bert/staging/generative-deployment' })
      .resolves({ Parameter: { Value: generativeRecord('staging', { hash: served, artifact: { bucket: 'artifacts-staging', prefix: `compiled/bert/${served}/` } }) } });
    ssm.on(GetParameterCommand, { Name: '/cdk-inferentia/bert/staging/release' }).resolves({ Parameter: { Value: JSON.stringify({
      schemaVersion: 1, application: 'bert', environment: 'staging', promotedFrom: 'dev', promotedAt: new Date(NOW).toISOString(),
      image: { registryId: '222222222222', region: 'us-west-2', repositoryName: 'bert/staging', digest: DIGEST, mediaType: 'application/vnd.oci.image.manifest.v1+json' },
      source: { environment: 'dev', target: 'dev-endpoint', fingerprint: FINGERPRINT, plan: JSON.parse(deploymentRecord()).plan },
      evidence: { smoke: { reportUri: 's3://reports-dev/x', passed: true, invokedAt: new Date(NOW).toISOString(), fingerprint: FINGERPRINT,
        p99Ms: 7, errorRate: 0, throughputRps: 50, requests: 500 } },
      generative: { profileId: 'llama-3.1-8b-instruct', imageDigest: OTHER_DIGEST, hash: HASH, bucket: 'artifacts-staging', prefix: `compiled/bert/${HASH}/` },
    }) } });
    const { code, stderr } = await run('promote', '--from', 'staging', '--to', 'prod', ...FLAGS);
    expect(code).toBe(1);
    expect(stderr).toContain(`generative hash: staging serves compiled replica ${served} `
      + `(ssm:/cdk-inferentia/bert/staging/generative-deployment), not ${HASH} that was promoted into it from dev `
      + '(ssm:/cdk-inferentia/bert/staging/release); its weights, engine settings or Neuron SDK changed since, so no '
      + 'earlier environment proved it: deploy the change to dev and promote it from there');
    expectNothingWritten();
  });

  test('GIVEN dev\'s artifact prefix without the recorded replica WHEN promoting THEN refused naming the missing prefix', async () => {
    generativeDev();
    s3.on(ListObjectsV2Command, { Bucket: 'artifacts-dev' }).resolves({ Contents: [{ Key: 'compiled/bert/model.pt', Size: 1000, ETag: '"e1"' }] });
    const { code, stderr } = await run('promote', '--from', 'dev', '--to', 'staging', ...FLAGS);
    expect(code).toBe(1);
    expect(stderr).toContain(`s3://artifacts-dev/compiled/bert/${HASH}/, the compiled replica dev's generative model serves `
      + `(hash ${HASH}), holds no object to promote`);
    expectNothingWritten();
  });
});

describe('promote refuses what did not pass in the source environment and writes nothing', () => {
  test('GIVEN a config without an image digest WHEN promoting THEN refused before any AWS call', async () => {
    config({ imageDigest: null });
    const { code, stderr } = await run('promote', '--from', 'dev', '--to', 'staging', ...FLAGS);
    expect(code).toBe(1);
    expect(stderr).toContain('the environments config names no imageDigest');
    expect(ssm).not.toHaveReceivedCommand(GetParameterCommand);
    expectNothingWritten();
  });

  test('GIVEN a failed smoke report WHEN promoting THEN refused with its failures', async () => {
    s3.on(GetObjectCommand, { Bucket: 'reports-dev' }).resolves({
      Body: body(smokeReport({ passed: false, failures: ['p99 31 ms above the 10 ms limit'] })),
    });
    const { code, stderr } = await run('promote', '--from', 'dev', '--to', 'staging', ...FLAGS);
    expect(code).toBe(1);
    expect(stderr).toContain("dev's latest smoke report failed: p99 31 ms above the 10 ms limit");
    expectNothingWritten();
  });

  test('GIVEN a report for an earlier deployment WHEN promoting THEN refused as stale', async () => {
    s3.on(GetObjectCommand, { Bucket: 'reports-dev' }).resolves({ Body: body(smokeReport({ fingerprint: 'fp-previous' })) });
    const { code, stderr } = await run('promote', '--from', 'dev', '--to', 'staging', ...FLAGS);
    expect(code).toBe(1);
    expect(stderr).toContain('is stale: it is for deployment fp-previous, but dev now runs fp-current');
    expectNothingWritten();
  });

  test('GIVEN dev running another digest than the config rolls out WHEN promoting THEN refused', async () => {
    ssm.on(GetParameterCommand, { Name: '/cdk-inferentia/bert/dev/deployment' }).resolves({ Parameter: { Value: deploymentRecord(OTHER_DIGEST) } });
    const { code, stderr } = await run('promote', '--from', 'dev', '--to', 'staging', ...FLAGS);
    expect(code).toBe(1);
    expect(stderr).toContain(`dev runs image ${OTHER_DIGEST}, not ${DIGEST}`);
    expectNothingWritten();
  });

  test('GIVEN no report yet and no deployment record WHEN promoting THEN each refusal says what to deploy', async () => {
    s3.on(GetObjectCommand, { Bucket: 'reports-dev' }).rejects(Object.assign(new Error('no key'), { name: 'NoSuchKey' }));
    let out = await run('promote', '--from', 'dev', '--to', 'staging', ...FLAGS);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('dev has no smoke report at s3://reports-dev/smoke-benchmarks/dev-endpoint/latest.json');
    ssm.on(GetParameterCommand).rejects(Object.assign(new Error('missing'), { name: 'ParameterNotFound' }));
    out = await run('promote', '--from', 'dev', '--to', 'staging', ...FLAGS);
    expect(out.stderr).toContain("dev has no deployment record at ssm:/cdk-inferentia/bert/dev/deployment (111111111111, us-east-1): deploy it first (npx cdk deploy 'dev/*')");
    expectNothingWritten();
  });

  test('GIVEN no --config WHEN run in the CDK app\'s directory THEN the environments and prices of cdk.json\'s context are read', async () => {
    writeFileSync(join(dir, 'cdk.json'), JSON.stringify({ context: { environments: 'environments.json', prices: 'prices.json' } }));
    expect((await run('promote', '--from', 'dev', '--check')).stdout).toContain('gate of dev (bert): passed');
    writeFileSync(join(dir, 'cdk.json'), JSON.stringify({ context: {} }));
    const { code, stderr } = await run('promote', '--from', 'dev', '--check');
    expect(code).toBe(2);
    expect(stderr).toContain('./cdk.json has no "environments" context; pass --config <environments.json>');
  });

  test('GIVEN --to skipping an environment WHEN promoting THEN a usage error names the next one', async () => {
    const { code, stderr } = await run('promote', '--from', 'dev', '--to', 'prod', ...FLAGS);
    expect(code).toBe(2);
    expect(stderr).toContain('--to prod does not follow --from dev in the environments config (dev -> staging -> prod); promote one step at a time: --to staging');
  });

  test('GIVEN --from the last environment WHEN promoting THEN it says nothing follows prod, not "--to (none)"', async () => {
    const { code, stderr } = await run('promote', '--from', 'prod', '--to', 'dev', ...FLAGS);
    expect(code).toBe(2);
    expect(stderr).toContain('--from prod is the last environment (dev -> staging -> prod): nothing is promoted from it');
    expect(stderr).not.toContain('(none)');
  });

  test('GIVEN --from the last environment and no --to WHEN promoting THEN the same answer, not "--to is missing"', async () => {
    const { code, stderr } = await run('promote', '--from', 'prod', ...FLAGS);
    expect(code).toBe(2);
    expect(stderr).toContain('--from prod is the last environment (dev -> staging -> prod): nothing is promoted from it');
    expect(stderr).toContain('--check applies only the gate');
    expect(stderr).not.toMatch(/--to is missing|\(none/);
  });
});

describe('promote copies exactly what passed and records it', () => {
  test('GIVEN a passed, current report WHEN promoting dev to staging THEN the exact manifest, the artifact and the record are written in the target account', async () => {
    const { code, stdout, stderr } = await run('promote', '--from', 'dev', '--to', 'staging', '--json', ...FLAGS);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(ecr).toHaveReceivedCommandWith(BatchGetImageCommand, { registryId: '111111111111', repositoryName: 'bert/dev', imageIds: [{ imageDigest: DIGEST }] });
    expect(ecr).toHaveReceivedCommandWith(PutImageCommand, {
      registryId: '222222222222', repositoryName: 'bert/staging', imageManifest: MANIFEST,
      imageManifestMediaType: 'application/vnd.oci.image.manifest.v1+json', imageDigest: DIGEST, imageTag: `sha256-${'a'.repeat(64)}`,
    });
    expect(s3).toHaveReceivedCommandTimes(PutObjectCommand, 2);
    expect(s3).toHaveReceivedCommandWith(PutObjectCommand, { Bucket: 'artifacts-staging', Key: 'compiled/bert/model.pt' });
    const put = ssm.commandCalls(PutParameterCommand)[0].args[0].input;
    expect(put).toMatchObject({ Name: '/cdk-inferentia/bert/staging/release', Overwrite: true, Type: 'String' });
    const record = JSON.parse(put.Value!);
    expect(record).toMatchObject({
      environment: 'staging', promotedFrom: 'dev',
      image: { registryId: '222222222222', region: 'us-west-2', repositoryName: 'bert/staging', digest: DIGEST },
      artifact: { bucket: 'artifacts-staging', prefix: 'compiled/bert/', objects: 2, bytes: 1020 },
      source: { environment: 'dev', fingerprint: FINGERPRINT },
      evidence: { smoke: { passed: true, reportUri: 's3://reports-dev/smoke-benchmarks/dev-endpoint/latest.json', p99Ms: 7 } },
    });
    const result = JSON.parse(stdout) as PromotionResult;
    expect(result.record?.value).toEqual(record);
    expect(result.image).toMatchObject({ blobsCopied: 0, blobsPresent: 2 });
  });

  test('GIVEN a cross-account target WHEN promoting THEN each account is reached through its own promotion role in its own region', async () => {
    const { code } = await run('promote', '--from', 'dev', '--to', 'staging', ...FLAGS);
    expect(code).toBe(0);
    // One assumed-role provider per environment, shared by its ECR, S3 and SSM clients: staging's role from the
    // config, dev's the one its stage creates (the config names none).
    expect(temporaryCredentials).toEqual([
      {
        params: { RoleArn: 'arn:aws:iam::111111111111:role/cdk-inferentia-bert-dev-promote', RoleSessionName: 'cdk-inferentia-promote', DurationSeconds: 3600 },
        clientConfig: { region: 'us-east-1' },
      },
      {
        params: { RoleArn: 'arn:aws:iam::222222222222:role/promote', RoleSessionName: 'cdk-inferentia-promote', DurationSeconds: 3600 },
        clientConfig: { region: 'us-west-2' },
      },
    ]);
    const target = ecr.commandCalls(PutImageCommand)[0].thisValue as ECRClient;
    expect(await target.config.region()).toBe('us-west-2');
    expect((await target.config.credentials()).accessKeyId).toBe('AKIDTEST');
    const source = ecr.commandCalls(BatchGetImageCommand)[0].thisValue as ECRClient;
    expect(await source.config.region()).toBe('us-east-1');
    const recordWriter = ssm.commandCalls(PutParameterCommand)[0].thisValue as SSMClient;
    expect((await recordWriter.config.credentials()).accessKeyId).toBe('AKIDTEST');
  });

  test('GIVEN a layer the target lacks WHEN promoting THEN its bytes are streamed from the source URL into a layer upload before PutImage', async () => {
    const server = await startHttpServer(() => ({ kind: 'respond', status: 200, body: LAYER.toString('utf8') }));
    try {
      ecr.on(BatchCheckLayerAvailabilityCommand).resolves({
        layers: [{ layerDigest: CONFIG_DIGEST, layerAvailability: 'AVAILABLE' }, { layerDigest: LAYER_DIGEST, layerAvailability: 'UNAVAILABLE' }],
      });
      ecr.on(GetDownloadUrlForLayerCommand).resolves({ downloadUrl: `${server.url}/layer`, layerDigest: LAYER_DIGEST });
      ecr.on(InitiateLayerUploadCommand).resolves({ uploadId: 'upload-1', partSize: 10 * 1024 * 1024 });
      const { code, stderr } = await run('promote', '--from', 'dev', '--to', 'staging', ...FLAGS);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(ecr).toHaveReceivedCommandWith(GetDownloadUrlForLayerCommand, { registryId: '111111111111', layerDigest: LAYER_DIGEST });
      const part = ecr.commandCalls(UploadLayerPartCommand)[0].args[0].input;
      expect(part).toMatchObject({ registryId: '222222222222', uploadId: 'upload-1', partFirstByte: 0, partLastByte: LAYER.length - 1 });
      expect(Buffer.from(part.layerPartBlob!).equals(LAYER)).toBe(true);
      expect(ecr).toHaveReceivedCommandWith(CompleteLayerUploadCommand, { uploadId: 'upload-1', layerDigests: [LAYER_DIGEST] });
      expect(ecr).toHaveReceivedNthSpecificCommandWith(1, PutImageCommand, { imageDigest: DIGEST });
    } finally {
      await server.close();
    }
  });

  test('GIVEN an image index (a multi-platform or attested build) WHEN promoting THEN each child manifest is put before the tagged index', async () => {
    const child = `sha256:${'c'.repeat(64)}`;
    const index = JSON.stringify({
      schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: child, size: MANIFEST.length }],
    });
    ecr.on(BatchGetImageCommand).callsFake((input: { imageIds: { imageDigest: string }[] }) => {
      const digest = input.imageIds[0].imageDigest;
      return digest === DIGEST
        ? { images: [{ imageId: { imageDigest: DIGEST }, imageManifest: index, imageManifestMediaType: 'application/vnd.oci.image.index.v1+json' }] }
        : { images: [{ imageId: { imageDigest: child }, imageManifest: MANIFEST, imageManifestMediaType: 'application/vnd.oci.image.manifest.v1+json' }] };
    });
    const { code, stderr } = await run('promote', '--from', 'dev', '--to', 'staging', ...FLAGS);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const puts = ecr.commandCalls(PutImageCommand).map((c) => c.args[0].input);
    expect(puts.map((p) => [p.imageDigest, p.imageManifestMediaType, p.imageTag])).toEqual([
      [child, 'application/vnd.oci.image.manifest.v1+json', undefined],
      [DIGEST, 'application/vnd.oci.image.index.v1+json', `sha256-${'a'.repeat(64)}`],
    ]);
    expect(puts[1].imageManifest).toBe(index);
  });

  test('GIVEN --dry-run WHEN promoting THEN it prints the exact copy and writes nothing', async () => {
    ecr.on(BatchCheckLayerAvailabilityCommand).resolves({
      layers: [{ layerDigest: CONFIG_DIGEST, layerAvailability: 'AVAILABLE' }, { layerDigest: LAYER_DIGEST, layerAvailability: 'UNAVAILABLE' }],
    });
    const { code, stdout } = await run('promote', '--from', 'dev', '--to', 'staging', '--dry-run', ...FLAGS);
    expect(code).toBe(0);
    expect(stdout).toContain('dry run: would promote dev -> staging (bert)');
    expect(stdout).toContain(`image: 111111111111.dkr.ecr.us-east-1.amazonaws.com/bert/dev@${DIGEST}`);
    expect(stdout).toContain(`-> 222222222222.dkr.ecr.us-west-2.amazonaws.com/bert/staging@${DIGEST}`);
    expect(stdout).toContain(`(application/vnd.oci.image.manifest.v1+json; 1 blob(s), ${LAYER.length} B to copy, 1 already there)`);
    expect(stdout).toContain('artifact: s3://artifacts-dev/compiled/bert/ -> s3://artifacts-staging/compiled/bert/ (2 objects');
    expect(stdout).toContain('record: ssm:/cdk-inferentia/bert/staging/release in 222222222222 us-west-2 (not written)');
    expect(ecr).not.toHaveReceivedCommand(GetDownloadUrlForLayerCommand);
    expectNothingWritten();
  });

  test('GIVEN --check WHEN the report passed THEN only the gate runs and nothing is copied', async () => {
    const { code, stdout } = await run('promote', '--from', 'dev', '--check', ...FLAGS);
    expect(code).toBe(0);
    expect(stdout).toContain('gate of dev (bert): passed');
    expect(ecr).not.toHaveReceivedCommand(BatchGetImageCommand);
    expectNothingWritten();
  });
});
