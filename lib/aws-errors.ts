/**
 * AWS SDK failures in the user's terms: which call failed, whether the cause is the user's credentials, permissions
 * or region rather than our bug, and what fixes it.
 *
 * Shared by the CLI commands that call AWS (`catalog refresh`, `bench --endpoint`, `preflight`), so a missing
 * credential reads the same everywhere and is never an "internal error" with a stack trace.
 */

/** What kind of environment problem an AWS error shows. */
export type AwsProblemKind = 'credentials' | 'access-denied' | 'region' | 'throttled' | 'service';

/** An AWS failure, explained. */
export interface AwsProblem {
  readonly kind: AwsProblemKind;
  /** The SDK error's name, e.g. `CredentialsProviderError`, `AccessDeniedException`. */
  readonly name: string;
  /** The SDK error's message. */
  readonly message: string;
  /** What the user does about it; empty for service errors with nothing general to say. */
  readonly fix: string;
}

/**
 * Errors the SDK's credential chain throws when it finds nothing usable (`@smithy/property-provider`), and the
 * answers services give for credentials that are expired, malformed or unknown. EC2 answers `AuthFailure`.
 *
 * @see https://docs.aws.amazon.com/sdkref/latest/guide/standardized-credentials.html
 * @see https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html
 */
const NO_CREDENTIALS = new Set(['CredentialsProviderError', 'TokenProviderError']);
const BAD_CREDENTIALS = new Set([
  'ExpiredToken',
  'ExpiredTokenException',
  'RequestExpired',
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'IncompleteSignatureException',
  'MissingAuthenticationToken',
  'MissingAuthenticationTokenException',
  'AuthFailure',
  'InvalidAccessKeyId',
  'InvalidToken',
]);
const ACCESS_DENIED = new Set(['AccessDeniedException', 'AccessDenied', 'UnauthorizedOperation', 'Forbidden']);
const THROTTLED = new Set(['ThrottlingException', 'Throttling', 'TooManyRequestsException', 'RequestLimitExceeded']);

/** How to give the SDK credentials, in one sentence. */
export const CREDENTIALS_FIX =
  'give the AWS SDK credentials: set AWS_PROFILE to a profile in ~/.aws/config (run `aws sso login` first for an SSO ' +
  'profile), or export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), or run `aws configure`';

const EXPIRED_FIX =
  'the AWS credentials are expired or not valid: refresh them (`aws sso login`, new session credentials) and check ' +
  'AWS_PROFILE and AWS_ACCESS_KEY_ID point at the account you mean';

const REGION_FIX = 'set AWS_REGION (or `region` in the AWS_PROFILE profile), or pass --region';

/**
 * A failed AWS call, named: `EC2 DescribeInstanceTypeOfferings in us-east-1 failed: CredentialsProviderError: ...`.
 *
 * Keeps the SDK error as `cause`, so callers still recognise it (`awsProblemOf` walks the causes).
 */
export class AwsCallError extends Error {
  constructor(
    /** The call and where, e.g. `EC2 DescribeInstanceTypeOfferings in us-east-1`. */
    readonly call: string,
    cause: unknown,
  ) {
    super(`${call} failed: ${nameOf(cause)}: ${messageOf(cause)}`, { cause });
    this.name = 'AwsCallError';
  }
}

/**
 * Explains an AWS SDK error, looking through `cause` links (an `AwsCallError`, an SDK wrapper).
 *
 * @returns undefined when neither the error nor its causes came from the AWS SDK (no `$metadata`, not a credential
 *   or region failure), so the caller treats it as its own.
 */
export function awsProblemOf(e: unknown): AwsProblem | undefined {
  let service: AwsProblem | undefined;
  for (let current: unknown = e, depth = 0; isObject(current) && depth < 5; current = current.cause, depth++) {
    const name = nameOf(current);
    const message = messageOf(current);
    if (NO_CREDENTIALS.has(name)) {
      return { kind: 'credentials', name, message, fix: CREDENTIALS_FIX };
    }
    if (BAD_CREDENTIALS.has(name)) {
      return { kind: 'credentials', name, message, fix: EXPIRED_FIX };
    }
    // The SDK's config resolver throws a plain Error when no region is configured anywhere.
    if (/^Region is missing/.test(message)) {
      return { kind: 'region', name, message, fix: REGION_FIX };
    }
    if ('$metadata' in current && service === undefined) {
      if (ACCESS_DENIED.has(name)) {
        service = {
          kind: 'access-denied',
          name,
          message,
          fix: 'the credentials work but lack this permission: add the action named above to the IAM policy of the role or user',
        };
      } else if (THROTTLED.has(name)) {
        service = { kind: 'throttled', name, message, fix: 'AWS throttled the call: wait a minute and run again' };
      } else {
        service = { kind: 'service', name, message, fix: '' };
      }
    }
  }
  return service;
}

/**
 * One line for a user: what failed, why, and the fix. For an `AwsCallError` the call is named first.
 *
 * e.g. `EC2 DescribeInstanceTypeOfferings in us-east-1 failed: no AWS credentials found (CredentialsProviderError:
 * Could not load credentials from any providers); give the AWS SDK credentials: ...`
 */
export function describeAwsError(e: unknown): string {
  const fix = awsProblemOf(e)?.fix ?? '';
  const head = describeAwsCause(e);
  return fix !== '' ? `${head}; ${fix}` : head;
}

/**
 * What failed and why, without the fix (for a table with a column of its own for it).
 *
 * e.g. `ECR DescribeImages failed: access denied (AccessDeniedException: ...)`
 */
export function describeAwsCause(e: unknown): string {
  const problem = awsProblemOf(e);
  const call = e instanceof AwsCallError ? `${e.call} failed: ` : '';
  if (problem === undefined) {
    const inner = e instanceof AwsCallError ? e.cause : e;
    return `${call}${nameOf(inner)}: ${messageOf(inner)}`;
  }
  const what =
    problem.kind === 'credentials' && NO_CREDENTIALS.has(problem.name)
      ? 'no AWS credentials found'
      : problem.kind === 'credentials'
        ? 'AWS rejected the credentials'
        : problem.kind === 'region'
          ? 'no AWS region configured'
          : problem.kind === 'access-denied'
            ? 'access denied'
            : undefined;
  const cause = `${problem.name}: ${problem.message}`;
  return `${call}${what !== undefined ? `${what} (${cause})` : cause}`;
}

/** Whether the error (or a cause) is a missing, expired or rejected credential. */
export function isCredentialsError(e: unknown): boolean {
  return awsProblemOf(e)?.kind === 'credentials';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function nameOf(e: unknown): string {
  const name = isObject(e) ? e.name : undefined;
  return typeof name === 'string' && name !== '' ? name : 'Error';
}

function messageOf(e: unknown): string {
  const message = isObject(e) ? e.message : undefined;
  return typeof message === 'string' ? message : String(e);
}
