/**
 * The kinds failed requests are counted under in a report, and the kind of an unexpected HTTP status. Apart from
 * `./errors`, which classifies thrown errors (AWS SDK error shapes among them): the golden-answer check (`./answer`),
 * which the smoke benchmark construct compiles at synth, needs only this.
 */
import type { RequestTally } from './types';

/**
 * The kind a failed request is counted under in `BenchReport.errorsByKind`.
 *
 * - `http-<status>`: an unexpected HTTP status (or a SageMaker service error with that status);
 * - `timeout`: no complete answer within the request timeout;
 * - `connection`: the connection was refused, reset or closed before an answer;
 * - `model-error`: the model container failed (SageMaker `ModelError`, HTTP 424);
 * - `throttled`: HTTP 429 or a throttling exception;
 * - `wrong-answer`: the expected status, but not the golden response;
 * - `backpressure`: an open-loop request not sent because too many were already in flight;
 * - `credentials`: the AWS SDK found no credentials, or AWS rejected them (expired, unknown, bad signature);
 * - `access-denied`: AWS accepted the credentials but denied the call;
 * - `other`: anything else.
 */
export type ErrorKind =
  | `http-${number}`
  | 'timeout'
  | 'connection'
  | 'model-error'
  | 'throttled'
  | 'wrong-answer'
  | 'backpressure'
  | 'credentials'
  | 'access-denied'
  | 'other';

/**
 * Names the kind of an HTTP status that is not the expected one.
 *
 * 424 is how SageMaker (and compatible model servers behind a gateway) report a failed model; 429 is throttling.
 */
export function errorKindForStatus(status: number): ErrorKind {
  if (status === 424) {
    return 'model-error';
  }
  if (status === 429) {
    return 'throttled';
  }
  return `http-${status}`;
}

/**
 * Adds the tallies of runs that went side by side (the load workers of a proof): counts and error kinds add, and
 * each kind keeps the first sample seen. Workers that returned no result count under `worker-failed`, with the first
 * one's failure as its sample.
 */
export function addTallies(tallies: readonly RequestTally[], failedWorkers: Readonly<Record<string, string>>): RequestTally {
  const errorsByKind: Record<string, number> = {};
  const errorSamples: Record<string, string> = {};
  let requests = 0;
  let errors = 0;
  for (const tally of tallies) {
    requests += tally.requests;
    errors += tally.errors;
    for (const [kind, count] of Object.entries(tally.errorsByKind)) {
      errorsByKind[kind] = (errorsByKind[kind] ?? 0) + count;
    }
    for (const [kind, sample] of Object.entries(tally.errorSamples)) {
      errorSamples[kind] ??= sample;
    }
  }
  const failed = Object.entries(failedWorkers);
  if (failed.length > 0) {
    errorsByKind['worker-failed'] = failed.length;
    errorSamples['worker-failed'] = failed[0][1];
  }
  return { requests, errors, errorsByKind, errorSamples };
}
