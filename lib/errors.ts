/**
 * Errors users read. Each carries every problem found, so one run reports all of them at once.
 *
 * The CLI maps `InputError` to exit code 2 (bad usage) and `InfeasibleError` to exit code 1 (no plan fits);
 * constructs rethrow `InputError` at synth time.
 */

/** Options of {@link InputError}. */
export interface InputErrorOptions {
  /**
   * Path of the construct whose props are wrong (`Stack/Endpoint`): the message starts with it, as aws-cdk-lib's own
   * validation errors name theirs, so with two endpoints in a stack the message says which.
   *
   * @default - not raised by a construct: the message is the problems alone
   */
  readonly constructPath?: string;
}

/** Bad input: each problem names the field, the value received, and the fix. */
export class InputError extends Error {
  /** One sentence per problem (without the construct path, which is `constructPath`). */
  readonly problems: readonly string[];
  /** Path of the construct that refused its props, when a construct did. */
  readonly constructPath?: string;

  constructor(problems: readonly string[] | string, options: InputErrorOptions = {}) {
    const path = options.constructPath;
    // A problem that already names the construct loses the prefix: the message names it once.
    const list = (typeof problems === 'string' ? [problems] : [...problems])
      .map((p) => (path !== undefined && p.startsWith(`${path}: `) ? p.slice(path.length + 2) : p));
    const body = list.length === 1 ? list[0] : `${list.length} problems:\n${list.map((p) => `- ${p}`).join('\n')}`;
    super(path === undefined ? body : `${path}: ${body}`);
    this.name = 'InputError';
    this.problems = list;
    this.constructPath = path;
  }

  /** Throws one `InputError` listing every problem, when there is any. */
  static throwIfAny(problems: readonly string[], options: InputErrorOptions = {}): void {
    if (problems.length > 0) {
      throw new InputError(problems, options);
    }
  }

  /**
   * `error` as raised by the construct at `constructPath`: the same problems, the path in front of the message. An
   * error that already names a construct (a child's, deeper in the tree) is returned as it is.
   */
  static at(constructPath: string, error: InputError): InputError {
    return error.constructPath !== undefined ? error : new InputError(error.problems, { constructPath });
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
