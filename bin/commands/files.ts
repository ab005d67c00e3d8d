/**
 * Reading the files users name on the command line, with errors that name the flag and the file.
 */
import { readFileSync } from 'fs';
import { InputError } from '../../lib/errors';

/** The message of a thrown value; duck-typed because errors from `fs` may come from another realm (jest). */
export function messageOf(e: unknown): string {
  const message = (e as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(e);
}

/**
 * Reads and parses the JSON file given with `flag`.
 *
 * @param hint appended to the not-JSON error, e.g. what a valid file looks like
 * @throws InputError `--flag FILE: cannot read the file (...)` or `--flag FILE: not valid JSON (...)`
 */
export function readJsonFile(flag: string, file: string, hint = ''): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`${flag} ${file}: cannot read the file (${messageOf(e)})`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InputError(`${flag} ${file}: not valid JSON (${messageOf(e)})${hint}`);
  }
}
