/**
 * Golden-response checks: is an answer the one the model should give?
 */
import { isDeepStrictEqual } from 'node:util';
import { errorKindForStatus, type ErrorKind } from './error-kind';
import type { AnswerCheck } from './types';

/** One step into a JSON document: an object key or an array index. */
export type JsonPathSegment = string | number;

/**
 * Parses the dotted JSON path subset the checks accept: `$`, then `.key`, `[index]` or `['key']` / `["key"]` steps,
 * e.g. `$.predictions[0].label` or `$['class-name']`.
 *
 * A full JSONPath library (filters, wildcards, recursion) would return sets of values, which a single golden value
 * cannot be compared with; the subset keeps one path = one value and fits in a few lines.
 *
 * @throws Error naming the position of the first unexpected character.
 */
export function parseJsonPath(path: string): JsonPathSegment[] {
  if (!path.startsWith('$')) {
    throw new Error(`JSON path '${path}' must start with '$', e.g. '$.predictions[0].label'`);
  }
  const segments: JsonPathSegment[] = [];
  const step = /\.([^.[\]'"]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/y;
  let position = 1;
  while (position < path.length) {
    step.lastIndex = position;
    const match = step.exec(path);
    if (!match) {
      throw new Error(
        `JSON path '${path}' is not understood at position ${position} ('${path.slice(position)}'); ` +
          "use '.key', '[index]' or ['key'] steps, e.g. '$.predictions[0].label'",
      );
    }
    segments.push(match[2] !== undefined ? Number(match[2]) : (match[1] ?? match[3] ?? match[4]));
    position = step.lastIndex;
  }
  return segments;
}

/** Follows a parsed path; `found: false` when a step is missing. */
export function selectJsonPath(document: unknown, segments: readonly JsonPathSegment[]): { found: boolean; value?: unknown } {
  let current = document;
  for (const segment of segments) {
    if (typeof segment === 'number') {
      if (!Array.isArray(current) || segment >= current.length) {
        return { found: false };
      }
      current = current[segment];
    } else {
      if (typeof current !== 'object' || current === null || Array.isArray(current) || !Object.hasOwn(current, segment)) {
        return { found: false };
      }
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return { found: true, value: current };
}

/** A check compiled once per run: returns whether a body is the golden answer. */
export type BodyMatcher = (body: string) => boolean;

const compiled = new WeakMap<AnswerCheck, BodyMatcher>();

/**
 * Compiles a check (regex, JSON path) once; repeated calls with the same check object reuse the result.
 *
 * @throws Error when the regex or the JSON path is invalid.
 */
export function compileAnswerCheck(check: AnswerCheck): BodyMatcher {
  const cached = compiled.get(check);
  if (cached) {
    return cached;
  }
  let matcher: BodyMatcher;
  switch (check.kind) {
    case 'json':
      matcher = (body) => {
        const parsed = parseJson(body);
        return parsed.ok && isDeepStrictEqual(parsed.value, check.value);
      };
      break;
    case 'json-path': {
      const segments = parseJsonPath(check.path);
      matcher = (body) => {
        const parsed = parseJson(body);
        if (!parsed.ok) {
          return false;
        }
        const selected = selectJsonPath(parsed.value, segments);
        return selected.found && isDeepStrictEqual(selected.value, check.value);
      };
      break;
    }
    case 'regex': {
      const regex = new RegExp(check.pattern);
      matcher = (body) => regex.test(body);
      break;
    }
  }
  compiled.set(check, matcher);
  return matcher;
}

function parseJson(body: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    return { ok: false };
  }
}

/**
 * Judges one answer: the expected status first, then the golden response.
 *
 * @returns `undefined` for a correct answer, else the error kind to count it under: the status's kind
 *   (`http-503`, `model-error` for 424, `throttled` for 429) or `wrong-answer`.
 */
export function checkAnswer(
  status: number,
  body: string,
  expectStatus: number,
  check?: AnswerCheck,
): ErrorKind | undefined {
  if (status !== expectStatus) {
    return errorKindForStatus(status);
  }
  if (check && !compileAnswerCheck(check)(body)) {
    return 'wrong-answer';
  }
  return undefined;
}
