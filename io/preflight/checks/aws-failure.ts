import { AwsCallError, awsProblemOf, describeAwsCause } from '../../../lib/aws-errors';
import type { CheckId, CheckResult } from '../types';

/**
 * A check that AWS refused: failed, naming the call and the cause. Missing credentials and denied actions say what
 * to give (`action` is the IAM action the check needs); anything else is reported as AWS said it.
 */
export function awsFailure(id: CheckId, call: string, error: unknown, action: string): CheckResult {
  const problem = awsProblemOf(error);
  const fix =
    problem?.kind === 'access-denied'
      ? `allow ${action} for the credentials preflight runs with`
      : problem !== undefined && problem.fix !== ''
        ? problem.fix
        : isNetworkError(error)
          ? 'no network path to the AWS endpoint: check the network, HTTPS_PROXY, and that the region is enabled in the account'
          : `check the call with the AWS CLI; preflight needs ${action}`;
  return { id, status: 'fail', detail: describeAwsCause(new AwsCallError(call, error)), fix };
}

/** A DNS, connection or socket failure: the request never reached AWS. */
function isNetworkError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as { message?: unknown } | null)?.message;
  return /^(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)$/.test(String(code))
    || /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)\b/.test(String(message));
}
