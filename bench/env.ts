/**
 * Environment variables of the bench scripts (`BENCH_REQUESTS=400 npm run bench:generative`), read strictly: a value
 * that is not what the variable takes stops the script before it starts anything, with one line naming the
 * variable, the value and the fix (exit 2, as the CLI's usage errors), instead of NaN reaching a loop or a stack trace.
 */

/** A bad bench variable. */
export class BenchEnvError extends Error {}

/** A whole number of at least 1 from `env[name]`, or `dflt` when it is unset. */
export function positiveIntegerEnv(env: NodeJS.ProcessEnv, name: string, dflt: number): number {
  const value = env[name];
  if (value === undefined) return dflt;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
    throw new BenchEnvError(`${name}=${JSON.stringify(value)} is not a whole number of at least 1; e.g. ${name}=${dflt} (the default)`);
  }
  return Number(value);
}

/** 1-based case numbers from a comma-separated `env[name]` (each within 1..count), or undefined when it is unset. */
export function caseListEnv(env: NodeJS.ProcessEnv, name: string, count: number): number[] | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  return value.split(',').map((item) => {
    const n = item.trim();
    if (!/^\d+$/.test(n) || Number(n) < 1 || Number(n) > count) {
      throw new BenchEnvError(`${name}=${JSON.stringify(value)}: case ${n} does not exist; the cases are 1 to ${count}, e.g. ${name}=1,${count}`);
    }
    return Number(n);
  });
}

/** `read()`, or the error's one line on stderr and exit code 2 when a variable is bad. */
export function readBenchEnv<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof BenchEnvError) {
      process.stderr.write(`error: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
}
