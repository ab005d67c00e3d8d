/**
 * The content hash that keys a compiled artifact: the same spec compiled by the same script is the same artifact.
 *
 * The hash covers the canonical spec (keys sorted, defaults filled in, so formatting and key order do not matter)
 * and the bytes of every file of the compile script, so editing the script recompiles. lib/ stays pure: the caller
 * (bin/ or a construct) reads the script files and passes their bytes.
 */
import { createHash } from 'node:crypto';
import type { CompileSpec } from './spec';

/** One file of the compile script, as the caller read it. */
export interface CompileScriptFile {
  /** Name relative to the script's folder, `/` separated, e.g. `compile.py`. */
  readonly name: string;
  readonly content: Uint8Array | string;
}

/** Characters of the hex digest kept in keys and names: 24 hex digits = 96 bits, far beyond any collision risk here. */
export const HASH_LENGTH = 24;

/**
 * JSON with object keys sorted at every level, so equal values always serialise to equal text: the compile hash and
 * the hostings' deployment fingerprints (what re-runs the smoke benchmark on a change) both hash it.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The artifact key of `spec` compiled by `script`: the first {@link HASH_LENGTH} hex digits of a SHA-256 over the
 * canonical spec and each script file (in name order, each framed by its name and length).
 */
export function compileHash(spec: CompileSpec, script: readonly CompileScriptFile[]): string {
  const hash = createHash('sha256');
  hash.update('cdk-inferentia compile v1\n');
  hash.update(canonicalJson(spec));
  for (const file of [...script].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const bytes = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content;
    hash.update(`\n${file.name}\n${bytes.length}\n`);
    hash.update(bytes);
  }
  return hash.digest('hex').slice(0, HASH_LENGTH);
}

/** SHA-256 of some bytes as hex, as `sha256sum` prints it (the boot script checks the downloaded script with it). */
export function sha256Hex(content: Uint8Array | string): string {
  return createHash('sha256').update(content).digest('hex');
}

/** `<prefix><hash>/`: where one artifact's files and manifest go. */
export function artifactPrefixOf(prefix: string, hash: string): string {
  return `${prefix}${hash}/`;
}
