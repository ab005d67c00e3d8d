/**
 * How a plan made from a calibrated profile says so.
 */
import type { ModelProfile } from '../profiles/types';

/**
 * One line for the plan's output: the profile is calibrated, from which report, measured when, and what it proved;
 * `undefined` for a profile that is not.
 */
export function describeCalibration(profile: Pick<ModelProfile, 'id' | 'calibration'>): string | undefined {
  const c = profile.calibration;
  if (c === undefined) {
    return undefined;
  }
  return (
    `Calibrated profile: ${profile.id} from ${c.source}, measured ${c.measuredAt} on ${c.plan.instanceCount} x ${c.plan.instanceType} ` +
    `(planned ${c.plan.capacityPerInstanceRps}, held ${c.measured.achievedPerInstanceRps} requests/s per instance; now counted ` +
    `${c.capacityPerInstanceRps})`
  );
}
