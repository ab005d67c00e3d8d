/**
 * A local stand-in for SageMaker Runtime's `InvokeEndpointWithResponseStream` in front of a real HTTP container: it
 * takes `POST /endpoints/{name}/invocations-response-stream`, posts the body to the container's `/invocations` as
 * SageMaker does, and re-sends the container's answer bytes as AWS event-stream messages (`:event-type PayloadPart`,
 * the bytes as the payload), cut at `partBytes` wherever that falls (SageMaker does not align parts to events).
 *
 * Shapes from `@aws-sdk/client-sagemaker-runtime` (`InvokeEndpointWithResponseStream$`: the route above;
 * `ResponseStream$`: PayloadPart | ModelStreamError | InternalStreamFailure; `PayloadPart$`: `Bytes` is the event
 * payload) and the event-stream encoding of `@smithy/core/event-streams`.
 *
 * @see https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpointWithResponseStream.html
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventStreamCodec } from '@smithy/core/event-streams';
import type { MessageHeaders } from '@smithy/types';
import { request } from 'undici';

export interface StreamProxyOptions {
  /** Base URL of the container. */
  readonly containerUrl: string;
  /** Largest PayloadPart, bytes. @default - one part per read from the container */
  readonly partBytes?: number;
  /** After this many bytes, send a ModelStreamError instead of the rest. @default - never */
  readonly failAfterBytes?: number;
  /**
   * The container's `X-Amzn-SageMaker-Custom-Attributes` (e.g. `pool=2`, as the vLLM image's pool middleware sets it),
   * returned as SageMaker returns it. @default - none
   */
  readonly customAttributes?: string;
}

export interface StreamProxy {
  readonly url: string;
  /** Each call's endpoint name and `X-Amzn-SageMaker-Inference-Component` header. */
  readonly calls: { endpointName: string; inferenceComponent?: string }[];
  close(): Promise<void>;
}

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => new Uint8Array(Buffer.from(text, 'utf8')),
);

function event(eventType: string, body: Uint8Array, extra: MessageHeaders = {}): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':message-type': { type: 'string', value: 'event' },
      ':content-type': { type: 'string', value: eventType === 'PayloadPart' ? 'application/octet-stream' : 'application/json' },
      ...extra,
    },
    body,
  });
}

/** Starts the proxy on 127.0.0.1. */
export async function startSageMakerStreamProxy(options: StreamProxyOptions): Promise<StreamProxy> {
  const calls: StreamProxy['calls'] = [];
  const server = http.createServer((req, res) => {
    const match = /^\/endpoints\/([^/]+)\/invocations-response-stream$/.exec(req.url ?? '');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (match === null || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const component = req.headers['x-amzn-sagemaker-inference-component'];
      calls.push({ endpointName: decodeURIComponent(match[1]), ...(typeof component === 'string' ? { inferenceComponent: component } : {}) });
      void forward(Buffer.concat(chunks), res);
    });
  });

  async function forward(body: Buffer, res: http.ServerResponse): Promise<void> {
    const upstream = await request(`${options.containerUrl}/invocations`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    res.writeHead(200, {
      'content-type': 'application/vnd.amazon.eventstream',
      'x-amzn-sagemaker-content-type': String(upstream.headers['content-type'] ?? 'application/octet-stream'),
      'x-amzn-invoked-production-variant': 'AllTraffic',
      ...(options.customAttributes !== undefined ? { 'x-amzn-sagemaker-custom-attributes': options.customAttributes } : {}),
    });
    res.flushHeaders();
    let sent = 0;
    for await (const piece of upstream.body) {
      const bytes = piece as Buffer;
      const size = options.partBytes ?? bytes.length;
      for (let i = 0; i < bytes.length; i += size) {
        if (options.failAfterBytes !== undefined && sent >= options.failAfterBytes) {
          res.end(event('ModelStreamError', Buffer.from(JSON.stringify({ Message: 'the model container failed mid-stream', ErrorCode: 'ModelError' }))));
          upstream.body.destroy();
          return;
        }
        const part = bytes.subarray(i, i + size);
        sent += part.length;
        res.write(event('PayloadPart', part));
      }
    }
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
