/**
 * The smoke gate's control-plane calls against a moto_server on 127.0.0.1: the handler's own CloudFormation and S3
 * clients (with their timeouts and retries) read the status of a stack created in moto and write the report into a
 * moto bucket, while the endpoint is the local SageMaker Runtime of test/support (AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME
 * wins over AWS_ENDPOINT_URL for that one service).
 *
 * What moto cannot serve stays aws-sdk-client-mock (test/lambdas/smoke-benchmark/handler.test.ts covers it): a
 * stack in a rollback (moto's stacks go straight to CREATE_COMPLETE, UPDATE_COMPLETE or DELETE_COMPLETE, never
 * through *ROLLBACK_IN_PROGRESS), and stalled or slow answers (control-plane-timeouts.test.ts).
 * Costs about 7 CPU-seconds measured (4 of them moto_server: its start, CloudFormation and S3), about 3.5 s of the
 * suite's time on two cores; each run sends 20 invocations.
 */
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { SmokeContext, SmokeOutcome } from '../../../lambdas/smoke-benchmark/index';
import type { SmokeReportDocument } from '../../../lambdas/smoke-benchmark/report';
import { startMotoServer, type MotoServer } from '../../support/moto-server';
import { startSageMakerRuntimeServer, type InvocationAction, type SageMakerRuntimeTestServer } from '../../support/sagemaker-runtime-server';
import { smokeConfig } from '../../support/smoke-gate';
import { describeWithTool } from '../../support/stand-ins';

const REGION = 'us-east-1';
const ENDPOINT = 'bert-base-prod';
const BUCKET = 'smoke-reports';
const GOLDEN = JSON.stringify({ label: 'POSITIVE', score: 0.98 });

const CONFIG = smokeConfig();

type Handler = (event: unknown, context: SmokeContext) => Promise<SmokeOutcome>;

describeWithTool('moto_server', 'the smoke gate against CloudFormation and S3 served by moto_server', (motoServer) => {
  let moto: MotoServer;
  let runtime: SageMakerRuntimeTestServer;
  let handler: Handler;
  let s3: S3Client;
  let stackId: string;
  let answer: InvocationAction;
  const saved = { ...process.env };

  beforeAll(async () => {
    [moto, runtime] = await Promise.all([
      startMotoServer(motoServer),
      startSageMakerRuntimeServer(() => answer, { endpointNames: [ENDPOINT] }),
    ]);
    Object.assign(process.env, moto.env, {
      AWS_REGION: REGION,
      AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME: runtime.url,
      SMOKE_CONFIG: JSON.stringify(CONFIG),
      SMOKE_TARGET: ENDPOINT,
      SMOKE_NAME: ENDPOINT,
      SMOKE_ENVIRONMENT: 'prod',
      SMOKE_REPORT_BUCKET: BUCKET,
    });
    // Imported once the environment points at moto: the handler's clients are created at module load.
    ({ handler } = await import('../../../lambdas/smoke-benchmark/index') as unknown as { handler: Handler });
    s3 = moto.client(S3Client);
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    const stack = await moto.client(CloudFormationClient).send(new CreateStackCommand({ StackName: 'Serving', TemplateBody: JSON.stringify({
      Resources: { Marker: { Type: 'AWS::CloudFormation::WaitConditionHandle' } },
    }) }));
    stackId = stack.StackId!;
  }, 60_000);

  afterAll(async () => {
    await Promise.all([moto?.stop(), runtime?.close()]);
    process.env = { ...saved };
  });

  beforeEach(() => {
    answer = { kind: 'ok', body: GOLDEN };
    process.env.SMOKE_STACK_ID = stackId;
    process.env.SMOKE_REPORT_BUCKET = BUCKET;
  });

  /** Runs the handler with its log lines and EMF kept out of the test output; returns the log lines. */
  async function invoke(): Promise<{ outcome?: SmokeOutcome; error?: Error; logs: string[] }> {
    const logs: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((line: unknown) => void logs.push(String(line)));
    const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const deadline = Date.now() + 60_000;
    try {
      return { outcome: await handler({}, { getRemainingTimeInMillis: () => deadline - Date.now(), functionVersion: '3' }), logs };
    } catch (error) {
      return { error: error as Error, logs };
    } finally {
      log.mockRestore();
      write.mockRestore();
    }
  }

  async function readReport(key: string): Promise<SmokeReportDocument> {
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return JSON.parse(await object.Body!.transformToString()) as SmokeReportDocument;
  }

  test('a stack in CREATE_COMPLETE is measured and the report lands in the bucket under the run key and latest.json', async () => {
    const { outcome, error } = await invoke();

    expect(error).toBeUndefined();
    expect(outcome).toMatchObject({ outcome: 'passed', name: ENDPOINT });
    const runKey = (outcome as { report: string }).report.replace(`s3://${BUCKET}/`, '');
    expect(runKey).toMatch(/^smoke-benchmarks\/bert-base-prod\/\d{4}-\d{2}-\d{2}T[\d-]+\.\d{3}Z-abc123\.json$/);
    const latest = await readReport('smoke-benchmarks/bert-base-prod/latest.json');
    expect(await readReport(runKey)).toEqual(latest);
    expect(latest).toMatchObject({ name: ENDPOINT, environment: 'prod', stackId, functionVersion: '3', complete: true, passed: true,
      report: { requests: 20, errors: 0 } });
    const head = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: runKey }));
    expect(head.ContentType).toBe('application/json');
  });

  test('an endpoint that misses its targets fails the gate and its report still lands in the bucket', async () => {
    answer = { kind: 'model-error', originalStatusCode: 500, originalMessage: 'CUDA? no: Neuron runtime failed' };

    const { error } = await invoke();

    expect(error?.name).toBe('SmokeBenchmarkFailedError');
    expect(error?.message).toMatch(new RegExp(`s3://${BUCKET}/smoke-benchmarks/bert-base-prod/`));
    const latest = await readReport('smoke-benchmarks/bert-base-prod/latest.json');
    expect(latest).toMatchObject({ passed: false, report: { requests: 20, errors: 20 } });
  });

  test('a stack id CloudFormation does not know is logged with its error and the endpoint is measured anyway', async () => {
    process.env.SMOKE_STACK_ID = stackId.replace(/stack\/Serving\/[^/]+$/, 'stack/Gone/00000000-0000-4000-8000-000000000000');

    const { outcome, logs } = await invoke();

    expect(outcome).toMatchObject({ outcome: 'passed' });
    const unknown = logs.map((l) => JSON.parse(l) as { message: string; reason?: string }).find((l) => l.message.includes('stack status unknown'));
    expect(unknown?.reason).toMatch(/^DescribeStacks on arn:aws:cloudformation:.*stack\/Gone\/.* failed: ValidationError: Stack with id .* does not exist/);
  });

  test('a missing report bucket keeps a passing deployment and names the bucket, key and S3 error', async () => {
    process.env.SMOKE_REPORT_BUCKET = 'no-such-reports';

    const { outcome } = await invoke();

    expect(outcome).toMatchObject({ outcome: 'passed',
      reportError: expect.stringMatching(/^the report could not be written to s3:\/\/no-such-reports\/smoke-benchmarks\/bert-base-prod\/.*: NoSuchBucket: /) });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    expect(listed.KeyCount).toBeGreaterThan(0);
  });
});
