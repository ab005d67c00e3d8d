/**
 * The stand-in engine's HTTP server: the routes and streaming protocol of vLLM 0.16's OpenAI-compatible server
 * (`vllm serve`), over the continuous-batching scheduler of `engine.ts`.
 *
 * Routes (vllm/entrypoints/openai/api_server.py and vllm/entrypoints/sagemaker/routes.py at v0.16.0):
 * - `GET /health`: 200, empty body, once the engine runs;
 * - `GET|POST /ping`: SageMaker's health check, the same answer as `/health`;
 * - `POST /invocations`: SageMaker's inference route; vLLM validates the body against its request types in order,
 *   chat completion first (a body with `messages`), then completion (`prompt`), and answers as that route does,
 *   streaming included;
 * - `POST /v1/completions`, `POST /v1/chat/completions`: JSON, or server-sent events with `"stream": true`: one
 *   `data:` chunk per token (`choices[0].text`, or `choices[0].delta.content` after a first chat chunk carrying the
 *   role), the last token's chunk with `finish_reason`, then with `stream_options.include_usage` a chunk with empty
 *   `choices` and `usage`, then `data: [DONE]`;
 * - `GET /v1/models`, `GET /version`, `GET /metrics` (see `metrics.ts`).
 *
 * Tokens are counted deterministically, with no tokenizer: a string prompt (or each chat message's text) counts
 * its whitespace-separated words; a completions prompt given as token ids (a list of integers) counts its ids.
 * Generation is deterministic whatever the temperature: a prompt found in the golden map gets its answer's words as
 * tokens (then stops, finish_reason `stop`, unless `ignore_eos`), any other prompt gets `tok1 tok2 ...` up to
 * `max_tokens` (finish_reason `length`).
 *
 * @see https://github.com/vllm-project/vllm/blob/v0.16.0/vllm/entrypoints/sagemaker/routes.py
 * @see https://github.com/vllm-project/vllm/blob/v0.16.0/vllm/entrypoints/openai/completion/serving.py
 */
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StandinEngine, type StandinTiming } from './engine';
import { StandinMetrics, type StandinCoresSeen, type StandinPluginStartup } from './metrics';

/** How a stand-in runs. */
export interface StandinOptions extends StandinTiming {
  /** @default 0 (any free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** `--served-model-name`. @default 'standin' */
  readonly servedModelName?: string;
  /** `--max-model-len`: prompt plus output. @default 4096 */
  readonly maxModelLen?: number;
  /** Prompt (completions) or last user message (chat), trimmed, to its greedy answer. @default - none */
  readonly golden?: Readonly<Record<string, string>>;
  /** Play the vLLM Neuron plugin (Trn2/Trn3): export its `vllm_neuron:*` series with these start times. @default - NxD Inference, none */
  readonly plugin?: StandinPluginStartup;
  /** Export the cores the launcher saw, as the cdk-inferentia image's /metrics does. @default - none */
  readonly coresSeen?: StandinCoresSeen;
}

/** A running stand-in. */
export interface Standin {
  readonly url: string;
  readonly port: number;
  readonly engine: StandinEngine;
  close(): Promise<void>;
}

interface Generation {
  readonly api: 'completions' | 'chat';
  readonly inputTokens: number;
  readonly tokens: number;
  readonly finishReason: 'length' | 'stop';
  readonly text: (index: number) => string;
  readonly stream: boolean;
  readonly includeUsage: boolean;
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'BadRequestError',
  ) {
    super(message);
  }
}

/** Default `max_tokens` of vLLM's completions API (OpenAI's legacy default); chat defaults to the context left. */
const COMPLETIONS_DEFAULT_MAX_TOKENS = 16;

/** Starts a stand-in; resolves once it listens. */
export async function startStandin(options: StandinOptions): Promise<Standin> {
  const model = options.servedModelName ?? 'standin';
  const maxModelLen = options.maxModelLen ?? 4096;
  const golden = new Map(Object.entries(options.golden ?? {}).map(([k, v]) => [k.trim(), v.split(/\s+/).filter((w) => w !== '')]));
  const metrics = new StandinMetrics(model, options.plugin, options.coresSeen);
  const engine = new StandinEngine(options, metrics);
  const created = Math.floor(Date.now() / 1000);

  function generation(api: 'completions' | 'chat', body: Record<string, unknown>): Generation {
    if (body.model !== undefined && body.model !== model) {
      throw new RequestError(404, `The model \`${String(body.model)}\` does not exist.`, 'NotFoundError');
    }
    let key: string;
    let inputTokens: number;
    if (api === 'chat') {
      if (!Array.isArray(body.messages) || body.messages.length === 0) {
        throw new RequestError(400, 'messages: a non-empty list is required');
      }
      const texts = (body.messages as { role?: unknown; content?: unknown }[]).map((m) => ({ role: m.role, text: messageText(m.content) }));
      inputTokens = texts.reduce((n, m) => n + words(m.text), 0);
      key = [...texts].reverse().find((m) => m.role === 'user')?.text ?? '';
    } else if (typeof body.prompt === 'string') {
      key = body.prompt;
      inputTokens = words(body.prompt);
    } else if (Array.isArray(body.prompt) && body.prompt.every((t) => Number.isInteger(t))) {
      key = '';
      inputTokens = body.prompt.length;
    } else {
      throw new RequestError(400, 'prompt: the stand-in takes one prompt, a string or a list of token ids');
    }
    const requested = body.max_tokens ?? body.max_completion_tokens;
    if (requested !== undefined && requested !== null && !(Number.isInteger(requested) && (requested as number) >= 1)) {
      throw new RequestError(400, `max_tokens must be at least 1, got ${JSON.stringify(requested)}`);
    }
    const maxTokens = (requested as number | undefined) ?? (api === 'completions' ? COMPLETIONS_DEFAULT_MAX_TOKENS : maxModelLen - inputTokens);
    if (inputTokens + maxTokens > maxModelLen) {
      throw new RequestError(
        400,
        `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${inputTokens + maxTokens} tokens ` +
          `(${inputTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`,
      );
    }
    const answer = golden.get(key.trim());
    const ignoreEos = body.ignore_eos === true;
    const tokens = answer === undefined || ignoreEos ? maxTokens : Math.min(maxTokens, Math.max(1, answer.length));
    const word = (i: number): string => answer?.[i] ?? `tok${i + 1}`;
    const streamOptions = body.stream_options as { include_usage?: unknown } | undefined;
    return {
      api,
      inputTokens,
      tokens,
      finishReason: answer !== undefined && !ignoreEos && answer.length <= maxTokens ? 'stop' : 'length',
      text: (i) => (i === 0 ? word(i) : ` ${word(i)}`),
      stream: body.stream === true,
      includeUsage: streamOptions?.include_usage === true,
    };
  }

  function run(g: Generation, req: http.IncomingMessage, res: http.ServerResponse): void {
    const id = `${g.api === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomBytes(16).toString('hex')}`;
    const base = { id, object: g.api === 'chat' ? 'chat.completion.chunk' : 'text_completion', created, model };
    const usage = (produced: number) => ({ prompt_tokens: g.inputTokens, total_tokens: g.inputTokens + produced, completion_tokens: produced });
    let text = '';
    metrics.prompt(g.inputTokens);
    if (g.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.flushHeaders();
    }
    const send = (chunk: unknown): void => {
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    };
    // A token's chunk is the same JSON every time but for its text and finish reason: serialised once around them
    // (the bytes JSON.stringify gives), so a long answer does not rebuild and stringify an object per token.
    const head = JSON.stringify(base).slice(0, -1);
    const tokenChunk = (piece: string, finish: string | null): string =>
      g.api === 'chat'
        ? `data: ${head},"choices":[{"index":0,"delta":{"content":${JSON.stringify(piece)}},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]}\n\n`
        : `data: ${head},"choices":[{"index":0,"text":${JSON.stringify(piece)},"logprobs":null,"finish_reason":${JSON.stringify(finish)},"stop_reason":null}]}\n\n`;
    const s = engine.submit({
      inputTokens: g.inputTokens,
      outputTokens: g.tokens,
      onToken: (i) => {
        const piece = g.text(i);
        if (!g.stream) {
          text += piece;
          return;
        }
        if (g.api === 'chat' && i === 0) {
          send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] });
        }
        res.write(tokenChunk(piece, i + 1 === g.tokens ? g.finishReason : null));
      },
      onDone: () => {
        metrics.finished(g.finishReason);
        if (g.stream) {
          if (g.includeUsage) {
            send({ ...base, choices: [], usage: usage(g.tokens) });
          }
          res.end('data: [DONE]\n\n');
          return;
        }
        const choice =
          g.api === 'chat'
            ? { index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: g.finishReason }
            : { index: 0, text, logprobs: null, finish_reason: g.finishReason, stop_reason: null };
        json(res, 200, { id, object: g.api === 'chat' ? 'chat.completion' : 'text_completion', created, model, choices: [choice], usage: usage(g.tokens) });
      },
    });
    // The client went away before the end: free the slot, as vLLM aborts a disconnected request.
    res.on('close', () => {
      if (s.produced < s.outputTokens) {
        engine.cancel(s);
        metrics.finished('abort');
      }
    });
    req.resume();
  }

  const server = http.createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    if ((url === '/health' && method === 'GET') || (url === '/ping' && (method === 'GET' || method === 'POST'))) {
      res.writeHead(200, { 'content-length': '0' }).end();
      return;
    }
    if (url === '/metrics' && method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(metrics.render({ running: engine.running.length, waiting: engine.waiting.length, maxNumSeqs: options.maxNumSeqs, lostMs: engine.lostMs }));
      return;
    }
    if (url === '/v1/models' && method === 'GET') {
      json(res, 200, {
        object: 'list',
        data: [{ id: model, object: 'model', created, owned_by: 'vllm', root: model, parent: null, max_model_len: maxModelLen, permission: [] }],
      });
      return;
    }
    if (url === '/version' && method === 'GET') {
      json(res, 200, { version: '0.16.0' });
      return;
    }
    const api = url === '/v1/completions' ? 'completions' : url === '/v1/chat/completions' ? 'chat' : url === '/invocations' ? 'invocations' : undefined;
    if (api === undefined || method !== 'POST') {
      json(res, 404, { detail: 'Not Found' });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch (e) {
          throw new RequestError(400, `JSON decode error: ${(e as Error).message}`);
        }
        if (typeof body !== 'object' || body === null) {
          throw new RequestError(400, 'the body must be a JSON object');
        }
        const b = body as Record<string, unknown>;
        const route = api === 'invocations' ? ('messages' in b ? 'chat' : 'prompt' in b ? 'completions' : undefined) : api;
        if (route === undefined) {
          throw new RequestError(400, "Cannot find suitable handler for request. Expected one of: ['ChatCompletionRequest', 'CompletionRequest']");
        }
        run(generation(route, b), req, res);
      } catch (e) {
        const err = e instanceof RequestError ? e : new RequestError(500, String(e), 'InternalServerError');
        json(res, err.status, { error: { message: err.message, type: err.type, param: null, code: err.status } });
      }
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    engine,
    close: async () => {
      engine.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

function words(text: string): number {
  return text.split(/\s+/).filter((w) => w !== '').length;
}

/** A chat message's text: a string, or the `text` parts of a content list. */
function messageText(content: unknown): string {
  if (typeof content === 'string') {
    return content;
  }
  if (Array.isArray(content)) {
    return content.map((p: { type?: unknown; text?: unknown }) => (p?.type === 'text' && typeof p.text === 'string' ? p.text : '')).join(' ');
  }
  return '';
}
