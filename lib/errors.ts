/**
 * Errors users read. Each carries every problem found, so one run reports all of them at once.
 *
 * The CLI maps `InputError` to exit code 2 (bad usage) and `InfeasibleError` to exit code 1 (no plan fits);
 * constructs rethrow `InputError` at synth time.
 */

/** Bad input: each problem names the field, the value received, and the fix. */
export class InputError extends Error {
  /** One sentence per problem. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[] | string) {
    const list = typeof problems === 'string' ? [problems] : [...problems];
    super(list.length === 1 ? list[0] : `${list.length} problems:\n${list.map((p) => `- ${p}`).join('\n')}`);
    this.name = 'InputError';
    this.problems = list;
  }

  /** Throws one `InputError` listing every problem, when there is any. */
  static throwIfAny(problems: readonly string[]): void {
    if (problems.length > 0) {
      throw new InputError(problems);
    }
  }
}

/** Valid input that no option satisfies; `reasons` says why each option (family, instance) failed. */
export class InfeasibleError extends Error {
  readonly reasons: readonly string[];
  /** Machine-readable detail for `--json` output (the planner puts its resolved request and every rejection here). */
  readonly details?: Readonly<Record<string, unknown>>;

  constructor(summary: string, reasons: readonly string[], details?: Readonly<Record<string, unknown>>) {
    super(reasons.length > 0 ? `${summary}\n${reasons.map((r) => `- ${r}`).join('\n')}` : summary);
    this.name = 'InfeasibleError';
    this.reasons = reasons;
    this.details = details;
  }
}
