/**
 * Tells a CloudFormation rollback from a deployment.
 *
 * When an update fails, CloudFormation rolls back by sending the Trigger an Update with the OLD properties
 * (aws-cdk#17040), so the Trigger provider invokes the previous function version while the endpoint that just
 * failed may still be live. Measuring then would fail the rollback and leave the stack in UPDATE_ROLLBACK_FAILED;
 * the handler reads its stack's status instead and stands aside while a rollback is in progress.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { STACK_STATUS_DEADLINE_MS } from './clients';

/** What the stack is doing, as far as the handler could tell. */
export type StackState =
  | { readonly known: true; readonly status: string; readonly rollingBack: boolean }
  | { readonly known: false; readonly reason: string };

/**
 * True for every status in which CloudFormation is undoing a change:
 * `ROLLBACK_IN_PROGRESS`, `UPDATE_ROLLBACK_IN_PROGRESS`, `UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS`,
 * `IMPORT_ROLLBACK_IN_PROGRESS`.
 *
 * @see https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_Stack.html (StackStatus)
 */
export function isRollingBack(status: string): boolean {
  return /ROLLBACK.*IN_PROGRESS$/.test(status);
}

/**
 * Reads the status of the stack the function belongs to.
 *
 * Never throws, and answers within `deadlineMs` (retries included): when the status cannot be read the caller
 * measures, so a deployment stays gated; the reason is returned for the log.
 */
export async function readStackState(
  client: CloudFormationClient,
  stackId: string,
  deadlineMs: number = STACK_STATUS_DEADLINE_MS,
): Promise<StackState> {
  try {
    const output = await client.send(new DescribeStacksCommand({ StackName: stackId }), {
      abortSignal: AbortSignal.timeout(deadlineMs),
    });
    const status = output.Stacks?.[0]?.StackStatus;
    if (status === undefined) {
      return { known: false, reason: `DescribeStacks returned no status for ${stackId}` };
    }
    return { known: true, status, rollingBack: isRollingBack(status) };
  } catch (err) {
    return { known: false, reason: `DescribeStacks on ${stackId} failed: ${(err as Error).name}: ${(err as Error).message}` };
  }
}

/** A gate that stood aside for a rollback. */
export interface SkippedRun {
  readonly outcome: 'skipped';
  readonly name: string;
  readonly reason: string;
}

/**
 * Every gate's first step, whatever it measures: while its stack rolls back, stand aside (logged, and the skipped
 * outcome returned); otherwise `undefined`, and a status that could not be read is logged and the gate measures.
 */
export async function standAsideForRollback(
  client: CloudFormationClient,
  settings: { readonly name: string; readonly stackId: string },
  log: (message: string, fields: Record<string, unknown>) => void,
): Promise<SkippedRun | undefined> {
  const stack = await readStackState(client, settings.stackId);
  if (stack.known && stack.rollingBack) {
    const reason =
      `stack is ${stack.status}: CloudFormation is restoring the previous deployment, which already passed; ` +
      'not measuring so the rollback cannot fail (aws-cdk#17040)';
    log('skipped', { name: settings.name, reason });
    return { outcome: 'skipped', name: settings.name, reason };
  }
  if (!stack.known) {
    log('stack status unknown, measuring anyway', { name: settings.name, reason: stack.reason });
  }
  return undefined;
}
