import { runBenchmark } from '../../../io/bench';
import { LatencyRecorder, parseServerTiming, ServerTimingRecorder, type BenchOptions } from '../../../lib/bench';
import { serversClosedAfterEach, type ServerBehaviour, type TestServer } from '../../support';
import { localSageMakerRuntimeClient } from '../../support/sagemaker-runtime-server';

const serve = serversClosedAfterEach();

/** Answers like the model server: even requests rode alone in 4 ms, odd ones in a batch of 3 for 20 ms. */
const modelServer: ServerBehaviour = ({ index }) => ({
  kind: 'respond',
  status: 200,
  body: '{"ok":true}',
  headers: {
    'content-type': 'application/json',
    'x-amzn-sagemaker-custom-attributes':
      index % 2 === 0
        ? 'server-ms=4.000,batch-requests=1,batch-inputs=1,device-ms=3.500'
        : 'server-ms=20.000,batch-requests=3,batch-inputs=6,device-ms=12.000',
  },
});

/** Within the histogram's 0.1 % resolution (3 significant digits). */
function withinResolution(actual: Record<string, number>, expected: Record<string, number>): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [key, value] of Object.entries(expected)) {
    expect(Math.abs(actual[key] - value)).toBeLessThanOrEqual(value * 0.001 + 0.001);
  }
}

function http(server: TestServer, rest: Omit<BenchOptions, 'target'>): BenchOptions {
  return { target: { kind: 'http', url: `${server.url}/invocations` }, ...rest };
}

describe('the model server timing header is parsed as the server writes it', () => {
  test('GIVEN a full value WHEN parsed THEN every field is read', () => {
    expect(parseServerTiming('server-ms=12.5,batch-requests=3,batch-inputs=4,device-ms=9.1')).toEqual({
      serverMs: 12.5,
      batchRequests: 3,
      batchInputs: 4,
      deviceMs: 9.1,
    });
  });

  test('GIVEN an answer answered without a device call WHEN parsed THEN only the server time is there', () => {
    expect(parseServerTiming('server-ms=100.2')).toEqual({ serverMs: 100.2 });
  });

  test.each([undefined, '', 'tenant=a,trace=b', 'server-ms=fast'])(
    'GIVEN %p, not the model server timing WHEN parsed THEN it is ignored',
    (value) => {
      expect(parseServerTiming(value)).toBeUndefined();
    },
  );
});

describe('a run reads the server timing of its successful answers', () => {
  test('GIVEN an HTTP server sending the header WHEN run with serverTiming THEN server percentiles and mean batch are reported', async () => {
    const server = await serve(modelServer);

    const report = await runBenchmark(http(server, { mode: { kind: 'closed', concurrency: 2 }, stop: { requests: 40 }, serverTiming: true }));

    expect(report.server).toMatchObject({ answers: 40, meanBatchRequests: 2, meanBatchInputs: 3.5 });
    withinResolution(report.server!.latencyMs, { p50: 4, p90: 20, p99: 20, max: 20 });
  });

  test('GIVEN the same server WHEN run without serverTiming THEN the report has no server section', async () => {
    const server = await serve(modelServer);

    const report = await runBenchmark(http(server, { mode: { kind: 'closed', concurrency: 2 }, stop: { requests: 10 } }));

    expect(report).not.toHaveProperty('server');
  });

  test('GIVEN a SageMaker endpoint returning CustomAttributes WHEN run through the real SDK client THEN the server p99 is judged', async () => {
    const server = await serve((request) =>
      request.path === '/endpoints/bert/invocations' ? modelServer(request) : { kind: 'respond', status: 404 },
    );
    const client = localSageMakerRuntimeClient(server.url);

    const report = await runBenchmark(
      {
        target: { kind: 'sagemaker', endpointName: 'bert' },
        body: '{"inputs":"hi"}',
        mode: { kind: 'closed', concurrency: 2 },
        stop: { requests: 20 },
        thresholds: { serverP99MaxMs: 15 },
      },
      { sageMakerClient: client },
    );
    client.destroy();

    expect(report.server?.answers).toBe(20);
    expect(report.thresholds).toMatchObject([{ name: 'serverP99', limit: 15, passed: false }]);
    expect(report.thresholds[0].measured).toBeCloseTo(20, 1);
    expect(report.failures).toEqual([expect.stringMatching(/^server p99 20(\.\d+)? ms > max 15 ms$/)]);
  });

  test('GIVEN a server without the header WHEN a server p99 limit is set THEN the run fails saying the header is missing', async () => {
    const server = await serve(() => ({ kind: 'respond', status: 200, body: '{}' }));

    const report = await runBenchmark(http(server, { mode: { kind: 'closed', concurrency: 1 }, stop: { requests: 5 }, thresholds: { serverP99MaxMs: 50 } }));

    expect(report.passed).toBe(false);
    expect(report.failures[0]).toMatch(/no answer carried the model server's timing header/);
  });
});

describe('the server timing keeps what calibration needs', () => {
  test('GIVEN answers with device-ms WHEN recorded, encoded and merged THEN device time and server-minus-device overhead are reported', () => {
    const worker = new ServerTimingRecorder();
    const hook = new ServerTimingRecorder();
    for (let i = 0; i < 100; i++) {
      worker.record(`server-ms=${3 + i / 10},batch-requests=1,batch-inputs=1,device-ms=2`);
    }
    hook.record('server-ms=4');
    hook.add(worker.encode());

    const report = hook.report();
    expect(report?.answers).toBe(101);
    withinResolution({ p50: report!.deviceMs!.p50, p99: report!.deviceMs!.p99 }, { p50: 2, p99: 2 });
    withinResolution({ p5: report!.overheadMs!.p5, p50: report!.overheadMs!.p50 }, { p5: 1.4, p50: 5.9 });
  });

  test('GIVEN answers without device-ms WHEN reported THEN there is no device or overhead section', () => {
    const recorder = new ServerTimingRecorder();
    recorder.record('server-ms=4');
    expect(recorder.report()).not.toHaveProperty('deviceMs');
    expect(recorder.encode()).not.toHaveProperty('device');
  });
});

describe('encoded histograms merge exactly', () => {
  test('GIVEN two recorders WHEN one is encoded and added to the other THEN percentiles are those of all values together', () => {
    const fast = new LatencyRecorder();
    const slow = new LatencyRecorder();
    const together = new LatencyRecorder();
    for (let i = 1; i <= 990; i++) {
      fast.record(i / 100);
      together.record(i / 100);
    }
    for (let i = 1; i <= 10; i++) {
      slow.record(100 + i);
      together.record(100 + i);
    }

    fast.addEncoded(slow.encode());

    expect(fast.count).toBe(1000);
    withinResolution(fast.percentiles(), together.percentiles());
    withinResolution(fast.percentiles(), { p50: 5, p90: 9, p99: 9.9, max: 110 });
  });

  test('GIVEN encodeHistograms WHEN a run ends THEN its report carries the histograms to merge', async () => {
    const server = await serve(modelServer);

    const report = await runBenchmark(
      http(server, { mode: { kind: 'closed', concurrency: 2 }, stop: { requests: 10 }, serverTiming: true, encodeHistograms: true }),
    );

    const merged = new LatencyRecorder();
    merged.addEncoded(report.encoded!.latency);
    expect(merged.count).toBe(10);
    expect(report.encoded?.server).toMatchObject({ batched: 10, batchRequestsSum: 20, batchInputsSum: 35 });
  });
});
