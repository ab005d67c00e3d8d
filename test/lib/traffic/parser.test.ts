import { InputError } from '../../../lib/errors';
import { TrafficParser, splitCsv } from '../../../lib/traffic/parser';
import { sortedQuantile } from '../../../lib/traffic/quantiles';
import { arrivalTime } from '../../../lib/traffic/records';
import { QUANTILE_PROBABILITIES } from '../../../lib/traffic/types';
import { random } from '../../../lib/planner/simulate';

/** The summary of `text`, read line by line as the file reader streams it. */
function read(text: string, file = 'traffic.csv') {
  const parser = new TrafficParser(file);
  for (const line of text.split('\n')) {
    parser.line(line);
  }
  return parser.finish();
}

/** The one problem reading `text` is refused with. */
function problem(text: string, file = 'traffic.csv'): string {
  try {
    read(text, file);
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return (e as InputError).message;
  }
  throw new Error('expected an InputError');
}

const csv = (rows: readonly (readonly (string | number)[])[], header = 'input_tokens,output_tokens') => [header, ...rows.map((r) => r.join(','))].join('\n');

describe('reading token counts from a CSV', () => {
  test('GIVEN 2,000 rows WHEN read THEN mean, p99 and table are the rows\' own, and the rank correlation is measured', () => {
    const next = random(5);
    const rows = Array.from({ length: 2000 }, () => {
      const input = 1 + Math.floor(next() * 8000);
      return [input, 1 + Math.floor(input / 20 + next() * 50)];
    });
    const s = read(csv(rows));
    const inputs = Float64Array.from(rows.map((r) => r[0])).sort();
    expect(s).toMatchObject({ format: 'csv', requests: 2000, source: 'traffic.csv (csv, 2,000 requests)' });
    expect(s.input?.p99).toBe(sortedQuantile(inputs, 0.99));
    expect(s.input?.mean).toBeCloseTo(inputs.reduce((a, b) => a + b, 0) / 2000, 0);
    expect(s.input?.quantiles).toHaveLength(QUANTILE_PROBABILITIES.length);
    expect(s.input?.quantiles[0]).toBe(inputs[0]);
    expect(s.input?.quantiles.at(-1)).toBe(inputs[1999]);
    expect(s.rankCorrelation).toBeGreaterThan(0.9);
    expect(s.arrivals).toBeUndefined();
  });

  test.each([
    ['Azure traces', 'TIMESTAMP,ContextTokens,GeneratedTokens', '2023-11-16 18:17:03.9799600,4808,10'],
    ['LLMPerf names', 'number_input_tokens,number_output_tokens', '4808,10'],
    ['AIPerf names', 'input_sequence_length,output_sequence_length', '4808,10'],
    ['usage names, tab-separated', 'prompt_tokens\tcompletion_tokens', '4808\t10'],
    ['quoted cells holding commas and line breaks', 'prompt,input_tokens,output_tokens', '"a, ""quoted""\nprompt",4808,10'],
  ])('GIVEN %s WHEN read THEN the counts are found', (_, header, row) => {
    const s = read(`${header}\n${row}\n${row}\n`);
    expect(s.input?.mean).toBe(4808);
    expect(s.output?.mean).toBe(10);
  });

  test('GIVEN a quoted cell WHEN split THEN its delimiter and doubled quotes are kept, and an open one asks for more', () => {
    expect(splitCsv('"a,b",1,"say ""hi"""')).toEqual(['a,b', '1', 'say "hi"']);
    expect(splitCsv('"open,1')).toBeUndefined();
  });
});

describe('reading JSON lines and benchmark exports', () => {
  test('GIVEN OpenAI-style usage lines with the prompt text WHEN read THEN only the counts are kept and no text is repeated', () => {
    const lines = [
      JSON.stringify({ created: 1717000000, messages: [{ content: 'SECRET PROMPT' }], usage: { prompt_tokens: 100, completion_tokens: 20 } }),
      JSON.stringify({ created: 1717000001, response: { usage: { prompt_tokens: 300, completion_tokens: 40 } }, choices: [{ text: 'SECRET ANSWER' }] }),
      JSON.stringify({ created: 1717000002, error: 'rate limited' }),
    ];
    const s = read(lines.join('\n'), 'gateway.jsonl');
    expect(s).toMatchObject({ format: 'jsonl', requests: 2, skipped: { failed: 0, withoutCounts: 1 } });
    expect(s.input?.mean).toBe(200);
    expect(JSON.stringify(s)).not.toMatch(/SECRET/);
    const bad = problem(`${lines[0]}\n{"usage":{"prompt_tokens":"SECRET TEXT","completion_tokens":3}}`, 'gateway.jsonl');
    expect(bad).toBe('gateway.jsonl line 2: usage.prompt_tokens is not a number of tokens');
    expect(problem(`${lines[0]}\n{"messages":"SECRET`, 'gateway.jsonl')).not.toMatch(/SECRET/);
  });

  test('GIVEN AIPerf and Amazon Bedrock records WHEN read THEN their counts and times are found and failed requests left out', () => {
    const aiperf = [
      { metadata: { request_start_ns: 1759813207532900363 }, metrics: { input_sequence_length: { value: 550 }, output_sequence_length: { value: 9 } }, error: null },
      { metadata: { request_start_ns: 1759813208532900363 }, metrics: { error_isl: { value: 550 } }, error: { code: 499 } },
    ].map((r) => JSON.stringify(r)).join('\n');
    expect(read(aiperf, 'profile_export.jsonl')).toMatchObject({ requests: 1, skipped: { failed: 1 }, input: { mean: 550 } });
    const bedrock = JSON.stringify({ timestamp: '2026-03-27T04:37:00Z', input: { inputTokenCount: 150, inputBodyJson: {} }, output: { outputTokenCount: 45 } });
    expect(read(bedrock, 'bedrock.jsonl')).toMatchObject({ input: { mean: 150 }, output: { mean: 45 } });
  });

  test('GIVEN a vllm bench serve, a guidellm and an LLMPerf export WHEN read THEN each is recognised and its failures left out', () => {
    const vllm = { input_lens: [100, 200, 300], output_lens: [10, 0, 30], start_times: [1, 2, 3], errors: ['', 'ServerDisconnectedError', ''], generated_texts: ['x', '', 'y'] };
    expect(read(JSON.stringify(vllm), 'vllm.json')).toMatchObject({ format: 'vllm-bench', requests: 2, skipped: { failed: 1 }, input: { mean: 200 } });
    const guidellm = { benchmarks: [{ requests: { successful: [{ prompt_tokens: 10, output_tokens: 5, request_start_time: 1.5, output: 'text' }], errored: [{}] } }] };
    expect(read(JSON.stringify(guidellm, null, 2), 'benchmarks.json')).toMatchObject({ format: 'guidellm', requests: 1, skipped: { failed: 1 } });
    const llmperf = [{ number_input_tokens: 550, number_output_tokens: 150, error_code: null }, { number_input_tokens: 1, number_output_tokens: 0, error_code: 500 }];
    expect(read(JSON.stringify(llmperf, null, 4), 'individual_responses.json')).toMatchObject({ format: 'llmperf', requests: 1, skipped: { failed: 1 } });
  });
});

describe('arrival times', () => {
  test.each([
    ['epoch seconds', 1717000000.5, 1717000000.5],
    ['epoch milliseconds', 1717000000500, 1717000000.5],
    ['epoch nanoseconds', '1717000000500000000', 1717000000.5],
    ['ISO to the microsecond', '2024-05-10T00:00:00.000001Z', Date.UTC(2024, 4, 10) / 1000 + 1e-6],
    ['ISO with a space and an offset', '2024-05-10 02:00:00.25+02:00', Date.UTC(2024, 4, 10) / 1000 + 0.25],
  ])('GIVEN %s WHEN read THEN the time is in seconds', (_, value, seconds) => {
    expect(arrivalTime(value, 'timestamp')).toBeCloseTo(seconds, 5);
  });

  function timestamps(gaps: () => number, count: number, format: (t: number) => string | number = (t) => t.toFixed(6)): string {
    let t = 1.7e9;
    return csv(Array.from({ length: count }, () => {
      t += gaps();
      return [format(t), 500, 100];
    }), 'timestamp,input_tokens,output_tokens');
  }

  test('GIVEN Poisson arrivals, and Poisson arrivals stamped in whole seconds WHEN read THEN the gaps\' SCV is near 1', () => {
    const next = random(3);
    const poisson = () => -Math.log(1 - next()) / 4;
    expect(read(timestamps(poisson, 4000)).arrivals?.scv).toBeGreaterThan(0.9);
    expect(read(timestamps(poisson, 4000)).arrivals?.scv).toBeLessThan(1.1);
    const whole = read(timestamps(poisson, 4000, (t) => Math.floor(t))).arrivals;
    expect(whole?.spreadOver).toBe('a second');
    expect(whole?.scv).toBeGreaterThan(0.85);
    expect(whole?.scv).toBeLessThan(1.15);
  });

  test('GIVEN bursts, and a rate that doubles after an hour WHEN read THEN bursts read above 1.5 and a drifting rate does not', () => {
    const next = random(9);
    // Two-phase hyperexponential gaps of SCV 4 (balanced means).
    const p = (1 + Math.sqrt(3 / 5)) / 2;
    const bursty = () => -Math.log(1 - next()) / (next() < p ? 2 * p : 2 * (1 - p));
    const b = read(timestamps(bursty, 4000)).arrivals;
    expect(b?.scv).toBeGreaterThan(1.5);
    expect(b?.gapQuantiles).toHaveLength(QUANTILE_PROBABILITIES.length);
    let i = 0;
    const drifting = () => -Math.log(1 - next()) / (i++ < 3600 ? 1 : 2);
    const d = read(timestamps(drifting, 7200)).arrivals;
    expect(d?.scv).toBeLessThan(1.2);
    expect(d?.busiestMinuteOverMean).toBeGreaterThan(1.2);
  });

  test('GIVEN fewer than 101 timestamps WHEN read THEN no arrivals are measured', () => {
    const s = read(csv(Array.from({ length: 50 }, (_, k) => [1.7e9 + k, 10, 5]), 'timestamp,input_tokens,output_tokens'));
    expect(s.arrivals).toBeUndefined();
  });
});

describe('bad traffic files', () => {
  test.each([
    ['an empty file', '\n\n', 'traffic.csv: the file is empty; give a CSV'],
    ['a header and no row', 'input_tokens,output_tokens\n', 'traffic.csv: no row with token counts or arrival times; give a CSV'],
    ['a negative count', 'input_tokens,output_tokens\n10,5\n-3,5', 'traffic.csv line 3: the prompt tokens column is -3: a token count cannot be negative'],
    ['a fractional count', 'input_tokens,output_tokens\n10.5,5', 'traffic.csv line 2: the prompt tokens column is 10.5: a token count is a whole number'],
    ['a word for a count', 'input_tokens,output_tokens\nten,5', 'traffic.csv line 2: the prompt tokens column is not a number of tokens'],
    ['a row short of cells', 'input_tokens,output_tokens\n10', 'traffic.csv line 2: has 1 cells where the header has 2'],
    ['a JSON line among CSV rows', 'input_tokens,output_tokens\n10,5\n{"usage":{"prompt_tokens":1,"completion_tokens":2}}', 'traffic.csv line 3: is a JSON line in a CSV file: one format per file'],
    ['a CSV row among JSON lines', '{"usage":{"prompt_tokens":1,"completion_tokens":2}}\n10,5', 'traffic.csv line 2: is not JSON where the lines before were JSON lines'],
    ['two JSON shapes', '{"usage":{"prompt_tokens":1,"completion_tokens":2}}\n{"input":{"inputTokenCount":1},"output":{"outputTokenCount":2}}', 'traffic.csv line 2: is an Amazon Bedrock invocation log record where line 1 was an OpenAI-style usage record'],
    ['a prompt count without an output count', '{"usage":{"prompt_tokens":1}}', 'traffic.csv line 1: has prompt tokens but no output tokens; every row needs both'],
    ['an unclosed quote', 'input_tokens,output_tokens\n"10,5', 'traffic.csv line 2: a quoted cell is never closed'],
    ['a time that is no time', 'timestamp,input_tokens,output_tokens\nyesterday,1,2', 'traffic.csv line 2: the timestamp column is not a time'],
    ['a JSON document of another tool', '{"results": []}', 'traffic.csv: no row with token counts or arrival times (1 line without token counts); give a CSV'],
    ['a JSON array of another tool', '[\n{"results": []}\n]', 'traffic.csv: no row with token counts or arrival times; give a CSV'],
  ])('GIVEN %s WHEN read THEN it is refused with the line and the fix', (_, text, message) => {
    expect(problem(text)).toContain(message);
  });

  test('GIVEN a file of another kind WHEN read THEN it is refused without repeating its text', () => {
    const message = problem('Dear team, the SECRET quarterly figures follow\nmore text', 'notes.txt');
    expect(message).toContain('notes.txt line 1: not a traffic file: no column of prompt tokens');
    expect(message).toContain('its first row has 2 cells, none named as one of these');
    expect(message).not.toMatch(/SECRET/);
  });
});
