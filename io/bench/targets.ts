/**
 * The two kinds of target the engine drives: an HTTP(S) URL through an undici keep-alive pool, and a SageMaker
 * endpoint through the AWS SDK v3 `InvokeEndpoint` command.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { Pool, type Dispatcher } from 'undici';
import { SERVER_TIMING_HEADER } from '../../lib/bench/server-timing';
import type { BenchTarget } from '../../lib/bench/types';

/**
 * Called once per request: with the error, or with the status and (when asked for) the body.
 *
 * Never called synchronously from `start`, so a run cannot recurse through a target that fails at once.
 * `serverTiming` is the model server's timing header (`SenderOptions.serverTiming`), when asked for and sent.
 */
export type Completion = (error: unknown, status: number, body: string, serverTiming?: string) => void;

/** An open target: starts requests, then is closed once. */
export interface Sender {
  /**
   * Starts one request.
   *
   * @returns a function that aborts the request with the given reason (a no-op once it completed).
   */
  start(complete: Completion): (reason: Error) => void;
  /**
   * Resolves what every request needs before the first is sent (a SageMaker client's region and credentials), so a
   * missing credential fails the run once, at the start, instead of as every request of it.
   */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** How a target is opened for one run. */
export interface SenderOptions {
  readonly body?: string;
  readonly contentType: string;
  /** Sockets to keep open: the closed-loop concurrency or the open-loop in-flight cap. */
  readonly connections: number;
  /** Decode the body (only when an answer check needs it: skipping it keeps the hot path cheap). */
  readonly readBody: boolean;
  /**
   * The status of a correct answer: the start of an answer with another status is kept (up to 1 KiB), so a failed
   * run can quote what the server said.
   *
   * @default 200
   */
  readonly expectStatus?: number;
  readonly sageMakerClient?: SageMakerRuntimeClient;
  /**
   * Pass the model server's timing header (`X-Amzn-SageMaker-Custom-Attributes`; InvokeEndpoint's
   * `CustomAttributes`) to the completion.
   *
   * @default false
   */
  readonly serverTiming?: boolean;
}

/** Opens the target for a run. */
export function openSender(target: BenchTarget, options: SenderOptions): Sender {
  return target.kind === 'http' ? openHttpSender(target, options) : openSageMakerSender(target, options);
}

function openHttpSender(target: Extract<BenchTarget, { kind: 'http' }>, options: SenderOptions): Sender {
  const url = new URL(target.url);
  // keep-alive is undici's default; one socket per request in flight so none queues behind another.
  const pool = new Pool(url.origin, { connections: options.connections, pipelining: 1 });
  const headers: Record<string, string> = { ...target.headers };
  if (options.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = options.contentType;
  }
  // Built once: every request of the run shares the same options object.
  const dispatchOptions: Dispatcher.DispatchOptions = {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: target.method ?? (options.body !== undefined ? 'POST' : 'GET'),
    headers,
    body: options.body,
  };
  const readBody = options.readBody;
  const expectStatus = options.expectStatus ?? 200;
  const serverTiming = options.serverTiming ?? false;
  return {
    start(complete) {
      const handler = new HttpExchange(complete, readBody, expectStatus, serverTiming);
      try {
        pool.dispatch(dispatchOptions, handler);
      } catch (err) {
        handler.fail(err);
      }
      handler.dispatched = true;
      return (reason) => handler.abort(reason);
    },
    ready: async () => {},
    close: () => pool.destroy(),
  };
}

/** How much of an unexpected answer's body is kept to quote: enough for an error message, bounded per request. */
const MAX_ERROR_BODY_BYTES = 1024;

/**
 * One HTTP exchange on undici's dispatcher API: the lowest-level public interface, without the per-request body
 * stream, promise and abort-signal listeners of `request()`, which dominate the cost of small answers.
 */
class HttpExchange implements Dispatcher.DispatchHandler {
  /** False while `dispatch` runs: undici reports some errors (a closed pool) synchronously. */
  dispatched = false;
  private controller?: Dispatcher.DispatchController;
  private pendingAbort?: Error;
  private done = false;
  private status = 0;
  private chunks?: Buffer[];
  /** Bytes still to keep of an unexpected answer's body. */
  private errorBytes = 0;
  private timing?: string;

  constructor(
    private readonly complete: Completion,
    private readonly readBody: boolean,
    private readonly expectStatus: number,
    private readonly serverTiming: boolean = false,
  ) {}

  abort(reason: Error): void {
    if (this.controller) {
      this.controller.abort(reason);
    } else {
      // Not on a socket yet: abort as soon as it is.
      this.pendingAbort = reason;
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.pendingAbort) {
      controller.abort(this.pendingAbort);
    }
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Readonly<Record<string, string | string[] | undefined>>): void {
    this.status = statusCode;
    if (this.serverTiming) {
      const value = headers[SERVER_TIMING_HEADER];
      this.timing = Array.isArray(value) ? value[0] : value;
    }
    if (!this.readBody && statusCode !== this.expectStatus) {
      this.errorBytes = MAX_ERROR_BODY_BYTES;
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.readBody) {
      (this.chunks ??= []).push(chunk);
    } else if (this.errorBytes > 0) {
      (this.chunks ??= []).push(chunk.subarray(0, this.errorBytes));
      this.errorBytes -= Math.min(chunk.length, this.errorBytes);
    }
  }

  onResponseEnd(): void {
    this.finish(undefined, this.status, this.chunks ? Buffer.concat(this.chunks).toString('utf8') : '', this.timing);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  fail(error: unknown): void {
    this.finish(error, 0, '');
  }

  private finish(error: unknown, status: number, body: string, timing?: string): void {
    if (this.done) {
      return;
    }
    this.done = true;
    if (this.dispatched) {
      this.complete(error, status, body, timing);
    } else {
      process.nextTick(this.complete, error, status, body, timing);
    }
  }
}

function openSageMakerSender(target: Extract<BenchTarget, { kind: 'sagemaker' }>, options: SenderOptions): Sender {
  const owned = options.sageMakerClient === undefined;
  // Retries would hide throttling and model errors and stretch latency, so a run's own client never retries;
  // endpoint, credentials and region still come from the SDK's standard configuration chain
  // (e.g. AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME, AWS_REGION).
  const client =
    options.sageMakerClient ??
    new SageMakerRuntimeClient({
      region: target.region,
      maxAttempts: 1,
      requestHandler: {
        httpAgent: new http.Agent({ keepAlive: true, maxSockets: options.connections }),
        httpsAgent: new https.Agent({ keepAlive: true, maxSockets: options.connections }),
      },
    });
  const input = {
    EndpointName: target.endpointName,
    Body: new TextEncoder().encode(options.body ?? ''),
    ContentType: options.contentType,
    TargetVariant: target.targetVariant,
  };
  const readBody = options.readBody;
  const serverTiming = options.serverTiming ?? false;
  return {
    start(complete) {
      const controller = new AbortController();
      client.send(new InvokeEndpointCommand(input), { abortSignal: controller.signal }).then(
        (output) =>
          complete(
            undefined,
            output.$metadata.httpStatusCode ?? 200,
            readBody && output.Body ? output.Body.transformToString() : '',
            serverTiming ? output.CustomAttributes : undefined,
          ),
        (err: unknown) => complete(err, 0, ''),
      );
      return (reason) => controller.abort(reason);
    },
    async ready() {
      // Only the run's own client: an injected one was configured by its owner (e.g. the smoke Lambda's role).
      if (owned) {
        await client.config.region();
        await client.config.credentials();
      }
    },
    async close() {
      if (owned) {
        client.destroy();
      }
    },
  };
}
