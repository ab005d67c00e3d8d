/**
 * Runs the preflight checks of one target.
 */
import { capacityBlock } from './checks/capacity-block';
import { endpointName } from './checks/endpoint-name';
import { image } from './checks/image';
import { instanceOffering } from './checks/instance-offering';
import { instancePools } from './checks/instance-pools';
import { instanceQuota } from './checks/instance-quota';
import { modelData } from './checks/model-data';
import { CHECK_IDS, type Check, type CheckId, type CheckResult, type PreflightClients, type PreflightReport, type PreflightTarget } from './types';

const CHECKS: Readonly<Record<CheckId, Check>> = {
  'instance-offering': instanceOffering,
  'instance-quota': instanceQuota,
  'instance-pools': instancePools,
  'capacity-block': capacityBlock,
  image,
  'model-data': modelData,
  'endpoint-name': endpointName,
};

/** How a preflight runs. */
export interface PreflightOptions {
  /**
   * Checks not to run, reported as skipped.
   *
   * @default - none
   */
  readonly skip?: readonly CheckId[];
}

/**
 * Checks, with the user's credentials, that a first deploy of `target` can start: the instance type is offered in
 * two zones, the quota covers the planned count, the image and model data exist and are readable, and the endpoint
 * name is free.
 *
 * Checks run concurrently; each turns an AWS refusal (missing credentials, a denied action) into a failed check
 * naming it, so one run reports everything.
 */
export async function runPreflight(target: PreflightTarget, clients: PreflightClients, options: PreflightOptions = {}): Promise<PreflightReport> {
  const skip = new Set(options.skip ?? []);
  const checks = await Promise.all(
    CHECK_IDS.map(
      (id): Promise<CheckResult> =>
        skip.has(id) ? Promise.resolve({ id, status: 'skip', detail: 'skipped with --skip' }) : CHECKS[id](target, clients),
    ),
  );
  return { target, checks, passed: checks.every((c) => c.status !== 'fail') };
}

/** Thrown once every report is out when a check failed, so the CLI exits 1. */
export class PreflightFailedError extends Error {
  constructor(readonly reports: readonly PreflightReport[]) {
    const failed = reports.flatMap((r) => r.checks.filter((c) => c.status === 'fail').map((c) => `${c.id} (${r.target.source})`));
    super(`preflight failed: ${failed.length} check${failed.length === 1 ? '' : 's'} failed: ${failed.join(', ')}; fix them before deploying`);
    this.name = 'PreflightFailedError';
  }
}
