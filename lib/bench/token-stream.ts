/**
 * Streamed completions measured in tokens, the pure half: the request body an OpenAI-compatible engine (vLLM) is
 * sent, what each streamed chunk says, and time to first token (TTFT) and time per output token (TPOT) from the
 * timestamps, measured as LLMPerf measures them: TTFT at the first token received, TPOT over the rest,
 * `(e2e - TTFT) / (output tokens - 1)`.
 *
 * @see https://awsdocs-neuron.readthedocs-hosted.com/en/latest/libraries/nxd-inference/developer_guides/llm-inference-benchmarking-guide.html
 * @see https://github.com/ray-project/llmperf
 */
import { parsePool } from '../serving/pool';
import type { ErrorKind } from './error-kind';

/** Which OpenAI-compatible API a request uses. */
export type TokenApi = 'completions' | 'chat';

/** One chat message. */
export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** One streamed generation to send. */
export interface TokenRequest {
  /** @default 'completions' */
  readonly api?: TokenApi;
  /** The prompt (completions), or the user message when `messages` is absent (chat). */
  readonly prompt?: string;
  /** Chat messages (chat only). @default - one user message holding `prompt` */
  readonly messages?: readonly ChatMessage[];
  /** Most tokens to generate (`max_tokens`). */
  readonly maxTokens: number;
  /**
   * Generate exactly `maxTokens` tokens: vLLM's `ignore_eos` and `min_tokens`, for load runs with fixed lengths.
   *
   * @default false
   */
  readonly exactTokens?: boolean;
  /** The served model name (`model`). @default - omitted: vLLM answers with the model it serves */
  readonly model?: string;
  /** @default 0 (greedy: a golden prompt gets a reproducible answer) */
  readonly temperature?: number;
}

/** What one streamed request measured. */
export interface TokenStreamResult {
  /** True when the stream completed (`data: [DONE]`) with a success status and no error event. */
  readonly ok: boolean;
  /** HTTP status (the container's, through SageMaker: 200 when the stream opened). */
  readonly status?: number;
  /** Why it failed, when it did. */
  readonly error?: string;
  /** How it failed, as a load report counts it. */
  readonly errorKind?: ErrorKind;
  /** The generated text, concatenated. */
  readonly text: string;
  /** Output tokens: the final chunk's `usage.completion_tokens`, or the chunks with text when no usage came. */
  readonly outputTokens: number;
  /** From sending to the first chunk with text, ms (the whole request when no token came). */
  readonly ttftMs: number;
  /** `(e2eMs - ttftMs) / (outputTokens - 1)`, ms; absent below two tokens. */
  readonly tpotMs?: number;
  /** From sending to the end of the stream, ms. */
  readonly e2eMs: number;
  /**
   * The SageMaker instance pool whose copy answered, from the response's custom attributes (`pool=<priority>`).
   *
   * @default - the answer named no pool (an endpoint without pools, or a request that failed before answering)
   */
  readonly pool?: number;
}

/** What one `data:` event of a streamed completion says. */
export interface CompletionChunk {
  /** Text this chunk adds (`choices[0].text`, or `choices[0].delta.content` for chat). */
  readonly text: string;
  /** `finish_reason` when this chunk ends the choice (`length`, `stop`). */
  readonly finishReason?: string;
  /** `usage.completion_tokens` of the final chunk (sent with `stream_options.include_usage`). */
  readonly completionTokens?: number;
  /** `usage.prompt_tokens` of the final chunk. */
  readonly promptTokens?: number;
  /** The engine's error message, when the event is an error. */
  readonly error?: string;
}

/** The `data:` payload that ends an OpenAI-compatible stream. */
export const DONE_EVENT = '[DONE]';

/**
 * The JSON body of one streamed request, in vLLM's OpenAI-compatible shape: `prompt` for completions, `messages`
 * for chat, `stream: true` with `stream_options.include_usage` so the last chunk states the token counts.
 *
 * @see https://docs.vllm.ai/en/stable/serving/openai_compatible_server.html
 */
export function tokenRequestBody(request: TokenRequest): Record<string, unknown> {
  const api = request.api ?? 'completions';
  const body: Record<string, unknown> = {};
  if (request.model !== undefined) {
    body.model = request.model;
  }
  if (api === 'chat') {
    body.messages = request.messages ?? [{ role: 'user', content: request.prompt ?? '' }];
  } else {
    body.prompt = request.prompt ?? '';
  }
  body.max_tokens = request.maxTokens;
  body.temperature = request.temperature ?? 0;
  if (request.exactTokens === true) {
    // vLLM sampling extensions: generate through the end-of-sequence token, and no fewer than max_tokens.
    body.ignore_eos = true;
    body.min_tokens = request.maxTokens;
  }
  body.stream = true;
  body.stream_options = { include_usage: true };
  return body;
}

/**
 * Parses one `data:` payload of a completions or chat-completions stream.
 *
 * @returns `'done'` for `[DONE]`, else what the chunk says; a payload that is not JSON is an error chunk.
 */
export function parseCompletionChunk(data: string): CompletionChunk | 'done' {
  if (data.trim() === DONE_EVENT) {
    return 'done';
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { text: '', error: `not JSON: ${data.slice(0, 200)}` };
  }
  const chunk = (parsed ?? {}) as {
    object?: unknown;
    message?: unknown;
    error?: { message?: unknown } | string;
    choices?: { text?: unknown; delta?: { content?: unknown }; finish_reason?: unknown }[];
    usage?: { completion_tokens?: unknown; prompt_tokens?: unknown } | null;
  };
  // vLLM's streamed errors: `{"error": {"message": ...}}`, or the older `{"object": "error", "message": ...}`.
  if (chunk.error !== undefined || chunk.object === 'error') {
    const message = typeof chunk.error === 'string' ? chunk.error : (chunk.error?.message ?? chunk.message);
    return { text: '', error: typeof message === 'string' ? message : JSON.stringify(parsed).slice(0, 200) };
  }
  const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  const raw = choice?.text ?? choice?.delta?.content;
  const finish = choice?.finish_reason;
  const completion = chunk.usage?.completion_tokens;
  const prompt = chunk.usage?.prompt_tokens;
  return {
    text: typeof raw === 'string' ? raw : '',
    ...(typeof finish === 'string' ? { finishReason: finish } : {}),
    ...(typeof completion === 'number' ? { completionTokens: completion } : {}),
    ...(typeof prompt === 'number' ? { promptTokens: prompt } : {}),
  };
}

/**
 * Follows one stream's chunks against a clock and builds its {@link TokenStreamResult}.
 *
 * Times are in ms on any monotonic clock (`performance.now()`); the caller stamps each piece as it arrives, so every
 * event of one network read shares its arrival time.
 */
export class TokenStreamTracker {
  private text = '';
  private chunksWithText = 0;
  private usageTokens?: number;
  private firstTokenAt?: number;
  private done = false;
  private error?: string;
  private errorKind?: ErrorKind;
  private pool?: number;

  /** @param startedAt when the request was sent (or due, for an open-loop arrival that went out late). */
  constructor(readonly startedAt: number) {}

  /** Takes one event's data, arrived at `now`. */
  event(data: string, now: number): void {
    if (this.done || this.error !== undefined) {
      return;
    }
    const chunk = parseCompletionChunk(data);
    if (chunk === 'done') {
      this.done = true;
      return;
    }
    if (chunk.error !== undefined) {
      // An error event mid-stream is the engine failing the request.
      this.fail(chunk.error, 'model-error');
      return;
    }
    if (chunk.text !== '') {
      this.firstTokenAt ??= now;
      this.chunksWithText++;
      this.text += chunk.text;
    }
    if (chunk.completionTokens !== undefined) {
      this.usageTokens = chunk.completionTokens;
    }
  }

  /** Takes the response's custom attributes (`CustomAttributes`, or the header of a direct call): the answering pool. */
  answeredBy(customAttributes: string | undefined): void {
    this.pool = parsePool(customAttributes);
  }

  /** Marks the request failed (status, transport); the first reason wins. */
  fail(reason: string, kind: ErrorKind = 'other'): void {
    if (this.error === undefined) {
      this.error = reason;
      this.errorKind = kind;
    }
  }

  /** The result, the stream having ended at `now`. */
  finish(now: number, status?: number): TokenStreamResult {
    if (!this.done) {
      this.fail(`the stream ended without data: ${DONE_EVENT}`, 'connection');
    }
    const error = this.error;
    const outputTokens = this.usageTokens ?? this.chunksWithText;
    const latencies = tokenLatencies({ startedAt: this.startedAt, firstTokenAt: this.firstTokenAt, endedAt: now, outputTokens });
    return {
      ok: error === undefined,
      ...(status !== undefined ? { status } : {}),
      ...(error !== undefined ? { error, errorKind: this.errorKind ?? 'other' } : {}),
      text: this.text,
      outputTokens,
      ...latencies,
      ...(this.pool !== undefined ? { pool: this.pool } : {}),
    };
  }
}

/**
 * TTFT, TPOT and end-to-end latency of one request, LLMPerf's way.
 *
 * @param times.firstTokenAt when the first text arrived; absent when none did (TTFT is then the whole request).
 */
export function tokenLatencies(times: {
  readonly startedAt: number;
  readonly firstTokenAt?: number;
  readonly endedAt: number;
  readonly outputTokens: number;
}): { ttftMs: number; tpotMs?: number; e2eMs: number } {
  const e2eMs = Math.max(0, times.endedAt - times.startedAt);
  const ttftMs = times.firstTokenAt === undefined ? e2eMs : Math.max(0, times.firstTokenAt - times.startedAt);
  return times.outputTokens >= 2 && times.firstTokenAt !== undefined
    ? { ttftMs, tpotMs: (e2eMs - ttftMs) / (times.outputTokens - 1), e2eMs }
    : { ttftMs, e2eMs };
}

/**
 * A prompt of `tokens` words (`w w w ...`): exactly `tokens` input tokens for the stand-in engine, which counts
 * whitespace-separated words, and close to it for a real tokenizer (a short common word is one token).
 */
export function syntheticPrompt(tokens: number): string {
  return tokens <= 0 ? '' : Array.from({ length: tokens }, () => 'w').join(' ');
}
