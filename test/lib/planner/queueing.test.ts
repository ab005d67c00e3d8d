import {
  batchArrivalScv,
  batchRequestsQuantile,
  erlangC,
  largestFitting,
  meanBatchRequests,
  MIN_SERVICE_SCV,
  serviceScv,
  simulateInstance,
  waitQuantileSeconds,
} from '../../../lib/planner';

describe('Erlang C gives the M/M/c probability of waiting', () => {
  test('GIVEN one server THEN a request waits with probability ρ', () => {
    expect(erlangC(1, 0.5)).toBeCloseTo(0.5, 12);
    expect(erlangC(1, 0.9)).toBeCloseTo(0.9, 12);
  });

  test('GIVEN two servers at ρ = 0.5 THEN C = 2ρ² / (1 + ρ) = 1/3', () => {
    expect(erlangC(2, 1)).toBeCloseTo(1 / 3, 12);
  });

  test('GIVEN no load or an overloaded queue THEN 0 and 1', () => {
    expect(erlangC(4, 0)).toBe(0);
    expect(erlangC(4, 4)).toBe(1);
    expect(erlangC(4, 9)).toBe(1);
  });

  test('GIVEN 64 servers THEN the recursion stays finite and in [0, 1]', () => {
    const c = erlangC(64, 60);
    expect(c).toBeGreaterThan(0);
    expect(c).toBeLessThan(1);
  });
});

describe('the p99 wait follows the exponential tail, shortened for low service variability', () => {
  test('GIVEN M/M/1 at λ 500/s, 1 ms service THEN t = ln(0.5 / 0.01) / (1000 - 500) s = 7.824 ms', () => {
    expect(waitQuantileSeconds(500, 0.001, 1, 1) * 1000).toBeCloseTo(Math.log(50) / 0.5, 9);
    expect(waitQuantileSeconds(500, 0.001, 1, 1) * 1000).toBeCloseTo(7.824, 3);
  });

  test('GIVEN deterministic service (cs² = 0) THEN the wait is half the M/M/1 wait (Kingman)', () => {
    expect(waitQuantileSeconds(500, 0.001, 1, 0)).toBeCloseTo(waitQuantileSeconds(500, 0.001, 1, 1) / 2, 12);
  });

  test('GIVEN fewer than 1 % of requests waiting THEN the p99 wait is 0', () => {
    expect(waitQuantileSeconds(5, 0.001, 1)).toBe(0); // ρ = 0.005
    expect(waitQuantileSeconds(0, 0.001, 1)).toBe(0);
  });

  test('GIVEN arrivals at or above what the servers finish THEN the wait is unbounded', () => {
    expect(waitQuantileSeconds(2000, 0.001, 2)).toBe(Infinity);
  });

  test('the p99 call time variability comes from the measured p50 and p99, floored', () => {
    expect(serviceScv(1, 1)).toBe(MIN_SERVICE_SCV);
    const sigma = Math.log(5) / 2.3263478740408408;
    expect(serviceScv(10, 50)).toBeCloseTo(Math.expm1(sigma * sigma), 12);
  });
});

describe('the model holds against a simulated M/D/c queue', () => {
  test.each([
    [1, 0.5],
    [1, 0.8],
    [2, 0.9],
    [8, 0.9],
  ])('GIVEN %d server(s) at ρ = %d with constant 1 ms calls THEN the simulated p99 wait is within the model', (servers, rho) => {
    const model = {
      mode: 'stock' as const, overlapsHostWork: false, processes: servers, callSeconds: 0.001, callP99Seconds: 0.001, hostSecondsPerRequest: 0,
      handoverSecondsPerCall: 0, handoverSecondsPerRequest: 0, pathSeconds: 0, requestsPerBatch: 1, maxDelaySeconds: 0, serviceScv: MIN_SERVICE_SCV,
    };
    const rate = (rho * servers) / 0.001;
    const simulated = simulateInstance({ model, callP50Seconds: 0.001, arrivalsPerSecond: rate, requests: 100_000, seed: 3 });
    const predictedWait = waitQuantileSeconds(rate, 0.001, servers, MIN_SERVICE_SCV);
    // Simulated latency = wait + the 1 ms call.
    expect(simulated.p99Seconds - 0.001).toBeLessThanOrEqual(predictedWait);
    // The model is not wildly pessimistic either: the real wait is at least a third of it.
    expect(simulated.p99Seconds - 0.001).toBeGreaterThanOrEqual(predictedWait / 3);
  });
});

describe('a batch that closes when full or after its delay holds E[min(n, 1 + Poisson(λT))] requests', () => {
  test('GIVEN no arrivals during the delay THEN one request per batch', () => {
    expect(meanBatchRequests(0, 0.01, 8)).toBe(1);
    expect(meanBatchRequests(1000, 0, 8)).toBe(1);
    expect(meanBatchRequests(1000, 0.01, 1)).toBe(1);
  });

  test('GIVEN batches of at most 2 THEN 2 - e^(-λT)', () => {
    expect(meanBatchRequests(100, 0.01, 2)).toBeCloseTo(2 - Math.exp(-1), 12);
  });

  test('GIVEN far more arrivals than fit THEN the batch is full', () => {
    expect(meanBatchRequests(100_000, 0.01, 8)).toBeCloseTo(8, 9);
  });
});

describe('largestFitting finds the edge of a monotone condition', () => {
  test('it returns the bound, the edge, or 0', () => {
    expect(largestFitting(10, () => true)).toBe(10);
    expect(largestFitting(10, (x) => x <= 3.5)).toBeCloseTo(3.5, 4);
    expect(largestFitting(10, () => false)).toBe(0);
  });
});

describe('batches arrive more regularly than requests', () => {
  test('GIVEN batches of one request THEN the gaps are Poisson: ca² = 1', () => {
    expect(batchArrivalScv(500, 0.01, 1)).toBe(1);
    expect(batchArrivalScv(500, 0, 8)).toBe(1);
  });

  test('GIVEN batches of at most 2 THEN ca² matches the hand-computed gap Exp(λ) + min(T, Exp(λ))', () => {
    // λ = 100/s, T = 10 ms: E[Y] = (1 - e^-1) / λ, E[Y²] = 2/λ² (1 - 2e^-1) (Gamma(2) mass below T is 1 - 2/e).
    const l = 100;
    const y1 = (1 - Math.exp(-1)) / l;
    const y2 = (2 / (l * l)) * (1 - 2 * Math.exp(-1));
    const mean = 1 / l + y1;
    expect(batchArrivalScv(l, 0.01, 2)).toBeCloseTo((1 / (l * l) + y2 - y1 * y1) / (mean * mean), 12);
  });

  test('GIVEN a busy server filling batches of 8 THEN ca² is far below 1', () => {
    expect(batchArrivalScv(2000, 0.004, 8)).toBeLessThan(0.1);
  });
});

describe('the batch a request at the tail rides in is counted from the requests\' side', () => {
  test('GIVEN 0.84 % of batches holding 2 requests THEN 1.7 % of requests ride in one, so the p99 request\'s batch holds 2', () => {
    // λT = 42/s x 0.2 ms = 0.0084: P(batch of 2) = 0.0084 e^-0.0084 = 0.83 %; requests in them 2 x 0.83 % / 1.0083 = 1.66 %.
    expect(batchRequestsQuantile(42, 0.0002, 3)).toBe(2);
  });

  test('GIVEN batches of 2 rarer than 0.5 % of requests THEN the p99 request rides alone', () => {
    expect(batchRequestsQuantile(10, 0.0002, 3)).toBe(1); // λT = 0.002: 0.4 % of requests share a batch
  });

  test('GIVEN far more arrivals than fit, or batches of one THEN the full batch, or 1', () => {
    expect(batchRequestsQuantile(100_000, 0.01, 8)).toBe(8);
    expect(batchRequestsQuantile(100_000, 0.01, 1)).toBe(1);
  });
});
