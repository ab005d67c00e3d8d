/**
 * Reading the environments config for the CDK app and the `promote` command: the one place that turns the
 * `environments` context value (a file path, or the object inline in `cdk.json`) into a checked
 * {@link EnvironmentsConfig}.
 */
import { readFileSync } from 'fs';
import * as path from 'path';
import { Catalog, parsePriceFile } from '../lib/catalog';
import { parseEnvironments } from '../lib/environments';
import type { EnvironmentsConfig } from '../lib/environments';
import { InputError } from '../lib/errors';
import { messageOf, readJsonFile } from './commands/files';

/** The context key naming the environments config. */
export const ENVIRONMENTS_CONTEXT_KEY = 'environments';

/** What the environments config is read from. */
export interface EnvironmentsSource {
  /** The `environments` context value: a JSON file path (relative to `baseDir`) or the config object itself. */
  readonly environments: unknown;
  /** The `prices` context value: a price file for regions the built-in catalog does not price. */
  readonly prices?: unknown;
  /** Directory relative paths are resolved from: where `cdk.json` is. */
  readonly baseDir: string;
  /** How the value was given, for messages: `context environments` or `--config`. */
  readonly origin: string;
}

/**
 * Reads and checks the environments config.
 *
 * @throws InputError naming the file or context key, the environment and the field of every problem
 */
export function loadEnvironments(source: EnvironmentsSource): EnvironmentsConfig {
  const { environments, origin } = source;
  let json: unknown;
  let name: string;
  if (typeof environments === 'string' && environments.trim() !== '') {
    const file = path.resolve(source.baseDir, environments.trim());
    json = readJsonFile(origin, file, '; see examples/environments.json for the shape');
    name = environments.trim();
  } else if (typeof environments === 'object' && environments !== null && !Array.isArray(environments)) {
    json = environments;
    name = origin;
  } else {
    throw new InputError(`${origin}=${JSON.stringify(environments)} is neither a file path nor a config object; set `
      + `"${ENVIRONMENTS_CONTEXT_KEY}": "examples/environments.json" in cdk.json context (or -c environments=<file>)`);
  }
  return parseEnvironments(json, { source: name, catalog: readCatalog(source.prices, source.baseDir) });
}

/**
 * The CDK context in `<dir>/cdk.json`, so the CLI reads the same config the app does.
 *
 * @throws InputError when there is no readable cdk.json
 */
export function readCdkContext(dir: string): Record<string, unknown> {
  const file = path.join(dir, 'cdk.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`no --config given and ${file} cannot be read (${messageOf(e)}); run from the CDK app's `
      + 'directory or pass --config <environments.json>');
  }
  try {
    const context = (JSON.parse(text) as { context?: unknown }).context;
    return typeof context === 'object' && context !== null ? context as Record<string, unknown> : {};
  } catch (e) {
    throw new InputError(`${file} is not valid JSON (${messageOf(e)})`);
  }
}

function readCatalog(prices: unknown, baseDir: string): Catalog {
  if (prices === undefined) {
    return Catalog.builtIn();
  }
  if (typeof prices !== 'string' || prices.trim() === '') {
    throw new InputError(`prices=${JSON.stringify(prices)} is not a file path; pass a price file written by `
      + '`npx cdk-inferentia catalog refresh --regions <region> --out prices.json`');
  }
  const file = path.resolve(baseDir, prices.trim());
  return Catalog.builtIn().withPriceFile(parsePriceFile(readJsonFile('prices', file), `prices=${prices}`));
}
