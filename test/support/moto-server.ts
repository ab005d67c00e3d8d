/**
 * A moto_server on 127.0.0.1: AWS's control-plane APIs answered by the moto library, so the real CLI and its AWS SDK
 * clients run against state a test seeds, instead of stubs. Started per test file; bound to loopback only.
 */
import { spawn, type ChildProcess } from 'child_process';
import { createServer } from 'net';

/** A running moto_server and the environment that points the AWS SDK at it. */
export interface MotoServer {
  readonly url: string;
  /** AWS_ENDPOINT_URL and fake keys: every SDK client of the process talks to moto. */
  readonly env: Readonly<Record<string, string>>;
  /** An AWS SDK v3 client of class `C` (us-east-1) talking to this server, for a test to seed or read state with. */
  client<T>(C: new (config: object) => T): T;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** Starts `moto_server` (path from `toolPath('moto_server')`) and waits until it answers, at most 30 s. */
export async function startMotoServer(command: string): Promise<MotoServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(command, ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const answer = await fetch(`${url}/moto-api/reset`, { method: 'POST' });
      if (answer.ok) {
        break;
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill();
      throw new Error(`moto_server did not answer on ${url} within 30 s`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    env: {
      AWS_ENDPOINT_URL: url, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_SESSION_TOKEN: 'testing',
      AWS_EC2_METADATA_DISABLED: 'true',
    },
    client: (C) => new C({ region: 'us-east-1', endpoint: url, forcePathStyle: true,
      credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } }),
    // Resolves at once for a server already gone: waiting for an 'exit' that has passed would hang the suite.
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        resolve();
        return;
      }
      child.once('exit', () => resolve());
      child.kill();
    }),
  };
}
