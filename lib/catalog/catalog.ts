import { BUILT_IN_INSTANCES } from './instances';
import { BUILT_IN_PRICES, sageMakerEstimates } from './prices';
import { Hosting, InstanceSpec, Price, PricingKind } from './types';

/**
 * A price file after validation: what `parsePriceFile` returns, `refreshCatalog` produces and
 * `Catalog.withPriceFile` merges. Every default is already applied.
 */
export interface PriceFile {
  /** Who produced the file, e.g. `AWS Price List API GetProducts`. */
  readonly source?: string;
  /** The day the file's numbers were read (ISO date). */
  readonly asOf?: string;
  /** Instance types the file adds, or whose hardware facts it replaces (matched by name). */
  readonly instances: readonly InstanceSpec[];
  /** Prices the file adds, or replaces when instance type, region, hosting and kind match. */
  readonly prices: readonly Price[];
}

const SAGEMAKER_PREFIX = 'ml.';

/**
 * The SageMaker name of an instance type: `ml.inf2.xlarge` for `inf2.xlarge`; unchanged when it already has `ml.`.
 */
export function sageMakerName(name: string): string {
  return name.startsWith(SAGEMAKER_PREFIX) ? name : `${SAGEMAKER_PREFIX}${name}`;
}

/** The EC2 name of an instance type: `inf2.xlarge` for `ml.inf2.xlarge`; unchanged without `ml.`. */
export function ec2Name(name: string): string {
  return name.startsWith(SAGEMAKER_PREFIX) ? name.slice(SAGEMAKER_PREFIX.length) : name;
}

/** NeuronCores of an instance: chips x cores per chip (4 per chip on Inf1, 2 on Inf2/Trn1). */
export function neuronCores(spec: InstanceSpec): number {
  return spec.chips * spec.coresPerChip;
}

/** Accelerator memory one NeuronCore can address, in GiB: 2 on Inf1, 16 on Inf2/Trn1. */
export function deviceMemoryPerCoreGiB(spec: InstanceSpec): number {
  return spec.deviceMemoryPerChipGiB / spec.coresPerChip;
}

/** The identity of a price: two prices with the same key describe the same thing, so one replaces the other. */
export function priceKey(p: Pick<Price, 'instanceType' | 'region' | 'hosting' | 'kind'>): string {
  return `${ec2Name(p.instanceType)}|${p.region}|${p.hosting}|${p.kind}`;
}

/**
 * The Neuron instance types with their hardware facts and hourly prices.
 *
 * Immutable: `withPriceFile` returns a new catalog, so the built-in one can be shared freely.
 *
 * @example
 * const catalog = Catalog.builtIn().withPriceFile(parsePriceFile(json, 'prices.json'));
 * catalog.price('ml.inf2.xlarge', 'us-east-1', 'sagemaker')?.usdPerHour;
 */
export class Catalog {
  /** The catalog shipped with the toolkit (`instances.ts`, `prices.ts`). */
  static builtIn(): Catalog {
    if (!Catalog.builtInCatalog) {
      Catalog.builtInCatalog = new Catalog(BUILT_IN_INSTANCES, BUILT_IN_PRICES);
    }
    return Catalog.builtInCatalog;
  }

  private static builtInCatalog: Catalog | undefined;

  /** Every instance type, built-in ones first in family then size order, then those price files added. */
  readonly instances: readonly InstanceSpec[];
  /**
   * Every price, in the order they were added (a replaced price keeps its place), then the SageMaker prices
   * estimated where none is listed (`Price.estimate`, `sageMakerEstimates` in prices.ts).
   */
  readonly prices: readonly Price[];

  /** The prices sources list: what price files merge onto, so a listed price replaces an estimate. */
  private readonly listed: readonly Price[];
  private readonly instancesByName: ReadonlyMap<string, InstanceSpec>;
  private readonly pricesByKey: ReadonlyMap<string, Price>;

  private constructor(instances: readonly InstanceSpec[], prices: readonly Price[]) {
    this.instances = Object.freeze([...instances]);
    this.listed = Object.freeze([...prices]);
    this.prices = Object.freeze([...prices, ...sageMakerEstimates(prices)]);
    this.instancesByName = new Map(this.instances.map((spec) => [spec.name, spec]));
    this.pricesByKey = new Map(this.prices.map((p) => [priceKey(p), p]));
  }

  /**
   * A new catalog with the file's instances and prices merged in.
   *
   * Instances replace those of the same name and are appended otherwise; prices replace those with the same
   * instance type, region, hosting and kind and are appended otherwise.
   */
  withPriceFile(file: PriceFile): Catalog {
    return new Catalog(mergeBy(this.instances, file.instances, (s) => s.name), mergeBy(this.listed, file.prices, priceKey));
  }

  /** The instance type named `name` (`inf2.xlarge` or `ml.inf2.xlarge`), or undefined when the catalog lacks it. */
  instance(name: string): InstanceSpec | undefined {
    return this.instancesByName.get(ec2Name(name));
  }

  /**
   * The hourly price of an instance type (`inf2.xlarge` or `ml.inf2.xlarge`) in a region for a hosting,
   * or undefined when the catalog has none.
   *
   * @param kind what the price means @default 'on-demand'
   */
  price(instanceType: string, region: string, hosting: Hosting, kind: PricingKind = 'on-demand'): Price | undefined {
    return this.pricesByKey.get(priceKey({ instanceType, region, hosting, kind }));
  }

  /** Every price of one instance type (`inf2.xlarge` or `ml.inf2.xlarge`), in catalog order. */
  pricesOf(instanceType: string): readonly Price[] {
    const name = ec2Name(instanceType);
    return this.prices.filter((p) => p.instanceType === name);
  }

  /**
   * The regions with at least one price, sorted, optionally only those for one hosting and one pricing kind.
   */
  regionsWithPrices(hosting?: Hosting, kind?: PricingKind): string[] {
    const regions = new Set<string>();
    for (const p of this.prices) {
      if ((hosting === undefined || p.hosting === hosting) && (kind === undefined || p.kind === kind)) {
        regions.add(p.region);
      }
    }
    return [...regions].sort();
  }
}

/** `base` with each item of `overrides` replacing the one of the same key in place, or appended. */
function mergeBy<T>(base: readonly T[], overrides: readonly T[], key: (item: T) => string): T[] {
  const merged = [...base];
  const indexByKey = new Map(merged.map((item, i) => [key(item), i]));
  for (const item of overrides) {
    const k = key(item);
    const at = indexByKey.get(k);
    if (at === undefined) {
      indexByKey.set(k, merged.length);
      merged.push(item);
    } else {
      merged[at] = item;
    }
  }
  return merged;
}
