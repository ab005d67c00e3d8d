/**
 * The generative artifact's layout and `manifest.json`, written beside the compiled artifacts as the last object of a
 * successful compile (its presence is the cache, as for single-call models).
 *
 * Layout under `<prefix><hash>/`: `compiled/` (what `NEURON_COMPILED_ARTIFACTS` points at), `model/` (the weights,
 * staged from the Hugging Face Hub so the hosting never needs the token; absent for S3 weights, which the hosting
 * reads from their own prefix), `manifest.json`, and `attempts/<id>/` (failure records and logs).
 */
import { createHash } from 'node:crypto';
import { InputError } from '../errors';
import { lazySchema } from '../lazy-schema';
import { GENERATIVE_CHIPS, HF_COMMIT, type GenerativeChip } from './generative-spec';
import { type GenerativeArtifactFacts } from './generative-check';

/** Version of the generative manifest format (serving/compile/compile_generative.py writes it). */
export const GENERATIVE_MANIFEST_FORMAT_VERSION = 1;

/** One object of S3 weights as the deploy saw it: the identity its ETag gives. */
export interface WeightsObject {
  /** Key relative to the weights prefix. */
  readonly key: string;
  readonly etag: string;
  readonly size: number;
}

/**
 * SHA-256 (hex) over the weights objects' keys, ETags and sizes, in key order: changes when any file under the
 * prefix is replaced, added or removed.
 */
export function weightsDigest(objects: readonly WeightsObject[]): string {
  const sorted = [...objects].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const hash = createHash('sha256');
  for (const o of sorted) {
    hash.update(`${o.key}\n${o.etag.replace(/"/g, '')}\n${o.size}\n`);
  }
  return hash.digest('hex');
}

/** Files a Hugging Face model directory must hold for vLLM to load it: the config and at least one safetensors file. */
export function missingWeightsFiles(objects: readonly WeightsObject[]): string[] {
  const keys = objects.map((o) => o.key);
  const missing: string[] = [];
  if (!keys.includes('config.json')) {
    missing.push('config.json');
  }
  if (!keys.some((k) => k.endsWith('.safetensors'))) {
    missing.push('*.safetensors');
  }
  return missing;
}

/** `manifest.json` of a generative artifact. */
export interface GenerativeManifest extends GenerativeArtifactFacts {
  readonly formatVersion: number;
  readonly kind: 'generative';
  readonly model: string;
  /** The artifact key. */
  readonly hash: string;
  /** For S3 weights: {@link weightsDigest} of the objects compiled from. */
  readonly weightsDigest?: string;
  /** `compiled/`. */
  readonly compiledArtifacts: string;
  /** `model/` when the Hub weights were staged beside the artifacts, else null. */
  readonly stagedModel: string | null;
  /** Package versions inside the serving image (`unknown` when one could not be read). */
  readonly versions: { readonly vllm: string; readonly vllmNeuron: string; readonly nxdInference: string; readonly neuronxCc: string };
  readonly compileSeconds: number;
  /** What a greedy 8-token completion of the fixed prompt gave after the load: proof the artifacts load and run. */
  readonly check: { readonly prompt: string; readonly output: string };
  readonly hostInstanceType: string;
  /** The serving image the compile ran in. */
  readonly image: string;
}

const weightsIdentitySchema = lazySchema((z) => z.union([
  z.object({ source: z.literal('s3'), s3Uri: z.string().startsWith('s3://'), version: z.string().optional() }),
  z.object({ source: z.literal('huggingface'), repository: z.string().min(1), revision: z.string().regex(HF_COMMIT) }),
]));

/**
 * Zod schema of a generative `manifest.json`.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const generativeManifestSchema = lazySchema((z) => z.object({
  formatVersion: z.literal(GENERATIVE_MANIFEST_FORMAT_VERSION),
  kind: z.literal('generative'),
  model: z.string().min(1),
  hash: z.string().regex(/^[0-9a-f]+$/),
  weights: weightsIdentitySchema(),
  weightsDigest: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  tensorParallelSize: z.int().positive(),
  maxNumSeqs: z.int().positive(),
  maxModelLen: z.int().positive(),
  neuronSdkVersion: z.string().min(1),
  chip: z.enum(GENERATIVE_CHIPS as [GenerativeChip, ...GenerativeChip[]]),
  logicalNeuronCoreConfig: z.int().positive(),
  dtype: z.string().min(1),
  // Absent in a manifest of a compile without buckets or levers: the same as {}.
  engine: z.record(z.string(), z.unknown()).optional(),
  compiledArtifacts: z.string().min(1),
  stagedModel: z.string().nullable(),
  versions: z.object({ vllm: z.string(), vllmNeuron: z.string(), nxdInference: z.string(), neuronxCc: z.string() }),
  compileSeconds: z.number().nonnegative(),
  check: z.object({ prompt: z.string(), output: z.string() }),
  hostInstanceType: z.string().min(1),
  image: z.string().min(1),
}));

/**
 * Checks a generative manifest read back from S3.
 *
 * @throws InputError naming each field that does not match the format
 */
export function parseGenerativeManifest(json: unknown, origin: string): GenerativeManifest {
  const result = generativeManifestSchema().safeParse(json);
  if (!result.success) {
    throw new InputError(result.error.issues.map((i) => `${origin}: ${i.path.join('.') || '(manifest)'}: ${i.message}; `
      + 'the file was not written by this version of the generative compile: compile again'));
  }
  return result.data as GenerativeManifest;
}
