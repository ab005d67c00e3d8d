/**
 * Validation of a user's own model profile (the `--profile FILE` JSON).
 *
 * Same shape as `ModelProfile`. Every problem is reported at once, one line each, naming the JSON path, the value
 * received and what is expected: `measurements[1].throughputRps: expected a positive number, got 0`.
 */
import type { z } from 'zod';
import { InputError } from '../errors';
import { lazySchema, loadZod } from '../lazy-schema';
import { NEURON_CHIPS } from '../catalog/hardware-rules';
import { measuredInstanceProblem } from '../catalog/instance-type';
import type { ModelProfile } from './types';

const POSITIVE_NUMBER = 'expected a positive number';
const POSITIVE_INTEGER = 'expected a positive integer';
const NON_EMPTY_STRING = 'expected a non-empty string';

/**
 * The field rules every profile format shares (single-call and generative), with the messages users read.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const positiveNumber = () => loadZod().number({ error: POSITIVE_NUMBER }).positive({ error: POSITIVE_NUMBER });
/** @internal see {@link positiveNumber} */
export const positiveInteger = () => loadZod().int({ error: POSITIVE_INTEGER }).positive({ error: POSITIVE_INTEGER });
/** @internal see {@link positiveNumber} */
export const nonEmptyString = () =>
  loadZod().string({ error: NON_EMPTY_STRING }).refine((s) => s.trim().length > 0, { error: NON_EMPTY_STRING });

/**
 * The instance type a row was measured on: an EC2 name of a Neuron family and size (`measuredInstanceProblem`), so a
 * row on `inf2.48xlarg`, `ml.inf2.48xlarge` or a GPU is refused instead of never matching a catalog instance.
 *
 * @internal see {@link positiveNumber}
 */
export const measuredInstanceType = () => nonEmptyString().superRefine((name, ctx) => {
  const problem = measuredInstanceProblem(name);
  if (problem !== undefined) {
    ctx.addIssue({ code: 'custom', message: problem, params: { complete: true } });
  }
});

/**
 * The message of an issue whose text already names the value (`measuredInstanceType`).
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export function completeMessage(issue: z.core.$ZodIssue): string | undefined {
  return issue.code === 'custom' && (issue.params as { complete?: boolean } | undefined)?.complete === true ? issue.message : undefined;
}

/** One measurement of a user's profile. `source` may be left out; it then names the file and the entry. */
const measurementSchema = lazySchema((z) => z.strictObject({
  coreVersion: z.enum(['v1', 'v2', 'v3'], { error: "expected 'v1' (Inf1), 'v2' (Inf2, Trn1) or 'v3' (Trn2)" }),
  coresPerProcess: positiveInteger(),
  batchSize: positiveInteger(),
  throughputRps: positiveNumber(),
  p50Ms: positiveNumber(),
  p99Ms: positiveNumber(),
  source: nonEmptyString().optional(),
  instanceType: measuredInstanceType().optional(),
  mode: z.enum(['batch', 'real-time'], { error: "expected 'batch' or 'real-time'" }).optional(),
  deviceMemoryGiB: positiveNumber().optional(),
  hostMemoryGiB: positiveNumber().optional(),
  memorySource: z.string({ error: 'expected a string' }).optional(),
  measuredProcesses: positiveInteger().optional(),
  capacityFactor: positiveNumber().optional(),
}));

/** The `calibration` block `cdk-inferentia calibrate` writes. */
const calibrationSchema = lazySchema((z) => z.strictObject({
  source: nonEmptyString(),
  measuredAt: nonEmptyString(),
  calibratedAt: nonEmptyString(),
  plan: z.strictObject({
    instanceType: nonEmptyString(),
    instanceCount: positiveInteger(),
    processesPerInstance: positiveInteger(),
    coresPerProcess: positiveInteger(),
    batchSize: positiveInteger(),
    serving: z.enum(['stock', 'batching'], { error: "expected 'stock' or 'batching'" }),
    server: z.enum(['model-server', 'neuron-dlc'], { error: "expected 'model-server' or 'neuron-dlc'" }).optional(),
    p99TargetMs: positiveNumber(),
    capacityPerInstanceRps: positiveNumber(),
    offeredRps: positiveNumber(),
  }),
  measured: z.strictObject({
    achievedPerInstanceRps: z.number({ error: 'expected a number' }).min(0),
    p99Ms: z.number({ error: 'expected a number' }).min(0),
    serverP99Ms: positiveNumber().optional(),
    deviceP50Ms: positiveNumber().optional(),
    hostMsPerRequest: positiveNumber().optional(),
    httpOverheadMs: z.number({ error: 'expected a number' }).min(0).optional(),
  }),
  capacityPerInstanceRps: positiveNumber(),
  changes: z.array(z.string({ error: 'expected a string' })),
}));

/**
 * Zod schema of a user's profile JSON.
 *
 * `vcpuPerProcess` defaults to 1; at least one measurement; every number positive; `coresPerProcess`, `batchSize` and
 * `measuredProcesses` positive integers. A measurement's `deviceMemoryGiB` / `hostMemoryGiB` override the profile's for
 * that measurement (a batch-16 artifact needs more than a batch-1 one); `hostCpuMsPerRequest` is the host CPU one
 * request costs outside the device call. The format is documented in `docs/profile-format.md`. Unknown fields are errors, so a misspelt field never silently falls back to a default.
 * `parseProfile` adds the cross-field rule p50Ms <= p99Ms.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const profileSchema = lazySchema((z) => z.strictObject({
  id: nonEmptyString(),
  description: z.string({ error: 'expected a string' }).optional(),
  deviceMemoryGiB: positiveNumber(),
  hostMemoryGiB: positiveNumber(),
  vcpuPerProcess: positiveNumber().default(1),
  memorySource: z.string({ error: 'expected a string' }).optional(),
  hostCpuMsPerRequest: positiveNumber().optional(),
  hostCpuSource: z.string({ error: 'expected a string' }).optional(),
  measurements: z
    .array(measurementSchema(), { error: 'expected an array of measurements' })
    .min(1, { error: 'expected at least one measurement' }),
  calibration: calibrationSchema().optional(),
}));

/** `['measurements', 1, 'throughputRps']` -> `measurements[1].throughputRps`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  }
  return out || '(profile)';
}

/** A received value, short enough for one line. */
export function formatValue(value: unknown): string {
  if (value === undefined) {
    return 'nothing (the field is missing)';
  }
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

/** Value at a path of the raw JSON, for the "got ..." part of a message. */
export function valueAt(json: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = json;
  for (const key of path) {
    if (current === null || typeof current !== 'object') {
      return undefined;
    }
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** One line per zod issue. */
function describeIssue(json: unknown, issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const where = issue.path.length > 0 ? `${formatPath(issue.path)}: ` : '';
    return `${where}unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}; remove or rename ${issue.keys.length > 1 ? 'them' : 'it'}`;
  }
  if (issue.path.length === 0) {
    return `expected a JSON object with id, deviceMemoryGiB, hostMemoryGiB and measurements, got ${formatValue(json)}`;
  }
  const complete = completeMessage(issue);
  if (complete !== undefined) {
    return `${formatPath(issue.path)}: ${complete}`;
  }
  return `${formatPath(issue.path)}: ${issue.message}, got ${formatValue(valueAt(json, issue.path))}`;
}

/**
 * p50Ms <= p99Ms for every measurement whose two latencies are valid numbers, and a core version that is the one of
 * the row's instance type (a v2 row on inf1.xlarge matched no instance and was dropped without a word).
 */
function latencyOrderProblems(json: unknown): string[] {
  const measurements = valueAt(json, ['measurements']);
  if (!Array.isArray(measurements)) {
    return [];
  }
  const problems: string[] = [];
  measurements.forEach((m, i) => {
    const p50 = valueAt(m, ['p50Ms']);
    const p99 = valueAt(m, ['p99Ms']);
    if (typeof p50 === 'number' && typeof p99 === 'number' && p50 > 0 && p99 > 0 && p99 < p50) {
      problems.push(`measurements[${i}].p99Ms: expected a value >= p50Ms (${p50}), got ${p99}`);
    }
    const instanceType = valueAt(m, ['instanceType']);
    const coreVersion = valueAt(m, ['coreVersion']);
    const chip = typeof instanceType === 'string' ? NEURON_CHIPS[instanceType.split('.')[0]] : undefined;
    if (chip !== undefined && typeof coreVersion === 'string' && ['v1', 'v2', 'v3'].includes(coreVersion) && coreVersion !== chip.coreVersion) {
      problems.push(`measurements[${i}].coreVersion: expected "${chip.coreVersion}" (${chip.name}) for instanceType ${instanceType}, got "${coreVersion}"; `
        + 'correct the one that is wrong');
    }
  });
  return problems;
}

/**
 * Validates a user's profile JSON and returns it as a `ModelProfile`.
 *
 * @param json the parsed JSON
 * @param origin where it came from (a file name), named in every problem and in defaulted `source` fields
 * @throws InputError listing every problem, one line each
 */
export function parseProfile(json: unknown, origin: string): ModelProfile {
  const result = profileSchema().safeParse(json);
  const problems = [
    ...(result.success ? [] : result.error.issues.map((issue) => describeIssue(json, issue))),
    ...latencyOrderProblems(json),
  ];
  if (!result.success || problems.length > 0) {
    throw new InputError(problems.map((p) => `${origin}: ${p}`));
  }
  const profile = result.data;
  return {
    id: profile.id,
    ...(profile.description !== undefined ? { description: profile.description } : {}),
    deviceMemoryGiB: profile.deviceMemoryGiB,
    hostMemoryGiB: profile.hostMemoryGiB,
    vcpuPerProcess: profile.vcpuPerProcess,
    ...(profile.memorySource !== undefined ? { memorySource: profile.memorySource } : {}),
    ...(profile.hostCpuMsPerRequest !== undefined ? { hostCpuMsPerRequest: profile.hostCpuMsPerRequest } : {}),
    ...(profile.hostCpuSource !== undefined ? { hostCpuSource: profile.hostCpuSource } : {}),
    measurements: profile.measurements.map((m, i) => ({ ...m, source: m.source ?? `${origin}, measurements[${i}]` })),
    ...(profile.calibration !== undefined ? { calibration: profile.calibration } : {}),
  };
}
