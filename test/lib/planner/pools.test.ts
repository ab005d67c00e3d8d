import { Catalog } from '../../../lib/catalog/catalog';
import { parsePriceFile } from '../../../lib/catalog/price-file';
import { InputError } from '../../../lib/errors';
import { findGenerativeProfile, planGenerativeReport } from '../../../lib/generative';
import type { GenerativeTargets } from '../../../lib/generative';
import { MAX_FALLBACKS, planReport } from '../../../lib/planner';
import { requireProfile } from '../../../lib/profiles';
import type { ModelProfile } from '../../../lib/profiles/types';

// A region with no built-in prices: these are the only ones, so every count and cost is computed by hand.
const REGION = 'il-central-1';
const catalog = Catalog.builtIn().withPriceFile(parsePriceFile({
  prices: Object.entries({ 'inf2.xlarge': 1, 'inf2.8xlarge': 2, 'trn1.2xlarge': 1.5, 'inf1.xlarge': 0.5 })
    .map(([instanceType, usdPerHour]) => ({ instanceType, region: REGION, hosting: 'sagemaker', usdPerHour })),
}, 'pools test'));

// inf2 and trn1 rows of one model: trn1 at half the inf2 rate, so a trn1 instance holds about half as much.
const inf2 = { coreVersion: 'v2', instanceType: 'inf2.xlarge', coresPerProcess: 1, batchSize: 1, throughputRps: 1000, p50Ms: 1, p99Ms: 2, source: 'inf2' } as const;
const trn1 = { coreVersion: 'v2', instanceType: 'trn1.2xlarge', coresPerProcess: 1, batchSize: 1, throughputRps: 500, p50Ms: 2, p99Ms: 4, source: 'trn1' } as const;
const toy: ModelProfile = { id: 'toy', deviceMemoryGiB: 2, hostMemoryGiB: 2, hostCpuMsPerRequest: 0.1, measurements: [inf2, trn1] };
const sagemaker = { region: REGION, hosting: 'sagemaker' } as const;

describe('fallback pools of a single-call plan', () => {
  const report = planReport(toy, { throughputRps: 3000, p99Ms: 20, peakThroughputRps: 6000 }, { ...sagemaker, fallbacks: 2 }, catalog);
  const { chosen } = report;
  const byType = (type: string) => [chosen, ...report.alternatives].find((p) => p.instanceType === type)!;

  test('GIVEN fallbacks=2 THEN priorities 2 and 3 are the plans of the two other types, cheapest first, each complete for its type', () => {
    expect(chosen.instanceType).toBe('ml.inf2.xlarge');
    // 3 x inf2.8xlarge at $2/h ($6) before 5 x trn1.2xlarge at $1.50/h ($7.50): cheapest plan first, not cheapest instance.
    expect(chosen.fallbacks?.map((p) => [p.priority, p.instanceType, p.chip, p.hourlyCostUsd])).toEqual([
      [2, 'ml.inf2.8xlarge', 'inf2', 6],
      [3, 'ml.trn1.2xlarge', 'trn1', 7.5],
    ]);
    for (const pool of chosen.fallbacks ?? []) {
      // The pool's plan is the best plan of its type among the alternatives, and its summary repeats it.
      expect(pool.plan).toBe(byType(pool.instanceType));
      expect(pool).toMatchObject({
        instanceCount: pool.plan.instanceCount,
        maxInstanceCount: pool.plan.maxInstanceCount,
        hourlyCostUsd: pool.plan.hourlyCostUsd,
        layout: { processesPerInstance: pool.plan.processesPerInstance, coresPerProcess: 1, batchSize: 1, visibleCores: pool.plan.visibleCores },
        capacity: { perInstanceRps: pool.plan.capacityPerInstanceRps, rps: pool.plan.capacityRps },
      });
      expect(pool.plan.fallbacks).toBeUndefined();
      expect(pool.plan.targets).toEqual(chosen.targets);
    }
  });

  test('GIVEN a pool on another chip THEN it needs its own compile, and a family-mate of the same shape shares the chosen one', () => {
    expect(chosen.fallbacks?.[0].sharesCompiledModelWith).toBe(1);
    expect(chosen.fallbacks?.[1].sharesCompiledModelWith).toBeUndefined();
  });

  test('GIVEN pools that hold less per instance THEN the mixed fleet runs the count of the pool that holds the least, at its capacity', () => {
    const fleet = chosen.mixedFleet!;
    const least = [chosen, ...chosen.fallbacks!.map((p) => p.plan)].reduce((a, b) => (b.capacityPerInstanceRps < a.capacityPerInstanceRps ? b : a));
    expect(least.instanceType).toBe('ml.trn1.2xlarge');
    expect(fleet.boundByPriority).toBe(3);
    expect(fleet.capacityPerInstanceRps).toBe(least.capacityPerInstanceRps);
    expect(fleet.instanceCount).toBe(least.instanceCount);
    expect(fleet.maxInstanceCount).toBe(least.maxInstanceCount);
    expect(fleet.instanceCount).toBeGreaterThan(chosen.instanceCount);
    // All on inf2.xlarge at $1/h, against the single-type plan's count.
    expect(fleet.hourlyCostUsd).toBe(fleet.instanceCount * 1);
    expect(fleet.extraCostPercent).toBeCloseTo((fleet.instanceCount / chosen.instanceCount - 1) * 100, 1);
    // The worst: the same count of inf2.8xlarge at $2/h, the dearest instance.
    expect(fleet.worst).toEqual({ priority: 2, instanceType: 'ml.inf2.8xlarge', instanceCount: fleet.instanceCount, hourlyCostUsd: 2 * fleet.instanceCount });
  });

  test('GIVEN more fallbacks than other types meet the targets THEN the plan has those it found and says so', () => {
    const few = planReport(toy, { throughputRps: 3000, p99Ms: 20 }, { ...sagemaker, fallbacks: MAX_FALLBACKS }, catalog).chosen;
    expect(few.fallbacks?.map((p) => p.priority)).toEqual([2, 3]);
    expect(few.warnings).toContain('fallbacks=4 asked for 4 fallback pools; only 2 other instance types meet the targets in the catalog '
      + '(see the alternatives and the rejected candidates)');
  });

  test('GIVEN no fallbacks THEN the plan document is the one planned before pools existed', () => {
    const plain = planReport(toy, { throughputRps: 3000, p99Ms: 20 }, sagemaker, catalog);
    expect(plain.chosen).not.toHaveProperty('fallbacks');
    expect(plain.chosen).not.toHaveProperty('mixedFleet');
    expect(plain.request.options).not.toHaveProperty('fallbacks');
  });

  test.each([
    [5, { ...sagemaker }, 'fallbacks=5 must be a whole number from 0 to 4'],
    [1.5, { ...sagemaker }, 'fallbacks=1.5 must be a whole number from 0 to 4'],
    [2, { region: REGION, hosting: 'ec2' as const }, "fallbacks=2 with hosting 'ec2': instance pools are a SageMaker endpoint feature"],
  ])('GIVEN fallbacks=%s WHEN planned THEN it is refused naming the value and the fix', (fallbacks, options, message) => {
    expect(() => planReport(toy, { throughputRps: 3000, p99Ms: 20 }, { ...options, fallbacks }, catalog)).toThrow(InputError);
    expect(() => planReport(toy, { throughputRps: 3000, p99Ms: 20 }, { ...options, fallbacks }, catalog)).toThrow(message);
  });

  test('GIVEN the README bert-base-uncased targets on SageMaker WHEN planned with fallbacks=2 THEN priorities 2 and 3 are other types', () => {
    const bert = planReport(requireProfile('bert-base-uncased'), { throughputRps: 2000, p99Ms: 10 },
      { region: 'us-east-1', hosting: 'sagemaker', minInstances: 2, serving: 'any', fallbacks: 2 }).chosen;
    expect(bert.fallbacks?.map((p) => p.priority)).toEqual([2, 3]);
    const types = [bert.instanceType, ...bert.fallbacks!.map((p) => p.instanceType)];
    expect(new Set(types).size).toBe(3);
  });
});

describe('fallback pools of a generative plan', () => {
  // Fixed lengths and measured rows only: fast, and every figure from the published rows.
  const targets: GenerativeTargets = {
    requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60, fixedLengths: true,
  };
  const report = planGenerativeReport(findGenerativeProfile('llama-3.1-8b-instruct')!, targets,
    { region: 'us-east-1', hosting: 'sagemaker', estimates: false, fallbacks: 2 });
  const { chosen } = report;

  test('GIVEN the Llama 3.1 8B targets on SageMaker WHEN planned with fallbacks=2 THEN pools 2 and 3 are other types with their replicas', () => {
    const pools = chosen.fallbacks ?? [];
    expect(pools.map((p) => p.priority)).toEqual([2, 3]);
    expect(new Set([chosen.instanceType, ...pools.map((p) => p.instanceType)]).size).toBe(3);
    for (const pool of pools) {
      const g = pool.plan.generative;
      expect(pool.layout).toEqual({
        tensorParallelDegree: g.tensorParallelDegree, replicasPerInstance: g.replicasPerInstance, maxConcurrentSequences: g.maxConcurrentSequences,
        maxModelLength: g.maxModelLength, visibleCores: g.replicas.map((r) => r.visibleCores),
      });
      expect(pool.capacity.perReplicaRps).toBe(g.capacityPerReplicaRps);
      // A family-mate with the same engine settings loads the same compiled artifacts.
      const sameAs = [chosen, ...pools.map((p) => p.plan)].findIndex((p) => p.instance.family === pool.plan.instance.family
        && JSON.stringify(p.generative.engine) === JSON.stringify(g.engine));
      expect(pool.sharesCompiledModelWith).toBe(sameAs + 1 === pool.priority ? undefined : sameAs + 1);
    }
  });

  test('GIVEN pools of different per-copy capacity THEN the mixed fleet runs the copies the least of them needs, on the chosen type first', () => {
    const fleet = chosen.mixedFleet!;
    const plans = [chosen, ...chosen.fallbacks!.map((p) => p.plan)];
    const least = Math.min(...plans.map((p) => p.generative.capacityPerReplicaRps));
    expect(fleet.capacityPerCopyRps).toBe(least);
    // 2 requests/s with 20 % headroom at the least per-copy capacity, or the chosen plan's own copies if more.
    expect(fleet.copies).toBe(Math.max(Math.ceil((2 * 1.2) / least - 1e-9), chosen.generative.replicasPerInstance * chosen.instanceCount));
    expect(fleet.instanceCount).toBe(Math.max(chosen.instanceCount, Math.ceil(fleet.copies / chosen.generative.replicasPerInstance)));
    expect(fleet.hourlyCostUsd).toBeCloseTo(fleet.instanceCount * chosen.price.usdPerHour, 4);
  });
});
