/**
 * `cdk-inferentia preflight`: checks with the user's credentials that a first deploy can start.
 */
export * from './types';
export { runPreflight, PreflightFailedError, type PreflightOptions } from './preflight';
export { targetFromPlan, targetsFromTemplate, type PlanExtras } from './target';
export { parseEcrImage, type EcrImageRef } from './checks/image';
export { EC2_VCPU_QUOTAS } from './checks/instance-quota';
