import { CfnResource, Stack } from 'aws-cdk-lib';

/**
 * The CloudFormation `Properties` of a resource exactly as they will appear in the template.
 *
 * Rules read the rendered template rather than the typed L1 attributes so that they see the same thing CloudFormation
 * sees: PascalCase keys, `addPropertyOverride` escape hatches applied, and plain `CfnResource` nodes (which have no
 * typed attributes) handled like their `Cfn*` counterparts. Tokens come back as intrinsic functions
 * (`{ Ref }`, `{ 'Fn::GetAtt' }`, `{ 'Fn::Join' }`...), which callers treat as unknown values.
 *
 * `_toCloudFormation()` is the method synthesis itself calls to render the resource; validation plugins run after
 * synthesis on a finalized tree, so calling it again has no side effect.
 */
export function renderedProperties(node: CfnResource): Record<string, unknown> {
  const rendered = Stack.of(node).resolve(node._toCloudFormation()) as { Resources?: Record<string, unknown> };
  const [resource] = Object.values(rendered.Resources ?? {});
  const properties = isRecord(resource) ? resource.Properties : undefined;
  return isRecord(properties) ? properties : {};
}

/** True for a plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * True when the value is a CloudFormation intrinsic function (`Ref`, `Fn::*`, `Condition`): a value known only at
 * deploy time, which a synth-time rule cannot judge.
 */
export function isIntrinsic(value: unknown): boolean {
  if (!isRecord(value)) {
    return false;
  }
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'Ref' || keys[0] === 'Condition' || keys[0].startsWith('Fn::'));
}

/**
 * `property.field` of a `type` resource as rendered (`value` undefined when `property` or the field is absent), for a
 * rule that judges one nested setting; undefined where the rule does not apply: another resource type, or an
 * intrinsic function in `property`'s place that synth cannot judge.
 */
export function nestedSetting(node: CfnResource, type: string, property: string, field: string): { readonly value: unknown } | undefined {
  if (node.cfnResourceType !== type) {
    return undefined;
  }
  const outer = renderedProperties(node)[property];
  if (isIntrinsic(outer)) {
    return undefined;
  }
  return { value: isRecord(outer) ? outer[field] : undefined };
}

/**
 * A CloudFormation boolean as written in the template: `true`/`false` or the strings `"true"`/`"false"`, which
 * CloudFormation accepts too.
 *
 * @returns the boolean, `undefined` when the property is absent, or `'unresolved'` for an intrinsic function.
 */
export function cfnBoolean(value: unknown): boolean | undefined | 'unresolved' {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value === 'boolean') {
    return value;
  }
  if (typeof value === 'string' && ['true', 'false'].includes(value.toLowerCase())) {
    return value.toLowerCase() === 'true';
  }
  return 'unresolved';
}

/**
 * The elements of a CloudFormation list property, or `'unresolved'` when the list itself is an intrinsic function.
 *
 * An absent property is an empty list.
 */
export function cfnList(value: unknown): unknown[] | 'unresolved' {
  if (value === undefined) {
    return [];
  }
  return Array.isArray(value) ? value : 'unresolved';
}
