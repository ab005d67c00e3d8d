/**
 * `cdk-inferentia bench`: drives load against an HTTP(S) URL or a SageMaker endpoint and checks the answers,
 * latency, throughput and errors against thresholds.
 */
import { readFileSync } from 'fs';
import { SingleBar } from 'cli-progress';
import { Command } from 'commander';
import {
  BenchFailedError,
  DEFAULT_TIMEOUT_MS,
  formatReport,
  reportForJson,
  MAX_IN_FLIGHT,
  MAX_RATE_RPS,
  MAX_TIMER_MS,
  type AnswerCheck,
  type BenchOptions,
  type BenchProgress,
  type BenchTarget,
  type LoadMode,
  type StopCondition,
  type Thresholds,
} from '../../lib/bench';
import { runBenchmark } from '../../io/bench';
import { calibrationRecord } from '../../lib/bench/calibration-record';
import { isGenerativePlan, readPlan } from '../../lib/plan-document/read';
import { planBasis, planBasisSchema, type PlanBasis } from '../../lib/smoke/capacity';
import { calibrationWarnings } from './bench-calibration';
import { readJsonFile } from './files';
import { AwsCallError, describeAwsError } from '../../lib/aws-errors';
import { endpointNameProblem } from '../../lib/aws-names';
import { isAwsRegion } from '../../lib/catalog';
import { InputError } from '../../lib/errors';
import type { CliIo } from './io';
import { terminalStream } from './progress';
import { addOnceOptions, once } from './once';

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
  readonly plan?: string;
}

/** Without --duration or --requests, a run measures this long. */
const DEFAULT_DURATION_S = 10;

/** The longest --duration or --warmup: a benchmark measures minutes; a day means a unit mistake. */
const MAX_SECONDS = 86_400;

/**
 * Registers `bench` on the program.
 *
 * Prints the report (a table and a latency histogram, or JSON with `--json`) to stdout, then throws
 * `BenchFailedError` when a threshold is breached or no request succeeded, so the CLI exits 1. Bad flags throw
 * `InputError` (exit 2) before any request is sent; a value flag given twice is refused by commander (exit 2)
 * rather than silently taking the last value.
 */
export function registerBenchCommand(program: Command, io: CliIo, options: BenchCommandOptions = {}): Command {
  return addOnceOptions(program.command('bench'), [
    ['--url <url>', 'HTTP(S) URL to send requests to, e.g. a load balancer'],
    ['--endpoint <name>', 'SageMaker endpoint to call with InvokeEndpoint'],
    ['--region <region>', 'region of the SageMaker endpoint (default: the AWS SDK region chain)'],
    ['--body <json>', 'request body; POSTed to a URL, required for an endpoint'],
    ['--body-file <file>', 'read the request body from a file'],
    ['--content-type <type>', 'content type of the body (default: application/json)'],
    ['--concurrency <n>', 'requests in flight (closed loop, default 1); with --rate, the most in flight'],
    ['--rate <rps>', 'send at this fixed rate instead (open loop; latency counted from the intended send time)'],
    ['--duration <s>', `seconds to measure (default ${DEFAULT_DURATION_S} unless --requests is given)`],
    ['--requests <n>', 'number of requests to measure'],
    ['--warmup <s>', 'seconds of warm-up left out of the results (default 0)'],
    ['--timeout <ms>', 'per-request timeout in milliseconds (default 10000)'],
    ['--p50-max <ms>', 'threshold: maximum p50 latency in milliseconds'],
    ['--p99-max <ms>', 'threshold: maximum p99 latency in milliseconds'],
    ['--min-throughput <rps>', 'threshold: minimum successful requests per second'],
    ['--max-error-rate <f>', 'threshold: maximum error rate, a fraction from 0 to 1'],
    ['--expect-status <n>', 'HTTP status of a correct answer (default 200)'],
    ['--expect-json <json>', 'a correct answer is exactly this JSON (key order aside)'],
    ['--expect-regex <re>', 'a correct answer matches this regular expression'],
  ])
    .description(
      'Benchmark an HTTP(S) URL or a SageMaker endpoint: latency percentiles, throughput, errors by kind, answer checks; ' +
        'exits 1 when a threshold is breached',
    )
    .option('--json', 'print the report as JSON')
    .option(
      '--plan <file>',
      'the plan the target was deployed from (plan --json output): adds the calibration record cdk-inferentia calibrate reads ' +
        'to the --json report; needs --rate (the planned capacity, to measure it) and reads the server timing header',
      once('--plan'),
    )
    .action(async (flags: BenchFlags) => {
      const { options: benchOptions, plan } = benchInputsFromFlags(flags);
      const json = flags.json === true;
      if (!json) {
        io.stderr(`${describeRun(benchOptions)}\n`);
      }
      const progress = !json && options.isTTY === true ? progressBar(io, benchOptions) : undefined;
      let report;
      try {
        report = await runBenchmark({ ...benchOptions, onProgress: progress?.update });
      } catch (e) {
        if (json && e instanceof AwsCallError) {
          // A script reading --json gets a document even when the run could not start (no credentials, no region).
          io.stdout(`${JSON.stringify({ passed: false, failures: [describeAwsError(e)] }, null, 2)}\n`);
        }
        throw e;
      } finally {
        progress?.stop();
      }
      const calibration =
        plan !== undefined && benchOptions.mode.kind === 'open'
          ? { calibration: calibrationRecord('bench', plan, { ...report, offeredRps: benchOptions.mode.rateRps, achievedRps: report.throughputRps }) }
          : {};
      io.stdout(json ? `${JSON.stringify({ ...reportForJson(report), ...calibration }, null, 2)}\n` : formatReport(report));
      if (plan !== undefined && benchOptions.mode.kind === 'open') {
        for (const warning of calibrationWarnings(plan, benchOptions.mode.rateRps, report, flags.url ?? flags.endpoint ?? 'the target')) {
          io.stderr(`warning: ${warning}\n`);
        }
      }
      if (!report.passed) {
        throw new BenchFailedError(report);
      }
    });
}

/**
 * The engine options and, with `--plan`, the plan basis of the calibration record; every problem of both at once.
 *
 * @throws InputError listing every problem, before any request is sent
 */
export function benchInputsFromFlags(flags: BenchFlags): { readonly options: BenchOptions; readonly plan?: PlanBasis } {
  const problems: string[] = [];
  const collect = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (e) {
      if (e instanceof InputError) {
        problems.push(...e.problems);
        return undefined;
      }
      throw e;
    }
  };
  const options = collect(() => benchOptionsFromFlags(flags));
  const plan = flags.plan === undefined ? undefined : collect(() => readPlanBasis(flags.plan as string));
  if (flags.plan !== undefined && flags.rate === undefined) {
    problems.push(`--plan ${flags.plan}: calibration measures a rate; add --rate, e.g. the plan's capacityRps`);
  }
  if (flags.plan !== undefined && flags.json !== true) {
    problems.push(`--plan ${flags.plan}: the calibration record is written into the JSON report; add --json`);
  }
  InputError.throwIfAny(problems);
  return { options: plan !== undefined ? { ...(options as BenchOptions), serverTiming: true } : (options as BenchOptions), ...(plan !== undefined ? { plan } : {}) };
}

/**
 * The plan basis of a `plan --json` file (its `chosen` plan) or of a bare plan.
 *
 * @throws InputError naming the file and what is missing
 */
export function readPlanBasis(file: string): PlanBasis {
  const json = readJsonFile('--plan', file, '; give the output of cdk-inferentia plan --json');
  if (typeof json === 'object' && json !== null && 'chosen' in json && (json as { chosen: unknown }).chosen === null) {
    throw new InputError(`--plan ${file}: the file holds no plan (chosen is null: the planner found none); give a feasible plan`);
  }
  // The plan's shape, kind and version, checked as a construct checks them (lib/plan-document).
  const plan = readPlan(json, `--plan ${file}`);
  if (isGenerativePlan(plan)) {
    throw new InputError(`--plan ${file}: a generative plan (${plan.profileId}, planned in tokens): bench measures ` +
      'single-call requests and cannot calibrate it; its measurement is the token proof the deploy runs (smokeBenchmark.tokens, ' +
      'docs/generative.md), and `npm run bench:generative` checks the token model against a streaming engine locally');
  }
  const basis = planBasis(plan);
  const result = planBasisSchema().safeParse(JSON.parse(JSON.stringify(basis)));
  if (!result.success) {
    throw new InputError(result.error.issues.map((i) => `--plan ${file}: ${i.path.join('.')}: ${i.message}; give the output of cdk-inferentia plan --json`));
  }
  return basis;
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
    const problem = endpointNameProblem(flags.endpoint);
    if (problem !== undefined) {
      problems.push(`--endpoint ${JSON.stringify(flags.endpoint)}: ${problem}`);
    }
    target = { kind: 'sagemaker', endpointName: flags.endpoint, region: flags.region };
  }
  if (flags.region !== undefined && flags.endpoint === undefined) {
    problems.push(`--region ${flags.region}: only applies to --endpoint; a --url carries its own host`);
  } else if (flags.region !== undefined && !isAwsRegion(flags.region)) {
    problems.push(`--region ${flags.region}: not an AWS region code; e.g. --region us-east-1`);
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

  const concurrency = number('--concurrency', flags.concurrency, {
    integer: true,
    min: 1,
    max: MAX_IN_FLIGHT,
    why: 'each request in flight holds a socket; run several bench processes for more',
    example: '8',
  });
  const rate = number('--rate', flags.rate, {
    min: 0,
    exclusive: true,
    max: MAX_RATE_RPS,
    why: 'one process cannot send faster; run several bench processes for more',
    example: '50',
  });
  const mode: LoadMode =
    rate !== undefined
      ? { kind: 'open', rateRps: rate, maxInFlight: concurrency }
      : { kind: 'closed', concurrency: concurrency ?? 1 };

  const duration = number('--duration', flags.duration, { min: 0, exclusive: true, max: MAX_SECONDS, why: 'seconds, not milliseconds', example: '30' });
  const requests = number('--requests', flags.requests, { integer: true, min: 1, example: '1000' });
  if (flags.duration !== undefined && flags.requests !== undefined) {
    problems.push('--duration and --requests: stop after a time or after a count, not both');
  }
  const stop: StopCondition =
    requests !== undefined ? { requests } : { durationMs: (duration ?? DEFAULT_DURATION_S) * 1000 };
  const warmup = number('--warmup', flags.warmup, { min: 0, max: MAX_SECONDS, why: 'seconds, not milliseconds', example: '5' });
  const timeout = number('--timeout', flags.timeout, {
    min: 0,
    exclusive: true,
    max: MAX_TIMER_MS,
    why: 'the longest Node timer, about 24.8 days',
    example: '2000',
  });

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
  /** Why `max` is the limit, said when a value is above it. */
  readonly why?: string;
  readonly integer?: boolean;
  readonly example: string;
}

/**
 * A plain decimal number such as `50`, `0.5` or `1e3`: `Number()` alone also reads `0x10` as 16, `0b1` and `0o7`,
 * which nobody means on a benchmark command line.
 */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function numberReader(problems: string[]) {
  return (flag: string, value: string | undefined, rule: NumberRule): number | undefined => {
    if (value === undefined) {
      return undefined;
    }
    const n = DECIMAL.test(value.trim()) ? Number(value) : NaN;
    if (Number.isFinite(n) && rule.max !== undefined && n > rule.max && rule.why !== undefined) {
      problems.push(`${flag} ${value}: at most ${rule.max} (${rule.why}), e.g. ${flag} ${rule.example}`);
      return undefined;
    }
    const wanted = rule.integer
      ? `a whole number of ${rule.min} or more${rule.max !== undefined ? ` up to ${rule.max}` : ''}`
      : rule.exclusive
        ? `a number above ${rule.min}${rule.max !== undefined ? ` up to ${rule.max}` : ''}`
        : rule.max !== undefined
          ? `a number from ${rule.min} to ${rule.max}`
          : `a number of at least ${rule.min}`;
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
  // Requests still in flight at the end are waited for, each at most its timeout: say so, or a 2 s run against a
  // slow target that takes 12 s looks like a hang.
  const grace =
    'durationMs' in options.stop ? ` Requests still in flight then get up to ${(options.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000} s (--timeout) to finish.` : '';
  return `Benchmarking ${target}: ${load}, ${stop}${warmup}.${grace}`;
}

/** A progress bar on stderr that follows the run's phases. */
function progressBar(io: CliIo, options: BenchOptions): { update: (p: BenchProgress) => void; stop: () => void } {
  const stop = options.stop;
  const bar = new SingleBar({
    stream: terminalStream(io),
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
