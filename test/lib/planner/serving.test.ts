import {
  busySecondsForCall, predictedP99Seconds, processUtilization, saturationPerProcessRps, SERVER_PATH_MS, servingModel,
  WORKER_HANDOVER_MS_PER_CALL, WORKER_HANDOVER_MS_PER_REQUEST,
} from '../../../lib/planner';

const b8 = { batchSize: 8, throughputRps: 1600, p50Ms: 5, p99Ms: 6 } as const;
const batching = servingModel(b8, { mode: 'batching', processes: 2, hostMsPerRequest: 0.5, requestsPerBatch: 8, maxDelayMs: 2 });

describe('a worker of the model server is busy for the call, its requests\' host work and the hand-over; the path is latency only', () => {
  test('GIVEN a call of n requests THEN the worker is busy for the call + n x (host work + hand-over) + the per-call hand-over', () => {
    const expected = 0.005 + WORKER_HANDOVER_MS_PER_CALL / 1000 + 3 * (0.0005 + WORKER_HANDOVER_MS_PER_REQUEST / 1000);
    expect(busySecondsForCall(batching, 3)).toBeCloseTo(expected, 12);
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

  test('GIVEN no hand-over THEN the busy time is the call and host work alone, and the capacity ceiling rises', () => {
    const noHandover = { ...batching, handoverSecondsPerCall: 0, handoverSecondsPerRequest: 0 };
    expect(busySecondsForCall(noHandover, 8)).toBeCloseTo(0.005 + 8 * 0.0005, 12);
    expect(saturationPerProcessRps(noHandover)).toBeGreaterThan(saturationPerProcessRps(batching));
  });
});
