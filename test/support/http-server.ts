/**
 * A real HTTP server on 127.0.0.1 whose every answer is chosen by a test: a status and body after a delay, a stall
 * that never answers, or a connection reset. Data-plane tests drive the real clients against it instead of mocks.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server received it. */
export interface ReceivedRequest {
  /** 0 for the first request the server received, then 1, 2, ... */
  readonly index: number;
  /** `performance.now()` when the request body had arrived. */
  readonly receivedAt: number;
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  /** Lower-cased header names. */
  readonly headers: Readonly<http.IncomingHttpHeaders>;
  readonly body: string;
}

/** What the server does with one request. */
export type ServerAction =
  | {
      readonly kind: 'respond';
      /** @default 200 */
      readonly status?: number;
      /** @default '' */
      readonly body?: string;
      /** @default - content-type application/json when the body looks like JSON */
      readonly headers?: Readonly<Record<string, string>>;
      /** Wait before answering. @default 0 */
      readonly delayMs?: number;
    }
  /** Never answer; the socket stays open until the client gives up or the server closes. */
  | { readonly kind: 'stall' }
  /** Reset the TCP connection (RST) without answering. */
  | { readonly kind: 'reset' };

/** Picks the action for each request. */
export type ServerBehaviour = (request: ReceivedRequest) => ServerAction | Promise<ServerAction>;

/** A running test server. */
export interface TestServer {
  /** Base URL, e.g. `http://127.0.0.1:43123`, without a trailing slash. */
  readonly url: string;
  /** Every request received so far, in arrival order. */
  readonly received: readonly ReceivedRequest[];
  /** Closes the server and destroys every open connection, stalled ones included. */
  close(): Promise<void>;
}

/**
 * Starts an HTTP server on 127.0.0.1 with a random free port.
 *
 * @param behaviour picks what to do with each request; it may be async.
 * @param options `recordBodies: false` keeps memory flat in long runs (the body is then recorded as '').
 */
export async function startHttpServer(
  behaviour: ServerBehaviour,
  options: { readonly recordBodies?: boolean } = {},
): Promise<TestServer> {
  const received: ReceivedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let index = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        index: index++,
        receivedAt: performance.now(),
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: options.recordBodies === false ? '' : Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      Promise.resolve()
        .then(() => behaviour(request))
        .then((action) => act(action, req, res))
        .catch((err: unknown) => {
          res.statusCode = 500;
          res.end(`test server behaviour threw: ${String(err)}`);
        });
    });
  });

  function act(action: ServerAction, req: http.IncomingMessage, res: http.ServerResponse): void {
    switch (action.kind) {
      case 'stall':
        return;
      case 'reset':
        req.socket.resetAndDestroy();
        return;
      case 'respond': {
        const send = (): void => {
          const body = action.body ?? '';
          const headers: Record<string, string> = { ...action.headers };
          if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type') && /^[[{]/.test(body)) {
            headers['content-type'] = 'application/json';
          }
          res.writeHead(action.status ?? 200, { ...headers, 'content-length': Buffer.byteLength(body) });
          res.end(body);
        };
        if (action.delayMs && action.delayMs > 0) {
          const timer = setTimeout(() => {
            timers.delete(timer);
            send();
          }, action.delayMs);
          timers.add(timer);
        } else {
          send();
        }
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        timers.forEach((timer) => clearTimeout(timer));
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A `serve(behaviour)` for a test file whose servers close after each test. Call it at the file's top level: it
 * registers the `afterEach` that closes them.
 */
export function serversClosedAfterEach(): (behaviour: ServerBehaviour) => Promise<TestServer> {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (behaviour) => {
    const server = await startHttpServer(behaviour);
    servers.push(server);
    return server;
  };
}
