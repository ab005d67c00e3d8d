import type { Check, CheckResult, PoolTarget, PreflightTarget } from '../types';
import { instanceOffering } from './instance-offering';
import { instanceQuota } from './instance-quota';

/**
 * Every fallback instance pool can be provisioned now: its type is offered in at least two Availability Zones of the
 * region, and the account's quota for it covers the whole fleet at its ceiling, blue/green included, since SageMaker
 * may end up running every instance from it. The offering and quota checks of the target's own type, run per pool.
 *
 * A pool that cannot be provisioned does not stop a first deploy (SageMaker starts with priority 1), but it is no
 * fallback: when priority 1 runs out, the variant cannot grow there either. So it fails, naming what each pool lacks.
 *
 * @see https://docs.aws.amazon.com/sagemaker/latest/dg/realtime-endpoints-heterogeneous.html
 */
export const instancePools: Check = async (target, clients) => {
  const pools = target.pools ?? [];
  if (pools.length === 0) {
    return { id: 'instance-pools', status: 'skip', detail: 'no fallback instance pools: the variant has one instance type' };
  }
  const results = await Promise.all(pools.map(async (pool) => {
    const asTarget = poolAsTarget(target, pool);
    const checks = await Promise.all([instanceOffering(asTarget, clients), instanceQuota(asTarget, clients)]);
    return { pool, checks };
  }));
  const line = (pool: PoolTarget, checks: readonly CheckResult[]) => {
    const failed = checks.filter((c) => c.status === 'fail');
    return `pool ${pool.priority} (${pool.instanceType}): ${failed.length === 0 ? 'can be provisioned now' : 'cannot be provisioned'}: `
      + checks.map((c) => `${c.status === 'fail' ? 'FAIL ' : ''}${c.detail}`).join('; ');
  };
  const failing = results.filter((r) => r.checks.some((c) => c.status === 'fail'));
  return {
    id: 'instance-pools',
    status: failing.length > 0 ? 'fail' : 'pass',
    detail: results.map((r) => line(r.pool, r.checks)).join(' | '),
    ...(failing.length > 0 ? {
      fix: failing.flatMap((r) => r.checks.filter((c) => c.status === 'fail').map((c) => `pool ${r.pool.priority}: ${c.fix ?? c.detail}`)).join('; ')
        + '; or re-plan without that pool (--instance-types, fewer --fallbacks)',
    } : {}),
  };
};

/** The target as it would be with every instance in `pool`: its type, vCPUs and counts; zones are SageMaker's. */
function poolAsTarget(target: PreflightTarget, pool: PoolTarget): PreflightTarget {
  return {
    source: target.source,
    region: target.region,
    hosting: target.hosting,
    ...(target.pricing !== undefined ? { pricing: target.pricing } : {}),
    instanceType: pool.instanceType,
    vcpus: pool.vcpus,
    instanceCount: pool.instanceCount,
    maxInstanceCount: pool.maxInstanceCount,
  };
}
