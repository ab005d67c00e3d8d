import fc from 'fast-check';
import { InfeasibleError } from '../../../lib/errors';
import { busySecondsForCall, plan, planServingModel, servingModel, simulateInstance } from '../../../lib/planner';
import type { Plan, PlanOptions, PlanTargets, ServingServer } from '../../../lib/planner';
import type { ModelProfile } from '../../../lib/profiles/types';
import { builtInProfiles } from '../../../lib/profiles';
import { planningInputs } from './planning-inputs';

/*
 * The same check as `npm run bench:plans`, on random inputs: a chosen plan, replayed at its target rate with Poisson
 * single-input arrivals through its own serving semantics, keeps its p99 within the target. A plan the deployed
 * server could not hold is a bug.
 */
/** The plan for `options` (undefined when none fits), and its p99 in ms replayed at `throughputRps`. */
function planAndReplay(profile: ModelProfile, targets: PlanTargets, options: PlanOptions, seed: number): { chosen: Plan; p99Ms: number } | undefined {
  let chosen: Plan;
  try {
    chosen = plan(profile, targets, options);
  } catch (e) {
    if (e instanceof InfeasibleError) return undefined;
    throw e;
  }
  const result = simulateInstance({
    model: planServingModel(chosen),
    callP50Seconds: chosen.p50Ms / 1000,
    arrivalsPerSecond: targets.throughputRps / chosen.instanceCount,
    requests: 20_000,
    seed,
  });
  return { chosen, p99Ms: result.p99Seconds * 1000 };
}

describe('a chosen plan holds its target in a discrete-event replay', () => {
  const profiles = builtInProfiles();

  test('for random models, targets, hostings and serving modes, the simulated p99 at the target rate is within the target', () => {
    let replayed = 0;
    fc.assert(
      fc.property(
        ...planningInputs(profiles, { min: 10, max: 20_000 }, { min: 1, max: 300 }),
        (profile, throughputRps, p99Ms, hosting, serving) => {
          const replay = planAndReplay(profile, { throughputRps, p99Ms }, { region: 'us-east-1', hosting, serving, headroom: 0 }, 11);
          if (replay === undefined) return;
          replayed++;
          expect(replay.p99Ms).toBeLessThanOrEqual(p99Ms);
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

  test('for random models and targets, a stock plan for either server holds its target replayed as that server runs it', () => {
    let replayed = 0;
    fc.assert(
      fc.property(
        ...planningInputs(profiles, { min: 10, max: 20_000 }, { min: 1, max: 300 }),
        fc.constantFrom<ServingServer>('model-server', 'neuron-dlc'),
        (profile, throughputRps, p99Ms, hosting, _serving, server) => {
          const replay = planAndReplay(profile, { throughputRps, p99Ms }, { region: 'us-east-1', hosting, serving: 'stock', server, headroom: 0 }, 13);
          if (replay === undefined) return;
          replayed++;
          expect(replay.chosen.server).toBe(server);
          expect(replay.p99Ms).toBeLessThanOrEqual(p99Ms);
        },
      ),
      { numRuns: 50, seed: 20261127 },
    );
    expect(replayed).toBeGreaterThan(10);
  });

  test.each<[ServingServer, number]>([
    // max(2 ms + 0.06 ms, 3 ms + 0.075 ms) = 3.075 ms a call: the host stage bounds the worker.
    ['model-server', 1 / 0.003075],
    // 2 ms + 0.06 ms + 3 ms + 0.075 ms = 5.135 ms a call: a DLC's toolkit runs them one after the other.
    ['neuron-dlc', 1 / 0.005135],
  ])('GIVEN a host-heavy stock process on %s overloaded THEN the replay completes one request per busySecondsForCall', (server, expected) => {
    const row = { batchSize: 1, throughputRps: 500, p50Ms: 2, p99Ms: 2 };
    const model = servingModel(row, { mode: 'stock', server, processes: 1, hostMsPerRequest: 3, requestsPerBatch: 1, maxDelayMs: 0 });
    expect(1 / busySecondsForCall(model, 1)).toBeCloseTo(expected, 6);
    // Offered twice what it completes, the process never idles: the 18,000 measured requests finish at `20,000 /
    // expected` s of simulated time, counted from the 2,000th arrival at `2,000 / (2 x expected)` s.
    const result = simulateInstance({ model, callP50Seconds: 0.002, arrivalsPerSecond: 2 * expected, requests: 20_000 });
    expect(result.completedPerSecond / expected).toBeCloseTo(18_000 / 19_000, 2);
  });
});
