import { decodeFromCompressedBase64 } from 'hdr-histogram-js';
import { meetsGoodput, poissonArrivals, TokenLoadRecorder } from '../../../lib/bench/token-load';
import { mergeTokenRuns } from '../../../lib/bench/token-merge';
import { parseCompletionChunk, syntheticPrompt, tokenLatencies, tokenRequestBody, TokenStreamTracker } from '../../../lib/bench/token-stream';

const completion = (text: string, finish: string | null = null) =>
  JSON.stringify({ id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm', choices: [{ index: 0, text, logprobs: null, finish_reason: finish, stop_reason: null }] });
const chat = (delta: Record<string, string>) =>
  JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: null }] });
const usage = (completionTokens: number) =>
  JSON.stringify({ id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 4, total_tokens: 4 + completionTokens, completion_tokens: completionTokens } });

describe('streamed chunks of vLLM completions and chat completions', () => {
  test('GIVEN each chunk kind WHEN parsed THEN text, finish reason, usage and errors are read', () => {
    expect(parseCompletionChunk(completion('tok1'))).toEqual({ text: 'tok1' });
    expect(parseCompletionChunk(completion(' tok2', 'length'))).toEqual({ text: ' tok2', finishReason: 'length' });
    expect(parseCompletionChunk(chat({ role: 'assistant', content: '' }))).toEqual({ text: '' });
    expect(parseCompletionChunk(chat({ content: 'Paris' }))).toEqual({ text: 'Paris' });
    expect(parseCompletionChunk(usage(7))).toEqual({ text: '', completionTokens: 7, promptTokens: 4 });
    expect(parseCompletionChunk('[DONE]')).toBe('done');
    expect(parseCompletionChunk('{"error":{"message":"boom","type":"InternalServerError","code":500}}')).toEqual({ text: '', error: 'boom' });
    expect(parseCompletionChunk('{"object":"error","message":"old shape"}')).toEqual({ text: '', error: 'old shape' });
    expect(parseCompletionChunk('not json')).toMatchObject({ error: expect.stringContaining('not JSON') });
  });

  test('GIVEN a request WHEN rendered THEN it streams with usage, greedy, and exact lengths through ignore_eos and min_tokens', () => {
    expect(tokenRequestBody({ prompt: 'hi', maxTokens: 8, exactTokens: true, model: 'llama' })).toEqual({
      model: 'llama', prompt: 'hi', max_tokens: 8, temperature: 0, ignore_eos: true, min_tokens: 8, stream: true, stream_options: { include_usage: true },
    });
    expect(tokenRequestBody({ api: 'chat', prompt: 'hi', maxTokens: 2 })).toEqual({
      messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, temperature: 0, stream: true, stream_options: { include_usage: true },
    });
    expect(syntheticPrompt(3)).toBe('w w w');
  });
});

describe('TTFT and TPOT from timestamps, LLMPerf style', () => {
  test('GIVEN a stream with known arrival times WHEN tracked THEN TTFT is the first text and TPOT spreads the rest over n - 1 tokens', () => {
    const tracker = new TokenStreamTracker(1000);
    tracker.event(chat({ role: 'assistant', content: '' }), 1040); // the role chunk is not a token
    tracker.event(chat({ content: 'a' }), 1050);
    for (let i = 1; i < 10; i++) {
      tracker.event(chat({ content: ' b' }), 1050 + 20 * i);
    }
    tracker.event(usage(10), 1230);
    tracker.event('[DONE]', 1231);

    expect(tracker.finish(1232, 200)).toEqual({ ok: true, status: 200, text: 'a b b b b b b b b b', outputTokens: 10, ttftMs: 50, tpotMs: 182 / 9, e2eMs: 232 });
  });

  test('GIVEN one token, no token, or a stream cut short WHEN finished THEN no TPOT, TTFT is the whole request, and the cut is a failure', () => {
    expect(tokenLatencies({ startedAt: 0, firstTokenAt: 30, endedAt: 31, outputTokens: 1 })).toEqual({ ttftMs: 30, e2eMs: 31 });
    expect(tokenLatencies({ startedAt: 0, endedAt: 40, outputTokens: 0 })).toEqual({ ttftMs: 40, e2eMs: 40 });
    const cut = new TokenStreamTracker(0);
    cut.event(completion('x'), 5);

    expect(cut.finish(9)).toMatchObject({ ok: false, errorKind: 'connection', text: 'x', outputTokens: 1 });
  });

  test('GIVEN an error event mid-stream WHEN tracked THEN the request is a model error and later chunks are ignored', () => {
    const tracker = new TokenStreamTracker(0);
    tracker.event(completion('x'), 5);
    tracker.event('{"error":{"message":"engine died"}}', 6);
    tracker.event(completion('y'), 7);
    tracker.event('[DONE]', 8);

    expect(tracker.finish(9)).toMatchObject({ ok: false, error: 'engine died', errorKind: 'model-error', text: 'x' });
  });
});

describe('open-loop arrivals and recording', () => {
  test('GIVEN a seed WHEN arrivals are drawn THEN they repeat, stay in the window and average the rate', () => {
    const a = poissonArrivals(50, 100_000, 9);

    expect(poissonArrivals(50, 100_000, 9)).toEqual(a);
    expect(a.every((t, i) => t >= 0 && t < 100_000 && (i === 0 || t >= a[i - 1]))).toBe(true);
    expect(a.length / 100).toBeGreaterThan(48);
    expect(a.length / 100).toBeLessThan(52);
    expect(poissonArrivals(0, 1000)).toEqual([]);
  });

  test('GIVEN results from two workers WHEN recorded, encoded and merged THEN counts and percentiles are exact', () => {
    const worker = (ttft: number) => {
      const r = new TokenLoadRecorder();
      r.record({ ok: true, text: '', outputTokens: 10, ttftMs: ttft, tpotMs: 20, e2eMs: ttft + 180 });
      r.record({ ok: true, text: '', outputTokens: 1, ttftMs: ttft, e2eMs: ttft });
      r.record({ ok: false, error: 'HTTP 503', errorKind: 'http-503', text: '', outputTokens: 0, ttftMs: 1, e2eMs: 1 });
      return r.report({ requests: 3, offeredRps: 1, durationMs: 2000, elapsedMs: 2500 });
    };
    const one = worker(100);

    expect(one).toMatchObject({ completed: 2, errors: 1, errorsByKind: { 'http-503': 1 }, achievedRps: 1, outputTokensPerSecond: 11 / 2.5 });
    expect(decodeFromCompressedBase64(one.encoded.tpot).totalCount).toBe(1);
    const merged = new TokenLoadRecorder();
    merged.add(one);
    merged.add(worker(300));
    const report = merged.report({ requests: 6, offeredRps: 2, durationMs: 2000, elapsedMs: 2500 });

    expect(report).toMatchObject({ completed: 4, errors: 2, errorsByKind: { 'http-503': 2 }, outputTokens: 22 });
    expect(report.ttftMs.max).toBeCloseTo(300, 0);
    expect(report.ttftMs.p50).toBeCloseTo(100, 0);
    expect(report.tpotMs.p99).toBeCloseTo(20, 1);
  });

  test('GIVEN goodput limits WHEN requests are recorded THEN only those within TTFT, TPOT and e2e together count, as vLLM --goodput does', () => {
    const limits = { ttftMs: 500, tpotMs: 50, e2eMs: 10_000 };
    const r = new TokenLoadRecorder(limits);
    r.record({ ok: true, text: '', outputTokens: 10, ttftMs: 400, tpotMs: 40, e2eMs: 760 });
    r.record({ ok: true, text: '', outputTokens: 10, ttftMs: 600, tpotMs: 40, e2eMs: 960 });
    r.record({ ok: true, text: '', outputTokens: 10, ttftMs: 400, tpotMs: 60, e2eMs: 940 });
    r.record({ ok: true, text: '', outputTokens: 1, ttftMs: 300, e2eMs: 300 });
    r.record({ ok: false, error: 'HTTP 503', errorKind: 'http-503', text: '', outputTokens: 0, ttftMs: 1, e2eMs: 1 });

    expect(meetsGoodput({ ok: true, ttftMs: 400, tpotMs: 40, e2eMs: 10_001 }, limits)).toBe(false);
    const report = r.report({ requests: 5, offeredRps: 2.5, durationMs: 2000, elapsedMs: 2000 });
    expect(report.goodRequests).toBe(2);
    const merged = mergeTokenRuns([report, report]);
    expect(merged).toMatchObject({ requests: 10, goodRequests: 4, goodputRps: 2, achievedRps: 4 });
    // A run that did not count goodput leaves it out rather than reading as none good.
    expect(mergeTokenRuns([report, new TokenLoadRecorder().report({ requests: 0, offeredRps: 1, durationMs: 2000, elapsedMs: 2000 })])).not.toHaveProperty('goodputRps');
  });
});
