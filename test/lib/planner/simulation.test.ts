import fc from 'fast-check';
import { InfeasibleError } from '../../../lib/errors';
import { plan, planServingModel, simulateInstance } from '../../../lib/planner';
import { builtInProfiles } from '../../../lib/profiles';
import { planningInputs } from './planning-inputs';

/*
 * The same check as `npm run bench:plans`, on random inputs: a chosen plan, replayed at its target rate with Poisson
 * single-input arrivals through its own serving semantics, keeps its p99 within the target. A plan the deployed
 * server could not hold is a bug.
 */
describe('a chosen plan holds its target in a discrete-event replay', () => {
  const profiles = builtInProfiles();

  test('for random models, targets, hostings and serving modes, the simulated p99 at the target rate is within the target', () => {
    let replayed = 0;
    fc.assert(
      fc.property(
        ...planningInputs(profiles, { min: 10, max: 20_000 }, { min: 1, max: 300 }),
        (profile, throughputRps, p99Ms, hosting, serving) => {
          let chosen;
          try {
            chosen = plan(profile, { throughputRps, p99Ms }, { region: 'us-east-1', hosting, serving, headroom: 0 });
          } catch (e) {
            if (e instanceof InfeasibleError) return;
            throw e;
          }
          replayed++;
          const result = simulateInstance({
            model: planServingModel(chosen),
            callP50Seconds: chosen.p50Ms / 1000,
            arrivalsPerSecond: throughputRps / chosen.instanceCount,
            requests: 20_000,
            seed: 11,
          });
          expect(result.p99Seconds * 1000).toBeLessThanOrEqual(p99Ms);
        },
      ),
      { numRuns: 40, seed: 20261123 },
    );
    expect(replayed).toBeGreaterThan(10);
  });

  test('GIVEN a batching plan replayed THEN requests share device calls', () => {
    const bert = profiles.find((p) => p.id === 'bert-base-uncased')!;
    const batch8 = { ...bert, measurements: bert.measurements.filter((m) => m.batchSize === 8 && m.instanceType === 'inf2.xlarge') };
    const chosen = plan(
      batch8,
      { throughputRps: 5000, p99Ms: 50 },
      { region: 'us-east-1', hosting: 'ec2', serving: 'batching', instanceTypes: ['inf2.xlarge'], headroom: 0 },
    );
    expect(chosen.serving).toBe('batching');
    const result = simulateInstance({
      model: planServingModel(chosen),
      callP50Seconds: chosen.p50Ms / 1000,
      arrivalsPerSecond: 5000 / chosen.instanceCount,
      requests: 20_000,
    });
    expect(result.meanBatchRequests).toBeGreaterThan(1.5);
    expect(result.completedPerSecond).toBeGreaterThan(0.9 * (5000 / chosen.instanceCount));
  });
});
