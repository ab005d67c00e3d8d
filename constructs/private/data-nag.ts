import { Stack } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';

/**
 * A policy resource as cdk-nag's IAM5 rule spells it in a finding id (`Resource::<this>`).
 *
 * Mirrors cdk-nag 3's `flattenCfnReference` (`lib/utils/flatten-cfn-reference`, not exported): `Fn::Join` is joined,
 * `Fn::GetAtt` becomes `<LogicalId.Attr>`, `Ref` becomes `<LogicalId>`, `${X}` in `Fn::Sub` becomes `<X>`. Resolve
 * in the stack of the policy, where cdk-nag resolves it.
 */
export function nagResource(scope: IConstruct, value: string): string {
  return flatten(Stack.of(scope).resolve(value));
}

function flatten(node: unknown): string {
  if (node === undefined) {
    return '';
  }
  if (typeof node === 'string') {
    return node.replace(/\${/g, '<').replace(/}/g, '>');
  }
  if (typeof node === 'object' && node !== null) {
    const o = node as Record<string, unknown>;
    if (Array.isArray(o['Fn::Join'])) {
      const [delimiter, items] = o['Fn::Join'] as [string, unknown[]];
      return items.map(flatten).join(delimiter);
    }
    if ('Fn::Sub' in o) {
      return flatten(o['Fn::Sub']);
    }
    if (Array.isArray(o['Fn::GetAtt'])) {
      const [resource, attribute] = o['Fn::GetAtt'] as [unknown, unknown];
      return `<${flatten(resource)}.${flatten(attribute)}>`;
    }
    if ('Fn::ImportValue' in o) {
      return flatten(o['Fn::ImportValue']);
    }
    if ('Ref' in o) {
      return `<${flatten(o.Ref)}>`;
    }
  }
  return JSON.stringify(node);
}
