/**
 * Evaluates a synthesized template's `Rules` section the way CloudFormation does before it creates a change set:
 * resolve `Ref`s to parameter values and pseudo parameters, skip rules whose `RuleCondition` is false, and report
 * every assertion that is false. Only the rule-specific functions our constructs and CDK write are supported; any
 * other throws, so a test cannot pass by not understanding a rule.
 *
 * @see https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/rules-section-structure.html
 */

/** Where the template is deployed, as CloudFormation resolves pseudo parameters and parameters. */
export interface RuleContext {
  readonly accountId: string;
  readonly region: string;
  /** Parameter values; parameters not given take their template `Default`. */
  readonly parameters?: Record<string, string>;
}

interface Template {
  readonly Parameters?: Record<string, { Default?: unknown }>;
  readonly Rules?: Record<string, { RuleCondition?: unknown; Assertions: { Assert: unknown; AssertDescription?: string }[] }>;
}

/**
 * The `AssertDescription` of every failing assertion, in template order: empty when CloudFormation would accept
 * the deploy.
 *
 * @param skip rule logical ids to leave out, e.g. CDK's `CheckBootstrapVersion`, whose SSM parameter has no value here
 */
export function failedRuleAssertions(template: unknown, context: RuleContext, skip: readonly string[] = ['CheckBootstrapVersion']): string[] {
  const t = template as Template;
  const ref = (name: string): unknown => {
    switch (name) {
      case 'AWS::AccountId': return context.accountId;
      case 'AWS::Region': return context.region;
      case 'AWS::Partition': return 'aws';
      case 'AWS::URLSuffix': return 'amazonaws.com';
      default:
        if (context.parameters?.[name] !== undefined) {
          return context.parameters[name];
        }
        if (t.Parameters?.[name]?.Default !== undefined) {
          return t.Parameters[name].Default;
        }
        throw new Error(`Ref ${name}: no such parameter or pseudo parameter`);
    }
  };
  const evaluate = (expr: unknown): unknown => {
    if (typeof expr === 'string' || typeof expr === 'number' || typeof expr === 'boolean') {
      return typeof expr === 'number' ? String(expr) : expr;
    }
    if (Array.isArray(expr)) {
      return expr.map(evaluate);
    }
    const entries = Object.entries(expr as Record<string, unknown>);
    if (entries.length !== 1) {
      throw new Error(`not a rule function: ${JSON.stringify(expr)}`);
    }
    const [fn, arg] = entries[0];
    const args = arg as unknown[];
    switch (fn) {
      case 'Ref': return ref(arg as string);
      case 'Fn::Not': return !truth(evaluate(args[0]));
      case 'Fn::And': return args.every((a) => truth(evaluate(a)));
      case 'Fn::Or': return args.some((a) => truth(evaluate(a)));
      case 'Fn::Equals': return evaluate(args[0]) === evaluate(args[1]);
      case 'Fn::Contains': return (evaluate(args[0]) as unknown[]).includes(evaluate(args[1]));
      default: throw new Error(`rule function ${fn} is not supported by this evaluator`);
    }
  };
  const failed: string[] = [];
  for (const [id, rule] of Object.entries(t.Rules ?? {})) {
    if (skip.includes(id) || (rule.RuleCondition !== undefined && !truth(evaluate(rule.RuleCondition)))) {
      continue;
    }
    for (const assertion of rule.Assertions) {
      if (!truth(evaluate(assertion.Assert))) {
        failed.push(assertion.AssertDescription ?? `(rule ${id})`);
      }
    }
  }
  return failed;
}

function truth(value: unknown): boolean {
  if (typeof value !== 'boolean') {
    throw new Error(`a rule condition or assertion must be true or false, got ${JSON.stringify(value)}`);
  }
  return value;
}
