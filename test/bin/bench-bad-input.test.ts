/**
 * `cdk-inferentia bench` against targets that cannot pass, and flags that cannot work, through the whole CLI: the
 * exit code and what the user reads. Targets are real servers on 127.0.0.1.
 */
import { runCli } from '../../bin/cli';
import type { BenchReport } from '../../lib/bench';
import { startHttpServer, startSageMakerRuntimeServer, type ServerBehaviour } from '../support';
import { withoutCredentials } from '../support/aws-env';

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

const servers: { close(): Promise<void> }[] = [];
async function serve(behaviour: ServerBehaviour): Promise<string> {
  const server = await startHttpServer(behaviour);
  servers.push(server);
  return server.url;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('bench fails (exit 1) when no request succeeds, naming the error kinds and their cause', () => {
  test('GIVEN a closed port WHEN benchmarked THEN exit 1, passed false, and the refused connection is named', async () => {
    // GIVEN a port that was just free and is closed again
    const server = await startHttpServer(() => ({ kind: 'respond' }));
    const url = server.url;
    await server.close();

    // WHEN
    const { code, stdout, stderr } = await run('bench', '--url', url, '--requests', '5', '--json');

    // THEN
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as BenchReport;
    expect(report).toMatchObject({ requests: 5, errors: 5, passed: false, errorsByKind: { connection: 5 } });
    expect(report.failures).toEqual([expect.stringMatching(/^no request succeeded, all 5 failed: connection 5 \(first: .*ECONNREFUSED.*\): nothing accepted the connection/)]);
    expect(stderr).toMatch(/^error: benchmark failed: no request succeeded, all 5 failed: connection 5 \(first: .*ECONNREFUSED/);
  });

  test('GIVEN a server answering only 500 WHEN benchmarked without thresholds THEN exit 1 naming http-500 and quoting its body', async () => {
    const url = await serve(() => ({ kind: 'respond', status: 500, body: '{"error":"model not loaded"}' }));

    const { code, stdout, stderr } = await run('bench', '--url', url, '--requests', '4');

    expect(code).toBe(1);
    expect(stdout).toMatch(/latency p99\s+│ n\/a \(no successful request\)/);
    expect(stdout).toMatch(/No request succeeded: the run failed/);
    expect(stderr).toMatch(/error: benchmark failed: no request succeeded, all 4 failed: http-500 4 \(first: HTTP 500 \{"error":"model not loaded"\}\): the target answered with an unexpected status/);
  });

  test('GIVEN a hanging server and --duration WHEN benchmarked THEN the run ends by the duration plus the request timeout, exit 1, timeouts named', async () => {
    const url = await serve(() => ({ kind: 'stall' }));

    const { code, stdout, stderr } = await run('bench', '--url', url, '--duration', '0.5', '--timeout', '300', '--concurrency', '2', '--json');

    expect(code).toBe(1);
    const report = JSON.parse(stdout) as BenchReport;
    expect(report.passed).toBe(false);
    expect(report.errorsByKind).toEqual({ timeout: report.requests });
    // Each request in flight at the end of the duration is waited for at most its timeout, never the 10 s default.
    expect(report.durationMs).toBeLessThan(500 + 300 + 1000);
    expect(stderr).toMatch(/timeout \d+ \(first: no complete answer within 300 ms\): no answer within the request timeout/);
  });

  test('GIVEN 100 % wrong answers and --expect-json WHEN benchmarked THEN exit 1 showing the first wrong answer', async () => {
    const url = await serve(() => ({ kind: 'respond', status: 200, body: '{"label":"dog"}' }));

    const { code, stdout, stderr } = await run('bench', '--url', url, '--requests', '3', '--expect-json', '{"label":"cat"}', '--json');

    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ passed: false, errorsByKind: { 'wrong-answer': 3 }, latencyMs: { p50: null, p90: null, p99: null, max: null } });
    expect(stderr).toMatch(/wrong-answer 3 \(first: got \{"label":"dog"\}\): the target answered, but not with the expected response/);
  });

  test('GIVEN one success among failures and no thresholds WHEN benchmarked THEN it passes (the thresholds decide the rest)', async () => {
    const url = await serve(({ index }) => (index === 0 ? { kind: 'respond', status: 200, body: '{}' } : { kind: 'respond', status: 503 }));

    const { code, stdout } = await run('bench', '--url', url, '--requests', '3', '--json');

    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ passed: true, failures: [], errors: 2 });
  });
});

describe('bench refuses a bad endpoint name offline', () => {
  test('GIVEN --endpoint "bad name!" THEN exit 2 naming SageMaker\'s rule, before any AWS call', async () => {
    const { code, stdout, stderr } = await run('bench', '--endpoint', 'bad name!', '--region', 'us-east-1', '--body', '{}', '--requests', '1');
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toContain('--endpoint "bad name!": not a SageMaker endpoint name');
  });
});

describe('bench --endpoint names missing or rejected AWS credentials', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });


  test('GIVEN no credentials anywhere WHEN benchmarking an endpoint THEN exit 1 before any request, naming credentials and the fix', async () => {
    // GIVEN a runtime that would answer, and no credentials
    const runtime = await startSageMakerRuntimeServer(() => ({ kind: 'ok', body: '{}' }));
    servers.push(runtime);
    withoutCredentials();
    process.env.AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME = runtime.url;

    // WHEN
    const { code, stdout, stderr } = await run('bench', '--endpoint', 'my-ep', '--region', 'us-east-1', '--body', '{}', '--requests', '5');

    const json = await run('bench', '--endpoint', 'my-ep', '--region', 'us-east-1', '--body', '{}', '--requests', '5', '--json');

    // THEN
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ passed: false, failures: [expect.stringMatching(/^SageMaker InvokeEndpoint my-ep failed: no AWS credentials found/)] });
    expect(stderr).toMatch(
      /error: SageMaker InvokeEndpoint my-ep failed: no AWS credentials found \(CredentialsProviderError: .+\); give the AWS SDK credentials: set AWS_PROFILE/,
    );
    expect(stderr).not.toMatch(/internal error|\n\s+at /);
    expect(runtime.invocations).toHaveLength(0);
  });

  test('GIVEN credentials the service rejects WHEN benchmarking THEN every error is counted as credentials, exit 1, with the fix', async () => {
    const runtime = await startSageMakerRuntimeServer(() => ({
      kind: 'service-error',
      status: 400,
      errorType: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    }));
    servers.push(runtime);
    withoutCredentials();
    process.env.AWS_ACCESS_KEY_ID = 'AKIDREVOKED';
    process.env.AWS_SECRET_ACCESS_KEY = 'revoked-secret';
    process.env.AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME = runtime.url;

    const { code, stdout, stderr } = await run('bench', '--endpoint', 'my-ep', '--region', 'us-east-1', '--body', '{}', '--requests', '3', '--json');

    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ passed: false, errorsByKind: { credentials: 3 } });
    expect(stderr).toMatch(/credentials 3 \(first: UnrecognizedClientException: The security token included in the request is invalid\.\): give the AWS SDK credentials/);
  });
});

describe('bench refuses flags that cannot work (exit 2) before sending anything', () => {
  test.each([
    ['a rate no process can send', ['--rate', '1e9'], '--rate 1e9: at most 100000 (one process cannot send faster; run several bench processes for more), e.g. --rate 50'],
    ['a timeout past the longest Node timer', ['--timeout', '3000000000'], '--timeout 3000000000: at most 2147483647 (the longest Node timer, about 24.8 days), e.g. --timeout 2000'],
    ['more sockets than a process holds', ['--concurrency', '1e9'], '--concurrency 1e9: at most 10000 (each request in flight holds a socket; run several bench processes for more), e.g. --concurrency 8'],
    ['a duration in milliseconds by mistake', ['--duration', '120000'], '--duration 120000: at most 86400 (seconds, not milliseconds), e.g. --duration 30'],
    ['a hexadecimal number', ['--concurrency', '0x10'], '--concurrency 0x10: expected a whole number of 1 or more up to 10000, e.g. --concurrency 8'],
  ])('GIVEN %s WHEN run THEN exit 2 naming the flag, the value and the limit', async (_what, flags, message) => {
    const url = await serve(() => ({ kind: 'respond' }));

    const { code, stdout, stderr } = await run('bench', '--url', url, ...flags);

    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`error: ${message}\n`);
  });

  test('GIVEN --region mars-1 with --endpoint WHEN run THEN exit 2: not a region', async () => {
    const { code, stderr } = await run('bench', '--endpoint', 'my-ep', '--region', 'mars-1', '--body', '{}');

    expect(code).toBe(2);
    expect(stderr).toBe('error: --region mars-1: not an AWS region code; e.g. --region us-east-1\n');
  });

  test('GIVEN a value flag given twice WHEN run THEN exit 2 instead of silently taking the last value', async () => {
    const url = await serve(() => ({ kind: 'respond' }));

    const { code, stderr } = await run('bench', '--url', url, '--rate', '10', '--rate', '1000', '--requests', '1');

    expect(code).toBe(2);
    expect(stderr).toMatch(/--rate is given twice \(10, then 1000\); give it once\./);
  });
});
