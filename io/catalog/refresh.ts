import {
  _InstanceType, EC2Client, InstanceTypeInfo, paginateDescribeInstanceTypeOfferings,
  paginateDescribeInstanceTypes,
} from '@aws-sdk/client-ec2';
import { Filter, paginateGetProducts, PricingClient } from '@aws-sdk/client-pricing';
import { z } from 'zod';
import { AwsCallError } from '../../lib/aws-errors';
import { InputError } from '../../lib/errors';
import { Catalog, ec2Name, PriceFile, sageMakerName } from '../../lib/catalog/catalog';
import { NEURON_FAMILIES } from '../../lib/catalog/instance-type';
import { isAwsRegion } from '../../lib/catalog/regions';
import { CoreVersion, Hosting, HOSTINGS, InstanceSpec, Price } from '../../lib/catalog/types';

/** What `refreshCatalog` reads and with which clients. */
export interface RefreshOptions {
  /** Region codes to price, e.g. `['us-east-1', 'eu-west-1']`. */
  readonly regions: readonly string[];
  /** Hostings to price. */
  readonly hostings: readonly Hosting[];
  /**
   * EC2 names of the instance types to read (`ml.` names are accepted).
   *
   * @default - every instance type of the built-in catalog
   */
  readonly instanceTypes?: readonly string[];
  /**
   * Price List API client. Its endpoint exists only in us-east-1, eu-central-1 and ap-south-1, whichever regions
   * are priced, so the caller creates it in one of those.
   */
  readonly pricing: PricingClient;
  /** An EC2 client for a region: offerings and hardware facts are regional. */
  readonly ec2: (region: string) => EC2Client;
  /**
   * The moment of the read, for `asOf`.
   *
   * @default - now
   */
  readonly now?: Date;
}

const PRICE_LIST_SOURCE = 'AWS Price List API GetProducts';
/** Concurrent GetProducts calls: the Price List API throttles bursts, and a refresh is not latency-sensitive. */
const PRICING_CONCURRENCY = 4;

/**
 * Reads current Neuron hardware facts, regional offerings and on-demand hourly prices from AWS into a price file.
 *
 * - `DescribeInstanceTypeOfferings` says which instance types each region offers; EC2 prices are read only for those.
 * - `DescribeInstanceTypes` gives chips, cores per chip, core version and device memory (`NeuronInfo`), vCPUs and
 *   host memory; the file's `instances` carry them, replacing the built-in facts when merged.
 * - `GetProducts` gives on-demand USD per hour: `AmazonEC2` for Linux, shared tenancy, no pre-installed software,
 *   capacity status Used; `AmazonSageMaker` for real-time hosting instance hours (`<region>-Host:ml.*` usage types).
 *   SageMaker availability is read from the prices themselves: no price, no row.
 *
 * @throws InputError when an option is invalid; `AwsCallError` naming the call and region, with the SDK's error as
 *   `cause`, when AWS refuses one
 */
export async function refreshCatalog(options: RefreshOptions): Promise<PriceFile> {
  const instanceTypes = validate(options);
  const now = options.now ?? new Date();
  const asOf = now.toISOString().slice(0, 10);
  const builtIn = Catalog.builtIn();

  const specs = new Map<string, InstanceSpec>();
  const prices: Price[] = [];
  for (const region of options.regions) {
    const ec2 = options.ec2(region);
    const offered = await offeredInstanceTypes(ec2, region, instanceTypes);
    const toDescribe = offered.filter((t) => !specs.has(t));
    for (const spec of await describeInstanceTypes(ec2, region, toDescribe, asOf)) {
      specs.set(spec.name, spec);
    }
    // A price is only useful for a type whose facts are known: from this refresh or the built-in catalog.
    const known = (t: string) => specs.has(t) || builtIn.instance(t) !== undefined;

    for (const hosting of options.hostings) {
      const candidates = (hosting === 'ec2' ? offered : instanceTypes).filter(known);
      const found = await mapLimit(candidates, PRICING_CONCURRENCY, (t) => (hosting === 'ec2'
        ? ec2OnDemandPrice(options.pricing, region, t, asOf)
        : sageMakerHostingPrice(options.pricing, region, t, asOf)));
      prices.push(...found.filter((p): p is Price => p !== undefined));
    }
  }

  return {
    source: `${PRICE_LIST_SOURCE}, EC2 DescribeInstanceTypes and DescribeInstanceTypeOfferings`,
    asOf,
    instances: instanceTypes.filter((t) => specs.has(t)).map((t) => specs.get(t)!),
    prices,
  };
}

function validate(options: RefreshOptions): string[] {
  const problems: string[] = [];
  if (options.regions.length === 0) {
    problems.push('regions: expected at least one AWS region code such as us-east-1');
  }
  for (const region of options.regions) {
    if (!isAwsRegion(region)) {
      problems.push(`regions: expected an AWS region code such as us-east-1, got "${region}"`);
    }
  }
  if (options.hostings.length === 0) {
    problems.push(`hostings: expected at least one of ${HOSTINGS.join(', ')}`);
  }
  for (const hosting of options.hostings) {
    if (!HOSTINGS.includes(hosting)) {
      problems.push(`hostings: expected ${HOSTINGS.map((h) => `"${h}"`).join(' or ')}, got "${hosting}"`);
    }
  }
  const requested = options.instanceTypes ?? Catalog.builtIn().instances.map((s) => s.name);
  const instanceTypes = [...new Set(requested.map(ec2Name))];
  for (const name of instanceTypes) {
    if (!NEURON_FAMILIES.includes(name.split('.')[0]) || !/^[a-z0-9]+\.[a-z0-9-]+$/.test(name)) {
      problems.push(`instanceTypes: "${name}" is not a Neuron instance type (families ${NEURON_FAMILIES.join(', ')})`);
    }
  }
  if (instanceTypes.length === 0) {
    problems.push('instanceTypes: expected at least one instance type such as inf2.xlarge');
  }
  InputError.throwIfAny(problems);
  return instanceTypes;
}

async function offeredInstanceTypes(ec2: EC2Client, region: string, instanceTypes: readonly string[]): Promise<string[]> {
  const offered = new Set<string>();
  await withContext(`EC2 DescribeInstanceTypeOfferings in ${region}`, async () => {
    const pages = paginateDescribeInstanceTypeOfferings({ client: ec2 }, {
      LocationType: 'region',
      Filters: [{ Name: 'instance-type', Values: [...instanceTypes] }],
    });
    for await (const page of pages) {
      for (const offering of page.InstanceTypeOfferings ?? []) {
        if (offering.InstanceType) {
          offered.add(offering.InstanceType);
        }
      }
    }
  });
  return instanceTypes.filter((t) => offered.has(t));
}

async function describeInstanceTypes(ec2: EC2Client, region: string, names: readonly string[], asOf: string): Promise<InstanceSpec[]> {
  if (names.length === 0) {
    return [];
  }
  const infos: InstanceTypeInfo[] = [];
  await withContext(`EC2 DescribeInstanceTypes in ${region}`, async () => {
    const pages = paginateDescribeInstanceTypes({ client: ec2 }, { InstanceTypes: [...names] as _InstanceType[] });
    for await (const page of pages) {
      infos.push(...(page.InstanceTypes ?? []));
    }
  });
  return infos
    .map((info) => toInstanceSpec(info, `EC2 DescribeInstanceTypes (${region}, ${asOf})`))
    .filter((s): s is InstanceSpec => s !== undefined);
}

/**
 * Hardware facts from one `InstanceTypeInfo`, or undefined when it lacks what the planner needs (no `NeuronInfo`,
 * or a NeuronCore generation the catalog does not model yet, such as v3 on Trn2).
 */
export function toInstanceSpec(info: InstanceTypeInfo, source: string): InstanceSpec | undefined {
  const device = info.NeuronInfo?.NeuronDevices?.[0];
  const coreVersion: CoreVersion | undefined = device?.CoreInfo?.Version === 1 ? 'v1'
    : device?.CoreInfo?.Version === 2 ? 'v2' : undefined;
  const chips = device?.Count;
  const coresPerChip = device?.CoreInfo?.Count;
  const deviceMiB = device?.MemoryInfo?.SizeInMiB;
  const vcpus = info.VCpuInfo?.DefaultVCpus;
  const memoryMiB = info.MemoryInfo?.SizeInMiB;
  if (!info.InstanceType || !coreVersion || !chips || !coresPerChip || !deviceMiB || !vcpus || !memoryMiB) {
    return undefined;
  }
  return {
    name: info.InstanceType,
    family: info.InstanceType.split('.')[0],
    chips,
    coresPerChip,
    coreVersion,
    deviceMemoryPerChipGiB: deviceMiB / 1024,
    vcpus,
    memoryGiB: memoryMiB / 1024,
    source,
    unverified: false,
  };
}

async function ec2OnDemandPrice(pricing: PricingClient, region: string, instanceType: string, asOf: string): Promise<Price | undefined> {
  const filters = termMatch({
    regionCode: region,
    instanceType,
    operatingSystem: 'Linux',
    tenancy: 'Shared',
    preInstalledSw: 'NA',
    capacitystatus: 'Used',
  });
  const items = await getProducts(pricing, 'AmazonEC2', filters, region);
  // The filters leave reservations, dedicated hosts and capacity blocks out; checking again keeps a change in the
  // API's matching from slipping another price in.
  const matching = items.filter(({ attributes: a }) => a.instanceType === instanceType
    && a.operatingSystem === 'Linux' && a.tenancy === 'Shared' && a.preInstalledSw === 'NA' && a.capacitystatus === 'Used'
    && (a.regionCode === undefined || a.regionCode === region)
    && (a.marketoption === undefined || a.marketoption === 'OnDemand')
    && /(^|-)BoxUsage:/.test(a.usagetype ?? ''));
  return toPrice(matching, { instanceType, region, hosting: 'ec2', asOf, service: 'AmazonEC2' });
}

async function sageMakerHostingPrice(pricing: PricingClient, region: string, instanceType: string, asOf: string): Promise<Price | undefined> {
  const instanceName = sageMakerName(instanceType);
  const filters = termMatch({ regionCode: region, instanceName, component: 'Hosting' });
  const items = await getProducts(pricing, 'AmazonSageMaker', filters, region);
  // Real-time hosting is the `<region>-Host:ml.*` usage type; asynchronous inference (`-AsyncInf:`) shares the
  // Hosting component but is another product.
  const matching = items.filter(({ attributes: a }) => a.instanceName === instanceName && a.component === 'Hosting'
    && (a.regionCode === undefined || a.regionCode === region)
    && new RegExp(`(^|-)Host:${instanceName.replace(/\./g, '\\.')}$`).test(a.usagetype ?? ''));
  return toPrice(matching, { instanceType, region, hosting: 'sagemaker', asOf, service: 'AmazonSageMaker' });
}

function termMatch(fields: Record<string, string>): Filter[] {
  return Object.entries(fields).map(([Field, Value]) => ({ Type: 'TERM_MATCH', Field, Value }));
}

/** The parts of one Price List product this module reads; the API returns each product as a JSON string. */
const priceListItemSchema = z.object({
  product: z.object({
    sku: z.string().optional(),
    attributes: z.record(z.string(), z.string()),
  }),
  terms: z.object({
    OnDemand: z.record(z.string(), z.object({
      priceDimensions: z.record(z.string(), z.object({
        unit: z.string(),
        pricePerUnit: z.record(z.string(), z.string()),
      })),
    })).optional(),
  }).optional(),
  publicationDate: z.string().optional(),
});

interface PriceListItem {
  readonly sku?: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** On-demand USD per hour of each hourly price dimension. */
  readonly usdPerHour: readonly number[];
  readonly publicationDate?: string;
}

async function getProducts(pricing: PricingClient, serviceCode: string, filters: Filter[], region: string): Promise<PriceListItem[]> {
  const items: PriceListItem[] = [];
  await withContext(`Price List GetProducts ${serviceCode} for ${region}`, async () => {
    for await (const page of paginateGetProducts({ client: pricing, pageSize: 100 }, { ServiceCode: serviceCode, Filters: filters })) {
      for (const text of page.PriceList ?? []) {
        items.push(parsePriceListItem(text));
      }
    }
  });
  return items;
}

/** Reads one Price List product; throws when AWS changed the format, rather than pricing with a misread number. */
export function parsePriceListItem(text: string): PriceListItem {
  const parsed = priceListItemSchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    throw new Error(`unexpected Price List product format (${parsed.error.issues[0].path.join('.')}: ${parsed.error.issues[0].message}): ${text.slice(0, 200)}`);
  }
  const { product, terms, publicationDate } = parsed.data;
  const usdPerHour: number[] = [];
  for (const term of Object.values(terms?.OnDemand ?? {})) {
    for (const dimension of Object.values(term.priceDimensions)) {
      const usd = Number(dimension.pricePerUnit.USD);
      if (dimension.unit === 'Hrs' && Number.isFinite(usd) && usd > 0) {
        usdPerHour.push(usd);
      }
    }
  }
  return { sku: product.sku, attributes: product.attributes, usdPerHour, publicationDate };
}

function toPrice(
  items: readonly PriceListItem[],
  at: { instanceType: string; region: string; hosting: Hosting; asOf: string; service: string },
): Price | undefined {
  const priced = items.filter((i) => i.usdPerHour.length > 0);
  if (priced.length === 0) {
    return undefined;
  }
  // Several matching products should not happen; if they do, the highest price errs towards cost, as the
  // built-in prices do, and the source says so.
  const best = priced
    .map((item) => ({ item, usd: Math.max(...item.usdPerHour) }))
    .reduce((a, b) => (b.usd > a.usd ? b : a));
  const published = best.item.publicationDate ? `, published ${best.item.publicationDate}` : '';
  const several = priced.length > 1 ? `, highest of ${priced.length} matching products` : '';
  return {
    instanceType: at.instanceType,
    region: at.region,
    hosting: at.hosting,
    kind: 'on-demand',
    usdPerHour: best.usd,
    source: `${PRICE_LIST_SOURCE} ${at.service} sku ${best.item.sku ?? 'unknown'}${published}${several}`,
    asOf: at.asOf,
    unverified: false,
  };
}

/** Runs `fn` over `items` with at most `limit` calls in flight, keeping the order of `items` in the result. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Names the call and region of a failure, so `catalog refresh` says which of its many calls failed. The SDK error
 * stays the `cause`, so the CLI still tells missing credentials or a denied action from a bug of ours.
 */
async function withContext(what: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (e) {
    throw new AwsCallError(what, e);
  }
}
