/**
 * Checks CloudFormation resource properties against the resource schema aws-cdk-lib's L1 classes were generated from
 * (`@aws-cdk/aws-service-spec`, the database `spec2cdk` reads): every property a known one, every required one
 * there, every value of its type, recursively through property types, lists and maps.
 *
 * cfn-lint 1.51's bundled schema predates SageMaker's instance pools (`InstancePools`,
 * `VariantInstanceProvisionTimeoutInSeconds` on `AWS::SageMaker::EndpointConfig`, `Specifications` on
 * `AWS::SageMaker::InferenceComponent`): the resources that carry them are checked here instead, against the schema
 * the CDK builds them from. A value that is a CloudFormation intrinsic (`Ref`, `Fn::*`) is accepted wherever a
 * value goes: it is resolved at deploy time.
 *
 * Loading the database takes about 3 s of CPU (2.6 MB gzipped JSON): load it once per test file.
 */
import { loadAwsServiceSpecSync } from '@aws-cdk/aws-service-spec';
import type { PropertyType, SpecDatabase, TypeDefinition } from '@aws-cdk/service-spec-types';

let db: SpecDatabase | undefined;

/** The database, loaded on first use. */
function spec(): SpecDatabase {
  db ??= loadAwsServiceSpecSync();
  return db;
}

/** True for `{ Ref }` and `{ 'Fn::...' }`: a value CloudFormation resolves at deploy time. */
function intrinsic(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return false;
  }
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'Ref' || keys[0].startsWith('Fn::'));
}

/**
 * Every way `properties` break the schema of `resourceType`, one sentence each naming the property path; empty
 * when they fit.
 *
 * @throws Error when the database has no such resource type
 */
export function serviceSpecProblems(resourceType: string, properties: Record<string, unknown>): string[] {
  const resource = spec().lookup('resource', 'cloudFormationType', 'equals', resourceType).only();
  const problems: string[] = [];
  checkObject(resource.properties, properties, resourceType, problems);
  return problems;
}

function checkObject(schema: Record<string, { readonly type: PropertyType; readonly required?: boolean }>, value: Record<string, unknown>,
  path: string, problems: string[]): void {
  for (const [name, property] of Object.entries(schema)) {
    if (property.required && value[name] === undefined) {
      problems.push(`${path}.${name} is required`);
    }
  }
  for (const [name, v] of Object.entries(value)) {
    const property = schema[name];
    if (property === undefined) {
      problems.push(`${path}.${name} is not a property of the schema (known: ${Object.keys(schema).sort().join(', ')})`);
    } else {
      checkValue(property.type, v, `${path}.${name}`, problems);
    }
  }
}

function checkValue(type: PropertyType, value: unknown, path: string, problems: string[]): void {
  if (intrinsic(value)) {
    return;
  }
  const wrong = (expected: string) => problems.push(`${path}=${JSON.stringify(value)?.slice(0, 120)} is not ${expected}`);
  switch (type.type) {
    case 'string':
      if (typeof value !== 'string') wrong('a string');
      else if (type.allowedValues !== undefined && !type.allowedValues.includes(value)) wrong(`one of ${type.allowedValues.join(', ')}`);
      return;
    case 'number':
      if (typeof value !== 'number') wrong('a number');
      return;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) wrong('an integer');
      return;
    case 'boolean':
      if (typeof value !== 'boolean') wrong('a boolean');
      return;
    case 'date-time':
      if (typeof value !== 'string') wrong('a date-time string');
      return;
    case 'null':
      if (value !== null) wrong('null');
      return;
    case 'json':
      return;
    case 'tag':
      if (typeof value !== 'object' || value === null) wrong('a tag');
      return;
    case 'array':
      if (!Array.isArray(value)) wrong('a list');
      else value.forEach((element, i) => checkValue(type.element, element, `${path}[${i}]`, problems));
      return;
    case 'map':
      if (typeof value !== 'object' || value === null || Array.isArray(value)) wrong('a map');
      else Object.entries(value).forEach(([k, v]) => checkValue(type.element, v, `${path}.${k}`, problems));
      return;
    case 'union': {
      const fits = type.types.some((t) => {
        const trial: string[] = [];
        checkValue(t, value, path, trial);
        return trial.length === 0;
      });
      if (!fits) wrong('of any type the union allows');
      return;
    }
    case 'ref': {
      const definition = spec().get('typeDefinition', type.reference) as TypeDefinition;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) wrong(`a ${definition.name}`);
      else checkObject(definition.properties, value as Record<string, unknown>, path, problems);
      return;
    }
  }
}

/** A cfn-lint `--override-spec` file: JSON patches of its resource schemas, by resource type. */
export interface CfnLintPatch {
  readonly Patches: Record<string, ReadonlyArray<{ readonly op: string; readonly path: string; readonly value?: unknown }>>;
}

/** `"<resource type> <property>"` -> its kind (`string`, `integer`, `array`, `object`), ` required` when it is. */
export type PropertyShapes = Record<string, string>;

type JsonSchema = { readonly type?: string; readonly $ref?: string; readonly properties?: Record<string, JsonSchema>; readonly required?: readonly string[] };

/**
 * The shapes of the properties a cfn-lint patch adds: those added one by one (`.../properties/<name>`), and those of
 * each definition it adds, by resource type.
 */
export function patchedShapes(patch: CfnLintPatch): PropertyShapes {
  const shapes: PropertyShapes = {};
  const kind = (s: JsonSchema) => s.type ?? (s.$ref !== undefined ? 'object' : 'unknown');
  for (const [resourceType, ops] of Object.entries(patch.Patches)) {
    for (const op of ops.filter((o) => o.op === 'add')) {
      const value = op.value as JsonSchema;
      if (/\/properties\/[^/]+$/.test(op.path)) {
        shapes[`${resourceType} ${op.path.split('/').pop()}`] = kind(value);
      }
      for (const [name, property] of Object.entries(value.properties ?? {})) {
        shapes[`${resourceType} ${name}`] = kind(property) + (value.required?.includes(name) ? ' required' : '');
      }
    }
  }
  return shapes;
}

/**
 * The shapes of the same properties in the schema: for each resource type, the properties `names` of the type reached
 * by following `path` from the resource (through lists and property types), and the last step of the path itself when
 * `container` says the patch adds it too.
 */
export function serviceSpecShapes(entries: ReadonlyArray<readonly [string, readonly string[], readonly string[], boolean]>): PropertyShapes {
  const shapes: PropertyShapes = {};
  const kind = (t: PropertyType): string => (t.type === 'ref' ? 'object' : t.type);
  for (const [resourceType, path, names, container] of entries) {
    let properties: Record<string, { readonly type: PropertyType; readonly required?: boolean }> =
      spec().lookup('resource', 'cloudFormationType', 'equals', resourceType).only().properties;
    for (const [i, step] of path.entries()) {
      const property = properties[step];
      if (container && i === path.length - 1) {
        shapes[`${resourceType} ${step}`] = kind(property.type);
      }
      const element = property.type.type === 'array' ? property.type.element : property.type;
      if (element.type !== 'ref') {
        throw new Error(`${resourceType} ${path.slice(0, i + 1).join('.')} is no property type`);
      }
      properties = (spec().get('typeDefinition', element.reference) as TypeDefinition).properties;
    }
    for (const name of names) {
      shapes[`${resourceType} ${name}`] = kind(properties[name].type) + (properties[name].required ? ' required' : '');
    }
  }
  return shapes;
}
