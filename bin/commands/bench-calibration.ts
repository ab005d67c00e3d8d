/**
 * What `bench --plan` says when its run could not calibrate: the rules `calibrate` applies, told when the run ends.
 */
import type { BenchReport } from '../../lib/bench/types';
import { MIN_CALIBRATION_REQUESTS, MIN_PLANNED_SHARE } from '../../lib/calibration/calibrate';
import type { PlanBasis } from '../../lib/smoke/capacity';

/**
 * What would make `calibrate` refuse this run, said when it ends rather than when calibrate reads it: a rate far
 * below the plan, too few requests, or a server that is not the model server (no timing header on any answer).
 */
export function calibrationWarnings(plan: PlanBasis, rateRps: number, report: BenchReport, target: string): string[] {
  const warnings: string[] = [];
  const plannedRps = plan.capacityPerInstanceRps * plan.instanceCount;
  if (rateRps < MIN_PLANNED_SHARE * plannedRps || report.requests < MIN_CALIBRATION_REQUESTS) {
    warnings.push(`--rate ${rateRps} is ${+((100 * rateRps) / plannedRps).toPrecision(2)} % of the plan's ${+plannedRps.toFixed(1)} ` +
      `requests/s, over ${report.requests} requests: calibrate refuses a run below ${MIN_PLANNED_SHARE * 100} % of the plan or of ` +
      `fewer than ${MIN_CALIBRATION_REQUESTS} requests (docs/calibration.md); measure at --rate ${+plannedRps.toFixed(1)}`);
  }
  if (report.server === undefined) {
    warnings.push(`no answer carried the model server's timing header (server-ms, device-ms): ${target} is not the ` +
      'cdk-inferentia model server, so the record holds no device time' +
      (plan.serving === 'batching' ? ', and calibrate refuses it for this batching plan' : '') +
      // A stock plan sized for the model server's overlap would read a DLC's toolkit as falling short of it.
      (plan.serving === 'stock' && plan.server !== 'neuron-dlc'
        ? "; the plan was made for the model server, whose workers overlap host work with device calls: if a Neuron DLC's " +
          'stock toolkit serves it, re-plan with --server neuron-dlc and measure that plan'
        : '') +
      '; point bench at the deployed endpoint');
  }
  return warnings;
}
