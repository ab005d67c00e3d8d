/**
 * Planner speed: plans 1,000 random scenarios across every built-in profile and prints the median and p99 time
 * per plan and the total, half of them searching both serving modes. Target: median under 1 ms (issue: under 5 ms). Run with `npm run bench:planner`.
 */
import { performance } from 'node:perf_hooks';
import { build } from 'hdr-histogram-js';
import { HOSTINGS } from '../lib/catalog/types';
import { InfeasibleError } from '../lib/errors';
import { planReport } from '../lib/planner';
import { builtInProfiles } from '../lib/profiles';

const SCENARIOS = 1000;

/** Deterministic pseudo-random numbers (mulberry32), so two runs plan the same scenarios. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function main(): void {
  const profiles = builtInProfiles();
  const rand = random(42);
  const micros = build({ lowestDiscernibleValue: 1, highestTrackableValue: 10_000_000, numberOfSignificantValueDigits: 3 });
  let feasible = 0;
  const started = performance.now();
  for (let i = 0; i < SCENARIOS; i++) {
    const profile = profiles[Math.floor(rand() * profiles.length)];
    const targets = { throughputRps: 1 + rand() * 50_000, p99Ms: 0.5 + rand() * 100 };
    const options = {
      region: 'us-east-1',
      hosting: HOSTINGS[Math.floor(rand() * HOSTINGS.length)],
      headroom: rand() * 0.5,
      serving: rand() < 0.5 ? ('stock' as const) : ('any' as const),
    };
    const t0 = performance.now();
    try {
      planReport(profile, targets, options);
      feasible++;
    } catch (e) {
      if (!(e instanceof InfeasibleError)) throw e;
    }
    micros.recordValue(Math.max(1, Math.round((performance.now() - t0) * 1000)));
  }
  const totalMs = performance.now() - started;
  const ms = (us: number) => (us / 1000).toFixed(3);
  console.log(`planner: ${SCENARIOS} scenarios over ${profiles.length} profiles (${feasible} feasible, ${SCENARIOS - feasible} infeasible)`);
  console.log(`  median ${ms(micros.getValueAtPercentile(50))} ms/plan, p99 ${ms(micros.getValueAtPercentile(99))} ms/plan, max ${ms(micros.maxValue)} ms`);
  console.log(`  total ${totalMs.toFixed(1)} ms; target: median < 1 ms -> ${micros.getValueAtPercentile(50) < 1000 ? 'met' : 'MISSED'}`);
}

main();
