/*
 * The shapes of the generated price table (`on-demand.ts`): kept here, by hand, so the generator
 * (scripts/import-prices.ts) writes data only and the two never hold the same lines.
 */
import type { Hosting } from '../types';

/** Where a set of rows comes from: what `Price.source`, `asOf` and `unverified` say. */
export interface PriceTableSource {
  readonly source: string;
  /** The day the numbers were read (ISO date). */
  readonly asOf: string;
  readonly unverified: boolean;
}

/** One row: EC2 instance type name, region, hosting, USD per instance-hour, key into `PRICE_TABLE_SOURCES`. */
export type PriceTableRow = readonly [instanceType: string, region: string, hosting: Hosting, usdPerHour: number, source: string];

/** An offer file the table was last regenerated from. */
export interface OfferFileRead {
  /** `AmazonEC2` or `AmazonSageMaker`. */
  readonly service: string;
  readonly region: string;
  /** The offer file's own version, when it states one. */
  readonly version?: string;
  /** The day it was imported (ISO date). */
  readonly asOf: string;
}
