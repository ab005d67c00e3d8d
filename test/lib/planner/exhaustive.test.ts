import fc from 'fast-check';
import { Catalog } from '../../../lib/catalog/catalog';
import type { Hosting, InstanceSpec } from '../../../lib/catalog/types';
import { InfeasibleError } from '../../../lib/errors';
import { batchingDelaysMs, capacityRps, plan, servingModel, supportedGroupSizes } from '../../../lib/planner';
import type { ServingMode } from '../../../lib/planner';
import { builtInProfiles } from '../../../lib/profiles';
import type { ModelProfile } from '../../../lib/profiles/types';
import { planningInputs } from './planning-inputs';

/**
 * A deliberately naive search: every instance, every measurement of its chip, EVERY process count the limits allow
 * (the planner takes only the largest), every front-end count that shares them evenly within the vCPUs, both serving
 * modes and every batching delay, each sized with the same
 * queueing model. It checks the planner's search and pruning, not the model (the simulation tests do that).
 */
function exhaustive(profile: ModelProfile, rps: number, p99: number, hosting: Hosting, serving: ServingMode, headroom: number, min: number) {
  let best: number | undefined;
  const catalog = Catalog.builtIn();
  const hostMs = profile.hostCpuMsPerRequest ?? 1;
  for (const inst of catalog.instances as InstanceSpec[]) {
    const price = catalog.price(inst.name, 'us-east-1', hosting, 'on-demand');
    if (!price) continue;
    const cores = inst.chips * inst.coresPerChip;
    const chip = (family: string) => (family === 'trn1n' ? 'trn1' : family);
    for (const m of profile.measurements) {
      if (m.coreVersion !== inst.coreVersion || m.coresPerProcess > cores) continue;
      if (m.instanceType && chip(m.instanceType.split('.')[0]) !== chip(inst.family)) continue;
      if (!(supportedGroupSizes(inst) ?? [m.coresPerProcess]).includes(m.coresPerProcess)) continue;
      if ((m.deviceMemoryGiB ?? profile.deviceMemoryGiB) > (m.coresPerProcess * inst.deviceMemoryPerChipGiB) / inst.coresPerChip) continue;
      for (let p = 1; p * m.coresPerProcess <= cores; p++) {
        if (p * (m.hostMemoryGiB ?? profile.hostMemoryGiB) > 0.9 * inst.memoryGiB + 1e-9) continue;
        if (p * (profile.vcpuPerProcess ?? 1) + 1 > inst.vcpus) continue;
        const requestsPerBatch = serving === 'stock' ? 1 : m.batchSize;
        const probe = servingModel(m, { mode: serving, processes: p, hostMsPerRequest: hostMs, requestsPerBatch, maxDelayMs: 0 });
        const budget = p99 - probe.callP99Seconds * 1000 - hostMs;
        if (budget <= 0) continue;
        const delays = requestsPerBatch === 1 ? [0] : batchingDelaysMs(budget);
        const frontEndCounts = Array.from({ length: p }, (_, i) => i + 1).filter((f) => p % f === 0 && p * (profile.vcpuPerProcess ?? 1) + f <= inst.vcpus);
        for (const [maxDelayMs, frontEnds] of delays.flatMap((d) => frontEndCounts.map((f) => [d, f] as const))) {
          const cap = capacityRps(servingModel(m, { mode: serving, processes: p, hostMsPerRequest: hostMs, requestsPerBatch, maxDelayMs, frontEnds }), p99 / 1000);
          if (cap <= 0) continue;
          const count = Math.max(min, Math.ceil((rps * (1 + headroom)) / cap - 1e-9));
          if (count > 10_000) continue;
          const cost = count * price.usdPerHour;
          if (best === undefined || cost < best) best = cost;
        }
      }
    }
  }
  return best;
}

describe('the planner agrees with an exhaustive search over the catalog', () => {
  const profiles = builtInProfiles();

  test('for random models, targets and serving modes, the chosen cost equals the exhaustive optimum', () => {
    fc.assert(
      fc.property(
        ...planningInputs(profiles, { min: 1, max: 100_000 }, { min: 0.5, max: 500 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 4 }),
        (profile, rps, p99, hosting, serving, headroom, min) => {
          const expected = exhaustive(profile, rps, p99, hosting, serving, headroom, min);
          const options = { region: 'us-east-1', hosting, serving, headroom, minInstances: min };
          if (expected === undefined) {
            expect(() => plan(profile, { throughputRps: rps, p99Ms: p99 }, options)).toThrow(InfeasibleError);
            return;
          }
          expect(plan(profile, { throughputRps: rps, p99Ms: p99 }, options).hourlyCostUsd).toBeCloseTo(expected, 9);
        },
      ),
      { numRuns: 150, seed: 20261123 },
    );
  });
});
