import { IResolvable, Lazy } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

/**
 * The alarms that roll a hosting's deployment back, on every hosting: the endpoint variant's deployment config, the
 * inference component's rollback configuration, the ECS services' deployment alarms.
 *
 * The hosting's own alarms join in its constructor and a user's through `addRollbackAlarm` afterwards, so whatever
 * renders the set reads it lazily ({@link names}, {@link render}): at synth, when every alarm is in.
 */
export class RollbackAlarms {
  private readonly alarms: cloudwatch.AlarmBase[] = [];

  /** @param onAdd what each added batch needs besides joining the set, e.g. a grant to read the alarms */
  constructor(private readonly onAdd?: (added: readonly cloudwatch.AlarmBase[]) => void) {}

  /** Joins alarms to the set (one `onAdd` for the batch). */
  add(...alarms: cloudwatch.AlarmBase[]): void {
    this.alarms.push(...alarms);
    this.onAdd?.(alarms);
  }

  /** The set now, as a copy: pushing onto it changes nothing, so its public type is read-only. */
  get list(): readonly cloudwatch.AlarmBase[] {
    return [...this.alarms];
  }

  /** The alarm names, resolved at synth. */
  names(): string[] {
    return Lazy.list({ produce: () => this.alarms.map((a) => a.alarmName) });
  }

  /** Whatever a hosting renders from the set (a deployment config, a rollback configuration), resolved at synth. */
  render(produce: (alarms: readonly cloudwatch.AlarmBase[]) => unknown): IResolvable {
    return Lazy.any({ produce: () => produce(this.alarms) });
  }
}
