/**
 * The smoke-benchmark handler against a real local SageMaker Runtime on 127.0.0.1, driven through the real SDK
 * client (pointed at it with AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME, as the SDK's standard configuration allows).
 * Only the control-plane calls (S3 PutObject, CloudFormation DescribeStacks) are mocked.
 */
import { DescribeStacksCommand, type StackStatus } from '@aws-sdk/client-cloudformation';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import 'aws-sdk-client-mock-jest';
import type { SmokeConfig } from '../../../lib/smoke/config';
import type { SmokeContext, SmokeOutcome } from '../../../lambdas/smoke-benchmark/index';
import type { SmokeReportDocument } from '../../../lambdas/smoke-benchmark/report';
import {
  startSageMakerRuntimeServer,
  type InvocationBehaviour,
  type SageMakerRuntimeTestServer,
} from '../../support/sagemaker-runtime-server';
import { lambdaContext, mockControlPlane, smokeConfig, STACK_ID, stackStatus } from '../../support/smoke-gate';

const ENDPOINT = 'bert-base-prod';
const BUCKET = 'smoke-reports-bucket';
const GOLDEN = JSON.stringify({ label: 'POSITIVE', score: 0.98 });

const { s3, cloudFormation } = mockControlPlane();

let server: SageMakerRuntimeTestServer;
let behaviour: InvocationBehaviour;
let handler: (event: unknown, context: SmokeContext) => Promise<SmokeOutcome>;

function useConfig(value: SmokeConfig): void {
  process.env.SMOKE_CONFIG = JSON.stringify(value);
}

/** A context with a fixed deadline, as Lambda gives one. */
function contextWithMs(ms: number): SmokeContext {
  return lambdaContext(ms, { functionVersion: '7', awsRequestId: 'req-1' });
}

/** The report documents written to S3, by key. */
function writtenReports(): Map<string, SmokeReportDocument> {
  const documents = new Map<string, SmokeReportDocument>();
  for (const call of s3.commandCalls(PutObjectCommand)) {
    const input = call.args[0].input;
    documents.set(String(input.Key), JSON.parse(String(input.Body)) as SmokeReportDocument);
  }
  return documents;
}

/** Runs the handler with stdout captured; returns the EMF documents it printed and the outcome or error. */
async function invoke(context: SmokeContext = contextWithMs(60_000)): Promise<{
  outcome?: SmokeOutcome;
  error?: Error;
  emf: Record<string, unknown>[];
}> {
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    const outcome = await handler({}, context);
    return { outcome, emf: emfDocuments(lines) };
  } catch (error) {
    return { error: error as Error, emf: emfDocuments(lines) };
  } finally {
    write.mockRestore();
  }
}

function emfDocuments(lines: string[]): Record<string, unknown>[] {
  return lines
    .join('')
    .split('\n')
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  server = await startSageMakerRuntimeServer((invocation) => behaviour(invocation), { endpointNames: [ENDPOINT] });
  process.env.AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME = server.url;
  process.env.AWS_REGION = 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = 'AKIDLOCALTEST';
  process.env.AWS_SECRET_ACCESS_KEY = 'local-test-secret';
  process.env.SMOKE_TARGET = ENDPOINT;
  process.env.SMOKE_NAME = ENDPOINT;
  process.env.SMOKE_ENVIRONMENT = 'prod';
  process.env.SMOKE_REPORT_BUCKET = BUCKET;
  process.env.SMOKE_STACK_ID = STACK_ID;
  // Imported after the environment is set: the module-level clients read the SDK's configuration chain.
  ({ handler } = await import('../../../lambdas/smoke-benchmark/index'));
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  s3.reset();
  cloudFormation.reset();
  s3.on(PutObjectCommand).resolves({});
  stackStatus(cloudFormation, 'UPDATE_IN_PROGRESS');
  behaviour = () => ({ kind: 'ok', body: GOLDEN });
  useConfig(smokeConfig());
});

describe('a smoke run against an endpoint that meets its targets', () => {
  test('passes and writes the report to S3 under the run key and latest.json', async () => {
    // GIVEN an endpoint that answers the golden response at once
    // WHEN the handler runs
    const { outcome, error } = await invoke();

    // THEN it passes and both report objects hold the same document
    expect(error).toBeUndefined();
    expect(outcome).toMatchObject({ outcome: 'passed', name: ENDPOINT });
    expect(s3).toHaveReceivedCommandTimes(PutObjectCommand, 2);
    const reports = writtenReports();
    const keys = [...reports.keys()];
    expect(keys).toEqual([
      expect.stringMatching(/^smoke-benchmarks\/bert-base-prod\/\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z-abc123\.json$/),
      'smoke-benchmarks/bert-base-prod/latest.json',
    ]);
    expect(s3).toHaveReceivedCommandWith(PutObjectCommand, { Bucket: BUCKET, ContentType: 'application/json' });
    const document = reports.get('smoke-benchmarks/bert-base-prod/latest.json');
    expect(document).toEqual(reports.get(keys[0]));
    expect(document).toMatchObject({
      schemaVersion: 1,
      name: ENDPOINT,
      environment: 'prod',
      target: { kind: 'sagemaker', endpointName: ENDPOINT },
      fingerprint: 'abc123',
      stackId: STACK_ID,
      functionVersion: '7',
      complete: true,
      passed: true,
      failures: [],
      report: { requests: 20, errors: 0, errorRate: 0, passed: true },
    });
    expect(document?.report.thresholds.map((t) => [t.name, t.limit, t.passed])).toEqual([
      ['p99', 1_000, true],
      ['errorRate', 0.01, true],
    ]);
    expect(outcome).toMatchObject({ report: `s3://${BUCKET}/${keys[0]}` });
    // AND every request reached the endpoint with the configured body
    expect(server.invocations).toHaveLength(20);
    expect(server.invocations[0].body).toBe('{"inputs":"what a lovely day"}');
  });

  test('prints one EMF document with the configured namespace, dimensions and measurements', async () => {
    // GIVEN a passing endpoint
    // WHEN the handler runs
    const { emf } = await invoke();

    // THEN CloudWatch gets the report's numbers under EndpointName and Environment only
    expect(emf).toHaveLength(1);
    const [metrics] = emf;
    const document = writtenReports().get('smoke-benchmarks/bert-base-prod/latest.json')!;
    expect(metrics._aws).toMatchObject({
      CloudWatchMetrics: [
        {
          Namespace: 'CdkInferentia/SmokeBenchmark',
          Dimensions: [['EndpointName', 'Environment']],
          Metrics: expect.arrayContaining([
            { Name: 'LatencyP50', Unit: 'Milliseconds' },
            { Name: 'LatencyP90', Unit: 'Milliseconds' },
            { Name: 'LatencyP99', Unit: 'Milliseconds' },
            { Name: 'LatencyMax', Unit: 'Milliseconds' },
            { Name: 'Throughput', Unit: 'Count/Second' },
            { Name: 'ErrorRate', Unit: 'Percent' },
            { Name: 'Requests', Unit: 'Count' },
            { Name: 'Errors', Unit: 'Count' },
            { Name: 'Passed', Unit: 'Count' },
          ]),
        },
      ],
    });
    expect(metrics).toMatchObject({
      EndpointName: ENDPOINT,
      Environment: 'prod',
      LatencyP50: document.report.latencyMs.p50,
      LatencyP99: document.report.latencyMs.p99,
      LatencyMax: document.report.latencyMs.max,
      Throughput: document.report.throughputRps,
      ErrorRate: 0,
      Requests: 20,
      Errors: 0,
      Passed: 1,
    });
    expect(metrics).not.toHaveProperty('service');
  });
});

describe('a smoke run that breaches a threshold', () => {
  test('fails naming the threshold, its limit and the measured value, and still writes the report', async () => {
    // GIVEN an endpoint that takes 40 ms per answer and a p99 limit of 10 ms
    behaviour = () => ({ kind: 'ok', body: GOLDEN, delayMs: 40 });
    useConfig(smokeConfig({ stop: { requests: 8 }, thresholds: { p99MaxMs: 10, maxErrorRate: 0.01 } }));

    // WHEN the handler runs
    const { error, emf } = await invoke();

    // THEN it throws with the breached threshold and the measured p99
    expect(error?.name).toBe('SmokeBenchmarkFailedError');
    const document = writtenReports().get('smoke-benchmarks/bert-base-prod/latest.json')!;
    const p99 = document.report.latencyMs.p99;
    expect(p99).toBeGreaterThan(10);
    expect(error?.message).toContain(`p99 ${p99 < 10 ? p99.toFixed(2) : p99.toFixed(1)} ms > max 10 ms`);
    expect(error?.message).not.toContain('error rate');
    expect(error?.message).toContain(`s3://${BUCKET}/smoke-benchmarks/bert-base-prod/`);
    // AND the report and the metrics say it failed
    expect(document).toMatchObject({ passed: false, complete: true });
    expect(document.failures).toEqual([expect.stringContaining('p99')]);
    expect(emf[0]).toMatchObject({ Passed: 0 });
  });

  test('counts ModelError answers under their own kind and fails on the error rate', async () => {
    // GIVEN an endpoint whose model container fails on every request (SageMaker answers ModelError, HTTP 424)
    behaviour = () => ({ kind: 'model-error', originalStatusCode: 500, originalMessage: 'model not loaded' });

    // WHEN the handler runs
    const { error, emf } = await invoke();

    // THEN the error rate is named with its limit, and the errors are counted as model-error
    expect(error?.name).toBe('SmokeBenchmarkFailedError');
    expect(error?.message).toContain('error rate 100.0 % > max 1.00 %');
    expect(error?.message).toContain('errors by kind: model-error 20');
    // AND no latency limit can hold without a successful request
    expect(error?.message).toContain('p99: no successful request to measure');
    const document = writtenReports().get('smoke-benchmarks/bert-base-prod/latest.json')!;
    expect(document.report.errorsByKind).toEqual({ 'model-error': 20 });
    // AND no latency metric is published for a run without a success
    expect(emf[0]).toMatchObject({ ErrorRate: 100, Errors: 20, Passed: 0 });
    expect(emf[0]).not.toHaveProperty('LatencyP99');
  });

  test('fails on a 200 with the wrong answer, so a model that loaded badly cannot pass', async () => {
    // GIVEN an endpoint that answers 200 with a different label
    behaviour = () => ({ kind: 'ok', body: JSON.stringify({ label: 'NEGATIVE', score: 0.51 }) });

    // WHEN the handler runs
    const { error } = await invoke();

    // THEN every answer is counted as wrong and the run fails
    expect(error?.message).toContain('errors by kind: wrong-answer 20');
    expect(error?.message).toContain('error rate 100.0 % > max 1.00 %');
  });
});

describe('a repeated invocation', () => {
  test('gives the same verdict for the same endpoint behaviour', async () => {
    // GIVEN a passing endpoint, invoked twice with the same event
    const first = await invoke();
    const second = await invoke();

    // THEN both pass and both overwrite latest.json
    expect(first.outcome?.outcome).toBe('passed');
    expect(second.outcome?.outcome).toBe('passed');
    const latestWrites = s3
      .commandCalls(PutObjectCommand)
      .filter((call) => call.args[0].input.Key === 'smoke-benchmarks/bert-base-prod/latest.json');
    expect(latestWrites).toHaveLength(2);

    // WHEN the endpoint fails and the event is repeated
    behaviour = () => ({ kind: 'model-error', originalStatusCode: 500, originalMessage: 'boom' });
    const third = await invoke();
    const fourth = await invoke();

    // THEN both fail with the same reasons
    expect(third.error?.name).toBe('SmokeBenchmarkFailedError');
    const reasons = (e?: Error) => e?.message.replace(/; report s3:\/\/.*$/, '');
    expect(reasons(fourth.error)).toBe(reasons(third.error));
  });
});

describe('a rollback', () => {
  test.each<StackStatus>(['UPDATE_ROLLBACK_IN_PROGRESS', 'ROLLBACK_IN_PROGRESS', 'IMPORT_ROLLBACK_IN_PROGRESS'])(
    'in %s succeeds without measuring',
    async (status) => {
      // GIVEN the stack is rolling back and the endpoint that just failed is still live
      stackStatus(cloudFormation, status);
      behaviour = () => ({ kind: 'model-error', originalStatusCode: 500, originalMessage: 'broken' });
      const before = server.invocations.length;

      // WHEN CloudFormation re-runs the previous version of the trigger
      const { outcome, error } = await invoke();

      // THEN the handler stands aside: no request, no report, no failure
      expect(error).toBeUndefined();
      expect(outcome).toMatchObject({ outcome: 'skipped', reason: expect.stringContaining(status) });
      expect(server.invocations.length).toBe(before);
      expect(s3).not.toHaveReceivedCommand(PutObjectCommand);
      expect(cloudFormation).toHaveReceivedCommandWith(DescribeStacksCommand, { StackName: STACK_ID });
    },
  );

  test('a deployment still measures when the stack status cannot be read', async () => {
    // GIVEN DescribeStacks fails
    cloudFormation.on(DescribeStacksCommand).rejects(new Error('Rate exceeded'));
    behaviour = () => ({ kind: 'model-error', originalStatusCode: 500, originalMessage: 'broken' });

    // WHEN the handler runs
    const { error } = await invoke();

    // THEN the gate stays closed: a broken endpoint still fails the deployment
    expect(error?.name).toBe('SmokeBenchmarkFailedError');
  });
});

describe('a report that cannot be written', () => {
  const denied = Object.assign(new Error('Access Denied'), { name: 'AccessDenied' });

  test('does not fail a healthy endpoint, and names the bucket and key it could not write', async () => {
    // GIVEN S3 refuses the report
    s3.on(PutObjectCommand).rejects(denied);

    // WHEN the handler runs against a healthy endpoint
    const { outcome, error } = await invoke();

    // THEN the deployment passes and the outcome says which object was lost and why
    expect(error).toBeUndefined();
    expect(outcome).toMatchObject({
      outcome: 'passed',
      reportError: expect.stringMatching(
        /^the report could not be written to s3:\/\/smoke-reports-bucket\/smoke-benchmarks\/bert-base-prod\/.+-abc123\.json: AccessDenied: Access Denied$/,
      ),
    });
    // AND latest.json is not written after the run's own object failed
    expect(s3).toHaveReceivedCommandTimes(PutObjectCommand, 1);
  });

  test('fails a healthy endpoint when failOnReportError is set', async () => {
    // GIVEN S3 refuses the report and the user asked for a report or nothing
    s3.on(PutObjectCommand).rejects(denied);
    useConfig(smokeConfig({ failOnReportError: true }));

    // WHEN the handler runs
    const { error } = await invoke();

    // THEN it fails, naming the object and the setting
    expect(error?.message).toMatch(/passed, but the report could not be written to s3:\/\/smoke-reports-bucket\/smoke-benchmarks\/bert-base-prod\//);
    expect(error?.message).toContain('failOnReportError');
  });

  test('still fails a broken endpoint, saying where the report should have gone', async () => {
    // GIVEN a broken endpoint and S3 refusing the report
    s3.on(PutObjectCommand).rejects(denied);
    behaviour = () => ({ kind: 'model-error', originalStatusCode: 500, originalMessage: 'broken' });

    // WHEN the handler runs
    const { error } = await invoke();

    // THEN the endpoint's failure wins and the lost report is named
    expect(error?.name).toBe('SmokeBenchmarkFailedError');
    expect(error?.message).toMatch(/report not written \(the report could not be written to s3:\/\/smoke-reports-bucket\//);
  });
});

describe('the time budget', () => {
  test('a run against a stalling endpoint stops and answers before the invocation runs out of time', async () => {
    // GIVEN an endpoint that never answers, a run of a million requests and 9 s left in the invocation
    behaviour = () => ({ kind: 'stall' });
    useConfig(smokeConfig({ stop: { requests: 1_000_000 }, timeoutMs: 1_000 }));
    const remainingMs = 9_000;
    const started = Date.now();

    // WHEN the handler runs
    const { error } = await invoke(contextWithMs(remainingMs));
    const elapsed = Date.now() - started;

    // THEN it fails, saying the run was cut at its budget, before the invocation's deadline
    expect(elapsed).toBeLessThan(remainingMs);
    expect(error?.name).toBe('SmokeBenchmarkFailedError');
    expect(error?.message).toContain("stopped at the Lambda's time budget");
    // AND the partial report is written, marked incomplete, with the timeouts counted
    const document = writtenReports().get('smoke-benchmarks/bert-base-prod/latest.json')!;
    expect(document).toMatchObject({ complete: false, passed: false });
    expect(document.report.errorsByKind.timeout).toBeGreaterThan(0);
  });

  test('a run that cannot fit in the time left fails at once, before sending a request', async () => {
    // GIVEN a 30 s run and an invocation with 10 s left
    useConfig(smokeConfig({ stop: { durationMs: 30_000 }, warmupMs: 2_000 }));
    const before = server.invocations.length;

    // WHEN the handler runs
    const { error } = await invoke(contextWithMs(10_000));

    // THEN it says what the run needs, what is left and what to change
    expect(error?.message).toMatch(/needs up to 34 s \(warm-up 2 s \+ duration 30 s \+ one request timeout 2 s\)/);
    expect(error?.message).toContain('raise the SmokeBenchmark `timeout`');
    expect(server.invocations.length).toBe(before);
    expect(s3).not.toHaveReceivedCommand(PutObjectCommand);
  });
});

describe('invalid settings', () => {
  test('fail with every problem named', async () => {
    // GIVEN a function whose configuration is not what this handler understands
    process.env.SMOKE_CONFIG = JSON.stringify({ ...smokeConfig(), schemaVersion: 2, mode: { kind: 'closed', concurrency: 0 } });

    // WHEN the handler runs
    const { error } = await invoke();

    // THEN the error lists each bad value
    expect(error?.message).toContain('smoke benchmark settings are invalid');
    expect(error?.message).toContain('SMOKE_CONFIG.schemaVersion');
    expect(error?.message).toContain('SMOKE_CONFIG.mode.concurrency');
  });
});

describe('a smoke run against an endpoint with instance pools', () => {
  const pools = [
    { pool: 1, instanceType: 'ml.inf2.xlarge', p99MaxMs: 1_000 },
    { pool: 2, instanceType: 'ml.trn1.2xlarge', p99MaxMs: 60 },
    { pool: 3, instanceType: 'ml.inf2.8xlarge', p99MaxMs: 1_000 },
  ];

  test('GIVEN answers from two pools, one slower than its own limit WHEN the run is judged THEN that pool fails it, the others not', async () => {
    // GIVEN pool 1 answers at once and pool 2 in 150 ms, every other request; pool 3 has no instance in service
    let n = 0;
    behaviour = () => (n++ % 2 === 0
      ? { kind: 'ok', body: GOLDEN, customAttributes: 'server-ms=1.000,pool=1' }
      : { kind: 'ok', body: GOLDEN, delayMs: 150, customAttributes: 'server-ms=150.000,pool=2' });
    useConfig(smokeConfig({ pools }));
    // WHEN the handler runs
    const { error } = await invoke();
    // THEN the run fails on pool 2 alone, and the report counts each pool's answers
    expect(error?.message).toMatch(/instance pool 2 \(ml\.trn1\.2xlarge\): p99 \d+(\.\d+)? ms over 10 answers, above its limit of 60 ms/);
    expect(error?.message).not.toMatch(/instance pool [13]/);
    const report = [...writtenReports().values()][0].report;
    expect(report.pools?.map((p) => [p.pool, p.answers])).toEqual([[1, 10], [2, 10]]);
  });

  test('GIVEN answers naming a pool the plan does not have WHEN judged THEN the run fails: another configuration than the one proven answers', async () => {
    behaviour = () => ({ kind: 'ok', body: GOLDEN, customAttributes: 'server-ms=1.000,pool=4' });
    useConfig(smokeConfig({ pools }));
    const { error } = await invoke();
    expect(error?.message).toContain('20 answer(s) came from instance pool 4, which the plan does not have (its pools: 1, 2, 3)');
  });
});
