/**
 * The processes `npm run bench:serving` (bench/serving.ts) measures: the model server under test with its device
 * stand-in, the machine's floor (a trivial server on the same loopback), and the CPU figures read from /proc.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { request } from 'undici';
import type { Plan } from '../lib/planner';
import { modelServerEnvironment } from '../lib/serving';

export const REPO = path.resolve(__dirname, '..');
/** Debian's interpreter, with the numpy and aiohttp packages the server and the stand-in need (`.ci/run` installs them). */
export const PYTHON = '/usr/bin/python3';
const STANDIN_MODEL_DIR = path.join(REPO, 'bench', 'serving-standin');
/** Short metric intervals so a step of a few seconds holds several whole intervals of the server's counters. */
export const METRICS_INTERVAL_MS = 500;

/** The plan's layout on this machine: no more workers than cores, and as many of the plan's front ends as share them. */
export interface ScaledLayout {
  readonly workers: number;
  readonly visibleCores: readonly string[];
  /** Front-end processes: the plan's, at most one per worker and a divisor of the workers. */
  readonly frontEnds: number;
  /** Median and log-normal sigma of the stand-in's device call, in ms, from the plan's measurement row. */
  readonly deviceMedianMs: number;
  readonly deviceSigma: number;
}

/** One embedded-metric-format line of the server, reduced to what the bench reads. */
export interface MetricLine {
  readonly timestamp: number;
  readonly worker?: string;
  readonly batches: number;
  readonly inputs: number;
  readonly requests: number;
  readonly deviceMs: readonly number[];
  readonly queueWaitMs: readonly number[];
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** User + system CPU seconds of a process, from /proc (0 once it has gone). */
export function processCpuSeconds(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Busy CPU seconds of the whole machine (every core), from /proc/stat: all time but idle and iowait. */
export function machineBusySeconds(): number {
  const [, ...values] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const ticks = values.slice(0, 8).map(Number);
  return (ticks.reduce((a, b) => a + b, 0) - ticks[3] - ticks[4]) / CLOCK_TICKS;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A process tree's CPU: the front ends (`python3 -m serving` and its `serving.sibling`s) and their workers. */
function treeCpuSeconds(root: number): { frontEnd: number; workers: number } {
  const total = { frontEnd: 0, workers: 0 };
  const visit = (pid: number, role: 'frontEnd' | 'workers') => {
    total[role] += processCpuSeconds(pid);
    for (const child of childrenOf(pid)) {
      visit(child, /-m serving\.sibling\b/.test(commandLine(child)) ? 'frontEnd' : 'workers');
    }
  };
  visit(root, 'frontEnd');
  return total;
}

function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return []; // it has exited: its failure is reported by the step that sees the errors
  }
}

function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** Starts `command` and waits until GET `url`/ping answers 200; stops it (SIGTERM, then SIGKILL) on failure. */
async function startHealthy(child: ChildProcess, url: string, describe: () => string): Promise<void> {
  const limit = Date.now() + 30_000;
  while (Date.now() < limit) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${commandLine(child.pid ?? 0) || 'the server'} exited with ${child.exitCode ?? child.signalCode} before it was healthy:\n${describe()}`);
    }
    try {
      const { statusCode, body } = await request(`${url}/ping`);
      await body.dump();
      if (statusCode === 200) {
        return;
      }
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the server at ${url} was not healthy within 30 s:\n${describe()}`);
}

/** Stops a child: SIGTERM, SIGKILL after 15 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * The machine's floor (`bench/serving-floor.py`): a trivial server on the same loopback that answers at once, driven
 * by the same load generator at the same rates as the model server, so its p99 is what the machine adds to any.
 */
export class FloorServer {
  private stderr = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-20_000);
    });
  }

  static async start(): Promise<FloorServer> {
    const port = await freePort();
    const child = spawn(PYTHON, [path.join(REPO, 'bench', 'serving-floor.py'), '--port', `${port}`], {
      cwd: REPO, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    const floor = new FloorServer(child, `http://127.0.0.1:${port}`);
    try {
      await startHealthy(child, floor.url, () => floor.stderr);
    } catch (error) {
      await stopChild(child);
      throw error;
    }
    return floor;
  }

  stop(): Promise<void> {
    return stopChild(this.child);
  }
}

export class ServerUnderTest {
  readonly metrics: MetricLine[] = [];
  private stderr = '';
  private stdoutRest = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => this.readMetrics(chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-20_000);
    });
  }

  static async start(plan: Plan, layout: ScaledLayout, standInHostMs = 0): Promise<ServerUnderTest> {
    const port = await freePort();
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ...modelServerEnvironment(
        { batching: plan.batching, batchSize: plan.batchSize, visibleCores: layout.visibleCores, frontEndsPerInstance: layout.frontEnds },
        { metricsIntervalMs: METRICS_INTERVAL_MS, metricsService: 'bench-serving' },
      ),
      SAGEMAKER_BIND_TO_PORT: `${port}`,
      MODEL_SERVER_MODEL_DIR: STANDIN_MODEL_DIR,
      BENCH_DEVICE_MEDIAN_MS: `${layout.deviceMedianMs}`,
      BENCH_DEVICE_SIGMA: `${layout.deviceSigma}`,
      BENCH_HOST_MS_PER_REQUEST: `${standInHostMs}`,
    };
    const child = spawn(PYTHON, ['-m', 'serving'], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const server = new ServerUnderTest(child, `http://127.0.0.1:${port}`);
    try {
      await startHealthy(child, server.url, () => server.stderr);
    } catch (error) {
      await stopChild(child); // never leave a half-started server behind
      throw error;
    }
    return server;
  }

  /** The front ends' CPU seconds (every front-end process), and their workers'. */
  cpuSeconds(): { frontEnd: number; workers: number } {
    return treeCpuSeconds(this.child.pid!);
  }

  stop(): Promise<void> {
    return stopChild(this.child);
  }

  private readMetrics(chunk: string): void {
    const lines = (this.stdoutRest + chunk).split('\n');
    this.stdoutRest = lines.pop() ?? '';
    for (const line of lines) {
      const doc = parseMetricLine(line);
      if (doc !== undefined && typeof doc.Worker === 'string') {
        this.metrics.push({
          timestamp: doc._aws.Timestamp,
          worker: doc.Worker,
          batches: Number(doc.Batches),
          inputs: Number(doc.Inputs),
          requests: Number(doc.Requests),
          deviceMs: Array.isArray(doc.DeviceTime) ? (doc.DeviceTime as number[]) : [],
          queueWaitMs: Array.isArray(doc.QueueWait) ? (doc.QueueWait as number[]) : [],
        });
      }
    }
  }
}

/** A metric line as JSON; undefined for anything else on stdout (the server writes only metrics there, but a handler may print). */
function parseMetricLine(line: string): (Record<string, unknown> & { _aws: { Timestamp: number } }) | undefined {
  try {
    const doc = JSON.parse(line) as Record<string, unknown> & { _aws?: { Timestamp?: unknown } };
    return typeof doc._aws?.Timestamp === 'number' ? (doc as Record<string, unknown> & { _aws: { Timestamp: number } }) : undefined;
  } catch {
    return undefined;
  }
}
