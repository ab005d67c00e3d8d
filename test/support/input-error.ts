import { InputError } from '../../lib/errors';

/** The InputError `fn` throws; fails the test when it throws nothing, and rethrows any other error. */
export function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) {
      return e;
    }
    throw e;
  }
  throw new Error('expected an InputError');
}

/** The problems of the InputError `fn` throws, or none when it throws nothing; rethrows any other error. */
export function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) {
      return e.problems;
    }
    throw e;
  }
  return [];
}
