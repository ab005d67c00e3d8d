import type { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { runBenchmark } from '../../../io/bench';
import type { BenchOptions } from '../../../lib/bench';
import {
  localSageMakerRuntimeClient,
  startSageMakerRuntimeServer,
  type InvocationBehaviour,
  type SageMakerRuntimeTestServer,
} from '../../support';
import { restoreEnvAfterEach, sageMakerRuntimeFromEnv } from '../../support/aws-env';

const EARLY = 1.5;
const ENDPOINT = 'bert-base-prod';

const servers: SageMakerRuntimeTestServer[] = [];
const clients: SageMakerRuntimeClient[] = [];
async function serve(behaviour: InvocationBehaviour): Promise<{ server: SageMakerRuntimeTestServer; client: SageMakerRuntimeClient }> {
  const server = await startSageMakerRuntimeServer(behaviour, { endpointNames: [ENDPOINT] });
  const client = localSageMakerRuntimeClient(server.url);
  servers.push(server);
  clients.push(client);
  return { server, client };
}
afterEach(async () => {
  clients.splice(0).forEach((c) => c.destroy());
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function sagemaker(rest: Partial<BenchOptions> = {}): BenchOptions {
  return {
    target: { kind: 'sagemaker', endpointName: ENDPOINT },
    body: '{"inputs":"The movie was great"}',
    mode: { kind: 'closed', concurrency: 2 },
    stop: { requests: 10 },
    ...rest,
  };
}

describe('runBenchmark drives a SageMaker endpoint through the real SDK client', () => {
  test('GIVEN a healthy endpoint WHEN run THEN InvokeEndpoint carries the body, content type and variant, and answers are checked', async () => {
    const { server, client } = await serve(() => ({ kind: 'ok', body: '[{"label":"POSITIVE","score":0.99}]', delayMs: 10 }));

    const report = await runBenchmark(
      sagemaker({
        target: { kind: 'sagemaker', endpointName: ENDPOINT, targetVariant: 'blue' },
        contentType: 'application/json',
        expect: { kind: 'json-path', path: '$[0].label', value: 'POSITIVE' },
      }),
      { sageMakerClient: client },
    );

    expect(report).toMatchObject({ requests: 10, errors: 0, errorsByKind: {}, passed: true });
    expect(report.latencyMs.p50).toBeGreaterThanOrEqual(10 - EARLY);
    expect(server.invocations).toHaveLength(10);
    expect(server.invocations[0]).toMatchObject({
      method: 'POST',
      path: `/endpoints/${ENDPOINT}/invocations`,
      endpointName: ENDPOINT,
      targetVariant: 'blue',
      body: '{"inputs":"The movie was great"}',
    });
    expect(server.invocations[0].headers['content-type']).toBe('application/json');
    // Signed like a real call: the client is the real one, not a stand-in.
    expect(server.invocations[0].headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLOCALTEST\/\d{8}\/us-east-1\/sagemaker\/aws4_request/);
  });

  test('GIVEN an endpoint whose model answers wrongly WHEN checked THEN each is a wrong answer', async () => {
    const { client } = await serve(() => ({ kind: 'ok', body: '[{"label":"NEGATIVE","score":0.7}]' }));

    const report = await runBenchmark(sagemaker({ expect: { kind: 'regex', pattern: 'POSITIVE' } }), { sageMakerClient: client });

    expect(report.errorsByKind).toEqual({ 'wrong-answer': 10 });
  });

  test('GIVEN a model failing every other call (ModelError, HTTP 424) WHEN run THEN those count as model errors, once each', async () => {
    const { server, client } = await serve(({ index }) =>
      index % 2 === 0
        ? { kind: 'model-error', originalStatusCode: 500, originalMessage: 'CUDA error: no kernel image' }
        : { kind: 'ok', body: '{}' },
    );

    const report = await runBenchmark(sagemaker(), { sageMakerClient: client });

    expect(report.requests).toBe(10);
    expect(report.errorsByKind).toEqual({ 'model-error': 5 });
    expect(server.received).toHaveLength(10);
  });

  test.each([['ThrottlingException' as const], ['ModelNotReadyException' as const]])(
    'GIVEN an endpoint throttling with HTTP 429 %s WHEN run THEN those count as throttled',
    async (errorType) => {
      const { client } = await serve(({ index }) => (index < 4 ? { kind: 'throttle', errorType } : { kind: 'ok', body: '{}' }));

      const report = await runBenchmark(sagemaker(), { sageMakerClient: client });

      expect(report.errorsByKind).toEqual({ throttled: 4 });
    },
  );

  test('GIVEN an unavailable service (503) and an unknown endpoint (400) WHEN run THEN each counts under its HTTP status', async () => {
    const { client } = await serve(() => ({ kind: 'service-error', status: 503, errorType: 'ServiceUnavailable', message: 'down' }));

    const unavailable = await runBenchmark(sagemaker(), { sageMakerClient: client });
    const unknown = await runBenchmark(sagemaker({ target: { kind: 'sagemaker', endpointName: 'no-such-endpoint' } }), {
      sageMakerClient: client,
    });

    expect(unavailable.errorsByKind).toEqual({ 'http-503': 10 });
    expect(unknown.errorsByKind).toEqual({ 'http-400': 10 });
  });

  test('GIVEN an endpoint that stalls WHEN run THEN the SDK call is aborted at the request timeout', async () => {
    const { client } = await serve(() => ({ kind: 'stall' }));

    const report = await runBenchmark(sagemaker({ timeoutMs: 150, stop: { requests: 4 } }), { sageMakerClient: client });

    expect(report.errorsByKind).toEqual({ timeout: 4 });
    expect(report.durationMs).toBeLessThan(5000);
  });

  test('GIVEN an endpoint that resets connections WHEN run THEN those count as connection errors', async () => {
    const { client } = await serve(() => ({ kind: 'reset' }));

    const report = await runBenchmark(sagemaker({ stop: { requests: 4 } }), { sageMakerClient: client });

    expect(report.errorsByKind).toEqual({ connection: 4 });
  });
});

describe('runBenchmark builds its own SageMaker client from the standard SDK configuration', () => {
  restoreEnvAfterEach();

  test('GIVEN AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME and a throttling endpoint WHEN run without a client THEN calls reach it, never retried', async () => {
    const server = await startSageMakerRuntimeServer(({ index }) =>
      index % 2 === 0 ? { kind: 'throttle' } : { kind: 'ok', body: '{"ok":true}' },
    );
    servers.push(server);
    sageMakerRuntimeFromEnv(server.url, 'AKIDFROMENV');

    const report = await runBenchmark(sagemaker({ target: { kind: 'sagemaker', endpointName: ENDPOINT, region: 'eu-west-1' } }));

    expect(report.requests).toBe(10);
    expect(report.errorsByKind).toEqual({ throttled: 5 });
    // The SDK's default policy would retry each throttled call; the run's own client must not.
    expect(server.invocations).toHaveLength(10);
    expect(server.invocations[0].headers.authorization).toMatch(/Credential=AKIDFROMENV\/\d{8}\/eu-west-1\/sagemaker\//);
  });
});
