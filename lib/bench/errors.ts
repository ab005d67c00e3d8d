/**
 * How a thrown error is counted in a report (its kind, from `./error-kind`), and the error a run throws when it
 * misses a threshold.
 */
import { awsProblemOf, CREDENTIALS_FIX } from '../aws-errors';
import { errorKindForStatus, type ErrorKind } from './error-kind';
import type { BenchReport, ThresholdResult } from './types';

/**
 * The reason a request is aborted when it outlives the run's `timeoutMs`.
 *
 * The engine aborts with this error so the abort is told apart from any other failure.
 */
export class RequestTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
]);

const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // undici: "other side closed" and friends.
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

const THROTTLING_NAMES = new Set([
  'ThrottlingException',
  'ModelNotReadyException',
  'TooManyRequestsException',
  'Throttling',
]);

/**
 * Classifies a thrown error (undici, Node sockets, AWS SDK v3 service exceptions, the engine's own timeout).
 *
 * Looks first for a credentials or access failure (anywhere in the `cause` chain), then at the error's `code`, its
 * `name`, the same on its `cause`, then the HTTP status an AWS SDK exception carries in `$metadata.httpStatusCode`,
 * and last at a socket error code quoted in the message.
 */
export function classifyError(err: unknown): ErrorKind {
  // Before the status: a rejected credential answers 400 or 403, which would hide the cause as `http-4xx`.
  const aws = awsProblemOf(err);
  if (aws?.kind === 'credentials') {
    return 'credentials';
  }
  if (aws?.kind === 'access-denied') {
    return 'access-denied';
  }
  for (let current: unknown = err, depth = 0; isObject(current) && depth < 4; current = current.cause, depth++) {
    const name = typeof current.name === 'string' ? current.name : '';
    const code = typeof current.code === 'string' ? current.code : '';
    // The code goes first: the AWS SDK renames ECONNRESET and EPIPE errors to `TimeoutError` to retry them.
    if (CONNECTION_CODES.has(code)) {
      return 'connection';
    }
    if (name === 'RequestTimeoutError' || name === 'TimeoutError' || TIMEOUT_CODES.has(code)) {
      return 'timeout';
    }
    if (name === 'ModelError') {
      return 'model-error';
    }
    if (THROTTLING_NAMES.has(name)) {
      return 'throttled';
    }
    const status = isObject(current.$metadata) ? current.$metadata.httpStatusCode : undefined;
    if (typeof status === 'number' && status >= 400) {
      return errorKindForStatus(status);
    }
  }
  // Some wrappers keep only the text, e.g. the SDK's retry middleware re-wraps a non-`Error` value as
  // "AWS SDK error wrapper for TimeoutError: read ECONNRESET" (it happens when the socket error comes from another
  // realm, as under jest).
  const message = isObject(err) && typeof err.message === 'string' ? err.message : '';
  const quoted = /\b(E[A-Z_]+|UND_ERR_[A-Z_]+)\b/.exec(message)?.[1] ?? '';
  if (CONNECTION_CODES.has(quoted)) {
    return 'connection';
  }
  if (TIMEOUT_CODES.has(quoted)) {
    return 'timeout';
  }
  return 'other';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * Thrown after a failed run, once its report is out: a run fails when a threshold is breached or when no request
 * succeeded (a dead, hanging or erroring target proves nothing, whatever the thresholds say).
 *
 * The CLI maps it to exit code 1. The message names every reason (see `runFailures`).
 */
export class BenchFailedError extends Error {
  /** The thresholds that did not hold. */
  readonly breached: readonly ThresholdResult[];
  /** One sentence per reason the run failed. */
  readonly failures: readonly string[];

  constructor(readonly report: BenchReport) {
    const failures = runFailures(report);
    super(
      failures.length === 1
        ? `benchmark failed: ${failures[0]}`
        : `benchmark failed for ${failures.length} reasons:\n${failures.map((f) => `- ${f}`).join('\n')}`,
    );
    this.name = 'BenchFailedError';
    this.breached = report.thresholds.filter((t) => !t.passed);
    this.failures = failures;
  }
}

/** What `runFailures` reads of a report. */
export type RunOutcome = Pick<BenchReport, 'requests' | 'errors' | 'errorsByKind' | 'thresholds' | 'server'> & {
  readonly errorSamples?: BenchReport['errorSamples'];
};

/**
 * Why a run failed, one sentence per reason; empty when it passed.
 *
 * A run with no successful request fails with the error kinds counted, the first error of each kind, and what the
 * kind usually means (nothing listening, a hang, missing credentials...). Each breached threshold follows.
 */
export function runFailures(outcome: RunOutcome): string[] {
  const failures: string[] = [];
  if (outcome.requests === 0) {
    failures.push('no request was measured: the run ended before its first request completed');
  } else if (outcome.requests <= outcome.errors) {
    const kinds = Object.entries(outcome.errorsByKind).sort(([, a], [, b]) => b - a);
    const detail = kinds
      .map(([kind, count]) => {
        const sample = outcome.errorSamples?.[kind];
        const hint = KIND_HINTS[kind] ?? (kind.startsWith('http-') ? HTTP_HINT : undefined);
        return `${kind} ${count}${sample !== undefined ? ` (first: ${sample})` : ''}${hint !== undefined ? `: ${hint}` : ''}`;
      })
      .join('; ');
    failures.push(`no request succeeded, all ${outcome.requests} failed: ${detail}`);
  }
  failures.push(...outcome.thresholds.filter((t) => !t.passed).map((t) => describeThreshold(t, outcome)));
  return failures;
}

/** What an error kind usually means, for a run where nothing succeeded. */
const KIND_HINTS: Readonly<Record<string, string>> = {
  connection: 'nothing accepted the connection or it was dropped; check the host, the port and that the server is up',
  timeout: 'no answer within the request timeout; the server hangs or is slower than the timeout allows',
  'wrong-answer': 'the target answered, but not with the expected response; check the expected answer and the body',
  credentials: CREDENTIALS_FIX,
  'access-denied': 'the credentials lack sagemaker:InvokeEndpoint on this endpoint',
  'model-error': 'the model container failed on the request; read its logs',
  throttled: 'the target throttled every request; lower the load or raise its limits',
  backpressure: 'every request was held back by the in-flight cap; raise it or lower the rate',
};
const HTTP_HINT = 'the target answered with an unexpected status; check the URL, the method and the body';

/**
 * One threshold in words, e.g. `p99 52.3 ms > max 30 ms` or `throughput 8.2 req/s < min 10 req/s`.
 *
 * @param counts the run's request and error counts: a latency threshold cannot hold without a successful request,
 *   nor an error-rate threshold without any request.
 */
export function describeThreshold(
  result: ThresholdResult,
  counts: { readonly requests: number; readonly errors: number; readonly server?: unknown },
): string {
  switch (result.name) {
    case 'p50':
    case 'p99':
      if (counts.requests <= counts.errors) {
        return `${result.name}: no successful request to measure (max ${fmt(result.limit)} ms)`;
      }
      return `${result.name} ${fmt(result.measured)} ms ${result.passed ? '<=' : '>'} max ${fmt(result.limit)} ms`;
    case 'throughput':
      return `throughput ${fmt(result.measured)} req/s ${result.passed ? '>=' : '<'} min ${fmt(result.limit)} req/s`;
    case 'errorRate':
      if (counts.requests === 0) {
        return `error rate: no request measured (max ${pct(result.limit)})`;
      }
      return `error rate ${pct(result.measured)} ${result.passed ? '<=' : '>'} max ${pct(result.limit)}`;
    case 'serverP99':
      if (counts.server === undefined) {
        return (
          `server p99: no answer carried the model server's timing header (X-Amzn-SageMaker-Custom-Attributes ` +
          `server-ms; max ${fmt(result.limit)} ms): serve with the project's model server or drop serverP99MaxMs`
        );
      }
      return `server p99 ${fmt(result.measured)} ms ${result.passed ? '<=' : '>'} max ${fmt(result.limit)} ms`;
  }
}

function fmt(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 2 : 1);
}

function pct(rate: number): string {
  return `${(rate * 100).toFixed(rate * 100 < 10 ? 2 : 1)} %`;
}
