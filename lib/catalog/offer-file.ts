/**
 * AWS Price List bulk offer files (the public `offers/v1.0/aws/<service>/current/<region>/index.csv|json`) turned into
 * the built-in price table: which rows are Neuron on-demand prices, how the table merges them, and the table's
 * source text. Pure: `scripts/import-prices.ts` reads the files and writes the result.
 *
 * The rows kept are the ones `catalog refresh` asks the Price List API for (`io/catalog/refresh.ts`): EC2 Linux,
 * shared tenancy, no pre-installed software, capacity Used, on-demand, `BoxUsage` usage types; SageMaker real-time
 * hosting (`Hosting` component, `Host:ml.*` usage types).
 *
 * @see https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/using-the-aws-price-list-bulk-api.html
 */
import { NEURON_FAMILIES } from './instance-type';
import type { OfferFileRead, PriceTableRow, PriceTableSource } from './data/price-table';
import type { Hosting } from './types';

/** One price row of an offer file, keys normalised by `offerKey` (`Instance Type` and `instanceType` both `instancetype`). */
export type OfferRecord = Readonly<Record<string, string>>;

/** The services whose offer files hold Neuron instance prices, and the hosting each prices. */
export const OFFER_SERVICES: Readonly<Record<string, Hosting>> = { AmazonEC2: 'ec2', AmazonSageMaker: 'sagemaker' };

/** `instancetype` for `Instance Type`, `instanceType` or `instance_type`: CSV and JSON offer files name fields differently. */
export function offerKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** A Neuron on-demand price found in an offer file. */
export interface OfferPrice {
  /** EC2 name (`inf2.xlarge`), also for SageMaker rows. */
  readonly instanceType: string;
  readonly region: string;
  readonly hosting: Hosting;
  readonly usdPerHour: number;
}

const isNeuron = (name: string | undefined): name is string =>
  name !== undefined && NEURON_FAMILIES.includes(name.split('.')[0]) && /^[a-z0-9]+\.[a-z0-9-]+$/.test(name);

/**
 * The Neuron on-demand hourly price a record holds, or undefined when it is another product, term or unit.
 *
 * @param service the offer file's `OfferCode`: `AmazonEC2` or `AmazonSageMaker`
 */
export function neuronPriceOf(record: OfferRecord, service: string): OfferPrice | undefined {
  const r = (name: string) => record[offerKey(name)];
  const usd = Number(r('PricePerUnit'));
  const region = r('Region Code');
  if (r('TermType') !== 'OnDemand' || r('Unit') !== 'Hrs' || !(usd > 0) || !region) {
    return undefined;
  }
  if (service === 'AmazonEC2') {
    const instanceType = r('Instance Type');
    const plain = r('Operating System') === 'Linux' && r('Tenancy') === 'Shared' && r('Pre Installed S/W') === 'NA'
      && r('CapacityStatus') === 'Used' && (r('MarketOption') ?? 'OnDemand') === 'OnDemand'
      && /(^|-)BoxUsage:/.test(r('usageType') ?? '');
    return plain && isNeuron(instanceType) ? { instanceType, region, hosting: 'ec2', usdPerHour: usd } : undefined;
  }
  if (service === 'AmazonSageMaker') {
    const name = r('Instance Name') ?? r('Instance Type');
    const ec2 = name?.startsWith('ml.') ? name.slice(3) : undefined;
    // The real-time hosting product is the one with component Hosting for the instance name in the region (what
    // awslabs/llmeter's fetch_sm_hosting_od_price asks the Price List API for). Its usage type is read as
    // `USE1-Host:ml.x` from the API; third-party billing tools also write `Hosting:ml.x`: both are taken, no other.
    const hosting = r('Component') === 'Hosting'
      && new RegExp(`(^|-)Host(ing)?:${(name ?? '').replace(/\./g, '\\.')}$`).test(r('usageType') ?? '');
    return hosting && isNeuron(ec2) ? { instanceType: ec2, region, hosting: 'sagemaker', usdPerHour: usd } : undefined;
  }
  return undefined;
}

/** The product family of each service's instance SKUs (`Product Family` in CSV, `productFamily` in JSON). */
const INSTANCE_FAMILY: Readonly<Record<string, string>> = { AmazonEC2: 'Compute Instance', AmazonSageMaker: 'ML Instance' };

/**
 * The region of an instance SKU of any type, or undefined for other products. A file that sells instances in a
 * region covers that region: a Neuron type it does not list there is not sold there (AWS lists every product it
 * sells), which is how a SageMaker offer file says a region does not host a Neuron type.
 */
export function instanceRegionOf(record: OfferRecord, service: string): string | undefined {
  const region = record[offerKey('Region Code')];
  return region && record[offerKey('Product Family')] === INSTANCE_FAMILY[service] ? region : undefined;
}

/** The fields of one CSV line (RFC 4180 quoting; offer files put no line break inside a field). */
export function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = '';
      i++;
      while (i < line.length) {
        if (line[i] === '"' && line[i + 1] === '"') {
          value += '"';
          i += 2;
        } else if (line[i] === '"') {
          i++;
          break;
        } else {
          value += line[i++];
        }
      }
      fields.push(value);
      i++; // the comma
    } else {
      const end = line.indexOf(',', i);
      fields.push(line.slice(i, end < 0 ? line.length : end));
      i = end < 0 ? line.length + 1 : end + 1;
    }
  }
  return fields;
}

/** What an offer file says about itself: its service, version and publication date. */
export interface OfferHeader {
  readonly service?: string;
  readonly version?: string;
  readonly publicationDate?: string;
}

/**
 * Reads a CSV offer file line by line: the preamble (`"OfferCode","AmazonEC2"`, `"Version",...`), the header row
 * (the first starting with `"SKU"`), then one record per price row. Call `line` for every line, then `header()`.
 */
export class CsvOfferReader {
  private readonly meta: Record<string, string> = {};
  private columns: string[] | undefined;

  /** The record of a price row, or undefined for the preamble and the header. */
  line(text: string): OfferRecord | undefined {
    if (text.trim() === '') {
      return undefined;
    }
    const fields = parseCsvLine(text.replace(/\r$/, ''));
    if (!this.columns) {
      if (fields[0] === 'SKU') {
        this.columns = fields.map(offerKey);
      } else if (fields.length >= 2) {
        this.meta[offerKey(fields[0])] = fields[1];
      }
      return undefined;
    }
    const record: Record<string, string> = {};
    this.columns.forEach((column, i) => {
      record[column] = fields[i] ?? '';
    });
    return record;
  }

  header(): OfferHeader {
    return { service: this.meta.offercode, version: this.meta.version, publicationDate: this.meta.publicationdate };
  }
}

/** A JSON offer file's price rows, as records shaped like the CSV's (attributes, term type, unit, USD). */
export function jsonOfferRecords(json: unknown): { header: OfferHeader; records: OfferRecord[] } {
  const offer = json as {
    offerCode?: string; version?: string; publicationDate?: string;
    products?: Record<string, { productFamily?: string; attributes?: Record<string, string> }>;
    terms?: { OnDemand?: Record<string, Record<string, { priceDimensions?: Record<string, { unit?: string; pricePerUnit?: { USD?: string } }> }>> };
  };
  if (typeof offer !== 'object' || offer === null || typeof offer.products !== 'object') {
    throw new Error('not an AWS offer file: expected a JSON object with "products" and "terms"');
  }
  const records: OfferRecord[] = [];
  for (const [sku, terms] of Object.entries(offer.terms?.OnDemand ?? {})) {
    const product = offer.products?.[sku];
    const attributes = product?.attributes ?? {};
    const base: Record<string, string> = { sku, termtype: 'OnDemand', productfamily: product?.productFamily ?? '' };
    for (const [name, value] of Object.entries(attributes)) {
      base[offerKey(name)] = value;
    }
    for (const term of Object.values(terms)) {
      for (const dimension of Object.values(term.priceDimensions ?? {})) {
        records.push({ ...base, unit: dimension.unit ?? '', priceperunit: dimension.pricePerUnit?.USD ?? '' });
      }
    }
  }
  return { header: { service: offer.offerCode, version: offer.version, publicationDate: offer.publicationDate }, records };
}

/** The built-in price table, as `data/on-demand.ts` holds it. */
export interface PriceTable {
  readonly sources: Readonly<Record<string, PriceTableSource>>;
  readonly offersRead: readonly OfferFileRead[];
  readonly rows: readonly PriceTableRow[];
}

/** One imported offer file: its header and the Neuron prices found in it. */
export interface ImportedOffer {
  readonly service: string;
  readonly header: OfferHeader;
  readonly prices: readonly OfferPrice[];
  /** Regions the file sells instances in (`instanceRegionOf`), with or without a Neuron price. @default the prices' regions */
  readonly regions?: readonly string[];
}

/**
 * The table with the imported offers merged in: every row of a (hosting, region) an offer covers is replaced by the
 * offer's prices; other rows are kept. Where one offer holds several prices for a row, the highest is kept (errs
 * towards cost, like `catalog refresh`).
 *
 * @param order instance type names in the order rows are listed; others follow by name
 * @param asOf the day of the import (ISO date)
 */
export function mergeOffers(table: PriceTable, offers: readonly ImportedOffer[], order: readonly string[], asOf: string): PriceTable {
  const covered = new Set<string>();
  const imported = new Map<string, PriceTableRow>();
  const sources: Record<string, PriceTableSource> = { ...table.sources };
  const offersRead: OfferFileRead[] = [...table.offersRead];
  for (const offer of offers) {
    const regions = [...new Set([...(offer.regions ?? []), ...offer.prices.map((p) => p.region)])].sort();
    for (const region of regions) {
      const key = `offer ${offer.service} ${region} ${offer.header.version ?? asOf}`;
      covered.add(`${OFFER_SERVICES[offer.service]}|${region}`);
      sources[key] = {
        source: `AWS Price List bulk offer file https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/${offer.service}/current/`
          + `${region}/index.csv, version ${offer.header.version ?? 'not stated'}`
          + `${offer.header.publicationDate ? ` (published ${offer.header.publicationDate})` : ''}, imported by npm run prices:import`,
        asOf,
        unverified: false,
      };
      const read = { service: offer.service, region, ...(offer.header.version ? { version: offer.header.version } : {}), asOf };
      const at = offersRead.findIndex((o) => o.service === offer.service && o.region === region);
      if (at >= 0) {
        offersRead[at] = read;
      } else {
        offersRead.push(read);
      }
      for (const p of offer.prices.filter((x) => x.region === region)) {
        const id = `${p.instanceType}|${p.region}|${p.hosting}`;
        const before = imported.get(id);
        if (!before || p.usdPerHour > before[3]) {
          imported.set(id, [p.instanceType, p.region, p.hosting, p.usdPerHour, key]);
        }
      }
    }
  }
  const kept = table.rows.filter(([, region, hosting]) => !covered.has(`${hosting}|${region}`));
  const rows = sortRows([...kept, ...imported.values()], order);
  const used = new Set(rows.map((r) => r[4]));
  const liveSources = Object.fromEntries(Object.entries(sources).filter(([key]) => used.has(key)).sort(([a], [b]) => a.localeCompare(b)));
  offersRead.sort((a, b) => a.service.localeCompare(b.service) || a.region.localeCompare(b.region));
  return { sources: liveSources, offersRead, rows };
}

function sortRows(rows: PriceTableRow[], order: readonly string[]): PriceTableRow[] {
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  return rows.sort((a, b) => rank(a[0]) - rank(b[0]) || a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]) || a[2].localeCompare(b[2]));
}
