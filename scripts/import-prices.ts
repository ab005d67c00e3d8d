/**
 * Regenerates the built-in price table (`lib/catalog/data/on-demand.ts`) from downloaded AWS Price List bulk offer
 * files, so a price update is one command:
 *
 *   curl -O https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/eu-west-1/index.csv
 *   npm run prices:import -- index.csv [more files...]
 *
 * Each file is a regional (or global) offer of AmazonEC2 or AmazonSageMaker, as index.csv (read line by line, so
 * the EC2 files of several hundred MB are fine) or index.json. Every row of a region and hosting a file covers is
 * replaced by the Neuron on-demand prices it holds; other rows are kept. `--check` prints what would change and
 * writes nothing; `--out FILE` writes elsewhere (the tests use it). Arguments are parsed by commander: an unknown
 * option, a bare `--out`, no file, a missing file or a file that is not an offer exits 2 with one line naming it,
 * before anything is written.
 */
import { createReadStream, existsSync, readFileSync, writeFileSync } from 'fs';
import { createInterface } from 'readline';
import { Command, CommanderError } from 'commander';
import { BUILT_IN_INSTANCES } from '../lib/catalog/instances';
import { OFFER_FILES_READ, PRICE_TABLE_ROWS, PRICE_TABLE_SOURCES } from '../lib/catalog/data/on-demand';
import {
  CsvOfferReader, ImportedOffer, instanceRegionOf, jsonOfferRecords, mergeOffers, neuronPriceOf, OFFER_SERVICES, OfferPrice, OfferRecord,
  PriceTable,
} from '../lib/catalog/offer-file';

/** The table the repository ships. */
export const CURRENT_TABLE: PriceTable = { sources: PRICE_TABLE_SOURCES, offersRead: OFFER_FILES_READ, rows: PRICE_TABLE_ROWS };

/** Reads one offer file (CSV streamed, JSON whole) into the Neuron prices it holds. */
export async function readOffer(path: string): Promise<ImportedOffer> {
  const prices: OfferPrice[] = [];
  const regions = new Set<string>();
  let service: string | undefined;
  const keep = (records: Iterable<OfferRecord>) => {
    for (const record of records) {
      const price = service ? neuronPriceOf(record, service) : undefined;
      if (price) {
        prices.push(price);
      }
      const region = service ? instanceRegionOf(record, service) : undefined;
      if (region) {
        regions.add(region);
      }
    }
  };
  if (path.endsWith('.json')) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new UsageError(`${path}: not valid JSON (${(e as Error).message}); give an offer file as AWS publishes it`);
    }
    const { header, records } = jsonOfferRecords(json);
    service = header.service;
    checkService(path, service);
    keep(records);
    return { service: service!, header, prices, regions: [...regions].sort() };
  }
  const reader = new CsvOfferReader();
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) {
    const record = reader.line(line);
    if (record) {
      service ??= reader.header().service;
      checkService(path, service);
      keep([record]);
    }
  }
  checkService(path, reader.header().service);
  return { service: reader.header().service!, header: reader.header(), prices, regions: [...regions].sort() };
}

function checkService(path: string, service: string | undefined): void {
  if (!service || !(service in OFFER_SERVICES)) {
    throw new UsageError(`${path}: offer code ${service === undefined ? 'missing' : `"${service}"`}; expected an offer file of `
      + `${Object.keys(OFFER_SERVICES).join(' or ')} (https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/<service>/current/<region>/index.csv)`);
  }
}

/** A single-quoted TypeScript string literal. */
const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The TypeScript source of the table file. */
export function renderPriceTable(table: PriceTable): string {
  const sources = Object.entries(table.sources).map(([key, s]) =>
    `  ${q(key)}: {\n    source: ${q(s.source)},\n    asOf: ${q(s.asOf)},\n    unverified: ${s.unverified},\n  },`);
  const offers = table.offersRead.map((o) =>
    `  { service: ${q(o.service)}, region: ${q(o.region)}, ${o.version ? `version: ${q(o.version)}, ` : ''}asOf: ${q(o.asOf)} },`);
  const rows = table.rows.map(([t, r, h, usd, key]) => `  [${q(t)}, ${q(r)}, ${q(h)}, ${usd}, ${q(key)}],`);
  return `${TEMPLATE_HEAD}
/** The sources of the rows, by key. */
export const PRICE_TABLE_SOURCES: Readonly<Record<string, PriceTableSource>> = {
${sources.join('\n')}
};

/** The offer files the table was last regenerated from. */
export const OFFER_FILES_READ: readonly OfferFileRead[] = [${offers.length ? `\n${offers.join('\n')}\n` : ''}];

/** The rows, in catalog instance order, then by region and hosting. Missing: see SOURCES.md, Prices. */
export const PRICE_TABLE_ROWS: readonly PriceTableRow[] = [
${rows.join('\n')}
];
`;
}

const TEMPLATE_HEAD = `/*
 * On-demand hourly prices of the Neuron instance types, by region: the built-in table. GENERATED by
 * \`npm run prices:import -- <offer file>...\` (scripts/import-prices.ts) from downloaded AWS Price List bulk offer
 * files (AmazonEC2 and AmazonSageMaker, regional index.csv or index.json): the rows of the regions and services a file
 * covers are replaced by what it says, the other rows are kept. Edit by hand only to add a row from a source the
 * script cannot read, with its source; SOURCES.md ("Prices") says how far each source is trusted.
 *
 * Where no source has a number (a region, a hosting, an instance type), there is no row: the planner never prices
 * with a guess, and \`plan\` names the region's missing prices and how to add them.
 */
import type { OfferFileRead, PriceTableRow, PriceTableSource } from './price-table';

export type { OfferFileRead, PriceTableRow, PriceTableSource } from './price-table';
`;

/** What changed between two tables, one line per row added, removed or repriced. */
export function diffTables(before: PriceTable, after: PriceTable): string[] {
  const index = (t: PriceTable) => new Map(t.rows.map((r) => [`${r[0]} ${r[1]} ${r[2]}`, r[3]]));
  const a = index(before);
  const b = index(after);
  const lines: string[] = [];
  for (const [key, usd] of b) {
    if (!a.has(key)) {
      lines.push(`+ ${key} ${usd}`);
    } else if (a.get(key) !== usd) {
      lines.push(`~ ${key} ${a.get(key)} -> ${usd}`);
    }
  }
  for (const [key, usd] of a) {
    if (!b.has(key)) {
      lines.push(`- ${key} ${usd}`);
    }
  }
  return lines;
}

/** A bad argument: printed as one line and exit code 2, like the CLI's usage errors. */
export class UsageError extends Error {}

/** What `main` reads from the command line. */
interface ImportOptions {
  readonly check: boolean;
  readonly out: string;
  readonly files: readonly string[];
}

const DEFAULT_OUT = 'lib/catalog/data/on-demand.ts';

/** The arguments, parsed by commander: unknown options, a bare `--out` and no file at all are usage errors. */
function parseArguments(argv: readonly string[]): ImportOptions {
  const program = new Command('prices:import')
    .description('Regenerate lib/catalog/data/on-demand.ts from downloaded AWS Price List offer files')
    .argument('<offer-file...>', 'AmazonEC2 or AmazonSageMaker offer files (index.csv or index.json)')
    .option('--check', 'print what would change; write nothing')
    .option('--out <file>', 'where to write the table', DEFAULT_OUT)
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  try {
    program.parse([...argv], { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.missingArgument') {
        throw new UsageError('give at least one offer file: npm run prices:import -- index.csv [more files...] '
          + '(download one from https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/<region>/index.csv)');
      }
      throw new UsageError(e.message.replace(/^error: /, ''));
    }
    throw e;
  }
  const files = program.args;
  const missing = files.filter((f) => !existsSync(f));
  if (missing.length > 0) {
    throw new UsageError(missing.map((f) => `${f}: no such file; give a downloaded offer file (index.csv or index.json)`).join('\n'));
  }
  const { check, out } = program.opts<{ check?: boolean; out: string }>();
  return { check: check === true, out, files };
}

export async function main(argv: readonly string[], today = new Date().toISOString().slice(0, 10)): Promise<string> {
  const { check, out, files } = parseArguments(argv);
  const offers: ImportedOffer[] = [];
  for (const file of files) {
    offers.push(await readOffer(file));
  }
  const merged = mergeOffers(CURRENT_TABLE, offers, BUILT_IN_INSTANCES.map((i) => i.name), today);
  const changes = diffTables(CURRENT_TABLE, merged);
  const summary = offers.map((o) => `${o.service} ${o.regions?.join(', ') || '(no instance of any type)'}: `
    + `${o.prices.length} Neuron price${o.prices.length === 1 ? '' : 's'}${o.header.version ? `, version ${o.header.version}` : ''}`);
  if (!check) {
    try {
      writeFileSync(out, renderPriceTable(merged));
    } catch (e) {
      throw new UsageError(`--out ${out}: cannot write the file (${(e as Error).message})`);
    }
  }
  return [...summary, ...changes, `${changes.length} change${changes.length === 1 ? '' : 's'}${check ? ' (--check: nothing written)' : `, wrote ${out}`}`].join('\n');
}

/** Runs the script as `npm run prices:import` does: the summary on stdout, or one error line and exit code 2. */
export async function cli(argv: readonly string[], io: { stdout(s: string): void; stderr(s: string): void },
  today?: string): Promise<number> {
  try {
    io.stdout(`${await main(argv, today)}\n`);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

if (require.main === module) {
  cli(process.argv.slice(2), { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) })
    .then((code) => {
      process.exitCode = code;
    }, (e: Error) => {
      console.error(`error: ${e.message}`);
      process.exitCode = 1;
    });
}
