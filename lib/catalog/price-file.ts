import type { z } from 'zod';
import { InputError } from '../errors';
import { lazySchema, loadZod } from '../lazy-schema';
import { Catalog, PriceFile, priceKey } from './catalog';
import { differingFacts, hardwareProblems } from './hardware-rules';
import { isAwsRegion } from './regions';
import { HOSTINGS, InstanceSpec, Price, PRICING_KINDS } from './types';

/** The `source` of prices and instances when neither they nor their file name one. */
export const DEFAULT_PRICE_FILE_SOURCE = 'user price file';

/** The `asOf` of prices when neither they nor their file give a date. */
export const UNDATED = 'undated';

/**
 * The most USD per instance-hour a price file may give: ten times the dearest Neuron instance's list price (trn2.48xlarge,
 * 85.964 in us-east-2). `1e308` printed `$∞/h`; a monthly figure in an hourly field planned nothing cheaper than it.
 */
export const MAX_USD_PER_HOUR = 1000;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/;
const EC2_NAME = /^[a-z][a-z0-9-]*\.[a-z0-9-]+$/;

const positiveNumber = lazySchema((z) => z.number({ error: 'expected a positive number' })
  .positive({ error: 'expected a positive number' }));
const positiveInteger = lazySchema((z) => z.number({ error: 'expected a positive whole number' })
  .int({ error: 'expected a positive whole number' })
  .positive({ error: 'expected a positive whole number' }));
const nonEmptyString = (what: string) => loadZod().string({ error: `expected ${what}` }).min(1, { error: `expected ${what}` });
const isoDate = lazySchema((z) => z.string({ error: 'expected an ISO date such as 2026-11-22' })
  .regex(ISO_DATE, { error: 'expected an ISO date such as 2026-11-22' })
  // The pattern takes 2026-13-45; a date must also be one the calendar has.
  .refine((d) => !ISO_DATE.test(d) || realDate(d), { error: 'expected a date the calendar has, such as 2026-11-22' }));

/** Whether `YYYY-MM-DD...` names a real day: the date built from its parts has the same parts. */
function realDate(text: string): boolean {
  const [y, m, d] = text.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}
const flag = lazySchema((z) => z.boolean({ error: 'expected true or false' }));

const instanceSchema = lazySchema((z) => z.strictObject({
  name: nonEmptyString('an EC2 instance type name such as inf2.xlarge'),
  family: nonEmptyString('an instance family such as inf2').optional(),
  chips: positiveInteger(),
  coresPerChip: positiveInteger(),
  logicalNeuronCoreConfig: positiveInteger().optional(),
  coreVersion: z.enum(['v1', 'v2', 'v3', 'v4'], { error: 'expected "v1" (Inf1), "v2" (Inf2, Trn1), "v3" (Trn2) or "v4" (Trn3)' }),
  deviceMemoryPerChipGiB: positiveNumber(),
  vcpus: positiveInteger(),
  memoryGiB: positiveNumber(),
  source: nonEmptyString('a non-empty description of where the numbers come from').optional(),
  unverified: flag().default(false),
  replacesBuiltIn: flag().optional(),
}));

const priceSchema = lazySchema((z) => z.strictObject({
  instanceType: nonEmptyString('an EC2 instance type name such as inf2.xlarge'),
  region: nonEmptyString('an AWS region code such as us-east-1'),
  hosting: z.enum(HOSTINGS as ['ec2', 'sagemaker'], { error: 'expected "ec2" or "sagemaker"' }),
  usdPerHour: positiveNumber().max(MAX_USD_PER_HOUR, {
    error: `expected USD per instance-hour of at most ${MAX_USD_PER_HOUR.toLocaleString('en-US')} (the dearest Neuron instance lists under 150; is it a monthly or yearly figure?)`,
  }),
  kind: z.enum(PRICING_KINDS as ['on-demand', 'ri-effective', 'capacity-block'], {
    error: 'expected "on-demand", "ri-effective" or "capacity-block" (EC2 Capacity Blocks for ML)',
  })
    .default('on-demand'),
  source: nonEmptyString('a non-empty description of where the number comes from').optional(),
  asOf: isoDate().optional(),
  unverified: flag().default(false),
}));

/**
 * The JSON shape of a price file, for `--prices FILE`.
 *
 * Only `prices` is required, and in each price only `instanceType`, `region`, `hosting` and `usdPerHour`:
 * `kind` defaults to `on-demand`, `source` and `asOf` to the file's, `unverified` to false.
 *
 * @example
 * {"prices":[{"instanceType":"inf2.xlarge","region":"eu-west-1","hosting":"ec2","usdPerHour":0.8}]}
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const priceFileSchema = lazySchema((z) => z.strictObject({
  source: nonEmptyString('a non-empty description of where the file comes from').optional(),
  asOf: isoDate().optional(),
  instances: z.array(instanceSchema(), { error: 'expected a list of instance types' }).default([]),
  prices: z.array(priceSchema(), { error: 'expected a list of prices' }),
}, { error: 'expected a JSON object with a "prices" list' }));

/** A price file as written by hand, before defaults: what `parsePriceFile` accepts. */
export interface PriceFileInput {
  /** Where the file's numbers come from. @default DEFAULT_PRICE_FILE_SOURCE */
  readonly source?: string;
  /** The day the numbers were read (ISO date). @default UNDATED */
  readonly asOf?: string;
  /**
   * Instance types the built-in catalog lacks, or built-in ones with other facts (each with `replacesBuiltIn: true`;
   * facts equal to the built-in ones, as `catalog refresh` writes them, need no flag). @default []
   */
  readonly instances?: readonly (Omit<InstanceSpec, 'family' | 'source' | 'unverified'> & Partial<Pick<InstanceSpec, 'family' | 'source' | 'unverified'>>
    & { readonly replacesBuiltIn?: boolean })[];
  readonly prices: readonly (Omit<Price, 'kind' | 'source' | 'asOf' | 'unverified'> & Partial<Pick<Price, 'kind' | 'source' | 'asOf' | 'unverified'>>)[];
}

/**
 * Validates a parsed price file and applies its defaults.
 *
 * Checks the shape and the sense of the data: instance type names are EC2 names (no `ml.`, the hosting says how
 * it is billed), every priced instance type is in the built-in catalog or defined in the file, every region is an
 * AWS region code, and nothing is listed twice. A defined instance passes the hardware rules of its family's chip
 * (`hardwareProblems`), and one that redefines a built-in type with other facts says so with `"replacesBuiltIn": true`.
 * Prices stay below {@link MAX_USD_PER_HOUR}, and a Capacity Block price is an EC2 one.
 *
 * @param json the file's content after `JSON.parse`
 * @param origin where it came from (a path), to prefix every problem
 * @throws InputError listing every problem, one line each, naming its JSON path and the value received
 */
export function parsePriceFile(json: unknown, origin: string): PriceFile {
  const parsed = priceFileSchema().safeParse(json, { reportInput: true });
  const problems = parsed.success ? [] : parsed.error.issues.map(describeIssue);
  problems.push(...checkReferences(json));
  InputError.throwIfAny(problems.map((p) => `${origin}: ${p}`));
  if (!parsed.success) {
    // Unreachable: a failed parse always reports at least one issue. Kept for the type checker.
    throw new InputError(`${origin}: invalid price file`);
  }

  const file = parsed.data;
  const source = file.source ?? DEFAULT_PRICE_FILE_SOURCE;
  const instances: InstanceSpec[] = file.instances.map(({ replacesBuiltIn: _replaces, ...i }) => ({
    ...i,
    family: i.family ?? familyOf(i.name),
    source: i.source ?? source,
  }));
  const prices: Price[] = file.prices.map((p) => ({
    ...p,
    source: p.source ?? source,
    asOf: p.asOf ?? file.asOf ?? UNDATED,
  }));
  return {
    ...(file.source !== undefined ? { source: file.source } : {}),
    ...(file.asOf !== undefined ? { asOf: file.asOf } : {}),
    instances,
    prices,
  };
}

/**
 * Why a file's instance cannot stand: the hardware rules of its family's chip, and a built-in type redefined with
 * other facts without `"replacesBuiltIn": true` (a file that gave trn2.48xlarge 12 chips replaced the built-in 16
 * without a word).
 */
function instanceProblems(spec: Omit<InstanceSpec, 'source'> & { readonly source?: string }, replacesBuiltIn: boolean | undefined, index: number): string[] {
  const at = `instances[${index}]`;
  const problems = hardwareProblems(spec).map((p) => `${at}.${p}`);
  const builtIn = Catalog.builtIn().instance(spec.name);
  if (builtIn === undefined) {
    if (replacesBuiltIn === true) {
      problems.push(`${at}.replacesBuiltIn: "${spec.name}" is not built in, so there is nothing to replace; leave replacesBuiltIn out`);
    }
    return problems;
  }
  const differing = differingFacts(spec, builtIn);
  if (differing.length > 0 && replacesBuiltIn !== true) {
    problems.push(`${at}: "${spec.name}" is built in, and this entry changes its ${differing.join(', ')}; drop the entry to plan `
      + 'with the built-in facts, or add "replacesBuiltIn": true to replace them');
  }
  return problems;
}

/** `inf2` for `inf2.xlarge`. */
function familyOf(name: string): string {
  return name.split('.')[0];
}

/** Checks that need more than one field: names, references to instances, regions, duplicates. */
function checkReferences(json: unknown): string[] {
  if (!isRecord(json)) {
    return [];
  }
  const problems: string[] = [];
  const fileInstances = new Set<string>();
  const rawInstances = Array.isArray(json.instances) ? json.instances : [];
  rawInstances.forEach((raw, i) => {
    if (!isRecord(raw) || typeof raw.name !== 'string' || raw.name === '') {
      return;
    }
    const nameProblem = checkEc2Name(raw.name, `instances[${i}].name`);
    if (nameProblem) {
      problems.push(nameProblem);
      return;
    }
    if (fileInstances.has(raw.name)) {
      problems.push(`instances[${i}].name: "${raw.name}" is defined twice in this file; keep one`);
    }
    fileInstances.add(raw.name);
    if (typeof raw.family === 'string' && raw.family !== familyOf(raw.name)) {
      problems.push(`instances[${i}].family: expected "${familyOf(raw.name)}" (the part of "${raw.name}" before the dot), `
        + `got "${raw.family}"`);
      return;
    }
    // An entry whose fields are each well formed (the schema names the others) must also be hardware that exists.
    const entry = instanceSchema().safeParse(raw);
    if (entry.success) {
      const { replacesBuiltIn, ...spec } = entry.data;
      problems.push(...instanceProblems({ ...spec, family: familyOf(spec.name), source: '' }, replacesBuiltIn, i));
    }
  });

  const builtIn = Catalog.builtIn();
  const seen = new Map<string, number>();
  const rawPrices = Array.isArray(json.prices) ? json.prices : [];
  rawPrices.forEach((raw, i) => {
    if (!isRecord(raw)) {
      return;
    }
    if (typeof raw.instanceType === 'string' && raw.instanceType !== '') {
      const nameProblem = checkEc2Name(raw.instanceType, `prices[${i}].instanceType`);
      if (nameProblem) {
        problems.push(nameProblem);
      } else if (!builtIn.instance(raw.instanceType) && !fileInstances.has(raw.instanceType)) {
        const known = builtIn.instances.map((s) => s.name).join(', ');
        problems.push(`prices[${i}].instanceType: unknown instance type "${raw.instanceType}"; use one of ${known}, `
          + 'or define it under "instances" in this file');
      }
    }
    if (raw.kind === 'capacity-block' && raw.hosting === 'sagemaker') {
      problems.push(`prices[${i}].kind: "capacity-block" is the rate of an EC2 Capacity Block for ML, which SageMaker hosting is not `
        + 'billed by; give it with "hosting": "ec2", or give the SageMaker hosting price with "kind": "on-demand"');
    }
    if (typeof raw.region === 'string' && raw.region !== '' && !isAwsRegion(raw.region)) {
      problems.push(`prices[${i}].region: expected an AWS region code such as us-east-1, got "${raw.region}"`);
    }
    if (typeof raw.instanceType === 'string' && typeof raw.region === 'string' && typeof raw.hosting === 'string') {
      const kind = typeof raw.kind === 'string' ? raw.kind : 'on-demand';
      const key = priceKey({ instanceType: raw.instanceType, region: raw.region, hosting: raw.hosting as Price['hosting'], kind: kind as Price['kind'] });
      const first = seen.get(key);
      if (first !== undefined) {
        problems.push(`prices[${i}]: same instance type, region, hosting and kind as prices[${first}] `
          + `(${raw.instanceType}, ${raw.region}, ${raw.hosting}, ${kind}); keep one`);
      } else {
        seen.set(key, i);
      }
    }
  });
  return problems;
}

function checkEc2Name(name: string, path: string): string | undefined {
  if (name.startsWith('ml.')) {
    return `${path}: "${name}" is a SageMaker name; write the EC2 name "${name.slice(3)}" (the hosting field says `
      + 'whether the price is for SageMaker)';
  }
  if (!EC2_NAME.test(name)) {
    return `${path}: expected an EC2 instance type name such as inf2.xlarge, got "${name}"`;
  }
  return undefined;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = formatPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `"${k}"`).join(', ');
    return `${path || '(top level)'}: unknown field${issue.keys.length > 1 ? 's' : ''} ${keys}`;
  }
  const where = path || '(top level)';
  if (issue.input === undefined) {
    return `${where}: missing; ${issue.message}`;
  }
  return `${where}: ${issue.message}, got ${formatValue(issue.input)}`;
}

/** `prices[2].usdPerHour` for `['prices', 2, 'usdPerHour']`. */
function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)), '');
}

function formatValue(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
