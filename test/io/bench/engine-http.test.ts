import { runBenchmark } from '../../../io/bench';
import type { BenchOptions } from '../../../lib/bench';
import { random } from '../../../lib/planner/simulate';
import { serversClosedAfterEach, startHttpServer, type ServerBehaviour, type TestServer } from '../../support';

// Timers may fire up to about a millisecond early against performance.now() (libuv caches the loop time), so lower
// bounds allow that much. These check correctness, not speed.
const EARLY = 1.5;

/**
 * Turns of the event loop a request waits for in this process: the engine sends it, the test server reads it, the
 * server's timer answers it, and the engine reads the answer (the engine and the test server share this process).
 */
const TURNS_PER_REQUEST = 4;

/**
 * How late this process's event loop ran while `work` ran, in ms beyond a 1 ms timer, weighted by time: `p50` is the
 * lateness of the stall a random instant of the run fell in (a request arrives at a random instant, not at a timer's
 * tick: a loop descheduled for 30 ms is one late tick but 30 ms of the run).
 */
interface LoopLateness {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/**
 * Runs `work` while timing the event loop the engine and the test server share. Upper bounds on latency add
 * {@link TURNS_PER_REQUEST} times the loop's lateness at a matching percentile: what this machine added to a request
 * while the test ran, measured rather than guessed. On a quiet machine that is a fraction of a millisecond at the
 * median and a few at the top, so a bound keeps its meaning (a fast request's p50 stays below the slow requests'
 * 40 ms); on a loaded one (other processes on every core) the bound widens by what the loop was seen to lose.
 */
async function withLoopLateness<T>(work: () => Promise<T>): Promise<{ readonly result: T; readonly late: LoopLateness }> {
  const gaps: number[] = [];
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, 1);
  try {
    const result = await work();
    return { result, late: weightedLateness(gaps) };
  } finally {
    clearInterval(ticker);
  }
}

function weightedLateness(gaps: readonly number[]): LoopLateness {
  const sorted = [...gaps].sort((a, b) => a - b);
  const total = sorted.reduce((sum, g) => sum + g, 0);
  const at = (q: number): number => {
    let seen = 0;
    for (const gap of sorted) {
      seen += gap;
      if (seen >= q * total) {
        return Math.max(0, gap - 1);
      }
    }
    return Math.max(0, (sorted[sorted.length - 1] ?? 1) - 1);
  };
  return { p50: at(0.5), p99: at(0.99), max: Math.max(0, (sorted[sorted.length - 1] ?? 1) - 1) };
}

const serve = serversClosedAfterEach();

const ok = (body = '{"ok":true}', delayMs = 0) => ({ kind: 'respond', status: 200, body, delayMs }) as const;

/** Every 10 requests: 2 answer after ~40 ms, 7 after ~5 ms, 1 fails with 503 at once. */
const bimodal: ServerBehaviour = ({ index }) => {
  const slot = index % 10;
  if (slot === 9) {
    return { kind: 'respond', status: 503, body: 'busy' };
  }
  return ok('{"ok":true}', slot < 2 ? 40 : 5);
};

/** Answers in ~1 ms, except that every request arriving in a 300 ms window, 300 ms after the first, waits for its end. */
function freezingServer(): ServerBehaviour {
  let freezeFrom: number | undefined;
  return ({ receivedAt }) => {
    freezeFrom ??= receivedAt + 300;
    const freezeTo = freezeFrom + 300;
    return ok('{}', receivedAt >= freezeFrom && receivedAt < freezeTo ? freezeTo - receivedAt : 1);
  };
}

/**
 * In an open loop a request's latency runs from its intended send time, so a send the loop made late is late by as
 * much: the most the sends slipped against an even beat of `gapMs`, as the server saw them arrive, in ms.
 */
function worstSendSlip(server: TestServer, gapMs: number): number {
  const due = server.received.map((r, i) => r.receivedAt - i * gapMs);
  return Math.max(...due) - Math.min(...due);
}

function http(server: TestServer, rest: Omit<BenchOptions, 'target'>): BenchOptions {
  return { target: { kind: 'http', url: `${server.url}/invocations` }, ...rest };
}

describe('runBenchmark against an HTTP server with a known latency distribution and error rate', () => {
  test('GIVEN 80 % ~5 ms, 20 % ~40 ms and 10 % 503 WHEN run closed-loop THEN percentiles and error rate match', async () => {
    const server = await serve(bimodal);

    const { result: report, late } = await withLoopLateness(() =>
      runBenchmark(http(server, { mode: { kind: 'closed', concurrency: 4 }, stop: { requests: 100 } })));

    expect(report.requests).toBe(100);
    expect(server.received).toHaveLength(100);
    expect(report.errorsByKind).toEqual({ 'http-503': 10 });
    expect(report.errorRate).toBe(0.1);
    // 70 of the 90 successes are fast, 20 slow: p50 is a fast one, p90 and p99 slow ones (upper bounds plus what the
    // machine added, see withLoopLateness).
    expect(report.latencyMs.p50).toBeGreaterThanOrEqual(5 - EARLY);
    expect(report.latencyMs.p50).toBeLessThan(30 + TURNS_PER_REQUEST * late.p50);
    expect(report.latencyMs.p90).toBeGreaterThanOrEqual(40 - EARLY);
    expect(report.latencyMs.p99).toBeGreaterThanOrEqual(40 - EARLY);
    expect(report.latencyMs.p99).toBeLessThan(150 + TURNS_PER_REQUEST * late.max);
    expect(report.latencyMs.max).toBeGreaterThanOrEqual(report.latencyMs.p99);
    expect(report.histogram.reduce((sum, b) => sum + b.count, 0)).toBe(90);
    expect(report.throughputRps).toBeCloseTo((90 * 1000) / report.durationMs, -0.5);
    expect(report.passed).toBe(true);
    expect(report.thresholds).toEqual([]);
  });

  test('GIVEN the same server WHEN run open-loop at a fixed rate THEN the rate, percentiles and error rate match', async () => {
    const server = await serve(bimodal);

    const { result: report, late } = await withLoopLateness(() =>
      runBenchmark(http(server, { mode: { kind: 'open', rateRps: 200 }, stop: { requests: 100 } })));

    expect(report.requests).toBe(100);
    expect(report.errorsByKind).toEqual({ 'http-503': 10 });
    expect(report.latencyMs.p50).toBeGreaterThanOrEqual(5 - EARLY);
    expect(report.latencyMs.p50).toBeLessThan(30 + worstSendSlip(server, 5) + TURNS_PER_REQUEST * late.p50);
    expect(report.latencyMs.p99).toBeGreaterThanOrEqual(40 - EARLY);
    // 100 requests at 200/s are spread over ~0.5 s; arrivals at the server follow the schedule, not the answers (the
    // first or the last may be late by what the loop lost: far less than a burst of sends would save).
    const arrivals = server.received.map((r) => r.receivedAt);
    expect(arrivals[99] - arrivals[0]).toBeGreaterThanOrEqual(495 - 20 - TURNS_PER_REQUEST * late.max);
  });

  test('GIVEN Poisson arrivals WHEN run open-loop THEN the sends follow the seeded exponential gaps, not an even beat', async () => {
    const server = await serve(() => ok());

    const { result: report, late } = await withLoopLateness(() =>
      runBenchmark(http(server, { mode: { kind: 'open', rateRps: 200, arrivals: 'poisson', seed: 7 }, stop: { requests: 200 } })));

    expect(report.requests).toBe(200);
    expect(report.errors).toBe(0);
    // The schedule the engine draws: the first request at once, then exponential gaps of mean 5 ms from seed 7.
    const draw = random(7);
    const gaps = Array.from({ length: 200 }, () => -Math.log(1 - draw()) * 5);
    const span = gaps.slice(0, 199).reduce((a, b) => a + b, 0);
    const arrivals = server.received.map((r) => r.receivedAt).sort((a, b) => a - b);
    // The first or the last arrival may each be late by what the loop lost (the first also opens its connection).
    expect(arrivals[199] - arrivals[0]).toBeGreaterThanOrEqual(span - 20 - TURNS_PER_REQUEST * late.max);
    expect(arrivals[199] - arrivals[0]).toBeLessThanOrEqual(span + 100 + TURNS_PER_REQUEST * late.max);
    // Exponential gaps vary as much as their mean (coefficient of variation 1); an even beat's hardly at all.
    const seen = arrivals.slice(1).map((t, i) => t - arrivals[i]);
    const mean = seen.reduce((a, b) => a + b, 0) / seen.length;
    const sd = Math.sqrt(seen.reduce((a, b) => a + (b - mean) ** 2, 0) / seen.length);
    expect(sd / mean).toBeGreaterThan(0.6);
  });

  test('GIVEN a body WHEN run THEN it is POSTed with its content type, and a run without body GETs', async () => {
    const server = await serve(() => ok());

    await runBenchmark(
      http(server, { body: 'a,b\n1,2', contentType: 'text/csv', mode: { kind: 'closed', concurrency: 1 }, stop: { requests: 2 } }),
    );
    await runBenchmark(http(server, { mode: { kind: 'closed', concurrency: 1 }, stop: { requests: 1 } }));

    expect(server.received.map((r) => [r.method, r.path, r.headers['content-type'], r.body])).toEqual([
      ['POST', '/invocations', 'text/csv', 'a,b\n1,2'],
      ['POST', '/invocations', 'text/csv', 'a,b\n1,2'],
      ['GET', '/invocations', undefined, ''],
    ]);
  });
});

describe('runBenchmark measures only the measured phase', () => {
  test('GIVEN a server failing its first 3 requests WHEN run with a warm-up THEN the warm-up is sent but not reported', async () => {
    const server = await serve(({ index }) => (index < 3 ? { kind: 'respond', status: 500 } : ok('{}', 2)));

    const report = await runBenchmark(
      http(server, { warmupMs: 300, mode: { kind: 'closed', concurrency: 2 }, stop: { requests: 20 } }),
    );

    expect(report.requests).toBe(20);
    expect(report.errors).toBe(0);
    expect(server.received.length).toBeGreaterThan(20 + 3);
  });

  test('GIVEN a duration WHEN run THEN every request the server saw is counted and the phase lasts at least that long', async () => {
    const server = await serve(() => ok('{}', 2));

    const report = await runBenchmark(http(server, { mode: { kind: 'closed', concurrency: 2 }, stop: { durationMs: 500 } }));

    expect(report.requests).toBeGreaterThan(0);
    expect(report.requests).toBe(server.received.length);
    expect(report.durationMs).toBeGreaterThanOrEqual(500);
    expect(Date.parse(report.startedAt)).toBeLessThanOrEqual(Date.now() - 500);
  });

  test('GIVEN a progress callback WHEN run with a warm-up THEN it hears the warm-up, then a final measured count', async () => {
    const server = await serve(() => ok('{}', 1));
    const events: { phase: string; requests: number; totalMs?: number }[] = [];

    const report = await runBenchmark(
      http(server, {
        warmupMs: 1100,
        mode: { kind: 'closed', concurrency: 1 },
        stop: { requests: 5 },
        onProgress: (p) => events.push(p),
      }),
    );

    expect(events[0]).toMatchObject({ phase: 'warmup', totalMs: 1100 });
    expect(events[0].requests).toBeGreaterThan(0);
    expect(events[events.length - 1]).toMatchObject({ phase: 'measure', requests: 5, errors: 0 });
    expect(report.requests).toBe(5);
  });

  test('GIVEN a long run WHEN its signal aborts THEN it stops early and reports only completed requests', async () => {
    const server = await serve(() => ok('{}', 50));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);

    const report = await runBenchmark(
      http(server, { mode: { kind: 'closed', concurrency: 3 }, stop: { durationMs: 10_000 }, signal: controller.signal }),
    );

    expect(report.durationMs).toBeLessThan(5000);
    expect(report.requests).toBeGreaterThan(0);
    expect(report.errors).toBe(0);
    // The requests cut short by the abort reached the server but are not in the report.
    expect(server.received.length).toBeGreaterThan(report.requests);
  });
});

describe('runBenchmark counts each failure under its kind', () => {
  test('GIVEN a server that never answers WHEN run THEN every request times out at the request timeout', async () => {
    const server = await serve(() => ({ kind: 'stall' }));

    const report = await runBenchmark(
      http(server, { timeoutMs: 150, mode: { kind: 'closed', concurrency: 2 }, stop: { durationMs: 600 } }),
    );

    expect(report.requests).toBeGreaterThanOrEqual(2);
    expect(report.errorsByKind).toEqual({ timeout: report.requests });
    expect(report.errorRate).toBe(1);
    expect(report.latencyMs).toEqual({ p50: 0, p90: 0, p99: 0, max: 0 });
    expect(report.histogram).toEqual([]);
    // Far below the 10 s default timeout: the 150 ms bound held.
    expect(report.durationMs).toBeLessThan(5000);
  });

  test('GIVEN a server stalling every third request WHEN run THEN exactly those time out while the others succeed', async () => {
    const server = await serve(({ index }) => (index % 3 === 0 ? { kind: 'stall' } : ok('{}', 2)));

    const report = await runBenchmark(
      http(server, { timeoutMs: 200, mode: { kind: 'open', rateRps: 50 }, stop: { requests: 30 } }),
    );

    expect(server.received).toHaveLength(30);
    expect(report.errorsByKind).toEqual({ timeout: 10 });
    expect(report.requests - report.errors).toBe(20);
    expect(report.latencyMs.max).toBeLessThan(200);
  });

  test('GIVEN a server that freezes for 300 ms WHEN run open-loop THEN the stall shows in the percentiles, unlike closed-loop', async () => {
    const openServer = await serve(freezingServer());
    const closedServer = await serve(freezingServer());

    const { result: open, late: openLate } = await withLoopLateness(() =>
      runBenchmark(http(openServer, { mode: { kind: 'open', rateRps: 100 }, stop: { durationMs: 1000 } })));
    const { result: closed, late: closedLate } = await withLoopLateness(() =>
      runBenchmark(http(closedServer, { mode: { kind: 'closed', concurrency: 1 }, stop: { durationMs: 1000 } })));

    // ~30 of the 100 open-loop arrivals fall in the freeze and wait up to 300 ms from their intended send time.
    expect(open.requests).toBe(100);
    expect(open.errors).toBe(0);
    expect(open.latencyMs.p90).toBeGreaterThan(150);
    expect(open.latencyMs.p99).toBeGreaterThanOrEqual(250);
    expect(open.latencyMs.p50).toBeLessThan(100 + worstSendSlip(openServer, 10) + TURNS_PER_REQUEST * openLate.p50);
    // The closed loop had one request waiting while it sent nothing else: the freeze hides in its tail.
    expect(closed.latencyMs.max).toBeGreaterThanOrEqual(150);
    expect(closed.latencyMs.p90).toBeLessThan(50 + TURNS_PER_REQUEST * closedLate.p99);
  });

  test('GIVEN an open loop with a small in-flight cap and a stalled server WHEN run THEN unsent requests count as backpressure', async () => {
    const server = await serve(() => ({ kind: 'stall' }));

    const report = await runBenchmark(
      http(server, {
        timeoutMs: 200,
        mode: { kind: 'open', rateRps: 40, maxInFlight: 3 },
        stop: { durationMs: 500 },
      }),
    );

    expect(report.requests).toBe(20);
    expect(report.errorsByKind.backpressure).toBeGreaterThan(0);
    expect(report.errorsByKind.timeout).toBeGreaterThan(0);
    expect(report.errorsByKind.backpressure + report.errorsByKind.timeout).toBe(20);
    expect(server.received).toHaveLength(report.errorsByKind.timeout);
  });

  test('GIVEN a server that resets every other connection WHEN run THEN resets count as connection errors', async () => {
    const server = await serve(({ index }) => (index % 2 === 0 ? { kind: 'reset' } : ok()));

    const report = await runBenchmark(http(server, { mode: { kind: 'closed', concurrency: 2 }, stop: { requests: 20 } }));

    const resets = server.received.filter((r) => r.index % 2 === 0).length;
    expect(server.received).toHaveLength(20);
    expect(report.errorsByKind).toEqual({ connection: resets });
    expect(report.requests - report.errors).toBe(20 - resets);
  });

  test('GIVEN nothing listening WHEN run THEN refused connections count as connection errors', async () => {
    const server = await startHttpServer(() => ok());
    await server.close();

    const report = await runBenchmark(http(server, { mode: { kind: 'closed', concurrency: 1 }, stop: { requests: 3 } }));

    expect(report.errorsByKind).toEqual({ connection: 3 });
  });

  test('GIVEN a server answering 200 with the wrong body WHEN checked against a golden answer THEN each is a wrong answer', async () => {
    const server = await serve(() => ok('{"label":"dog","score":0.91}'));
    const base = { mode: { kind: 'closed', concurrency: 2 }, stop: { requests: 10 } } as const;

    const wrong = await runBenchmark(http(server, { ...base, expect: { kind: 'json-path', path: '$.label', value: 'cat' } }));
    const right = await runBenchmark(http(server, { ...base, expect: { kind: 'regex', pattern: '"label":"dog"' } }));
    const exact = await runBenchmark(http(server, { ...base, expect: { kind: 'json', value: { score: 0.91, label: 'dog' } } }));

    expect(wrong.errorsByKind).toEqual({ 'wrong-answer': 10 });
    expect(right.errors).toBe(0);
    expect(exact.errors).toBe(0);
  });

  test('GIVEN an expected status of 201 WHEN the server answers 200 THEN that is an unexpected status', async () => {
    const server = await serve(() => ok());

    const report = await runBenchmark(
      http(server, { expectStatus: 201, mode: { kind: 'closed', concurrency: 1 }, stop: { requests: 3 } }),
    );

    expect(report.errorsByKind).toEqual({ 'http-200': 3 });
  });
});

describe('runBenchmark checks thresholds', () => {
  test('GIVEN a ~20 ms server WHEN the p99 limit is 5 ms THEN the run fails on p99 and passes the rest', async () => {
    const server = await serve(() => ok('{}', 20));

    const report = await runBenchmark(
      http(server, {
        mode: { kind: 'closed', concurrency: 2 },
        stop: { requests: 10 },
        thresholds: { p99MaxMs: 5, p50MaxMs: 1000, maxErrorRate: 0 },
      }),
    );

    expect(report.passed).toBe(false);
    expect(report.thresholds).toEqual([
      { name: 'p50', limit: 1000, measured: report.latencyMs.p50, passed: true },
      { name: 'p99', limit: 5, measured: report.latencyMs.p99, passed: false },
      { name: 'errorRate', limit: 0, measured: 0, passed: true },
    ]);
    expect(report.latencyMs.p99).toBeGreaterThanOrEqual(20 - EARLY);
  });

  test('GIVEN a failing server WHEN a throughput floor is set THEN errors do not count as throughput', async () => {
    const server = await serve(() => ({ kind: 'respond', status: 500 }));

    const report = await runBenchmark(
      http(server, { mode: { kind: 'closed', concurrency: 2 }, stop: { requests: 10 }, thresholds: { minThroughputRps: 1 } }),
    );

    expect(report.throughputRps).toBe(0);
    expect(report.thresholds).toEqual([{ name: 'throughput', limit: 1, measured: 0, passed: false }]);
    expect(report.passed).toBe(false);
  });
});
