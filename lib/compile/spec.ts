/**
 * The compile spec: everything that decides what a Neuron compilation produces.
 *
 * Source model, task, input shape, batch sizes, auto-cast, compiler arguments, target chip, cores per process and
 * Neuron SDK version. Nothing operational (bucket, instance type, timeout) is in it: those change where and how a
 * compile runs, not what it produces, so they stay out of the content hash. Validated with zod; every problem is
 * reported at once, naming the JSON path, the value received and the fix.
 */
import type { z } from 'zod';
import type { CoreVersion } from '../catalog/types';
import { InputError } from '../errors';
import { lazySchema, loadZod } from '../lazy-schema';

/** Chips a compile targets: Inferentia (Inf1), Inferentia2 (Inf2), Trainium (Trn1, Trn1n). */
export type CompileChip = 'inf1' | 'inf2' | 'trn1';

/** Every chip a compile can target. */
export const COMPILE_CHIPS: readonly CompileChip[] = ['inf1', 'inf2', 'trn1'];

/** NeuronCore generation of each chip (Neuron architecture guide: Inf1 NeuronCore-v1; Inf2 and Trn1 NeuronCore-v2). */
export const CHIP_CORE_VERSION: Readonly<Record<CompileChip, CoreVersion>> = { inf1: 'v1', inf2: 'v2', trn1: 'v2' };

/**
 * The chip of an instance family: `inf2` -> `inf2`, `trn1n` -> `trn1` (same Trainium chip), `trn2` -> undefined
 * (no compile target yet).
 */
export function chipOfFamily(family: string): CompileChip | undefined {
  const base = family.replace(/^ml\./, '');
  if (base === 'inf1' || base === 'inf2') {
    return base;
  }
  return base === 'trn1' || base === 'trn1n' ? 'trn1' : undefined;
}

/** The tracing API that compiles for a chip: torch-neuron (neuron-cc) on Inf1, torch-neuronx (neuronx-cc) elsewhere. */
export function traceApiOf(chip: CompileChip): 'torch_neuron' | 'torch_neuronx' {
  return chip === 'inf1' ? 'torch_neuron' : 'torch_neuronx';
}

/** What the traced model does, which decides the model class the compile script loads. */
export type CompileTask = 'feature-extraction' | 'text-classification' | 'image-classification';

/** Every task the compile script knows how to load and trace. */
export const COMPILE_TASKS: readonly CompileTask[] = ['feature-extraction', 'text-classification', 'image-classification'];

const TEXT_TASKS: readonly CompileTask[] = ['feature-extraction', 'text-classification'];

/** Where the model to compile comes from. */
export type CompileSource =
  | {
      /** `s3://bucket/prefix/` holding a Hugging Face model directory (config.json, weights, tokenizer). */
      readonly s3Uri: string;
      readonly format: 'huggingface';
    }
  | {
      /** `s3://bucket/key.pt`: a TorchScript file (`torch.jit.save`) to trace as is. */
      readonly s3Uri: string;
      readonly format: 'torchscript';
    }
  | {
      /** A Hugging Face Hub model id, e.g. `bert-base-uncased`; the compile host downloads it (needs internet). */
      readonly hubModelId: string;
      /** Hub revision (commit or tag) so the same spec always means the same weights. @default 'main' */
      readonly revision?: string;
    };

/** Auto-cast of the compiler (`--auto-cast`, `--auto-cast-type` on neuronx-cc). */
export interface AutoCast {
  /** Which operators are cast: none, matrix multiplications only, or all. */
  readonly scope: 'none' | 'matmult' | 'all';
  /** The type they are cast to. */
  readonly type: 'bf16' | 'fp16' | 'tf32' | 'fp8_e4m3';
}

/** A validated compile spec. */
export interface CompileSpec {
  /** Name of the model, used in messages and tags. */
  readonly model: string;
  readonly source: CompileSource;
  readonly task: CompileTask;
  /** Tokens per input, for text tasks. */
  readonly sequenceLength?: number;
  /** Height and width of the input image in pixels, for image tasks. */
  readonly imageSize?: number;
  /** Every batch size to compile, ascending, no repeats: the plan's compiled batch (a batching plan: that one only). */
  readonly batchSizes: readonly number[];
  readonly autoCast: AutoCast;
  /** Extra compiler arguments, passed as given. */
  readonly compilerArgs: readonly string[];
  readonly chip: CompileChip;
  /** NeuronCores one model process uses (the plan's `coresPerProcess`). */
  readonly coresPerProcess: number;
  /** Neuron SDK release the compile host must run, e.g. `2.26.1`. */
  readonly neuronSdkVersion: string;
  /** Largest absolute difference between CPU and Neuron outputs the accuracy check accepts. */
  readonly tolerance: number;
}

const POSITIVE_INTEGER = 'expected a positive integer';

/**
 * Largest batch size a spec may ask for. Every batch size is traced into its own static-shape graph on a billed
 * compile host, and Neuron's published inference results use batches of 1 to a few hundred; a larger number is a
 * typo (an extra zero, a token count in the wrong field), refused before any instance starts.
 */
export const MAX_COMPILE_BATCH_SIZE = 1024;
const NON_EMPTY = 'expected a non-empty string';
const nonEmpty = () => loadZod().string({ error: NON_EMPTY }).refine((s) => s.trim().length > 0, { error: NON_EMPTY });
const positiveInteger = () => loadZod().int({ error: POSITIVE_INTEGER }).positive({ error: POSITIVE_INTEGER });
const s3Uri = (what: string) =>
  loadZod().string({ error: `expected an s3:// URI of ${what}` }).regex(/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\/\S+$/, {
    error: `expected an s3:// URI of ${what}, e.g. s3://my-bucket/models/bert/`,
  });

const sourceSchema = lazySchema((z) => z.union(
  [
    z.strictObject({ s3Uri: s3Uri('a Hugging Face model directory ending with /'), format: z.literal('huggingface') }),
    z.strictObject({ s3Uri: s3Uri('a TorchScript file'), format: z.literal('torchscript') }),
    z.strictObject({ hubModelId: nonEmpty(), revision: nonEmpty().optional() }),
  ],
  {
    error:
      'expected { "s3Uri": "s3://bucket/prefix/", "format": "huggingface" }, { "s3Uri": "s3://bucket/model.pt", ' +
      '"format": "torchscript" } or { "hubModelId": "bert-base-uncased" }',
  },
));

/**
 * Zod schema of a compile spec file (`cdk-inferentia compile --spec FILE`, `NeuronCompileJob` props).
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const compileSpecSchema = lazySchema((z) => z.strictObject({
  model: nonEmpty(),
  source: sourceSchema(),
  task: z.enum(COMPILE_TASKS as [CompileTask, ...CompileTask[]], { error: `expected one of ${COMPILE_TASKS.join(', ')}` }),
  sequenceLength: positiveInteger().optional(),
  imageSize: positiveInteger().optional(),
  batchSizes: z.array(positiveInteger().max(MAX_COMPILE_BATCH_SIZE, { error: `expected at most ${MAX_COMPILE_BATCH_SIZE} (one traced graph per batch size)` }), { error: 'expected an array of batch sizes' }).min(1, { error: 'expected at least one batch size' }),
  autoCast: z
    .strictObject({
      scope: z.enum(['none', 'matmult', 'all'], { error: "expected 'none', 'matmult' or 'all'" }),
      type: z.enum(['bf16', 'fp16', 'tf32', 'fp8_e4m3'], { error: "expected 'bf16', 'fp16', 'tf32' or 'fp8_e4m3'" }),
    })
    .default({ scope: 'matmult', type: 'bf16' }),
  compilerArgs: z.array(z.string({ error: 'expected a string' }), { error: 'expected an array of strings' }).default([]),
  chip: z.enum(COMPILE_CHIPS as [CompileChip, ...CompileChip[]], { error: "expected 'inf1', 'inf2' or 'trn1'" }),
  coresPerProcess: positiveInteger(),
  neuronSdkVersion: z.string({ error: 'expected a Neuron SDK version such as "2.26.1"' })
    .regex(/^\d+\.\d+(\.\d+)?$/, { error: 'expected a Neuron SDK version such as "2.26.1"' }),
  tolerance: z.number({ error: 'expected a positive number' }).positive({ error: 'expected a positive number' }).default(0.02),
}));

/** The spec as written in a file, before defaults: what `parseCompileSpec` accepts. */
export interface CompileSpecInput extends Omit<CompileSpec, 'autoCast' | 'compilerArgs' | 'tolerance'> {
  /** @default { scope: 'matmult', type: 'bf16' } */
  readonly autoCast?: AutoCast;
  /** @default [] */
  readonly compilerArgs?: readonly string[];
  /** @default 0.02 */
  readonly tolerance?: number;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  }
  return out;
}

function valueAt(json: unknown, path: readonly PropertyKey[]): unknown {
  let current = json;
  for (const key of path) {
    if (current === null || typeof current !== 'object') {
      return undefined;
    }
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function shown(value: unknown): string {
  if (value === undefined) {
    return 'nothing (the field is missing)';
  }
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

/**
 * A spec's schema problems, one line each naming the field, the value and the fix: every compile spec (single-call,
 * generative, a new engine's) reports them so.
 *
 * @param expected what the whole document should be, for a value that is no object: `a JSON object with model, ...`
 * @internal it takes zod issues, and zod types stay out of the published declarations (esModuleInterop).
 */
export function specProblems(issues: z.ZodError['issues'], json: unknown, origin: string, expected: string): string[] {
  return issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const where = issue.path.length > 0 ? `${formatPath(issue.path)}: ` : '';
      return `${origin}: ${where}unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}; remove or rename`;
    }
    if (issue.path.length === 0) {
      return `${origin}: expected ${expected}, got ${shown(json)}`;
    }
    return `${origin}: ${formatPath(issue.path)}: ${issue.message}, got ${shown(valueAt(json, issue.path))}`;
  });
}

/** Rules zod cannot state field by field: shapes per task, batch order, Inf1 limits. */
function crossFieldProblems(spec: z.output<ReturnType<typeof compileSpecSchema>>): string[] {
  const problems: string[] = [];
  const text = TEXT_TASKS.includes(spec.task);
  if (text && spec.sequenceLength === undefined) {
    problems.push(`sequenceLength: task ${spec.task} compiles for a fixed number of tokens; give it, e.g. 128`);
  }
  if (text && spec.imageSize !== undefined) {
    problems.push(`imageSize: ${spec.imageSize} is for image tasks, task is ${spec.task}; remove it`);
  }
  if (!text && spec.imageSize === undefined) {
    problems.push(`imageSize: task ${spec.task} compiles for a fixed image size; give it, e.g. 224`);
  }
  if (!text && spec.sequenceLength !== undefined) {
    problems.push(`sequenceLength: ${spec.sequenceLength} is for text tasks, task is ${spec.task}; remove it`);
  }
  const sorted = [...new Set(spec.batchSizes)].sort((a, b) => a - b);
  if (sorted.length !== spec.batchSizes.length || sorted.some((b, i) => b !== spec.batchSizes[i])) {
    problems.push(`batchSizes: ${shown(spec.batchSizes)} must be ascending without repeats; use ${shown(sorted)}`);
  }
  if (spec.chip === 'inf1' && spec.autoCast.type !== 'bf16' && spec.autoCast.type !== 'fp16' && spec.autoCast.scope !== 'none') {
    problems.push(`autoCast.type: ${spec.autoCast.type} is a neuronx-cc type; neuron-cc (Inf1) casts to bf16 or fp16`);
  }
  if (spec.chip !== 'inf1' && spec.coresPerProcess > 1) {
    // The manifest would otherwise claim a core count the artifact was not compiled for.
    problems.push(`coresPerProcess: ${spec.coresPerProcess} on ${spec.chip}: torch_neuronx.trace compiles for one NeuronCore; plan `
      + 'with coresPerProcess 1 (one process per core), or compile a tensor-parallel model with NxD Inference yourself');
  }
  if ('format' in spec.source && spec.source.format === 'huggingface' && !spec.source.s3Uri.endsWith('/')) {
    problems.push(`source.s3Uri: ${shown(spec.source.s3Uri)} names a Hugging Face model directory; end it with '/'`);
  }
  return problems;
}

/**
 * Validates a compile spec and returns it with its defaults filled in.
 *
 * Defaults: `autoCast` `{ scope: 'matmult', type: 'bf16' }` (what the Neuron performance tables compile with),
 * `compilerArgs` `[]`, `tolerance` 0.02.
 *
 * @param json the parsed JSON (or construct props)
 * @param origin where it came from (a file name or a construct path), named in every problem
 * @throws InputError listing every problem, one line each
 */
export function parseCompileSpec(json: unknown, origin: string): CompileSpec {
  const result = compileSpecSchema().safeParse(json);
  if (!result.success) {
    throw new InputError(specProblems(result.error.issues, json, origin,
      'a JSON object with model, source, task, batchSizes, chip, coresPerProcess and neuronSdkVersion'));
  }
  InputError.throwIfAny(crossFieldProblems(result.data).map((p) => `${origin}: ${p}`));
  const spec = result.data;
  return {
    model: spec.model,
    source: spec.source,
    task: spec.task,
    ...(spec.sequenceLength !== undefined ? { sequenceLength: spec.sequenceLength } : {}),
    ...(spec.imageSize !== undefined ? { imageSize: spec.imageSize } : {}),
    batchSizes: spec.batchSizes,
    autoCast: spec.autoCast,
    compilerArgs: spec.compilerArgs,
    chip: spec.chip,
    coresPerProcess: spec.coresPerProcess,
    neuronSdkVersion: spec.neuronSdkVersion,
    tolerance: spec.tolerance,
  };
}
