import fc from 'fast-check';
import { Catalog } from '../../../lib/catalog/catalog';
import type { Hosting, InstanceSpec } from '../../../lib/catalog/types';
import { InfeasibleError } from '../../../lib/errors';
import { plan } from '../../../lib/planner';
import { builtInProfiles } from '../../../lib/profiles';
import type { ModelProfile } from '../../../lib/profiles/types';

/**
 * A deliberately naive reference: try every instance, every measurement of its core version and every process
 * count that divides the NeuronCores, keep what fits, and return the cheapest cost (and the lowest p99 at it).
 * It shares no code with the planner beyond the catalog data.
 */
function exhaustive(profile: ModelProfile, rps: number, p99: number, hosting: Hosting, headroom: number, min: number, max?: number) {
  let best: { cost: number; p99: number } | undefined;
  for (const inst of Catalog.builtIn().instances as InstanceSpec[]) {
    const price = Catalog.builtIn().price(inst.name, 'us-east-1', hosting, 'on-demand');
    if (!price) continue;
    const cores = inst.chips * inst.coresPerChip;
    for (const m of profile.measurements) {
      if (m.coreVersion !== inst.coreVersion || m.coresPerProcess > cores) continue;
      // A measurement taken on one chip (Inferentia2 vs Trainium) does not predict another's speed.
      const chip = (family: string) => (family === 'trn1n' ? 'trn1' : family);
      if (m.instanceType && chip(m.instanceType.replace(/^ml\./, '').split('.')[0]) !== chip(inst.family)) continue;
      if (profile.deviceMemoryGiB > (m.coresPerProcess * inst.deviceMemoryPerChipGiB) / inst.coresPerChip) continue;
      if (m.p99Ms > p99) continue;
      for (let p = 1; p <= cores; p++) {
        if (cores % p !== 0 || p * m.coresPerProcess > cores) continue;
        if (p * profile.hostMemoryGiB > 0.9 * inst.memoryGiB + 1e-9) continue;
        if (p * (profile.vcpuPerProcess ?? 1) > inst.vcpus) continue;
        const count = Math.max(min, Math.ceil((rps * (1 + headroom)) / (p * m.throughputRps) - 1e-9));
        if (max !== undefined && count > max) continue;
        const cost = count * price.usdPerHour;
        if (!best || cost < best.cost - 1e-9 || (Math.abs(cost - best.cost) <= 1e-9 && m.p99Ms < best.p99)) {
          best = { cost, p99: m.p99Ms };
        }
      }
    }
  }
  return best;
}

describe('the planner agrees with an exhaustive search over the catalog', () => {
  const profiles = builtInProfiles();

  test('for random models and targets, the chosen cost and p99 equal the exhaustive optimum', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...profiles),
        fc.double({ min: 1, max: 200_000, noNaN: true }),
        fc.double({ min: 0.5, max: 200, noNaN: true }),
        fc.constantFrom<Hosting>('ec2', 'sagemaker'),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 4 }),
        fc.option(fc.integer({ min: 4, max: 60 }), { nil: undefined }),
        (profile, rps, p99, hosting, headroom, min, max) => {
          const expected = exhaustive(profile, rps, p99, hosting, headroom, min, max);
          const options = { region: 'us-east-1', hosting, headroom, minInstances: min, maxInstances: max };
          if (!expected) {
            expect(() => plan(profile, { throughputRps: rps, p99Ms: p99 }, options)).toThrow(InfeasibleError);
            return;
          }
          const chosen = plan(profile, { throughputRps: rps, p99Ms: p99 }, options);
          expect(chosen.hourlyCostUsd).toBeCloseTo(expected.cost, 9);
          expect(chosen.p99Ms).toBe(expected.p99);
        },
      ),
      { numRuns: 300, seed: 20261122 },
    );
  });
});
