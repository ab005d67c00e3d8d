import { InputError } from '../../../lib/errors';
import { validateBenchOptions, type BenchOptions } from '../../../lib/bench';

const valid: BenchOptions = {
  target: { kind: 'http', url: 'http://127.0.0.1:8080/invocations' },
  mode: { kind: 'closed', concurrency: 2 },
  stop: { requests: 10 },
};

function problems(options: unknown): readonly string[] {
  try {
    validateBenchOptions(options as BenchOptions);
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as InputError).problems;
  }
  return [];
}

describe('validateBenchOptions rejects bad options before any request, all at once', () => {
  test('GIVEN valid options of each shape WHEN validated THEN nothing is reported', () => {
    expect(problems(valid)).toEqual([]);
    expect(
      problems({
        target: { kind: 'sagemaker', endpointName: 'my-ep', region: 'us-east-1', targetVariant: 'AllTraffic' },
        body: '{"inputs":"x"}',
        mode: { kind: 'open', rateRps: 0.5, maxInFlight: 3 },
        stop: { durationMs: 1000 },
        warmupMs: 0,
        timeoutMs: 100,
        expectStatus: 200,
        expect: { kind: 'json-path', path: '$.a[0]', value: 1 },
        thresholds: { p50MaxMs: 1, p99MaxMs: 2, minThroughputRps: 0, maxErrorRate: 1 },
      }),
    ).toEqual([]);
  });

  test('GIVEN several bad values WHEN validated THEN each is named with the value received and a fix', () => {
    const found = problems({
      target: { kind: 'http', url: 'ftp://host/x' },
      mode: { kind: 'closed', concurrency: 0 },
      stop: { durationMs: -5 },
      timeoutMs: 0,
      warmupMs: -1,
      expect: { kind: 'regex', pattern: '(' },
      thresholds: { maxErrorRate: 5 },
    });
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^target\.url="ftp:\/\/host\/x": must be an absolute http\(s\) URL/),
        expect.stringMatching(/^mode\.concurrency=0: .*whole number >= 1, e\.g\. 4/),
        expect.stringMatching(/^stop\.durationMs=-5: .*positive number/),
        expect.stringMatching(/^timeoutMs=0: /),
        expect.stringMatching(/^warmupMs=-1: /),
        expect.stringMatching(/^expect=.*Invalid regular expression/),
        expect.stringMatching(/^thresholds\.maxErrorRate=5: .*fraction between 0 and 1/),
      ]),
    );
    expect(found).toHaveLength(7);
  });

  test('GIVEN both or neither stop conditions WHEN validated THEN exactly one is asked for', () => {
    expect(problems({ ...valid, stop: { durationMs: 1, requests: 1 } })).toEqual([
      expect.stringMatching(/^stop=.*exactly one of durationMs .* or requests/),
    ]);
    expect(problems({ ...valid, stop: {} })).toHaveLength(1);
  });

  test('GIVEN a SageMaker target without body or with a non-200 expected status WHEN validated THEN both are explained', () => {
    const found = problems({ ...valid, target: { kind: 'sagemaker', endpointName: 'ep' }, expectStatus: 201 });
    expect(found).toEqual([
      expect.stringMatching(/^body=undefined: InvokeEndpoint needs a request body/),
      expect.stringMatching(/^expectStatus=201: SageMaker answers 200 on success .*ModelError \(424\)/),
    ]);
  });

  test('GIVEN a malformed JSON path WHEN validated THEN the problem shows the accepted syntax', () => {
    expect(problems({ ...valid, expect: { kind: 'json-path', path: 'a.b', value: 1 } })).toEqual([
      expect.stringMatching(/must start with '\$'/),
    ]);
  });
});

describe('validateBenchOptions refuses values a run cannot honour', () => {
  test('GIVEN a timeout past the longest Node timer, a rate and in-flight counts past one process THEN each is refused', () => {
    expect(problems({ ...valid, timeoutMs: 3_000_000_000 })).toEqual([
      'timeoutMs=3000000000: timeoutMs must be at most 2147483647 (the longest Node timer)',
    ]);
    expect(problems({ ...valid, mode: { kind: 'open', rateRps: 1e9, maxInFlight: 20_000 } })).toEqual([
      'mode.rateRps=1000000000: the request rate must be at most 100000 per second',
      'mode.maxInFlight=20000: maxInFlight must be at most 10000',
    ]);
    expect(problems({ ...valid, mode: { kind: 'closed', concurrency: 10_001 } })).toEqual(['mode.concurrency=10001: concurrency must be at most 10000']);
    expect(problems({ ...valid, timeoutMs: 2 ** 31 - 1, mode: { kind: 'open', rateRps: 100_000, maxInFlight: 10_000 } })).toEqual([]);
  });
});
