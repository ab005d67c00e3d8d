/**
 * The two kinds of target the engine drives: an HTTP(S) URL through an undici keep-alive pool, and a SageMaker
 * endpoint through the AWS SDK v3 `InvokeEndpoint` command.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { Pool } from 'undici';
import type { BenchTarget } from './types';

/** One answer: its HTTP status and, when asked for, its body. */
export interface Exchange {
  readonly status: number;
  /** '' unless the target was opened with `readBody`. */
  readonly body: string;
}

/** An open target: sends one request per call, then is closed once. */
export interface Sender {
  /** Resolves with the answer, or rejects with the transport or service error. */
  send(signal: AbortSignal): Promise<Exchange>;
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
  readonly sageMakerClient?: SageMakerRuntimeClient;
}

/** Opens the target for a run. */
export function openSender(target: BenchTarget, options: SenderOptions): Sender {
  return target.kind === 'http' ? openHttpSender(target, options) : openSageMakerSender(target, options);
}

function openHttpSender(target: Extract<BenchTarget, { kind: 'http' }>, options: SenderOptions): Sender {
  const url = new URL(target.url);
  // keep-alive is undici's default; one socket per concurrent request so no request queues behind another.
  const pool = new Pool(url.origin, { connections: options.connections, pipelining: 1 });
  const method = target.method ?? (options.body !== undefined ? 'POST' : 'GET');
  const headers: Record<string, string> = { ...target.headers };
  if (options.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = options.contentType;
  }
  const path = `${url.pathname}${url.search}`;
  const body = options.body;
  const readBody = options.readBody;
  return {
    async send(signal) {
      const response = await pool.request({ origin: url.origin, path, method, headers, body, signal });
      if (readBody) {
        return { status: response.statusCode, body: await response.body.text() };
      }
      // Drain without decoding; an unbounded limit keeps the connection reusable whatever the body size.
      await response.body.dump({ limit: Number.MAX_SAFE_INTEGER });
      return { status: response.statusCode, body: '' };
    },
    close: () => pool.destroy(),
  };
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
  const body = new TextEncoder().encode(options.body ?? '');
  const input = {
    EndpointName: target.endpointName,
    Body: body,
    ContentType: options.contentType,
    TargetVariant: target.targetVariant,
  };
  const readBody = options.readBody;
  return {
    async send(signal) {
      const output = await client.send(new InvokeEndpointCommand(input), { abortSignal: signal });
      return {
        status: output.$metadata.httpStatusCode ?? 200,
        body: readBody && output.Body ? output.Body.transformToString() : '',
      };
    },
    async close() {
      if (owned) {
        client.destroy();
      }
    },
  };
}
