import {
  busySecondsForCall, hostSecondsForCall, predictedP99Seconds, processSecondsForCall, processUtilization, saturationPerProcessRps, SERVER_PATH_MS, servingModel,
  WORKER_HANDOVER_MS_PER_CALL, WORKER_HANDOVER_MS_PER_REQUEST,
} from '../../../lib/planner';

const b8 = { batchSize: 8, throughputRps: 1600, p50Ms: 5, p99Ms: 6 } as const;
const batching = servingModel(b8, { mode: 'batching', processes: 2, hostMsPerRequest: 0.5, requestsPerBatch: 8, maxDelayMs: 2 });

describe('a worker of the model server is busy for the slower of its two stages per call; a request passes both; the path is latency only', () => {
  test('GIVEN a device-bound call of n requests THEN the worker completes a call every call + per-call hand-over', () => {
    // Device stage 5 ms + 0.06 ms = 5.06 ms; host stage 3 x (0.5 + 0.075) ms = 1.725 ms: the device stage bounds it.
    expect(WORKER_HANDOVER_MS_PER_CALL).toBe(0.06);
    expect(WORKER_HANDOVER_MS_PER_REQUEST).toBe(0.075);
    expect(hostSecondsForCall(batching, 3)).toBeCloseTo(0.001725, 12);
    expect(busySecondsForCall(batching, 3)).toBeCloseTo(0.00506, 12);
  });

  test('GIVEN a host-bound call THEN the worker completes a call every n x (host work + per-request hand-over)', () => {
    // 2 ms of host work a request: host stage 8 x 2.075 ms = 16.6 ms against a device stage of 5.06 ms.
    const heavy = { ...batching, hostSecondsPerRequest: 0.002 };
    expect(busySecondsForCall(heavy, 8)).toBeCloseTo(0.0166, 12);
    expect(saturationPerProcessRps(heavy)).toBeCloseTo(8 / 0.0166, 6);
  });

  test('GIVEN stock serving THEN the call and the host work add up (the DLC\'s stock toolkit does not overlap them)', () => {
    const stock = { ...batching, mode: 'stock' as const };
    // 5 ms + 0.06 ms + 1 x 0.575 ms = 5.635 ms a call of one request.
    expect(busySecondsForCall(stock, 1)).toBeCloseTo(0.005635, 12);
    expect(busySecondsForCall(stock, 1)).toBe(processSecondsForCall(stock, 1));
  });

  test('GIVEN a call of n requests THEN each of them spends its decode, the call and its encode in the process', () => {
    // 5 ms + 0.06 ms + 3 x 0.575 ms = 6.785 ms, more than the 5.06 ms between calls: the stages overlap across calls.
    expect(processSecondsForCall(batching, 3)).toBeCloseTo(0.006785, 12);
  });

  test('GIVEN a rate THEN the p99 holds the tail batch\'s whole time in the process, not only its busy time', () => {
    const noHost = { ...batching, hostSecondsPerRequest: 0, handoverSecondsPerRequest: 0 };
    // At a trickle (2 requests/s) there is no queueing: the p99 differs by the host work of a one-request batch.
    expect(predictedP99Seconds(batching, 2) - predictedP99Seconds(noHost, 2)).toBeCloseTo(0.000575, 6);
  });

  test('GIVEN full calls THEN the saturation of a process is 8 requests per busy time of a full call', () => {
    expect(saturationPerProcessRps(batching)).toBeCloseTo(8 / busySecondsForCall(batching, 8), 9);
  });

  test('GIVEN the server\'s path THEN it adds to every request\'s p99 and to no process\'s busy time', () => {
    const noPath = { ...batching, pathSeconds: 0 };
    expect(batching.pathSeconds).toBe(SERVER_PATH_MS / 1000);
    for (const rate of [10, 200, 400]) {
      expect(predictedP99Seconds(batching, rate) - predictedP99Seconds(noPath, rate)).toBeCloseTo(SERVER_PATH_MS / 1000, 12);
      expect(processUtilization(batching, rate)).toBe(processUtilization(noPath, rate));
    }
  });

  test('GIVEN no hand-over THEN the busy time is the call alone (its host work hides behind it), and the capacity ceiling rises', () => {
    const noHandover = { ...batching, handoverSecondsPerCall: 0, handoverSecondsPerRequest: 0 };
    expect(busySecondsForCall(noHandover, 8)).toBeCloseTo(0.005, 12);
    expect(saturationPerProcessRps(noHandover)).toBeGreaterThan(saturationPerProcessRps(batching));
  });
});
