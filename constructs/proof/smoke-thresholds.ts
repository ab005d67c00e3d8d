/** The thresholds a smoke run is judged by when none are given, from the plan. */
import { Duration } from 'aws-cdk-lib';
import type { PoolLimits } from '../../lib/bench/pools';
import type { LoadMode, Thresholds } from '../../lib/bench/types';
import type { Plan } from '../../lib/planner/types';
import { DEFAULT_ERROR_RATE } from './private/smoke-defaults';

/**
 * The thresholds a smoke run gets from a plan when none are given.
 *
 * - p99 <= `plan.targets.p99Ms` + `latencyAllowance`: the plan's promise, plus the client side of the measurement.
 * - throughput >= `share` x min(what the load drives, `plan.capacityRps`). A closed loop of C requests drives
 *   C x 1000 / (`plan.p50Ms` + allowance) req/s (Little's law at the plan's median latency); an open loop drives
 *   its rate.
 * - error rate <= 1 %, with or without a plan.
 * - for a `batching` plan, served by this project's model server: the server's own p99 (its timing header) <= the
 *   plan's p99 at the rate the load drives ({@link predictedP99At}).
 */
export function smokeThresholdDefaults(
  plan: Plan | undefined,
  shape: { readonly mode: LoadMode },
  latencyAllowance: Duration,
  share: number,
): Thresholds {
  if (plan === undefined) {
    return { maxErrorRate: DEFAULT_ERROR_RATE };
  }
  const allowanceMs = latencyAllowance.toMilliseconds();
  const drive = shape.mode.kind === 'closed' ? (shape.mode.concurrency * 1000) / (plan.p50Ms + allowanceMs) : shape.mode.rateRps;
  return {
    p99MaxMs: round2(plan.targets.p99Ms + allowanceMs),
    minThroughputRps: round2(share * Math.min(drive, plan.capacityRps)),
    maxErrorRate: DEFAULT_ERROR_RATE,
    // This project's model server (batching plans) reports each request's time in the server, so its p99 is judged
    // against the plan's own prediction, with no allowance for a network hop nobody measured.
    ...(plan.serving === 'batching' ? { serverP99MaxMs: round2(predictedP99At(plan, Math.min(drive, plan.capacityRps))) } : {}),
  };
}


/**
 * With instance pools (`plan.fallbacks`), the limits each pool's answers are held to: the defaults of the pool's own
 * plan ({@link smokeThresholdDefaults}: the p99 target plus the allowance, and for a batching plan the server p99 its
 * plan predicts), unless `given` sets a limit for every pool. Undefined without pools.
 */
export function poolLimits(
  plan: Plan | undefined,
  shape: { readonly mode: LoadMode },
  latencyAllowance: Duration,
  share: number,
  given: Thresholds = {},
): PoolLimits[] | undefined {
  if (plan?.fallbacks === undefined || plan.fallbacks.length === 0) {
    return undefined;
  }
  const pools = [{ priority: 1, instanceType: plan.instanceType, plan }, ...plan.fallbacks];
  return pools.map((pool) => {
    const own = smokeThresholdDefaults(pool.plan, shape, latencyAllowance, share);
    const p99MaxMs = given.p99MaxMs ?? own.p99MaxMs;
    const serverP99MaxMs = given.serverP99MaxMs ?? own.serverP99MaxMs;
    return {
      pool: pool.priority,
      instanceType: pool.instanceType,
      ...(p99MaxMs !== undefined ? { p99MaxMs } : {}),
      ...(serverP99MaxMs !== undefined ? { serverP99MaxMs } : {}),
    };
  });
}

/**
 * The p99 the plan predicts at `rateRps`: its `predictedP99Ms` (at the target rate) up to the target rate, and the
 * target p99 above it, up to `capacityRps`, which is by definition the rate whose predicted p99 meets the target.
 */
export function predictedP99At(plan: Plan, rateRps: number): number {
  return rateRps <= plan.targets.throughputRps ? plan.predictedP99Ms : plan.targets.p99Ms;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
