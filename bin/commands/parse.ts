/**
 * Flag value parsers shared by the CLI commands: each rejects a bad value with commander's
 * `InvalidArgumentError`, so the message names the flag and the value, and the CLI exits 2.
 */
import { InvalidArgumentError } from 'commander';

/** A plain decimal number, exponent allowed: `Number()` alone would also take `0x10`, `0b11` and `Infinity`. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function number(value: string): number {
  const n = Number(value);
  if (!DECIMAL.test(value.trim()) || !Number.isFinite(n)) {
    throw new InvalidArgumentError(`expected a decimal number, got '${value}'.`);
  }
  return n;
}

/** A number above 0, e.g. requests per second or milliseconds. */
export function positiveNumber(value: string): number {
  const n = number(value);
  if (n <= 0) {
    throw new InvalidArgumentError(`expected a number above 0, got ${value}.`);
  }
  return n;
}

/** A number of 0 or more, e.g. a headroom fraction. */
export function nonNegativeNumber(value: string): number {
  const n = number(value);
  if (n < 0) {
    throw new InvalidArgumentError(`expected 0 or more, got ${value}.`);
  }
  return n;
}

/** A whole number of 1 or more, e.g. an instance count. */
export function positiveInteger(value: string): number {
  const n = number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new InvalidArgumentError(`expected a whole number of 1 or more, got ${value}.`);
  }
  return n;
}

/** A fraction from 0 to 1, e.g. an error rate. */
export function fraction(value: string): number {
  const n = number(value);
  if (n < 0 || n > 1) {
    throw new InvalidArgumentError(`expected a fraction from 0 to 1, got ${value}.`);
  }
  return n;
}

/** A comma-separated list, e.g. `inf2.xlarge,inf2.8xlarge`. */
export function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** One of the given words. */
export function oneOf<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value: string) => {
    if (!(choices as readonly string[]).includes(value)) {
      throw new InvalidArgumentError(`expected one of ${choices.join(', ')}, got '${value}'.`);
    }
    return value as T;
  };
}
