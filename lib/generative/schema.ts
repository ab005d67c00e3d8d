/**
 * Validation of a user's generative profile file (`plan --profile FILE` with `"kind": "generative"`): every problem
 * at once, each naming the field, the value and what is expected. docs/profile-format.md documents the format.
 */
import type { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { InputError } from '../errors';
import { closestName } from '../profiles';
import { completeMessage, formatPath, formatValue, measuredInstanceType, nonEmptyString, positiveInteger, positiveNumber, valueAt } from '../profiles/schema';
import type { GenerativeProfile } from './types';


const generativeModelSchema = lazySchema((z) => z.strictObject({
  architecture: z.enum(['decoder-only', 'encoder-decoder'], { error: "expected 'decoder-only' or 'encoder-decoder'" }),
  parametersBillions: positiveNumber(),
  dtype: z.enum(['fp32', 'bf16', 'fp16', 'fp8', 'int8'], { error: "expected one of 'fp32', 'bf16', 'fp16', 'fp8', 'int8'" }),
  layers: positiveInteger(),
  attentionHeads: positiveInteger(),
  kvHeads: positiveInteger(),
  headDim: positiveInteger(),
  vocabulary: positiveInteger(),
  maxContextTokens: positiveInteger(),
  hiddenSize: positiveInteger().optional(),
  experts: z.strictObject({ count: positiveInteger(), perToken: positiveInteger(), parametersBillions: positiveNumber() }).optional(),
  source: nonEmptyString(),
}));

/** A Neuron SDK release as the Neuron release notes write it: `2.26`, `2.26.1` (not `latest`, which pins nothing). */
const SDK_VERSION = /^\d+\.\d+(\.\d+)?$/;
const SDK_MESSAGE = 'expected a Neuron SDK release such as "2.26.1"';

const generativeMeasurementSchema = lazySchema((z) => z.strictObject({
  // A row on a GPU instance, a misspelt or a SageMaker name: refused here, rather than never matching a catalog instance.
  instanceType: measuredInstanceType(),
  tensorParallelDegree: positiveInteger(),
  batchSize: positiveInteger(),
  inputTokens: positiveInteger(),
  outputTokens: positiveInteger(),
  sequenceLength: positiveInteger().optional(),
  neuronSdkVersion: z.string({ error: SDK_MESSAGE }).regex(SDK_VERSION, { error: SDK_MESSAGE }),
  ttftP50Ms: positiveNumber().optional(),
  ttftP99Ms: positiveNumber().optional(),
  tpotP50Ms: positiveNumber(),
  tpotP99Ms: positiveNumber().optional(),
  latencyCounts: z.enum(['output', 'input-and-output'], { error: "expected 'output' or 'input-and-output'" }).optional(),
  tokensPerSecond: positiveNumber().optional(),
  throughputCounts: z.enum(['output', 'input-and-output'], { error: "expected 'output' or 'input-and-output'" }).optional(),
  chunkedPrefill: z.boolean({ error: 'expected true or false' }).optional(),
  source: nonEmptyString(),
  unverified: z.boolean({ error: 'expected true or false' }).optional(),
}));

/**
 * The JSON shape of a generative profile; `parseGenerativeProfile` adds the cross-field rules.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const generativeProfileSchema = lazySchema((z) => z.strictObject({
  kind: z.literal('generative', { error: "expected 'generative'" }),
  id: nonEmptyString(),
  huggingFaceId: nonEmptyString().optional(),
  description: z.string({ error: 'expected a string' }).optional(),
  model: generativeModelSchema(),
  measurements: z
    .array(generativeMeasurementSchema(), { error: 'expected an array of measurements' })
    .min(1, { error: 'expected at least one measurement' }),
}));

function describeIssue(json: unknown, issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const where = issue.path.length > 0 ? `${formatPath(issue.path)}: ` : '';
    return `${where}unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}; remove or rename ${issue.keys.length > 1 ? 'them' : 'it'}`;
  }
  const complete = completeMessage(issue);
  if (complete !== undefined) {
    return `${formatPath(issue.path)}: ${complete}`;
  }
  if (issue.path.length === 0) {
    return `expected a JSON object with kind "generative", id, model and measurements, got ${formatValue(json)}`;
  }
  return `${formatPath(issue.path)}: ${issue.message}, got ${formatValue(valueAt(json, issue.path))}`;
}

/** Checks across fields: p50 <= p99, sequence length covers the row's lengths, KV heads divide the query heads. */
function crossFieldProblems(profile: z.infer<ReturnType<typeof generativeProfileSchema>>): string[] {
  const problems: string[] = [];
  const { model } = profile;
  if (model.experts && model.experts.perToken > model.experts.count) {
    problems.push(`model.experts.perToken: expected at most experts.count (${model.experts.count}), got ${model.experts.perToken}`);
  }
  if (model.experts && model.experts.parametersBillions >= model.parametersBillions) {
    problems.push(`model.experts.parametersBillions: expected below parametersBillions (${model.parametersBillions}), got ${model.experts.parametersBillions}`);
  }
  if (model.attentionHeads % model.kvHeads !== 0) {
    problems.push(`model.kvHeads: expected a divisor of attentionHeads (${model.attentionHeads}), got ${model.kvHeads}`);
  }
  profile.measurements.forEach((m, i) => {
    const at = `measurements[${i}]`;
    if (m.ttftP99Ms !== undefined && m.ttftP50Ms !== undefined && m.ttftP99Ms < m.ttftP50Ms) {
      problems.push(`${at}.ttftP99Ms: expected a value >= ttftP50Ms (${m.ttftP50Ms}), got ${m.ttftP99Ms}`);
    }
    if (m.tpotP99Ms !== undefined && m.tpotP99Ms < m.tpotP50Ms) {
      problems.push(`${at}.tpotP99Ms: expected a value >= tpotP50Ms (${m.tpotP50Ms}), got ${m.tpotP99Ms}`);
    }
    if (m.sequenceLength !== undefined && m.sequenceLength < m.inputTokens + m.outputTokens) {
      problems.push(
        `${at}.sequenceLength: expected at least inputTokens + outputTokens (${m.inputTokens + m.outputTokens}), got ${m.sequenceLength}`,
      );
    }
    if ((m.sequenceLength ?? m.inputTokens + m.outputTokens) > model.maxContextTokens) {
      problems.push(`${at}: its sequence length exceeds model.maxContextTokens (${model.maxContextTokens})`);
    }
  });
  return problems;
}

/**
 * The generative profile in `json`, read from `origin` (a file name for messages).
 *
 * @throws InputError listing every problem, each as `origin: field: what is wrong, got value`
 */
export function parseGenerativeProfile(json: unknown, origin: string): GenerativeProfile {
  // A kind slip is one problem, said as such, not a field-by-field refusal of the rest.
  profileKindOf(json, origin);
  const result = generativeProfileSchema().safeParse(json);
  if (!result.success) {
    throw new InputError(result.error.issues.map((issue) => `${origin}: ${describeIssue(json, issue)}`));
  }
  InputError.throwIfAny(crossFieldProblems(result.data).map((p) => `${origin}: ${p}`));
  return result.data as GenerativeProfile;
}

/*
 * Which kind of profile a JSON file holds, decided before either schema reads it: a generative profile with a
 * misspelled or missing `kind` would otherwise be checked as a single-call one and refused for nine fields it was
 * never meant to have, with no word about `kind`.
 */

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
