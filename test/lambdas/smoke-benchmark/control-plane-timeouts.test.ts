/**
 * The smoke handler's control-plane clients against a stalled 127.0.0.1 server: a DescribeStacks or PutObject that
 * never answers must not hold the Lambda until it is killed (during a rollback that is UPDATE_ROLLBACK_FAILED).
 * Nothing is mocked: the real SDK clients talk to real local servers.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { SmokeConfig } from '../../../lib/smoke/config';
import { REPORT_WRITE_DEADLINE_MS } from '../../../lib/smoke/budget';
import {
  cloudFormationClient,
  CONTROL_PLANE_TIMEOUTS,
  s3Client,
  STACK_STATUS_DEADLINE_MS,
} from '../../../lambdas/smoke-benchmark/clients';
import type { SmokeContext, SmokeOutcome } from '../../../lambdas/smoke-benchmark/index';
import { readStackState } from '../../../lambdas/smoke-benchmark/stack-status';
import { startHttpServer, type TestServer } from '../../support';
import { startSageMakerRuntimeServer, type SageMakerRuntimeTestServer } from '../../support/sagemaker-runtime-server';

const STACK_ID = 'arn:aws:cloudformation:us-east-1:123456789012:stack/Serving/0a1b2c3d-0000-4000-8000-000000000000';
const credentials = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local-test-secret' };
// Slack for a shared 2-core machine: the bounds prove the calls end near their deadline, not hours later.
const SLACK_MS = 2_000;

let stalled: TestServer;
let endpoint: SageMakerRuntimeTestServer;

beforeAll(async () => {
  stalled = await startHttpServer(() => ({ kind: 'stall' }));
  endpoint = await startSageMakerRuntimeServer(() => ({ kind: 'ok', body: '{"label":"POSITIVE"}' }));
});

afterAll(async () => {
  await Promise.all([stalled.close(), endpoint.close()]);
});

describe('a stalled control plane', () => {
  test('GIVEN S3 never answers WHEN the report client puts an object THEN it fails after its request timeout', async () => {
    const client = s3Client({ endpoint: stalled.url, region: 'us-east-1', credentials, maxAttempts: 1 });
    const started = Date.now();

    const error = await client
      .send(new PutObjectCommand({ Bucket: 'reports', Key: 'smoke/latest.json', Body: '{}' }))
      .then(() => undefined, (e: Error) => e);
    client.destroy();

    expect(error?.name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(CONTROL_PLANE_TIMEOUTS.requestTimeoutMs + SLACK_MS);
    expect(stalled.received.some((r) => r.path.startsWith('/reports/smoke/latest.json'))).toBe(true);
  }, 20_000);

  test('GIVEN CloudFormation never answers WHEN the stack status is read THEN it is unknown within its deadline', async () => {
    const client = cloudFormationClient({ endpoint: stalled.url, region: 'us-east-1', credentials });
    const started = Date.now();

    const state = await readStackState(client, STACK_ID);
    client.destroy();

    expect(state).toMatchObject({ known: false, reason: expect.stringContaining(`DescribeStacks on ${STACK_ID} failed`) });
    expect(Date.now() - started).toBeLessThan(STACK_STATUS_DEADLINE_MS + SLACK_MS);
  }, 20_000);
});

describe('the handler with CloudFormation and S3 both stalled', () => {
  let handler: (event: unknown, context: SmokeContext) => Promise<SmokeOutcome>;
  const config: SmokeConfig = {
    schemaVersion: 1,
    target: { kind: 'sagemaker' },
    request: { body: '{"inputs":"hi"}', contentType: 'application/json' },
    mode: { kind: 'closed', concurrency: 1 },
    stop: { requests: 5 },
    warmupMs: 0,
    timeoutMs: 1_000,
    thresholds: { maxErrorRate: 0 },
    metricNamespace: 'CdkInferentia/SmokeBenchmark',
    reportPrefix: 'smoke-benchmarks',
  };

  beforeAll(async () => {
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME: endpoint.url,
      AWS_ENDPOINT_URL_S3: stalled.url,
      AWS_ENDPOINT_URL_CLOUDFORMATION: stalled.url,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      SMOKE_CONFIG: JSON.stringify(config),
      SMOKE_TARGET: 'bert',
      SMOKE_NAME: 'bert',
      SMOKE_ENVIRONMENT: 'staging',
      SMOKE_REPORT_BUCKET: 'reports',
      SMOKE_STACK_ID: STACK_ID,
    });
    ({ handler } = await import('../../../lambdas/smoke-benchmark/index'));
  });

  test('GIVEN a healthy endpoint WHEN the handler runs THEN it measures, passes and names the report it could not write, in time', async () => {
    const deadline = Date.now() + 60_000;
    const log = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const started = Date.now();
    let outcome: SmokeOutcome;
    try {
      outcome = await handler({}, { getRemainingTimeInMillis: () => deadline - Date.now() });
    } finally {
      log.mockRestore();
    }

    expect(outcome).toMatchObject({
      outcome: 'passed',
      reportError: expect.stringMatching(
        new RegExp(`^the report could not be written to s3://reports/smoke-benchmarks/bert/.+\\.json: no answer within ${REPORT_WRITE_DEADLINE_MS} ms$`),
      ),
    });
    expect(outcome).not.toHaveProperty('report');
    expect(endpoint.invocations).toHaveLength(5);
    expect(Date.now() - started).toBeLessThan(STACK_STATUS_DEADLINE_MS + REPORT_WRITE_DEADLINE_MS + SLACK_MS);
  }, 30_000);
});
