/**
 * The kinds failed requests are counted under in a report, and the kind of an unexpected HTTP status. Apart from
 * `./errors`, which classifies thrown errors (AWS SDK error shapes among them): the golden-answer check (`./answer`),
 * which the smoke benchmark construct compiles at synth, needs only this.
 */

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
