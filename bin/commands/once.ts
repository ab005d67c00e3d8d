/**
 * A commander option parser that refuses a flag given twice.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';

/**
 * Refuses a second value: commander would silently keep the last one, so `--rate 10 --rate 1000` would run at
 * 1000 req/s with no word. Commander reports the error with the flag and exit code 2.
 */
export function once(flag: string): (value: string, previous: string | undefined) => string {
  return (value, previous) => {
    if (previous !== undefined) {
      throw new InvalidArgumentError(`${flag} is given twice (${previous}, then ${value}); give it once.`);
    }
    return value;
  };
}

/** `once` for a flag whose value is parsed (a number, a list): refuses a second value, then parses the first. */
export function onceParsed<T>(flag: string, parse: (value: string) => T): (value: string, previous: T | undefined) => T {
  return (value, previous) => {
    if (previous !== undefined) {
      throw new InvalidArgumentError(`${flag} is given twice (${String(previous)}, then ${value}); give it once.`);
    }
    return parse(value);
  };
}

/** One value flag: its flags and description as commander takes them, and the parser of a value that is not text. */
export type OnceOptionRow = readonly [flags: string, description: string, parse?: (value: string) => unknown];

/**
 * Declares value flags from a table, in its order, each refusing a second value (`once`, or `onceParsed` when the row
 * has a parser): one place for what every command's option list repeated, and a flag's name written once. An
 * `Option` in the table (one that conflicts, or is mandatory) is added as it is, keeping the help in table order.
 */
export function addOnceOptions(command: Command, rows: readonly (OnceOptionRow | Option)[]): Command {
  for (const row of rows) {
    if (row instanceof Option) {
      command.addOption(row);
      continue;
    }
    const [flags, description, parse] = row;
    const flag = flags.split(' ')[0];
    command.option(flags, description, onceParsed(flag, parse ?? String));
  }
  return command;
}
