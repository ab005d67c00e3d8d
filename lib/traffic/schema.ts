/**
 * Schemas of the traffic shapes that travel in a proof's configuration: checked where they are written (the
 * construct) and where they are read (the handlers).
 */
import { lazySchema } from '../lazy-schema';
import { QUANTILE_PROBABILITIES } from './types';

/**
 * Schema of a quantile table: one value of at least 0 per `QUANTILE_PROBABILITIES` point.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const quantileTableSchema = lazySchema((z) => z.array(z.number().min(0)).length(QUANTILE_PROBABILITIES.length));

/**
 * Schema of an `ArrivalProcess`.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const arrivalProcessSchema = lazySchema((z) => z
  .object({ scv: z.number().positive(), source: z.string(), gapQuantiles: quantileTableSchema().optional() })
  .strict());
