/**
 * `cdk-inferentia catalog`: the Neuron instance types with their hardware facts and hourly prices, and
 * `catalog refresh`, which reads current ones from AWS into a price file.
 */
import { existsSync, statSync, writeFileSync } from 'fs';
import { dirname, resolve } from 'path';
import { EC2Client } from '@aws-sdk/client-ec2';
import { PricingClient } from '@aws-sdk/client-pricing';
import Table from 'cli-table3';
import { Command, Option } from 'commander';
import { refreshCatalog } from '../../io/catalog';
import { Catalog, isAwsRegion, neuronCores, parsePriceFile, sageMakerName } from '../../lib/catalog';
import { Hosting, HOSTINGS, InstanceSpec, Price, PRICING_KINDS, PricingKind } from '../../lib/catalog/types';
import { InputError } from '../../lib/errors';
import { readJsonFile } from './files';
import type { CliIo } from './io';
import { once } from './once';
import { list } from './parse';

/** The region whose prices `catalog` shows as a table when no --region is given. */
const TABLE_DEFAULT_REGION = 'us-east-1';

/** The Price List API answers only in a few regions; us-east-1 is one, and prices every region. */
const PRICING_API_REGION = 'us-east-1';

/**
 * The built-in catalog, with the price file at `pricesPath` merged in when given.
 *
 * @throws InputError naming the file when it cannot be read, is not JSON, or is not a valid price file
 */
export function loadCatalog(pricesPath?: string): Catalog {
  if (pricesPath === undefined) {
    return Catalog.builtIn();
  }
  const json = readJsonFile('--prices', pricesPath, '; a price file looks like '
    + '{"prices":[{"instanceType":"inf2.xlarge","region":"eu-west-1","hosting":"ec2","usdPerHour":0.8}]}');
  return Catalog.builtIn().withPriceFile(parsePriceFile(json, pricesPath));
}

/** One price as `catalog --json` prints it under `priceDetails`. */
export interface CatalogPriceDetail {
  readonly region: string;
  readonly hosting: Hosting;
  readonly kind: PricingKind;
  readonly usdPerHour: number;
  readonly source: string;
  readonly asOf: string;
  readonly unverified: boolean;
  /** How the price was estimated (SageMaker outside us-east-1), when no source lists it. @default - listed */
  readonly estimate?: string;
}

/** One instance type as `catalog --json` prints it. */
export interface CatalogEntry extends InstanceSpec {
  /** chips x cores per chip. */
  readonly neuronCores: number;
  /** The name SageMaker bills it under. */
  readonly sageMakerName: string;
  /** On-demand USD per hour by region, then hosting. */
  readonly prices: Record<string, Partial<Record<Hosting, number>>>;
  /** Every price shown, of every kind, with its source, date and UNVERIFIED flag. */
  readonly priceDetails: readonly CatalogPriceDetail[];
}

/** What `catalog` shows: optionally only one region and one hosting. */
export interface CatalogFilter {
  readonly region?: string;
  readonly hosting?: Hosting;
}

/** The catalog as `catalog --json` prints it. */
export function catalogEntries(catalog: Catalog, filter: CatalogFilter = {}): CatalogEntry[] {
  return catalog.instances.map((spec) => {
    const shown = shownPrices(catalog, spec, filter);
    const prices: Record<string, Partial<Record<Hosting, number>>> = {};
    for (const p of shown.filter((x) => x.kind === 'on-demand')) {
      (prices[p.region] ??= {})[p.hosting] = p.usdPerHour;
    }
    return {
      ...spec,
      neuronCores: neuronCores(spec),
      sageMakerName: sageMakerName(spec.name),
      prices,
      priceDetails: shown.map(({ region, hosting, kind, usdPerHour, source, asOf, unverified, estimate }) => (
        { region, hosting, kind, usdPerHour, source, asOf, unverified, ...(estimate !== undefined ? { estimate } : {}) })),
    };
  });
}

function shownPrices(catalog: Catalog, spec: InstanceSpec, filter: CatalogFilter): Price[] {
  return catalog.pricesOf(spec.name)
    .filter((p) => (filter.region === undefined || p.region === filter.region)
      && (filter.hosting === undefined || p.hosting === filter.hosting))
    .sort(comparePrices);
}

function comparePrices(a: Price, b: Price): number {
  return a.region.localeCompare(b.region)
    || HOSTINGS.indexOf(a.hosting) - HOSTINGS.indexOf(b.hosting)
    || PRICING_KINDS.indexOf(a.kind) - PRICING_KINDS.indexOf(b.kind);
}

/**
 * The catalog as a terminal table: one row per instance type, one column per region, hosting and pricing kind.
 * Each price cell names its source in a numbered note below the table; UNVERIFIED prices say so in the cell.
 */
export function formatCatalog(catalog: Catalog, filter: CatalogFilter = {}): string {
  const entries = catalogEntries(catalog, filter);
  const columns = priceColumns(entries);
  const sources: string[] = [];
  const noteOf = (d: CatalogPriceDetail): number => {
    const note = `${d.source} (as of ${d.asOf})`;
    const at = sources.indexOf(note);
    return at >= 0 ? at + 1 : sources.push(note);
  };

  const table = new Table({
    head: ['instance', 'NeuronCores', 'core', 'device GiB/chip', 'vCPU', 'memory GiB',
      ...columns.map((c) => `${c.region} ${c.hosting === 'sagemaker' ? 'SageMaker (ml.)' : 'EC2'}\n${c.kind} $/h`)],
    style: { head: [], border: [] },
    // No rule between rows: eleven rows read better dense.
    chars: { 'mid': '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const e of entries) {
    const cells = columns.map((c) => {
      const d = e.priceDetails.find((p) => p.region === c.region && p.hosting === c.hosting && p.kind === c.kind);
      return d ? `${d.usdPerHour}${d.estimate !== undefined ? ' ESTIMATE' : d.unverified ? ' UNVERIFIED' : ''} [${noteOf(d)}]` : '-';
    });
    table.push([
      e.name + (e.unverified ? ' UNVERIFIED' : ''),
      `${e.neuronCores} (${e.chips}x${e.coresPerChip})`,
      e.coreVersion,
      e.deviceMemoryPerChipGiB,
      e.vcpus,
      e.memoryGiB,
      ...cells,
    ]);
  }

  const lines = [table.toString(), ''];
  if (sources.length > 0) {
    lines.push('Price sources:', ...sources.map((s, i) => `[${i + 1}] ${s}`), '');
  }
  const specSources = [...new Set(entries.map((e) => e.source))];
  lines.push('Hardware sources:', ...specSources.map((s) => `- ${s}`), '');
  if (entries.some((e) => e.unverified || e.priceDetails.some((d) => d.unverified))) {
    lines.push('UNVERIFIED: no AWS-authored source backs the number; refresh it with `cdk-inferentia catalog refresh`.', '');
  }
  return lines.join('\n');
}

interface PriceColumn { readonly region: string; readonly hosting: Hosting; readonly kind: PricingKind }

function priceColumns(entries: readonly CatalogEntry[]): PriceColumn[] {
  const seen = new Map<string, PriceColumn>();
  for (const d of entries.flatMap((e) => e.priceDetails)) {
    seen.set(`${d.region}|${d.hosting}|${d.kind}`, { region: d.region, hosting: d.hosting, kind: d.kind });
  }
  return [...seen.values()].sort((a, b) => comparePrices(a as Price, b as Price));
}

interface CatalogFlags {
  readonly json?: boolean;
  readonly prices?: string;
  readonly region?: string;
  readonly hosting?: Hosting;
}

interface RefreshFlags {
  readonly regions: string;
  readonly hostings?: string;
  readonly instanceTypes?: string;
  readonly out: string;
}

/** Registers `catalog` and `catalog refresh` on the program. */
export function registerCatalogCommand(program: Command, io: CliIo): void {
  const catalog = program
    .command('catalog')
    .description('List the Neuron instance types with NeuronCores, memory and hourly prices (with sources)')
    .option('--json', 'print the instances as JSON')
    .option('--prices <file>', 'a price file that overrides or extends the built-in prices', once('--prices'))
    .option('--region <region>', `show only the prices of this region (the table's default: ${TABLE_DEFAULT_REGION})`, once('--region'))
    .addOption(new Option('--hosting <hosting>', 'show only the prices of this hosting').choices(HOSTINGS))
    .action((flags: CatalogFlags) => {
      if (flags.region !== undefined && !isAwsRegion(flags.region)) {
        throw new InputError(`--region: expected an AWS region code such as us-east-1, got "${flags.region}"`);
      }
      const loaded = loadCatalog(flags.prices);
      if (flags.json) {
        const filter: CatalogFilter = { region: flags.region, hosting: flags.hosting };
        warnWhenUnpriced(loaded, filter, io);
        io.stdout(`${JSON.stringify(catalogEntries(loaded, filter), null, 2)}\n`);
        return;
      }
      // A column per region would make the table unreadable: it shows one region, and names the others.
      const region = flags.region ?? TABLE_DEFAULT_REGION;
      const filter: CatalogFilter = { region, hosting: flags.hosting };
      warnWhenUnpriced(loaded, filter, io);
      io.stdout(formatCatalog(loaded, filter));
      const others = loaded.regionsWithPrices(flags.hosting).filter((r) => r !== region);
      if (others.length > 0) {
        io.stdout(`Prices of ${region} shown; the catalog also prices ${others.join(', ')} (pass --region, or --json for all).\n`);
      }
    });

  catalog
    .command('refresh')
    .description('Read current Neuron instance facts and on-demand prices from AWS (Price List API, EC2) into a price '
      + 'file for --prices. Needs pricing:GetProducts, ec2:DescribeInstanceTypes and ec2:DescribeInstanceTypeOfferings.')
    .requiredOption('--regions <list>', 'comma-separated region codes to price, e.g. us-east-1,eu-west-1', once('--regions'))
    .option('--hostings <list>', `comma-separated hostings to price (default: ${HOSTINGS.join(',')})`, once('--hostings'))
    .option('--instance-types <list>', 'comma-separated instance types (default: every catalog type)', once('--instance-types'))
    .requiredOption('--out <file>', 'where to write the price file (JSON)', once('--out'))
    .action(async (flags: RefreshFlags) => {
      // The default is applied here, not by commander, so `once` can tell a second --hostings from the default.
      const hostings = list(flags.hostings ?? HOSTINGS.join(','));
      const badHostings = hostings.filter((h) => !HOSTINGS.includes(h as Hosting));
      if (badHostings.length > 0) {
        throw new InputError(`--hostings: expected ${HOSTINGS.join(' and/or ')}, got ${badHostings.map((h) => `"${h}"`).join(', ')}`);
      }
      const regions = list(flags.regions);
      // Every flag checked before the first AWS call, each named as the user typed it.
      const problems = regions.filter((r) => !isAwsRegion(r)).map((r) => `--regions: "${r}" is not an AWS region code; e.g. --regions us-east-1,eu-west-1`);
      if (regions.length === 0) {
        problems.push('--regions: names no region; e.g. --regions us-east-1');
      }
      const outDir = dirname(resolve(flags.out));
      if (!existsSync(outDir) || !statSync(outDir).isDirectory()) {
        problems.push(`--out ${flags.out}: the directory ${outDir} does not exist; create it or write elsewhere`);
      }
      InputError.throwIfAny(problems);
      const file = await refreshCatalog({
        regions,
        hostings: hostings as Hosting[],
        ...(flags.instanceTypes !== undefined ? { instanceTypes: list(flags.instanceTypes) } : {}),
        pricing: new PricingClient({ region: PRICING_API_REGION }),
        ec2: (region) => new EC2Client({ region }),
      });
      try {
        writeFileSync(flags.out, `${JSON.stringify(file, null, 2)}\n`);
      } catch (e) {
        throw new InputError(`--out ${flags.out}: cannot write the file (${(e as Error).message})`);
      }
      for (const region of regions) {
        for (const hosting of hostings) {
          if (!file.prices.some((p) => p.region === region && p.hosting === hosting)) {
            io.stderr(`warning: AWS lists no ${hosting} price for the Neuron instance types in ${region}\n`);
          }
        }
      }
      io.stdout(`wrote ${plural(file.prices.length, 'price')} and ${plural(file.instances.length, 'instance type')} for `
        + `${regions.join(', ')} (${file.asOf}) to ${flags.out}; use it with --prices ${flags.out}\n`);
    });
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}


function warnWhenUnpriced(catalog: Catalog, filter: CatalogFilter, io: CliIo): void {
  if (filter.region === undefined) {
    return;
  }
  const hostings = filter.hosting ? [filter.hosting] : HOSTINGS;
  for (const hosting of hostings) {
    const regions = catalog.regionsWithPrices(hosting);
    if (!regions.includes(filter.region)) {
      io.stderr(`warning: no ${hosting} prices for ${filter.region} (${hosting} prices exist for `
        + `${regions.join(', ') || 'no region'}); add them with --prices FILE, e.g. written by `
        + `\`cdk-inferentia catalog refresh --regions ${filter.region} --out prices.json\`\n`);
    }
  }
}
