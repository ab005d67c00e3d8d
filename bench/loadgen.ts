/**
 * Load generator benchmark (not a test): our engine against autocannon on the same local HTTP server, with the
 * same connections, 10 s each, in one process run. Run with `npm run bench:loadgen`.
 *
 * Target: our achieved requests/s at least 0.9x autocannon's, with matching percentiles. Both tools share the
 * process (and its event loop) with the server, as autocannon does by default, so the comparison is like for like.
 *
 * Each tool's 10 s are taken as 10 rounds of 1 s in ABBA order (ours, autocannon, autocannon, ours, ...): on a shared
 * machine the load drifts by more than the difference being measured, and whichever tool ran second in one 10 s
 * block each lost up to 30 %. Interleaving spreads the drift over both. Requests/s is all successes over all
 * rounds' time; p50 and p99 are the medians of the rounds' values.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { runBenchmark } from '../io/bench';

const CONNECTIONS = 10;
const DURATION_S = 10;
const ROUND_S = 1;
/** An unmeasured run of each tool first, so the JIT has warmed the server and both clients. */
const WARMUP_S = 3;
const TARGET_RATIO = 0.9;
const BODY = JSON.stringify({ label: 'cat', score: 0.97 });

interface Measured {
  readonly tool: string;
  readonly successes: number;
  readonly seconds: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
}

interface Tool {
  readonly name: string;
  run(url: string, seconds: number): Promise<Measured>;
}

async function startServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) });
    res.end(BODY);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const ours: Tool = {
  name: 'cdk-inferentia',
  async run(url, seconds) {
    const report = await runBenchmark({
      target: { kind: 'http', url },
      mode: { kind: 'closed', concurrency: CONNECTIONS },
      stop: { durationMs: seconds * 1000 },
    });
    return {
      tool: this.name,
      successes: report.requests - report.errors,
      seconds: report.durationMs / 1000,
      p50: report.latencyMs.p50,
      p99: report.latencyMs.p99,
      errors: report.errors,
    };
  },
};

const theirs: Tool = {
  name: 'autocannon',
  async run(url, seconds) {
    const result = await autocannon({ url, connections: CONNECTIONS, pipelining: 1, duration: seconds });
    return {
      tool: this.name,
      successes: result['2xx'],
      seconds: result.duration,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts + result.non2xx,
    };
  },
};

interface Summary {
  readonly tool: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
}

function summarise(rounds: readonly Measured[]): Summary {
  const median = (values: number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  };
  return {
    tool: rounds[0].tool,
    rps: rounds.reduce((n, r) => n + r.successes, 0) / rounds.reduce((s, r) => s + r.seconds, 0),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
  };
}

async function main(): Promise<void> {
  const server = await startServer();
  try {
    await ours.run(server.url, WARMUP_S);
    await theirs.run(server.url, WARMUP_S);
    const rounds = new Map<Tool, Measured[]>([
      [ours, []],
      [theirs, []],
    ]);
    const pairs = DURATION_S / ROUND_S;
    for (let pair = 0; pair < pairs; pair++) {
      for (const tool of pair % 2 === 0 ? [ours, theirs] : [theirs, ours]) {
        rounds.get(tool)!.push(await tool.run(server.url, ROUND_S));
      }
    }
    const a = summarise(rounds.get(ours)!);
    const b = summarise(rounds.get(theirs)!);
    const ratio = a.rps / b.rps;
    console.log(
      `loadgen: ${CONNECTIONS} connections, ${DURATION_S} s each in ${pairs} interleaved rounds, ` +
        `server in-process on ${server.url}`,
    );
    for (const tool of [ours, theirs]) {
      console.log(`  ${tool.name.padEnd(15)} rounds: ${rounds.get(tool)!.map((r) => (r.successes / r.seconds).toFixed(0)).join(' ')} req/s`);
    }
    for (const m of [a, b]) {
      console.log(
        `  ${m.tool.padEnd(15)} ${m.rps.toFixed(0).padStart(7)} req/s   p50 ${m.p50.toFixed(2).padStart(6)} ms   ` +
          `p99 ${m.p99.toFixed(2).padStart(6)} ms   errors ${m.errors}`,
      );
    }
    console.log(`  ratio (ours / autocannon): ${ratio.toFixed(3)}  target >= ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'MET' : 'MISSED'}`);
    console.log('  (autocannon records whole milliseconds: its 0 ms means under 1 ms)');
  } finally {
    await server.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
