import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Command, CommanderError } from 'commander';
import { registerBenchCommand } from '../../bin/commands/bench';
import type { CliIo } from '../../bin/commands/io';
import { BenchFailedError, type BenchReport } from '../../lib/bench';
import { InputError } from '../../lib/errors';
import type { CalibrationRecord } from '../../lib/bench/calibration-record';
import { readCalibrationRecord } from '../../lib/calibration';
import { findGenerativeProfile, planGenerative } from '../../lib/generative';
import { plan } from '../../lib/planner';
import { requireProfile } from '../../lib/profiles';
import { startHttpServer, startSageMakerRuntimeServer, type ServerBehaviour, type TestServer } from '../support';
import { restoreEnvAfterEach, sageMakerRuntimeFromEnv } from '../support/aws-env';

interface Output {
  stdout: string;
  stderr: string;
}

/** Runs `cdk-inferentia bench <args>` with only the bench command registered; `out` fills even when it throws. */
async function bench(args: string[], out: Output = { stdout: '', stderr: '' }, isTTY = false): Promise<Output> {
  const io: CliIo = {
    stdout: (s) => {
      out.stdout += s;
    },
    stderr: (s) => {
      out.stderr += s;
    },
  };
  const program = new Command('cdk-inferentia').exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  registerBenchCommand(program, io, { isTTY }).exitOverride();
  await program.parseAsync(['bench', ...args], { from: 'user' });
  return out;
}

async function problemsOf(args: string[]): Promise<readonly string[]> {
  const error = await bench(args).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputError);
  return (error as InputError).problems;
}

const servers: { close(): Promise<void> }[] = [];
async function serve(behaviour: ServerBehaviour): Promise<TestServer> {
  const server = await startHttpServer(behaviour);
  servers.push(server);
  return server;
}
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bench-cli-'));
});
afterEach(async () => {
  rmSync(dir, { recursive: true, force: true });
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const answer = (body = '{"label":"cat"}', delayMs = 1) => () => ({ kind: 'respond', status: 200, body, delayMs }) as const;

describe('bench rejects bad usage before sending anything', () => {
  test('GIVEN many bad flags WHEN run THEN one InputError names each flag, its value and the fix', async () => {
    const server = await serve(answer());

    const problems = await problemsOf([
      '--url', `${server.url}/x`,
      '--region', 'us-east-1',
      '--body', '{"inputs": ',
      '--concurrency', 'abc',
      '--duration', '5',
      '--requests', '10',
      '--timeout', '-5',
      '--max-error-rate', '2',
      '--p99-max', '0',
      '--expect-json', '{"a":',
    ]);

    expect(problems).toEqual([
      '--region us-east-1: only applies to --endpoint; a --url carries its own host',
      expect.stringMatching(/^--body \{"inputs": : not valid JSON for content type application\/json \(.+\); fix the JSON or set --content-type$/),
      '--concurrency abc: expected a whole number of 1 or more up to 10000, e.g. --concurrency 8',
      '--duration and --requests: stop after a time or after a count, not both',
      '--timeout -5: expected a number above 0 up to 2147483647, e.g. --timeout 2000',
      '--p99-max 0: expected a number above 0, e.g. --p99-max 200',
      '--max-error-rate 2: expected a number from 0 to 1, e.g. --max-error-rate 0.01',
      expect.stringMatching(/^--expect-json \{"a":: not valid JSON \(.+\); e\.g\. --expect-json '\{"label":"cat"\}'$/),
    ]);
    expect(server.received).toHaveLength(0);
  });

  test.each([
    [[], 'no target: give --url https://host/path or --endpoint my-endpoint-name'],
    [['--url', 'http://a', '--endpoint', 'ep', '--body', '{}'], '--url and --endpoint: give one target, an HTTP(S) URL or a SageMaker endpoint, not both'],
    [['--url', 'ftp://host/x'], '--url ftp://host/x: not an absolute http(s) URL; e.g. --url https://my-alb.example.com/invocations'],
    [['--endpoint', 'ep'], '--endpoint needs a request body: add --body \'{"inputs":"..."}\' or --body-file payload.json'],
    [['--endpoint', 'ep', '--body', '{}', '--expect-status', '201'], expect.stringMatching(/^--expect-status 201: SageMaker answers 200 on success/)],
    [['--url', 'http://a', '--body', '{}', '--body-file', 'b.json'], '--body and --body-file: give the request body one way, not both'],
    [['--url', 'http://a', '--expect-json', '1', '--expect-regex', 'x'], '--expect-json and --expect-regex: check the answer one way, not both'],
    [['--url', 'http://a', '--expect-regex', '(unclosed'], expect.stringMatching(/^--expect-regex \(unclosed: Invalid regular expression.*; e\.g\./)],
    [['--url', 'http://a', '--rate', '0'], '--rate 0: expected a number above 0 up to 100000, e.g. --rate 50'],
    [['--url', 'http://a', '--warmup', '-1'], '--warmup -1: expected a number from 0 to 86400, e.g. --warmup 5'],
    [['--url', 'http://a', '--requests', '2.5'], '--requests 2.5: expected a whole number of 1 or more, e.g. --requests 1000'],
    [['--url', 'http://a', '--expect-status', '700'], '--expect-status 700: expected a whole number of 100 or more up to 599, e.g. --expect-status 200'],
    [['--url', 'http://a', '--min-throughput', ''], '--min-throughput : expected a number of at least 0, e.g. --min-throughput 100'],
  ])('GIVEN %j WHEN run THEN the problem is: %s', async (args, problem) => {
    expect(await problemsOf(args)).toEqual([problem]);
  });

  test('GIVEN a body file that does not exist WHEN run THEN the problem names the file', async () => {
    const missing = join(dir, 'missing.json');
    expect(await problemsOf(['--url', 'http://a', '--body-file', missing])).toEqual([
      expect.stringMatching(new RegExp(`^--body-file ${missing}: cannot read the file \\(ENOENT`)),
    ]);
  });

  test('GIVEN an unknown flag WHEN run THEN commander rejects it (the CLI maps that to exit 2)', async () => {
    await expect(bench(['--url', 'http://a', '--concurency', '2'])).rejects.toBeInstanceOf(CommanderError);
  });
});

describe('bench prints a report', () => {
  test('GIVEN --json WHEN run THEN stdout is the JSON report alone and stderr stays quiet, even on a terminal', async () => {
    const server = await serve(answer());

    const out = await bench(['--url', `${server.url}/predict`, '--requests', '12', '--concurrency', '3', '--json'], undefined, true);

    const report = JSON.parse(out.stdout) as BenchReport;
    expect(report).toMatchObject({ requests: 12, errors: 0, errorRate: 0, passed: true, thresholds: [] });
    expect(report.latencyMs.p99).toBeGreaterThan(0);
    expect(report.histogram.reduce((sum, b) => sum + b.count, 0)).toBe(12);
    expect(out.stderr).toBe('');
    expect(server.received.map((r) => r.method)).toEqual(Array(12).fill('GET'));
  });

  test('GIVEN no --json and no terminal WHEN run THEN stdout has the table and histogram, stderr only the plan', async () => {
    const server = await serve(answer());

    const out = await bench(['--url', `${server.url}/predict`, '--requests', '5', '--expect-json', '{"label":"cat"}']);

    expect(out.stdout).toMatch(/requests\s+│ 5 /);
    expect(out.stdout).toMatch(/latency p99\s+│ [\d.]+ ms/);
    expect(out.stdout).toMatch(/Latency histogram \(successful requests\):\n.*│█+/);
    expect(out.stderr).toBe(`Benchmarking ${server.url}/predict: 1 in flight, 5 requests.\n`);
  });

  test('GIVEN a terminal WHEN run without --json THEN a progress bar is drawn on stderr', async () => {
    const server = await serve(answer());

    const out = await bench(['--url', server.url, '--requests', '5', '--warmup', '0.2'], undefined, true);

    expect(out.stderr).toMatch(/warm-up \[[=-]+\] \d+% \| \d+ requests \| 0 errors/);
    expect(out.stderr).toMatch(/measure \[[=-]+\] \d+% \| \d+ requests \| 0 errors/);
    expect(out.stdout).toMatch(/requests\s+│ 5 /);
  });

  test('GIVEN a body file, a content type and a warm-up WHEN run THEN the body is POSTed and the warm-up left out', async () => {
    const server = await serve(answer('label=cat'));
    const file = join(dir, 'payload.csv');
    writeFileSync(file, 'a,b\n1,2\n');

    const out = await bench([
      '--url', server.url,
      '--body-file', file,
      '--content-type', 'text/csv',
      '--warmup', '0.2',
      '--requests', '4',
      '--expect-regex', '^label=cat$',
      '--json',
    ]);

    expect(JSON.parse(out.stdout)).toMatchObject({ requests: 4, errors: 0 });
    expect(server.received.length).toBeGreaterThan(4);
    expect(server.received[0]).toMatchObject({ method: 'POST', body: 'a,b\n1,2\n' });
    expect(server.received[0].headers['content-type']).toBe('text/csv');
  });

  test('GIVEN --rate with --concurrency and a stalled server WHEN run THEN it runs open-loop capped at that many in flight', async () => {
    const server = await serve(() => ({ kind: 'stall' }));
    const out: Output = { stdout: '', stderr: '' };

    const error = await bench(['--url', server.url, '--rate', '40', '--concurrency', '2', '--duration', '0.5', '--timeout', '200', '--json'], out).catch(
      (e: unknown) => e,
    );

    // Nothing succeeded, so the run fails; the report is out first.
    expect(error).toBeInstanceOf(BenchFailedError);
    const report = JSON.parse(out.stdout) as BenchReport;
    expect(report.requests).toBe(20);
    expect(report.errorsByKind.backpressure).toBeGreaterThan(0);
    expect(report.errorsByKind.backpressure + report.errorsByKind.timeout).toBe(20);
  });
});

describe('bench fails when a threshold is breached', () => {
  test('GIVEN a ~20 ms server and --p99-max 5 WHEN run THEN the report is printed first, then BenchFailedError', async () => {
    const server = await serve(answer('{}', 20));
    const out: Output = { stdout: '', stderr: '' };

    const error = await bench(['--url', server.url, '--requests', '6', '--p99-max', '5', '--max-error-rate', '0'], out).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(BenchFailedError);
    expect((error as BenchFailedError).message).toMatch(/^benchmark failed: p99 [\d.]+ ms > max 5 ms$/);
    expect(out.stdout).toMatch(/p99\s+│ FAIL/);
    expect(out.stdout).toMatch(/errorRate\s+│ PASS/);
  });

  test('GIVEN --json and an erroring server WHEN the error-rate limit is breached THEN the JSON report is printed, then it throws', async () => {
    const server = await serve(() => ({ kind: 'respond', status: 503 }));
    const out: Output = { stdout: '', stderr: '' };

    await expect(bench(['--url', server.url, '--requests', '4', '--max-error-rate', '0.5', '--json'], out)).rejects.toThrow(
      BenchFailedError,
    );
    expect(JSON.parse(out.stdout)).toMatchObject({ passed: false, errorsByKind: { 'http-503': 4 } });
  });

  test('GIVEN limits the server meets WHEN run THEN the command succeeds', async () => {
    const server = await serve(answer());

    const out = await bench(['--url', server.url, '--requests', '5', '--p99-max', '1000', '--p50-max', '1000', '--min-throughput', '0.1']);

    expect(out.stdout).toMatch(/All thresholds hold\./);
  });
});

describe('bench --endpoint calls SageMaker through the SDK configuration of the environment', () => {
  restoreEnvAfterEach();

  test('GIVEN AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME pointing at a local runtime WHEN run THEN InvokeEndpoint reaches it', async () => {
    const server = await startSageMakerRuntimeServer(({ index }) =>
      index === 0
        ? { kind: 'model-error', originalStatusCode: 400, originalMessage: 'bad input' }
        : { kind: 'ok', body: '{"label":"cat"}' },
    );
    servers.push(server);
    sageMakerRuntimeFromEnv(server.url, 'AKIDCLITEST');

    const out = await bench([
      '--endpoint', 'my-ep',
      '--region', 'us-west-2',
      '--body', '{"inputs":"a cat"}',
      '--requests', '5',
      '--expect-json', '{"label":"cat"}',
      '--json',
    ]);

    expect(JSON.parse(out.stdout)).toMatchObject({ requests: 5, errors: 1, errorsByKind: { 'model-error': 1 } });
    expect(server.invocations).toHaveLength(5);
    expect(server.invocations[0]).toMatchObject({ endpointName: 'my-ep', body: '{"inputs":"a cat"}' });
    expect(server.invocations[0].headers.authorization).toMatch(/\/us-west-2\/sagemaker\//);
  });
});

describe('bench --plan writes the calibration record calibrate reads', () => {
  const planned = plan(requireProfile('bert-base-uncased'), { throughputRps: 200, p99Ms: 50 }, { region: 'us-east-1', hosting: 'ec2', instanceTypes: ['inf2.xlarge'] });

  test('GIVEN a plan file and --rate WHEN run with --json THEN the report carries the plan basis and the server timing', async () => {
    const server = await serve(() => ({
      kind: 'respond', status: 200, body: '{"label":"cat"}', delayMs: 1,
      headers: { 'x-amzn-sagemaker-custom-attributes': 'server-ms=1.500,batch-requests=1,batch-inputs=1,device-ms=1.000' },
    }));
    const planFile = join(dir, 'plan.json');
    writeFileSync(planFile, JSON.stringify({ chosen: planned }));

    const out = await bench(['--url', server.url, '--rate', '40', '--requests', '20', '--plan', planFile, '--json']);

    const { calibration } = JSON.parse(out.stdout) as { calibration: CalibrationRecord };
    expect(calibration).toMatchObject({
      schemaVersion: 1, writer: 'bench', offeredRps: 40, loadApplied: true,
      plan: { profileId: 'bert-base-uncased', instanceType: 'inf2.xlarge', instanceCount: planned.instanceCount },
    });
    expect(calibration.server?.deviceMs?.p50).toBeCloseTo(1, 2);
    expect(calibration.server?.overheadMs?.p50).toBeCloseTo(0.5, 2);
    expect(readCalibrationRecord(JSON.parse(out.stdout), 'bench.json')).toEqual(calibration);
  });

  test('GIVEN a generative plan WHEN bench --plan THEN it is recognised and the token proof named, no TypeError, nothing sent', async () => {
    const server = await serve(answer());
    const planFile = join(dir, 'llama-plan.json');
    const llama = planGenerative(findGenerativeProfile('llama-3.1-8b-instruct')!, { requestsPerSecond: 2, inputTokens: { mean: 1024 },
      outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60 }, { region: 'us-east-1', hosting: 'ec2', instanceTypes: ['inf2.24xlarge'] });
    writeFileSync(planFile, JSON.stringify({ chosen: llama }));
    const problems = await problemsOf(['--url', server.url, '--rate', '2', '--plan', planFile, '--json']);
    expect(problems).toEqual([
      `--plan ${planFile}: a generative plan (llama-3.1-8b-instruct, planned in tokens): bench measures single-call requests and `
        + 'cannot calibrate it; its measurement is the token proof the deploy runs (smokeBenchmark.tokens, docs/generative.md), and '
        + '`npm run bench:generative` checks the token model against a streaming engine locally',
    ]);
    expect(problems.join('')).not.toMatch(/TypeError|Cannot read/);
    expect(server.received).toHaveLength(0);
  });

  test('GIVEN --rate far below the plan and a server without the timing header WHEN run THEN stderr warns that calibrate will refuse', async () => {
    const server = await serve(answer());
    const planFile = join(dir, 'plan-low.json');
    writeFileSync(planFile, JSON.stringify({ chosen: planned }));
    const out = await bench(['--url', server.url, '--rate', '10', '--requests', '10', '--plan', planFile, '--json']);
    expect(out.stderr).toContain(`warning: --rate 10 is ${+(1000 / planned.capacityRps).toPrecision(2)} % of the plan's `);
    expect(out.stderr).toContain('calibrate refuses a run below 50 % of the plan or of fewer than 1000 requests');
    expect(out.stderr).toContain('warning: no answer carried the model server\'s timing header (server-ms, device-ms): '
      + `${server.url} is not the cdk-inferentia model server`);
    expect(out.stderr).toContain("the plan was made for the model server, whose workers overlap host work with device calls: if a Neuron DLC's "
      + 'stock toolkit serves it, re-plan with --server neuron-dlc and measure that plan');
    // A plan made for the DLC is measured as it was made.
    writeFileSync(planFile, JSON.stringify({ chosen: { ...planned, server: 'neuron-dlc' } }));
    const dlc = await bench(['--url', server.url, '--rate', '10', '--requests', '10', '--plan', planFile, '--json']);
    expect(dlc.stderr).toContain('is not the cdk-inferentia model server');
    expect(dlc.stderr).not.toContain('re-plan with --server neuron-dlc');
  });

  test('GIVEN --plan without --rate or --json, or a file without a plan THEN every problem is named before a request', async () => {
    const server = await serve(answer());
    const planFile = join(dir, 'none.json');
    writeFileSync(planFile, JSON.stringify({ chosen: null }));
    const problems = await problemsOf(['--url', server.url, '--plan', planFile]);
    expect(problems).toEqual([
      `--plan ${planFile}: the file holds no plan (chosen is null: the planner found none); give a feasible plan`,
      `--plan ${planFile}: calibration measures a rate; add --rate, e.g. the plan's capacityRps`,
      `--plan ${planFile}: the calibration record is written into the JSON report; add --json`,
    ]);
    expect(server.received).toHaveLength(0);
  });
});
