import { BenchFailedError, classifyError, RequestTimeoutError, runFailures } from '../../../lib/bench';
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
    ['no credentials anywhere (the SDK chain)', Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }), 'credentials'],
    ['expired credentials (a 400 that is not the model)', Object.assign(new Error('expired'), { name: 'ExpiredTokenException', $metadata: { httpStatusCode: 400 } }), 'credentials'],
    ['unknown credentials', Object.assign(new Error('The security token included in the request is invalid.'), { name: 'UnrecognizedClientException', $metadata: { httpStatusCode: 400 } }), 'credentials'],
    ['a denied InvokeEndpoint', Object.assign(new Error('not authorized'), { name: 'AccessDeniedException', $metadata: { httpStatusCode: 403 } }), 'access-denied'],
    ['a plain error', new Error('boom'), 'other'],
    ['a thrown string', 'boom', 'other'],
    ['undefined', undefined, 'other'],
  ])('GIVEN %s WHEN classified THEN it is %s', (_what, err, kind) => {
    expect(classifyError(err)).toBe(kind);
  });
});

describe('BenchFailedError names every reason a run failed', () => {
  const report: BenchReport = {
    requests: 100,
    errors: 12,
    errorRate: 0.12,
    errorsByKind: { 'http-503': 12 },
    errorSamples: { 'http-503': 'HTTP 503' },
    throughputRps: 8.5,
    latencyMs: { p50: 5, p90: 30, p99: 52.25, max: 60 },
    thresholds: [
      { name: 'p50', limit: 10, measured: 5, passed: true },
      { name: 'p99', limit: 30, measured: 52.25, passed: false },
      { name: 'throughput', limit: 10, measured: 8.5, passed: false },
      { name: 'errorRate', limit: 0.05, measured: 0.12, passed: false },
    ],
    passed: false,
    failures: [],
    durationMs: 1000,
    startedAt: '2025-01-01T00:00:00.000Z',
    histogram: [],
  };

  test('GIVEN a report with three breaches WHEN the error is made THEN its message lists them and keeps the report', () => {
    const error = new BenchFailedError(report);
    expect(error.message).toBe(
      'benchmark failed for 3 reasons:\n- p99 52.3 ms > max 30 ms\n- throughput 8.50 req/s < min 10 req/s\n' +
        '- error rate 12.0 % > max 5.00 %',
    );
    expect(error.breached.map((t) => t.name)).toEqual(['p99', 'throughput', 'errorRate']);
    expect(error.report).toBe(report);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('BenchFailedError');
  });

  test('GIVEN a run where nothing succeeded WHEN a latency threshold is described THEN it says so instead of 0 ms', () => {
    const error = new BenchFailedError({
      ...report,
      errors: 100,
      errorRate: 1,
      errorsByKind: { 'http-503': 100 },
      latencyMs: { p50: 0, p90: 0, p99: 0, max: 0 },
      thresholds: [{ name: 'p99', limit: 30, measured: 0, passed: false }],
    });
    expect(error.failures).toEqual([
      'no request succeeded, all 100 failed: http-503 100 (first: HTTP 503): the target answered with an unexpected ' +
        'status; check the URL, the method and the body',
      'p99: no successful request to measure (max 30 ms)',
    ]);
  });

  test('GIVEN no threshold and no successful request WHEN judged THEN the run fails with each kind, its first error and its meaning', () => {
    // GIVEN a SageMaker run without credentials and an HTTP run that hit a closed port
    const noCredentials = runFailures({
      requests: 246,
      errors: 246,
      errorsByKind: { credentials: 246 },
      errorSamples: { credentials: 'CredentialsProviderError: Could not load credentials from any providers' },
      thresholds: [],
    });
    const mixed = runFailures({
      requests: 10,
      errors: 10,
      errorsByKind: { timeout: 3, connection: 7 },
      errorSamples: { connection: 'connect ECONNREFUSED 127.0.0.1:9', timeout: 'no complete answer within 500 ms' },
      thresholds: [],
    });

    // THEN
    expect(noCredentials).toEqual([
      expect.stringMatching(/^no request succeeded, all 246 failed: credentials 246 \(first: CredentialsProviderError: Could not load credentials from any providers\): give the AWS SDK credentials: set AWS_PROFILE/),
    ]);
    expect(mixed).toEqual([
      'no request succeeded, all 10 failed: connection 7 (first: connect ECONNREFUSED 127.0.0.1:9): nothing accepted the ' +
        'connection or it was dropped; check the host, the port and that the server is up; timeout 3 (first: no complete ' +
        'answer within 500 ms): no answer within the request timeout; the server hangs or is slower than the timeout allows',
    ]);
    expect(runFailures({ requests: 0, errors: 0, errorsByKind: {}, thresholds: [] })).toEqual([
      'no request was measured: the run ended before its first request completed',
    ]);
    expect(runFailures({ requests: 10, errors: 9, errorsByKind: { timeout: 9 }, thresholds: [] })).toEqual([]);
  });
});
