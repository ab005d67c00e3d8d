/**
 * A commander option parser that refuses a flag given twice.
 */
import { InvalidArgumentError } from 'commander';

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
