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

  test('GIVEN stock serving on the model server THEN its worker overlaps host work with the call, as with batching', () => {
    const stock = servingModel(b8, { mode: 'stock', processes: 2, hostMsPerRequest: 0.5, requestsPerBatch: 1, maxDelayMs: 0 });
    expect(stock.overlapsHostWork).toBe(true);
    expect(servingModel(b8, { mode: 'stock', server: 'model-server', processes: 2, hostMsPerRequest: 0.5, requestsPerBatch: 1, maxDelayMs: 0 }))
      .toEqual(stock);
    // max(5 ms + 0.06 ms, 1 x 0.575 ms) = 5.06 ms between calls of one request each.
    expect(busySecondsForCall(stock, 1)).toBeCloseTo(0.00506, 12);
    // Host-bound: 6 ms of host work a request outlasts the 5.06 ms device stage.
    expect(busySecondsForCall({ ...stock, hostSecondsPerRequest: 0.006 }, 1)).toBeCloseTo(0.006075, 12);
  });

  test("GIVEN stock serving on a Neuron DLC's toolkit THEN the call and the host work add up: it does not overlap them", () => {
    const dlc = servingModel(b8, { mode: 'stock', server: 'neuron-dlc', processes: 2, hostMsPerRequest: 0.5, requestsPerBatch: 1, maxDelayMs: 0 });
    expect(dlc.overlapsHostWork).toBe(false);
    // 5 ms + 0.06 ms + 1 x 0.575 ms = 5.635 ms a call of one request.
    expect(busySecondsForCall(dlc, 1)).toBeCloseTo(0.005635, 12);
    expect(busySecondsForCall(dlc, 1)).toBe(processSecondsForCall(dlc, 1));
    expect(saturationPerProcessRps(dlc)).toBeCloseTo(1 / 0.005635, 6);
  });

  test('GIVEN either server THEN a request still passes its own decode, call and encode in turn: the same p99 at a trickle', () => {
    const stock = servingModel(b8, { mode: 'stock', processes: 2, hostMsPerRequest: 0.5, requestsPerBatch: 1, maxDelayMs: 0 });
    const dlc = { ...stock, overlapsHostWork: false };
    // At 1 request/s nobody waits: the call's p99 6 ms + 0.635 ms in the process + the 0.4 ms path, on both.
    expect(predictedP99Seconds(stock, 1)).toBeCloseTo(predictedP99Seconds(dlc, 1), 6);
    expect(predictedP99Seconds(stock, 1)).toBeCloseTo(0.006 + 0.000635 + SERVER_PATH_MS / 1000, 5);
    // Under load the overlapping worker is busy for less, so it waits less.
    expect(predictedP99Seconds(stock, 300)).toBeLessThan(predictedP99Seconds(dlc, 300));
    expect(processUtilization(stock, 300)).toBeLessThan(processUtilization(dlc, 300));
  });

  test('GIVEN batching THEN the worker overlaps whatever server is named (only the model server batches)', () => {
    expect(batching.overlapsHostWork).toBe(true);
    expect(servingModel(b8, { mode: 'batching', server: 'neuron-dlc', processes: 2, hostMsPerRequest: 0.5, requestsPerBatch: 8, maxDelayMs: 2 }).overlapsHostWork)
      .toBe(true);
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
