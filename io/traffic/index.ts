/**
 * Reading a traffic file (a gateway log, a benchmark export) from disk, streamed line by line: a million rows never sit
 * in memory as text, only their counts and times do (`lib/traffic/parser.ts` reads each line as it comes).
 */
import { createReadStream, statSync } from 'fs';
import { basename } from 'path';
import { createInterface } from 'readline';
import { InputError } from '../../lib/errors';
import { TrafficParser } from '../../lib/traffic/parser';
import type { TrafficSummary } from '../../lib/traffic/types';

/**
 * Largest file read: a JSON document (a vLLM or guidellm export) is parsed whole, and V8 holds a string of at most
 * about 512 MiB; CSV and JSON lines are streamed and could be longer, but a plan needs far fewer rows than that.
 */
export const MAX_TRAFFIC_FILE_BYTES = 2 ** 30;

/**
 * The summary of the traffic file at `path`.
 *
 * @throws InputError when the file cannot be read, is too large, or holds nothing usable, naming the line and the fix
 */
export async function readTrafficFile(path: string): Promise<TrafficSummary> {
  const name = basename(path);
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) {
      throw new InputError(`${path}: not a file; give a CSV, JSON lines or JSON export of your requests`);
    }
    size = stat.size;
  } catch (e) {
    if (e instanceof InputError) {
      throw e;
    }
    throw new InputError(`${path}: cannot read the file (${(e as { code?: string }).code ?? String(e)})`);
  }
  if (size > MAX_TRAFFIC_FILE_BYTES) {
    throw new InputError(`${path}: ${(size / 2 ** 20).toFixed(0)} MiB is more than the ${MAX_TRAFFIC_FILE_BYTES / 2 ** 20} MiB read; give a day's or a week's sample of the rows`);
  }
  const parser = new TrafficParser(name);
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      parser.line(line);
    }
  } catch (e) {
    if (e instanceof InputError) {
      throw e;
    }
    throw new InputError(`${path}: cannot read the file (${(e as { code?: string }).code ?? String(e)})`);
  } finally {
    lines.close();
  }
  return parser.finish();
}
