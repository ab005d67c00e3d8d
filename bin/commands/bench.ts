/**
 * `cdk-inferentia bench`: drives load against an HTTP(S) URL or a SageMaker endpoint and checks the answers,
 * latency, throughput and errors against thresholds.
 */
import { readFileSync } from 'fs';
import { SingleBar } from 'cli-progress';
import { Command } from 'commander';
import {
  formatReport,
  runBenchmark,
  ThresholdsBreachedError,
  type AnswerCheck,
  type BenchOptions,
  type BenchProgress,
  type BenchTarget,
  type LoadMode,
  type StopCondition,
  type Thresholds,
} from '../../lib/bench';
import { InputError } from '../../lib/errors';
import type { CliIo } from './io';

/** How the bench command runs, beyond its flags. */
export interface BenchCommandOptions {
  /**
   * Whether stderr is a terminal: the progress bar is drawn only then (and never with `--json`).
   *
   * @default false
   */
  readonly isTTY?: boolean;
}

/** The flags as commander hands them over: every value still a string, so all problems are reported at once. */
export interface BenchFlags {
  readonly url?: string;
  readonly endpoint?: string;
  readonly region?: string;
  readonly body?: string;
  readonly bodyFile?: string;
  readonly contentType?: string;
  readonly concurrency?: string;
  readonly rate?: string;
  readonly duration?: string;
  readonly requests?: string;
  readonly warmup?: string;
  readonly timeout?: string;
  readonly p50Max?: string;
  readonly p99Max?: string;
  readonly minThroughput?: string;
  readonly maxErrorRate?: string;
  readonly expectStatus?: string;
  readonly expectJson?: string;
  readonly expectRegex?: string;
  readonly json?: boolean;
}

/** Without --duration or --requests, a run measures this long. */
const DEFAULT_DURATION_S = 10;

/**
 * Registers `bench` on the program.
 *
 * Prints the report (a table and a latency histogram, or JSON with `--json`) to stdout, then throws
 * `ThresholdsBreachedError` when a threshold is breached, so the CLI exits 1. Bad flags throw `InputError`
 * (exit 2) before any request is sent.
 */
export function registerBenchCommand(program: Command, io: CliIo, options: BenchCommandOptions = {}): Command {
  return program
    .command('bench')
    .description(
      'Benchmark an HTTP(S) URL or a SageMaker endpoint: latency percentiles, throughput, errors by kind, answer checks; ' +
        'exits 1 when a threshold is breached',
    )
    .option('--url <url>', 'HTTP(S) URL to send requests to, e.g. a load balancer')
    .option('--endpoint <name>', 'SageMaker endpoint to call with InvokeEndpoint')
    .option('--region <region>', 'region of the SageMaker endpoint (default: the AWS SDK region chain)')
    .option('--body <json>', 'request body; POSTed to a URL, required for an endpoint')
    .option('--body-file <file>', 'read the request body from a file')
    .option('--content-type <type>', 'content type of the body (default: application/json)')
    .option('--concurrency <n>', 'requests in flight (closed loop, default 1); with --rate, the most in flight')
    .option('--rate <rps>', 'send at this fixed rate instead (open loop; latency counted from the intended send time)')
    .option('--duration <s>', `seconds to measure (default ${DEFAULT_DURATION_S} unless --requests is given)`)
    .option('--requests <n>', 'number of requests to measure')
    .option('--warmup <s>', 'seconds of warm-up left out of the results (default 0)')
    .option('--timeout <ms>', 'per-request timeout in milliseconds (default 10000)')
    .option('--p50-max <ms>', 'threshold: maximum p50 latency in milliseconds')
    .option('--p99-max <ms>', 'threshold: maximum p99 latency in milliseconds')
    .option('--min-throughput <rps>', 'threshold: minimum successful requests per second')
    .option('--max-error-rate <f>', 'threshold: maximum error rate, a fraction from 0 to 1')
    .option('--expect-status <n>', 'HTTP status of a correct answer (default 200)')
    .option('--expect-json <json>', 'a correct answer is exactly this JSON (key order aside)')
    .option('--expect-regex <re>', 'a correct answer matches this regular expression')
    .option('--json', 'print the report as JSON')
    .action(async (flags: BenchFlags) => {
      const benchOptions = benchOptionsFromFlags(flags);
      const json = flags.json === true;
      if (!json) {
        io.stderr(`${describeRun(benchOptions)}\n`);
      }
      const progress = !json && options.isTTY === true ? progressBar(io, benchOptions) : undefined;
      let report;
      try {
        report = await runBenchmark({ ...benchOptions, onProgress: progress?.update });
      } finally {
        progress?.stop();
      }
      io.stdout(json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
      if (!report.passed) {
        throw new ThresholdsBreachedError(report);
      }
    });
}

/**
 * Turns the flags into engine options.
 *
 * @throws InputError listing every problem (conflicting or missing flags, non-numbers, out-of-range values, an
 *   unreadable body file, invalid JSON or regex), each naming the flag, the value and the fix.
 */
export function benchOptionsFromFlags(flags: BenchFlags): BenchOptions {
  const problems: string[] = [];
  const number = numberReader(problems);

  let target: BenchTarget | undefined;
  if (flags.url !== undefined && flags.endpoint !== undefined) {
    problems.push('--url and --endpoint: give one target, an HTTP(S) URL or a SageMaker endpoint, not both');
  } else if (flags.url === undefined && flags.endpoint === undefined) {
    problems.push('no target: give --url https://host/path or --endpoint my-endpoint-name');
  } else if (flags.url !== undefined) {
    if (!isHttpUrl(flags.url)) {
      problems.push(`--url ${flags.url}: not an absolute http(s) URL; e.g. --url https://my-alb.example.com/invocations`);
    }
    target = { kind: 'http', url: flags.url };
  } else if (flags.endpoint !== undefined) {
    if (flags.endpoint.trim() === '') {
      problems.push("--endpoint '': give the SageMaker endpoint name, e.g. --endpoint my-model-prod");
    }
    target = { kind: 'sagemaker', endpointName: flags.endpoint, region: flags.region };
  }
  if (flags.region !== undefined && flags.endpoint === undefined) {
    problems.push(`--region ${flags.region}: only applies to --endpoint; a --url carries its own host`);
  }

  const contentType = flags.contentType ?? 'application/json';
  let body: string | undefined;
  if (flags.body !== undefined && flags.bodyFile !== undefined) {
    problems.push('--body and --body-file: give the request body one way, not both');
  } else if (flags.bodyFile !== undefined) {
    try {
      body = readFileSync(flags.bodyFile, 'utf8');
    } catch (e) {
      problems.push(`--body-file ${flags.bodyFile}: cannot read the file (${(e as Error).message})`);
    }
  } else {
    body = flags.body;
  }
  if (body !== undefined && /[/+]json\b/i.test(contentType)) {
    const error = jsonError(body);
    if (error !== undefined) {
      const flag = flags.bodyFile !== undefined ? `--body-file ${flags.bodyFile}` : `--body ${flags.body}`;
      problems.push(`${flag}: not valid JSON for content type ${contentType} (${error}); fix the JSON or set --content-type`);
    }
  }
  if (flags.endpoint !== undefined && body === undefined && flags.bodyFile === undefined) {
    problems.push('--endpoint needs a request body: add --body \'{"inputs":"..."}\' or --body-file payload.json');
  }

  const concurrency = number('--concurrency', flags.concurrency, { integer: true, min: 1, example: '8' });
  const rate = number('--rate', flags.rate, { min: 0, exclusive: true, example: '50' });
  const mode: LoadMode =
    rate !== undefined
      ? { kind: 'open', rateRps: rate, maxInFlight: concurrency }
      : { kind: 'closed', concurrency: concurrency ?? 1 };

  const duration = number('--duration', flags.duration, { min: 0, exclusive: true, example: '30' });
  const requests = number('--requests', flags.requests, { integer: true, min: 1, example: '1000' });
  if (flags.duration !== undefined && flags.requests !== undefined) {
    problems.push('--duration and --requests: stop after a time or after a count, not both');
  }
  const stop: StopCondition =
    requests !== undefined ? { requests } : { durationMs: (duration ?? DEFAULT_DURATION_S) * 1000 };
  const warmup = number('--warmup', flags.warmup, { min: 0, example: '5' });
  const timeout = number('--timeout', flags.timeout, { min: 0, exclusive: true, example: '2000' });

  const thresholds: Thresholds = {
    p50MaxMs: number('--p50-max', flags.p50Max, { min: 0, exclusive: true, example: '50' }),
    p99MaxMs: number('--p99-max', flags.p99Max, { min: 0, exclusive: true, example: '200' }),
    minThroughputRps: number('--min-throughput', flags.minThroughput, { min: 0, example: '100' }),
    maxErrorRate: number('--max-error-rate', flags.maxErrorRate, { min: 0, max: 1, example: '0.01' }),
  };

  const expectStatus = number('--expect-status', flags.expectStatus, { integer: true, min: 100, max: 599, example: '200' });
  if (expectStatus !== undefined && expectStatus !== 200 && flags.endpoint !== undefined) {
    problems.push(
      `--expect-status ${expectStatus}: SageMaker answers 200 on success and reports other model statuses as ` +
        'ModelError; leave it out with --endpoint',
    );
  }
  let expect: AnswerCheck | undefined;
  if (flags.expectJson !== undefined && flags.expectRegex !== undefined) {
    problems.push('--expect-json and --expect-regex: check the answer one way, not both');
  } else if (flags.expectJson !== undefined) {
    const error = jsonError(flags.expectJson);
    if (error !== undefined) {
      problems.push(`--expect-json ${flags.expectJson}: not valid JSON (${error}); e.g. --expect-json '{"label":"cat"}'`);
    } else {
      expect = { kind: 'json', value: JSON.parse(flags.expectJson) };
    }
  } else if (flags.expectRegex !== undefined) {
    try {
      new RegExp(flags.expectRegex);
      expect = { kind: 'regex', pattern: flags.expectRegex };
    } catch (e) {
      problems.push(`--expect-regex ${flags.expectRegex}: ${(e as Error).message}; e.g. --expect-regex '"label":\\s*"cat"'`);
    }
  }

  InputError.throwIfAny(problems);
  return {
    target: target as BenchTarget,
    body,
    contentType,
    mode,
    stop,
    warmupMs: warmup !== undefined ? warmup * 1000 : undefined,
    timeoutMs: timeout,
    expectStatus,
    expect,
    thresholds,
  };
}

interface NumberRule {
  readonly min: number;
  /** `min` itself is not allowed. */
  readonly exclusive?: boolean;
  readonly max?: number;
  readonly integer?: boolean;
  readonly example: string;
}

function numberReader(problems: string[]) {
  return (flag: string, value: string | undefined, rule: NumberRule): number | undefined => {
    if (value === undefined) {
      return undefined;
    }
    const n = Number(value);
    const wanted = rule.integer
      ? `a whole number of ${rule.min} or more${rule.max !== undefined ? ` up to ${rule.max}` : ''}`
      : rule.max !== undefined
        ? `a number from ${rule.min} to ${rule.max}`
        : `a number ${rule.exclusive ? 'above' : 'of at least'} ${rule.min}`;
    const ok =
      value.trim() !== '' &&
      Number.isFinite(n) &&
      (rule.exclusive ? n > rule.min : n >= rule.min) &&
      (rule.max === undefined || n <= rule.max) &&
      (!rule.integer || Number.isInteger(n));
    if (!ok) {
      problems.push(`${flag} ${value}: expected ${wanted}, e.g. ${flag} ${rule.example}`);
      return undefined;
    }
    return n;
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function jsonError(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

function describeRun(options: BenchOptions): string {
  const target = options.target.kind === 'http' ? options.target.url : `SageMaker endpoint ${options.target.endpointName}`;
  const load =
    options.mode.kind === 'closed'
      ? `${options.mode.concurrency} in flight`
      : `${options.mode.rateRps} req/s${options.mode.maxInFlight !== undefined ? `, at most ${options.mode.maxInFlight} in flight` : ''}`;
  const stop = 'requests' in options.stop ? `${options.stop.requests} requests` : `${options.stop.durationMs / 1000} s`;
  const warmup = options.warmupMs ? ` after ${options.warmupMs / 1000} s of warm-up` : '';
  return `Benchmarking ${target}: ${load}, ${stop}${warmup}.`;
}

/** A progress bar on stderr that follows the run's phases. */
function progressBar(io: CliIo, options: BenchOptions): { update: (p: BenchProgress) => void; stop: () => void } {
  const stop = options.stop;
  // cli-progress writes through a stream; this one forwards to the CLI's stderr and tells it a terminal is there.
  const stream = {
    isTTY: true,
    columns: 100,
    write: (s: string): boolean => {
      io.stderr(String(s));
      return true;
    },
  };
  const bar = new SingleBar({
    stream: stream as unknown as NodeJS.WritableStream,
    format: '{phase} [{bar}] {percentage}% | {requests} requests | {errors} errors',
    hideCursor: false,
    clearOnComplete: true,
  });
  let phase: BenchProgress['phase'] | undefined;
  const update = (p: BenchProgress): void => {
    const byCount = p.phase === 'measure' && 'requests' in stop;
    const total = byCount ? stop.requests : Math.max(1, Math.round((p.totalMs ?? 0) / 1000));
    const value = byCount ? p.requests : Math.min(total, Math.round(p.elapsedMs / 1000));
    const payload = { phase: p.phase === 'warmup' ? 'warm-up' : 'measure', requests: p.requests, errors: p.errors };
    if (phase !== p.phase) {
      if (phase !== undefined) {
        bar.stop();
      }
      bar.start(total, value, payload);
      phase = p.phase;
    } else {
      bar.update(value, payload);
    }
  };
  // Draw at once rather than after the engine's first report, about a second in.
  const warmupMs = options.warmupMs ?? 0;
  update(
    warmupMs > 0
      ? { phase: 'warmup', elapsedMs: 0, totalMs: warmupMs, requests: 0, errors: 0 }
      : { phase: 'measure', elapsedMs: 0, totalMs: 'durationMs' in stop ? stop.durationMs : undefined, requests: 0, errors: 0 },
  );
  return { update, stop: () => bar.stop() };
}
