/**
 * A run's answers split by the SageMaker instance pool that gave them, and each pool judged against its own limits.
 *
 * Each pool's containers name their pool in the custom-attributes header (`pool=<priority>`, `lib/serving/pool.ts`),
 * so the proof records every answer's latency under its pool and holds each pool to the limits its own plan sets.
 * A pool no answer came from had no instance in service (SageMaker provisions later pools only on insufficient
 * capacity): it is reported, not failed, since nothing of it could be measured.
 */
import { LatencyRecorder } from './latency';
import type { EncodedPool, PoolAnswers } from './types';
import { parsePool } from '../serving/pool';

export type { EncodedPool, PoolAnswers } from './types';

/** The limits one pool's answers are held to, from the pool's own plan. */
export interface PoolLimits {
  readonly pool: number;
  /** The pool's instance type, for messages. */
  readonly instanceType: string;
  /** Highest client-side p99, ms. @default - not judged */
  readonly p99MaxMs?: number;
  /** Highest p99 of the servers' own time, ms. @default - not judged */
  readonly serverP99MaxMs?: number;
}

/** Collects the successful answers of a run by pool. */
export class PoolRecorder {
  private readonly pools = new Map<number, { readonly client: LatencyRecorder; readonly server: LatencyRecorder }>();

  /** Records one successful answer: its custom attributes (naming its pool), its latency and its server time. */
  record(customAttributes: string | undefined, latencyMs: number, serverMs?: number): void {
    const pool = parsePool(customAttributes);
    if (pool === undefined) {
      return;
    }
    const entry = this.entry(pool);
    entry.client.record(latencyMs);
    if (serverMs !== undefined) {
      entry.server.record(serverMs);
    }
  }

  /** Adds another recorder's pools (a load worker's, decoded). */
  add(encoded: readonly EncodedPool[]): void {
    for (const pool of encoded) {
      const entry = this.entry(pool.pool);
      entry.client.addEncoded(pool.latency);
      if (pool.server !== undefined) {
        entry.server.addEncoded(pool.server);
      }
    }
  }

  /** Each pool's answers, by priority; undefined when no answer named a pool. */
  report(): PoolAnswers[] | undefined {
    if (this.pools.size === 0) {
      return undefined;
    }
    return [...this.pools.entries()].sort(([a], [b]) => a - b).map(([pool, { client, server }]) => ({
      pool,
      answers: client.count,
      latencyMs: client.percentiles(),
      ...(server.count > 0 ? { serverLatencyMs: server.percentiles() } : {}),
    }));
  }

  /** The histograms another process merges with {@link add}. */
  encode(): EncodedPool[] {
    return [...this.pools.entries()].map(([pool, { client, server }]) => ({
      pool,
      latency: client.encode(),
      ...(server.count > 0 ? { server: server.encode() } : {}),
    }));
  }

  private entry(pool: number) {
    let entry = this.pools.get(pool);
    if (entry === undefined) {
      entry = { client: new LatencyRecorder(), server: new LatencyRecorder() };
      this.pools.set(pool, entry);
    }
    return entry;
  }
}

/**
 * Why the pools' answers fail their own limits, one sentence each: a pool over its p99 or its server p99, and
 * answers from a pool the plan does not have. Empty when every pool that answered held its limits.
 */
export function poolFailures(answers: readonly PoolAnswers[] | undefined, limits: readonly PoolLimits[]): string[] {
  const failures: string[] = [];
  for (const measured of answers ?? []) {
    const limit = limits.find((l) => l.pool === measured.pool);
    if (limit === undefined) {
      failures.push(`${measured.answers} answer(s) came from instance pool ${measured.pool}, which the plan does not have `
        + `(its pools: ${limits.map((l) => l.pool).join(', ')}): the endpoint runs another configuration than the one proven`);
      continue;
    }
    const name = `instance pool ${limit.pool} (${limit.instanceType})`;
    const p99 = measured.latencyMs?.p99;
    if (limit.p99MaxMs !== undefined && p99 !== undefined && p99 > limit.p99MaxMs) {
      failures.push(`${name}: p99 ${p99} ms over ${measured.answers} answers, above its limit of ${limit.p99MaxMs} ms`);
    }
    const server = measured.serverLatencyMs?.p99;
    if (limit.serverP99MaxMs !== undefined && server !== undefined && server > limit.serverP99MaxMs) {
      failures.push(`${name}: server p99 ${server} ms over ${measured.answers} answers, above its plan's ${limit.serverP99MaxMs} ms`);
    }
  }
  return failures;
}

/** One line per pool: what answered and what did not, for logs and reports. */
export function describePools(answers: readonly PoolAnswers[] | undefined, limits: readonly PoolLimits[]): string[] {
  return limits.map((limit) => {
    const measured = answers?.find((a) => a.pool === limit.pool);
    return measured === undefined
      ? `instance pool ${limit.pool} (${limit.instanceType}): no answer, no instance of it in service`
      : `instance pool ${limit.pool} (${limit.instanceType}): ${measured.answers} answers`
        + (measured.latencyMs !== undefined ? `, p99 ${measured.latencyMs.p99} ms` : '')
        + (measured.serverLatencyMs !== undefined ? `, server p99 ${measured.serverLatencyMs.p99} ms` : '');
  });
}
