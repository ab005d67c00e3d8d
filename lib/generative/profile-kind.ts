/**
 * Which kind of profile a JSON file holds, decided before either schema reads it: a generative profile with a
 * misspelled or missing `kind` would otherwise be checked as a single-call one and refused for nine fields it was
 * never meant to have, with no word about `kind`.
 */
import { InputError } from '../errors';
import { closestName } from '../suggest';

/** The `kind` values a profile file may carry; single-call profiles carry none. */
const KINDS = ['generative'] as const;

/** Fields only a generative profile's measurements have (docs/profile-format.md). */
const GENERATIVE_ROW_FIELDS = ['tpotP50Ms', 'ttftP50Ms', 'tensorParallelDegree', 'outputTokens'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The fields of `json` that only a generative profile has, as paths (`model`, `measurements[0].tpotP50Ms`). */
function generativeFields(json: Record<string, unknown>): string[] {
  const found: string[] = [];
  if (isObject(json.model)) found.push('model');
  const rows = Array.isArray(json.measurements) ? json.measurements : [];
  const index = rows.findIndex((row) => isObject(row) && GENERATIVE_ROW_FIELDS.some((f) => f in row));
  if (index >= 0) {
    const field = GENERATIVE_ROW_FIELDS.find((f) => f in (rows[index] as object)) as string;
    found.push(`measurements[${index}].${field}`);
  }
  return found;
}

/**
 * `'generative'` when `json` says `"kind": "generative"`, `'single-call'` when it has no kind and no generative
 * field.
 *
 * @throws InputError for any other kind (with the closest one), or a profile whose fields are generative but which
 *   has no kind
 */
export function profileKindOf(json: unknown, origin: string): 'generative' | 'single-call' {
  if (!isObject(json)) return 'single-call';
  const kind = json.kind;
  if (kind === 'generative') return 'generative';
  if (kind !== undefined) {
    const meant = typeof kind === 'string' ? closestName(kind, KINDS) : undefined;
    throw new InputError(`${origin}: kind: ${JSON.stringify(kind)} is not a profile kind; `
      + `${meant !== undefined ? `did you mean "${meant}"? ` : ''}`
      + '(generative profiles say "kind": "generative"; single-call profiles have no kind)');
  }
  const generative = generativeFields(json);
  if (generative.length > 0) {
    throw new InputError(`${origin}: kind is missing, but the fields (${generative.join(', ')}) are a generative profile's; `
      + 'add "kind": "generative" (docs/profile-format.md), or drop them for a single-call profile');
  }
  return 'single-call';
}
