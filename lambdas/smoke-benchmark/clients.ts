/**
 * The control-plane clients of the smoke benchmark (CloudFormation for the stack status, S3 for the report), with
 * connection and request timeouts.
 *
 * Without them a stalled DescribeStacks or PutObject runs until the Lambda is killed: no report, a message that
 * says nothing about the endpoint, and during a rollback a stack left in UPDATE_ROLLBACK_FAILED.
 */
import { CloudFormationClient, type CloudFormationClientConfig } from '@aws-sdk/client-cloudformation';
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

/**
 * Per-attempt limits of a control-plane call.
 *
 * - `connectionTimeoutMs`: a TCP (and TLS) connection to a regional endpoint is made in tens of milliseconds;
 *   1 s means the endpoint is unreachable (a VPC without a route to S3 or CloudFormation), and retrying says so
 *   sooner than waiting.
 * - `requestTimeoutMs`: the longest the socket may stay silent. DescribeStacks and a PutObject of a report of a few
 *   KiB answer well under a second.
 *
 * `throwOnRequestTimeout` must be set with them: @smithy/node-http-handler 4.x only logs a warning when
 * `requestTimeout` passes and keeps waiting (`@smithy/types` `NodeHttpHandlerOptions.throwOnRequestTimeout`), which
 * a stalled 127.0.0.1 server showed in this project's tests.
 */
export const CONTROL_PLANE_TIMEOUTS = { connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000 } as const;

/**
 * How long reading the stack status may take in all, retries included: less than the 15 s the construct allows
 * for startup (`STARTUP_ALLOWANCE_MS`), so a stalled CloudFormation leaves the run its time.
 */
export const STACK_STATUS_DEADLINE_MS = 8_000;

const requestHandler = {
  connectionTimeout: CONTROL_PLANE_TIMEOUTS.connectionTimeoutMs,
  requestTimeout: CONTROL_PLANE_TIMEOUTS.requestTimeoutMs,
  throwOnRequestTimeout: true,
};

/**
 * The CloudFormation client: a few more attempts than the default 3, because a throttled DescribeStacks during a
 * rollback would make the handler measure a possibly broken endpoint; each attempt bounded by the timeouts above.
 */
export function cloudFormationClient(config: CloudFormationClientConfig = {}): CloudFormationClient {
  return new CloudFormationClient({ maxAttempts: 5, requestHandler, ...config });
}

/** The S3 client for the reports, each attempt bounded by the timeouts above. */
export function s3Client(config: S3ClientConfig = {}): S3Client {
  return new S3Client({ requestHandler, ...config });
}
