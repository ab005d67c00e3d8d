import { classifyError, RequestTimeoutError, ThresholdsBreachedError } from '../../../lib/bench';
import type { BenchReport } from '../../../lib/bench';

function withCode(code: string, name = 'Error'): Error {
  return Object.assign(new Error(code), { code, name });
}

describe('classifyError names each failure the way the report counts it', () => {
  test.each([
    ['the engine timeout', new RequestTimeoutError(100), 'timeout'],
    ['an abort caused by the engine timeout (AWS SDK shape)', Object.assign(new Error('Request aborted'), { name: 'AbortError', cause: new RequestTimeoutError(5) }), 'timeout'],
    ['a DOM TimeoutError', Object.assign(new Error('t'), { name: 'TimeoutError' }), 'timeout'],
    ['an undici headers timeout', withCode('UND_ERR_HEADERS_TIMEOUT', 'HeadersTimeoutError'), 'timeout'],
    ['an undici connect timeout', withCode('UND_ERR_CONNECT_TIMEOUT'), 'timeout'],
    ['a reset', withCode('ECONNRESET'), 'connection'],
    ['a refused connection', withCode('ECONNREFUSED'), 'connection'],
    ['an AWS SDK reset, renamed TimeoutError for its retries', withCode('ECONNRESET', 'TimeoutError'), 'connection'],
    ['an AWS SDK socket timeout', withCode('ETIMEDOUT', 'TimeoutError'), 'timeout'],
    ['a wrapper keeping only the message', new Error('AWS SDK error wrapper for TimeoutError: read ECONNRESET'), 'connection'],
    ['a message quoting a timeout code', new Error('connect ETIMEDOUT 10.0.0.1:443'), 'timeout'],
    ['a message quoting no known code', new Error('EFOO happened'), 'other'],
    ['an undici "other side closed"', withCode('UND_ERR_SOCKET', 'SocketError'), 'connection'],
    ['a fetch-style wrapper around a reset', Object.assign(new TypeError('fetch failed'), { cause: withCode('ECONNRESET') }), 'connection'],
    ['a SageMaker ModelError', Object.assign(new Error('m'), { name: 'ModelError', $metadata: { httpStatusCode: 424 } }), 'model-error'],
    ['a ThrottlingException (any status)', Object.assign(new Error('t'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } }), 'throttled'],
    ['a ModelNotReadyException', Object.assign(new Error('t'), { name: 'ModelNotReadyException', $metadata: { httpStatusCode: 429 } }), 'throttled'],
    ['an unknown service error on 429', Object.assign(new Error('t'), { name: 'Whatever', $metadata: { httpStatusCode: 429 } }), 'throttled'],
    ['a ServiceUnavailable', Object.assign(new Error('s'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } }), 'http-503'],
    ['a ValidationError', Object.assign(new Error('v'), { name: 'ValidationError', $metadata: { httpStatusCode: 400 } }), 'http-400'],
    ['a plain error', new Error('boom'), 'other'],
    ['a thrown string', 'boom', 'other'],
    ['undefined', undefined, 'other'],
  ])('GIVEN %s WHEN classified THEN it is %s', (_what, err, kind) => {
    expect(classifyError(err)).toBe(kind);
  });
});

describe('ThresholdsBreachedError names every breached threshold with its measured value', () => {
  const report: BenchReport = {
    requests: 100,
    errors: 12,
    errorRate: 0.12,
    errorsByKind: { 'http-503': 12 },
    throughputRps: 8.5,
    latencyMs: { p50: 5, p90: 30, p99: 52.25, max: 60 },
    thresholds: [
      { name: 'p50', limit: 10, measured: 5, passed: true },
      { name: 'p99', limit: 30, measured: 52.25, passed: false },
      { name: 'throughput', limit: 10, measured: 8.5, passed: false },
      { name: 'errorRate', limit: 0.05, measured: 0.12, passed: false },
    ],
    passed: false,
    durationMs: 1000,
    startedAt: '2025-01-01T00:00:00.000Z',
    histogram: [],
  };

  test('GIVEN a report with three breaches WHEN the error is made THEN its message lists them and keeps the report', () => {
    const error = new ThresholdsBreachedError(report);
    expect(error.message).toBe(
      '3 benchmark thresholds breached: p99 52.3 ms > max 30 ms; throughput 8.50 req/s < min 10 req/s; ' +
        'error rate 12.0 % > max 5.00 %',
    );
    expect(error.breached.map((t) => t.name)).toEqual(['p99', 'throughput', 'errorRate']);
    expect(error.report).toBe(report);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ThresholdsBreachedError');
  });

  test('GIVEN a run where nothing succeeded WHEN a latency threshold is described THEN it says so instead of 0 ms', () => {
    const error = new ThresholdsBreachedError({
      ...report,
      errors: 100,
      errorRate: 1,
      latencyMs: { p50: 0, p90: 0, p99: 0, max: 0 },
      thresholds: [{ name: 'p99', limit: 30, measured: 0, passed: false }],
    });
    expect(error.message).toBe('1 benchmark threshold breached: p99: no successful request to measure (max 30 ms)');
  });
});
