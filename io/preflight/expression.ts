/**
 * Resolves the CloudFormation expressions a synthesized stack writes for names known before the deploy: an image
 * URI joined from the stack's account, region and URL suffix, or from another stack's exported repository. What
 * depends on a resource created in the deploy (a generated name, an uploaded object) stays unresolved.
 */

/** A stack's environment and the exports of the assembly it is in. */
export interface ExpressionScope {
  readonly account: string;
  readonly region: string;
  /** The template's resources, for `Ref` and `Fn::GetAtt` of resources whose physical name the template sets. */
  readonly resources: Readonly<Record<string, { readonly Type?: string; readonly Properties?: Record<string, unknown> }>>;
  /** Export name to value expression and the scope it resolves in, across every stack of the assembly. */
  readonly exports?: ReadonlyMap<string, { readonly value: unknown; readonly scope: ExpressionScope }>;
}

function partition(region: string): { partition: string; urlSuffix: string } {
  if (region.startsWith('cn-')) {
    return { partition: 'aws-cn', urlSuffix: 'amazonaws.com.cn' };
  }
  return { partition: region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws', urlSuffix: 'amazonaws.com' };
}

/** Physical names this resolver knows: an ECR repository with a literal RepositoryName, its Ref and Arn. */
function resourceValue(scope: ExpressionScope, id: string, attribute: 'Ref' | string): string | undefined {
  const resource = scope.resources[id];
  const name = resource?.Properties?.RepositoryName;
  if (resource?.Type !== 'AWS::ECR::Repository' || typeof name !== 'string') {
    return undefined;
  }
  if (attribute === 'Ref') {
    return name;
  }
  return attribute === 'Arn' ? `arn:${partition(scope.region).partition}:ecr:${scope.region}:${scope.account}:repository/${name}` : undefined;
}

/**
 * The string `value` stands for, or undefined when it depends on something only the deploy knows.
 *
 * Handles literals, `Ref` (pseudo parameters and named ECR repositories), `Fn::GetAtt` (a named repository's Arn),
 * `Fn::Join`, `Fn::Select`, `Fn::Split` and `Fn::ImportValue` of another stack's export.
 */
export function resolveString(value: unknown, scope: ExpressionScope): string | undefined {
  const resolved = resolve(value, scope);
  return typeof resolved === 'string' ? resolved : undefined;
}

function resolve(value: unknown, scope: ExpressionScope): string | string[] | undefined {
  if (typeof value === 'string') {
    return value;
  }
  if (Array.isArray(value)) {
    const items = value.map((v) => resolve(v, scope));
    return items.every((i): i is string => typeof i === 'string') ? items : undefined;
  }
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  const [fn, arg] = Object.entries(value)[0] ?? [];
  switch (fn) {
    case 'Ref': {
      const pseudo: Record<string, string> = {
        'AWS::Region': scope.region, 'AWS::AccountId': scope.account,
        'AWS::URLSuffix': partition(scope.region).urlSuffix, 'AWS::Partition': partition(scope.region).partition,
      };
      return typeof arg === 'string' ? pseudo[arg] ?? resourceValue(scope, arg, 'Ref') : undefined;
    }
    case 'Fn::GetAtt':
      return Array.isArray(arg) && typeof arg[0] === 'string' && typeof arg[1] === 'string' ? resourceValue(scope, arg[0], arg[1]) : undefined;
    case 'Fn::Join': {
      const parts = Array.isArray(arg) ? resolve(arg[1], scope) : undefined;
      return Array.isArray(arg) && typeof arg[0] === 'string' && Array.isArray(parts) ? parts.join(arg[0]) : undefined;
    }
    case 'Fn::Split': {
      const source = Array.isArray(arg) ? resolve(arg[1], scope) : undefined;
      return Array.isArray(arg) && typeof arg[0] === 'string' && typeof source === 'string' ? source.split(arg[0]) : undefined;
    }
    case 'Fn::Select': {
      const list = Array.isArray(arg) ? resolve(arg[1], scope) : undefined;
      const index = Array.isArray(arg) ? Number(arg[0]) : NaN;
      return Array.isArray(list) && Number.isInteger(index) ? list[index] : undefined;
    }
    case 'Fn::ImportValue': {
      const exported = typeof arg === 'string' ? scope.exports?.get(arg) : undefined;
      return exported !== undefined ? resolve(exported.value, exported.scope) : undefined;
    }
    default:
      return undefined;
  }
}
