import fc from 'fast-check';
import type { Hosting } from '../../../lib/catalog/types';
import type { ServingMode } from '../../../lib/planner';
import type { ModelProfile } from '../../../lib/profiles/types';

/** A range of a random number. */
interface Range {
  readonly min: number;
  readonly max: number;
}

/**
 * The random inputs of a single-call plan, in the order `plan` reads them: one of `profiles`, a target rate (requests
 * per second) and p99 (ms) in their ranges, a hosting and a serving mode. Spread them into `fc.property`.
 */
export function planningInputs(profiles: readonly ModelProfile[], rps: Range, p99Ms: Range) {
  return [
    fc.constantFrom(...profiles),
    fc.double({ ...rps, noNaN: true }),
    fc.double({ ...p99Ms, noNaN: true }),
    fc.constantFrom<Hosting>('ec2', 'sagemaker'),
    fc.constantFrom<ServingMode>('stock', 'batching'),
  ] as const;
}
