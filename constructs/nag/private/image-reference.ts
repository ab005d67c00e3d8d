import { isRecord } from './cfn-properties';

/**
 * What a container image reference pins.
 *
 * - `digest`: the reference ends in `@sha256:<digest>`, so it names one immutable image.
 * - `tag`: the reference ends in `:<tag>`, or in a bare repository name (Docker reads that as `:latest`), or in a
 *   malformed digest. Whoever can push to the repository can change what it runs.
 * - `unknown`: the end of the reference is a deploy-time value (a parameter, a custom resource attribute...), so it
 *   cannot be judged at synth time.
 */
export type ImageReferenceKind = 'digest' | 'tag' | 'unknown';

/** `@sha256:` followed by exactly 64 lowercase hex digits, at the end of the reference. */
const LITERAL_DIGEST_SUFFIX = /@sha256:[0-9a-f]{64}$/;
const LITERAL_DIGEST_LENGTH = '@sha256:'.length + 64;

/**
 * Classifies an image reference given as parts: strings are literal text, any other value (an intrinsic function such
 * as `{ Ref }` or `{ 'Fn::GetAtt' }`, or an unresolved token) is an opaque part known only at deploy time.
 *
 * Only the end of the reference decides, because that is where a tag or digest lives: `<uri>@sha256:<64 hex>` with the
 * URI from `repository.repositoryUri` is a digest; `<uri>:latest`, `<uri>:v1` and a bare `<uri>` are tags; `<uri>@`
 * or `<uri>@sha256:` followed by an opaque part is a digest whose value is not known yet; a reference that ends in an
 * opaque part after anything else is unknown.
 *
 * @param uriParts the reference split into literal strings and opaque parts, e.g. from {@link imageUriParts}.
 */
export function classifyImageReference(uriParts: readonly unknown[]): ImageReferenceKind {
  const segments = mergeLiterals(uriParts);
  const last = segments[segments.length - 1];
  if (last === undefined) {
    return 'unknown';
  }
  if (typeof last === 'string') {
    // A digest needs a repository in front of it, literal or opaque.
    const hasRepository = segments.length > 1 || last.length > LITERAL_DIGEST_LENGTH;
    return LITERAL_DIGEST_SUFFIX.test(last) && hasRepository ? 'digest' : 'tag';
  }
  const before = segments[segments.length - 2];
  if (typeof before === 'string') {
    if (/@(sha256:)?$/.test(before)) {
      return 'digest';
    }
    if (before.endsWith(':')) {
      return 'tag';
    }
  }
  return 'unknown';
}

/**
 * True when the image reference provably pins a digest (`...@sha256:<digest>`), false for a tag, a bare repository
 * (`latest`) or an end that is unknown at synth time.
 *
 * @param uriParts the reference split into literal strings and opaque parts; see {@link classifyImageReference}.
 */
export function isDigestReference(uriParts: readonly unknown[]): boolean {
  return classifyImageReference(uriParts) === 'digest';
}

/**
 * Splits a resolved CloudFormation value into the parts {@link classifyImageReference} reads.
 *
 * A string is one literal part. `Fn::Join` is flattened (recursively, with its delimiter as literal text between the
 * elements). `Fn::Sub` is split at its `${Var}` placeholders, which become opaque parts unless the variable map gives
 * them a literal string; `${!Literal}` stays literal text. Anything else is a single opaque part. Adjacent literals
 * are merged and empty ones dropped, so literals and opaque parts alternate.
 *
 * @param value a value after `Stack.of(node).resolve(...)`, e.g. a container's `Image` property.
 */
export function imageUriParts(value: unknown): unknown[] {
  return mergeLiterals(splitParts(value));
}

function splitParts(value: unknown): unknown[] {
  if (typeof value === 'string') {
    return [value];
  }
  if (isRecord(value)) {
    const join = value['Fn::Join'];
    if (Array.isArray(join) && join.length === 2 && typeof join[0] === 'string' && Array.isArray(join[1])) {
      const [delimiter, elements] = join as [string, unknown[]];
      return elements.flatMap((element, index) => [
        ...(index > 0 ? [delimiter] : []),
        ...splitParts(element),
      ]);
    }
    const sub = value['Fn::Sub'];
    if (typeof sub === 'string') {
      return subParts(sub, {});
    }
    if (Array.isArray(sub) && typeof sub[0] === 'string' && (sub.length === 1 || isRecord(sub[1]))) {
      return subParts(sub[0], (sub[1] ?? {}) as Record<string, unknown>);
    }
  }
  return [value];
}

function subParts(template: string, variables: Record<string, unknown>): unknown[] {
  const parts: unknown[] = [];
  const placeholder = /\$\{([^}]*)\}/g;
  let cursor = 0;
  for (const match of template.matchAll(placeholder)) {
    parts.push(template.slice(cursor, match.index));
    const name = match[1];
    if (name.startsWith('!')) {
      parts.push(`\${${name.slice(1)}}`);
    } else if (typeof variables[name] === 'string') {
      parts.push(variables[name]);
    } else {
      parts.push(variables[name] ?? { Ref: name });
    }
    cursor = (match.index ?? 0) + match[0].length;
  }
  parts.push(template.slice(cursor));
  return parts;
}

/** Concatenates adjacent literal strings and drops empty ones, leaving literals and opaque parts alternating. */
function mergeLiterals(parts: readonly unknown[]): unknown[] {
  const merged: unknown[] = [];
  for (const part of parts) {
    const previous = merged[merged.length - 1];
    if (typeof part === 'string') {
      if (part === '') {
        continue;
      }
      if (typeof previous === 'string') {
        merged[merged.length - 1] = previous + part;
        continue;
      }
    }
    merged.push(part);
  }
  return merged;
}
