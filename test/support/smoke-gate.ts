/**
 * GIVEN pieces the smoke gate's handler tests share: the stack being deployed, the config the construct renders for a
 * SageMaker endpoint, a Lambda context with a deadline, and a control plane answering as during a healthy update
 * (aws-sdk-client-mock). Each test file still states what it changes.
 */
import { CloudFormationClient, DescribeStacksCommand, type StackStatus } from '@aws-sdk/client-cloudformation';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import type { SmokeConfig } from '../../lib/smoke/config';
import type { SmokeContext } from '../../lambdas/smoke-benchmark/index';

/** The stack the hook runs in. */
export const STACK_ID = 'arn:aws:cloudformation:us-east-1:123456789012:stack/Serving/0a1b2c3d-0000-4000-8000-000000000000';

/**
 * A smoke config for a text classifier behind a SageMaker endpoint: 20 requests from 2 clients, one golden answer,
 * limits loose enough that only a broken endpoint fails them.
 */
export function smokeConfig(overrides: Partial<SmokeConfig> = {}): SmokeConfig {
  return {
    schemaVersion: 1,
    target: { kind: 'sagemaker' },
    fingerprint: 'abc123',
    request: { body: '{"inputs":"what a lovely day"}', contentType: 'application/json' },
    expect: { kind: 'json-path', path: '$.label', value: 'POSITIVE' },
    mode: { kind: 'closed', concurrency: 2 },
    stop: { requests: 20 },
    warmupMs: 0,
    timeoutMs: 2_000,
    thresholds: { p99MaxMs: 1_000, maxErrorRate: 0.01 },
    metricNamespace: 'CdkInferentia/SmokeBenchmark',
    reportPrefix: 'smoke-benchmarks',
    ...overrides,
  };
}

/** A Lambda context whose deadline is `ms` from now, as Lambda gives one. */
export function lambdaContext(ms: number, more: Omit<SmokeContext, 'getRemainingTimeInMillis'> = {}): SmokeContext {
  const deadline = Date.now() + ms;
  return { getRemainingTimeInMillis: () => deadline - Date.now(), ...more };
}

/** The control plane the gate calls, mocked for every client of the test file. */
export function mockControlPlane() {
  return { s3: mockClient(S3Client), cloudFormation: mockClient(CloudFormationClient), lambda: mockClient(LambdaClient) };
}

export type ControlPlaneMocks = ReturnType<typeof mockControlPlane>;

/** DescribeStacks answers that the stack is in `status`. */
export function stackStatus(cloudFormation: ControlPlaneMocks['cloudFormation'], status: StackStatus): void {
  cloudFormation.on(DescribeStacksCommand).resolves({
    Stacks: [{ StackName: 'Serving', StackId: STACK_ID, StackStatus: status, CreationTime: new Date() }],
  });
}

/**
 * Fresh mocks answering as during an update: S3 takes the reports, the stack is UPDATE_IN_PROGRESS, and each Lambda
 * Invoke runs the real load-worker handler in this process, as Lambda would run it in its own.
 */
export function answerAsAnUpdate(
  mocks: ControlPlaneMocks,
  worker: (event: unknown, context: SmokeContext) => Promise<unknown>,
): void {
  mocks.s3.reset();
  mocks.cloudFormation.reset();
  mocks.lambda.reset();
  mocks.s3.on(PutObjectCommand).resolves({});
  stackStatus(mocks.cloudFormation, 'UPDATE_IN_PROGRESS');
  mocks.lambda.on(InvokeCommand).callsFake(async (input: { Payload: string }) => {
    const result = await worker(JSON.parse(input.Payload), lambdaContext(60_000));
    return { StatusCode: 200, Payload: new TextEncoder().encode(JSON.stringify(result)) };
  });
}

/** The load-worker function the hook fans out to. */
export const WORKER_FUNCTION = 'Serving-SmokeLoadWorker';

/**
 * The environment the construct gives the hook in staging, with local test credentials: reports to bucket `reports`,
 * the stack `STACK_ID`, workers `WORKER_FUNCTION`. Set before the handler is imported: its clients read it at load.
 */
export function hookEnvironment(name: string, more: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDLOCALTEST',
    AWS_SECRET_ACCESS_KEY: 'local-test-secret',
    SMOKE_NAME: name,
    SMOKE_ENVIRONMENT: 'staging',
    SMOKE_REPORT_BUCKET: 'reports',
    SMOKE_STACK_ID: STACK_ID,
    SMOKE_WORKER_FUNCTION: WORKER_FUNCTION,
    ...more,
  };
}
