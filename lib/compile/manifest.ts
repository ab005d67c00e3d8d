/**
 * `manifest.json`: what the compile script wrote, next to the artifacts, as the last object of a successful compile.
 *
 * Its presence under `<prefix><hash>/` is the cache: a job that finds it launches nothing. The compile script
 * (serving/compile/compile.py) writes exactly these fields; `parseManifest` checks them when the job or a deploy
 * reads the file back.
 */
import { lazySchema } from '../lazy-schema';
import type { CoreVersion } from '../catalog/types';
import { InputError } from '../errors';
import { COMPILE_CHIPS, type CompileChip } from './spec';

/** Version of the manifest format; the compile script writes it, readers refuse others. */
export const MANIFEST_FORMAT_VERSION = 1;

/** File name of the manifest under the artifact prefix. */
export const MANIFEST_FILE = 'manifest.json';

/** File name of the measured profile (planner profile format) under the artifact prefix. */
export const PROFILE_FILE = 'profile.json';

/** One compiled file: the model traced for one batch size. */
export interface CompiledFile {
  readonly batchSize: number;
  /** File name under the artifact prefix: `model.pt` when one batch size was compiled, else `model-b<N>.pt`. */
  readonly file: string;
  readonly sha256: string;
  readonly bytes: number;
}

/** The manifest of a compiled artifact. */
export interface CompileManifest {
  readonly formatVersion: number;
  readonly model: string;
  /** Content hash of spec and script (the artifact key). */
  readonly hash: string;
  readonly chip: CompileChip;
  readonly coreVersion: CoreVersion;
  readonly coresPerProcess: number;
  readonly batchSizes: readonly number[];
  readonly sequenceLength?: number;
  readonly imageSize?: number;
  /** `torch_neuronx` or `torch_neuron`. */
  readonly traceApi: string;
  /** Versions found on the compile host (`unknown` when a package could not be asked). */
  readonly versions: {
    readonly neuronSdk: string;
    readonly compiler: string;
    readonly runtime: string;
    readonly torch: string;
    readonly torchNeuron: string;
  };
  /** SHA-256 of the source model's files as the script read them. */
  readonly sourceSha256: string;
  readonly artifacts: readonly CompiledFile[];
  readonly compileSeconds: number;
  readonly accuracy: { readonly passed: boolean; readonly maxAbsError: number; readonly tolerance: number };
  /** Instance type the compile ran on. */
  readonly hostInstanceType: string;
  /** `profile.json` when the host had the target chip and measured the artifacts, else null. */
  readonly profile: string | null;
}

const hex64 = lazySchema((z) => z.string().regex(/^[0-9a-f]{64}$/, { error: 'expected a SHA-256 hex digest' }));
const positiveInt = lazySchema((z) => z.int().positive());

/**
 * Zod schema of `manifest.json`.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const manifestSchema = lazySchema((z) => z.object({
  formatVersion: z.literal(MANIFEST_FORMAT_VERSION, { error: `expected format version ${MANIFEST_FORMAT_VERSION}` }),
  model: z.string().min(1),
  hash: z.string().regex(/^[0-9a-f]+$/),
  chip: z.enum(COMPILE_CHIPS as [CompileChip, ...CompileChip[]]),
  coreVersion: z.enum(['v1', 'v2', 'v3']),
  coresPerProcess: positiveInt(),
  batchSizes: z.array(positiveInt()).min(1),
  sequenceLength: positiveInt().optional(),
  imageSize: positiveInt().optional(),
  traceApi: z.string().min(1),
  versions: z.object({
    neuronSdk: z.string(),
    compiler: z.string(),
    runtime: z.string(),
    torch: z.string(),
    torchNeuron: z.string(),
  }),
  sourceSha256: hex64(),
  artifacts: z.array(z.object({ batchSize: positiveInt(), file: z.string().min(1), sha256: hex64(), bytes: z.int().nonnegative() })).min(1),
  compileSeconds: z.number().nonnegative(),
  accuracy: z.object({ passed: z.boolean(), maxAbsError: z.number().nonnegative(), tolerance: z.number().positive() }),
  hostInstanceType: z.string().min(1),
  profile: z.string().nullable(),
}));

/**
 * Checks a manifest read back from S3.
 *
 * @param json the parsed `manifest.json`
 * @param origin where it was read (`s3://...`), named in every problem
 * @throws InputError naming each field that does not match the format
 */
export function parseManifest(json: unknown, origin: string): CompileManifest {
  const result = manifestSchema().safeParse(json);
  if (!result.success) {
    throw new InputError(result.error.issues.map((i) => `${origin}: ${i.path.join('.') || '(manifest)'}: ${i.message}; `
      + 'the file was not written by this version of the compile script: compile again'));
  }
  return result.data;
}

/** Why a compile failed, as the boot script or the compile script records it. */
export type CompileFailureKind = 'out-of-memory' | 'unsupported-operators' | 'accuracy' | 'timeout' | 'error';

/** `attempts/<id>/failure.json`: the record a failed compile leaves instead of a manifest. */
export interface CompileFailure {
  readonly kind: CompileFailureKind;
  /** One sentence for the CloudFormation event or the CLI. */
  readonly reason: string;
  readonly exitCode?: number;
  /** Unsupported operators the compiler listed, for `unsupported-operators`. */
  readonly operators?: readonly string[];
  readonly instanceType?: string;
  /** Last lines of the compile log. */
  readonly logTail?: string;
}

/**
 * Zod schema of a failure record (lenient: a record that reached S3 is shown even with fields missing).
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const failureSchema = lazySchema((z) => z.object({
  kind: z.enum(['out-of-memory', 'unsupported-operators', 'accuracy', 'timeout', 'error']).catch('error'),
  reason: z.string().catch('the compile failed without a reason'),
  exitCode: z.number().optional().catch(undefined),
  operators: z.array(z.string()).optional().catch(undefined),
  instanceType: z.string().optional().catch(undefined),
  logTail: z.string().optional().catch(undefined),
}));
