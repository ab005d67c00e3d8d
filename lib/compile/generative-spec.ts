/**
 * The generative compile spec: what decides the NxD Inference artifacts vLLM loads through
 * `NEURON_COMPILED_ARTIFACTS` for one model.
 *
 * The weights' identity (an S3 prefix, or a Hugging Face repository at a commit), the engine settings the artifacts
 * are compiled for (tensor parallel size, maximum concurrent sequences, maximum model length, dtype), the chip and
 * its Logical NeuronCore configuration, and the Neuron SDK of the serving image. Nothing operational (bucket,
 * instance type, timeout, the token's secret) is in it, so none of those changes the content hash.
 *
 * vLLM on Neuron loads artifacts found under `NEURON_COMPILED_ARTIFACTS` "directly, and any differing model
 * configurations passed in to the vllm API will not trigger re-compilation" (AWS Neuron docs, vLLM User Guide for
 * NxD Inference, "Loading pre-compiled models / Serialization Support",
 * https://awsdocs-neuron.readthedocs-hosted.com/en/latest/libraries/nxd-inference/developer_guides/vllm-user-guide-v1.html):
 * an artifact compiled for other settings is served silently, which is why the hostings check the manifest
 * (`checkGenerativeArtifacts`, lib/compile/generative-check.ts) before they create anything.
 */
import { createHash } from 'node:crypto';
import { InputError } from '../errors';
import { lazySchema, loadZod } from '../lazy-schema';
import { nxdiEngineKwargs, pluginEngineKwargs, VLLM_ENV, vllmEngineOf, type VllmReplicaConfig } from '../generative/engine-config';
import type { GenerativePlan } from '../generative/types';
import { canonicalJson, HASH_LENGTH } from './hash';
import { specProblems } from './spec';

/** Chips NxD Inference through vLLM compiles for (the vLLM user guide's "Supported AWS instances": Inf2, Trn1/Trn1n, Trn2). */
export type GenerativeChip = 'inf2' | 'trn1' | 'trn2';

/** Every generative chip. */
export const GENERATIVE_CHIPS: readonly GenerativeChip[] = ['inf2', 'trn1', 'trn2'];

/** The generative chip of an instance family (`trn1n` is the Trn1 chip), or undefined. */
export function generativeChipOfFamily(family: string): GenerativeChip | undefined {
  const base = family.replace(/^ml\./, '');
  if (base === 'inf2' || base === 'trn2') {
    return base;
  }
  return base === 'trn1' || base === 'trn1n' ? 'trn1' : undefined;
}

/** vLLM's `--dtype`: `auto` takes the checkpoint's `torch_dtype` (what `vllm serve` does when not told). */
export type GenerativeCompileDtype = 'auto' | 'bfloat16' | 'float16' | 'float32';

/** Every dtype a generative compile accepts. */
export const GENERATIVE_COMPILE_DTYPES: readonly GenerativeCompileDtype[] = ['auto', 'bfloat16', 'float16', 'float32'];

/** A Hugging Face commit: 40 lower-case hex digits. */
export const HF_COMMIT = /^[0-9a-f]{40}$/;

/** Where the weights come from, as far as their identity goes (no bucket object, no secret). */
export type GenerativeWeightsIdentity =
  | {
      readonly source: 's3';
      /** `s3://bucket/prefix/` holding the uncompressed Hugging Face layout (config.json, *.safetensors, tokenizer). */
      readonly s3Uri: string;
      /**
       * A label the user changes when the files under the prefix change (a date, a commit), so the hash changes.
       * Without it the prefix is the identity, and the deploy refuses a cached artifact whose weights' ETags differ.
       */
      readonly version?: string;
    }
  | {
      readonly source: 'huggingface';
      /** `owner/name`, e.g. `meta-llama/Llama-3.1-8B-Instruct`. */
      readonly repository: string;
      /** The commit (40 hex digits): branches and tags move, a commit does not. */
      readonly revision: string;
    };

/** A validated generative compile spec. */
export interface GenerativeCompileSpec {
  readonly kind: 'generative';
  /** Name used in messages and tags. */
  readonly model: string;
  readonly weights: GenerativeWeightsIdentity;
  /** `--tensor-parallel-size`: NxD Inference's `tp_degree`. */
  readonly tensorParallelSize: number;
  /** `--max-num-seqs`: the compiled decode batch size. */
  readonly maxNumSeqs: number;
  /** `--max-model-len`: the compiled sequence length, prompt plus output. */
  readonly maxModelLen: number;
  readonly dtype: GenerativeCompileDtype;
  readonly chip: GenerativeChip;
  /** `NEURON_LOGICAL_NC_CONFIG`: 2 on Trn2 by default, 1 elsewhere. */
  readonly logicalNeuronCoreConfig: number;
  /** Neuron SDK release of the serving image the compile runs in, e.g. `2.29.0`. */
  readonly neuronSdkVersion: string;
  /**
   * Trn2/Trn3 plans: the vLLM Neuron plugin's engine settings (vLLM keyword arguments) and where it compiles
   * (pluginCompileSpec, below). Part of the content hash, so a change of a bucket or a block recompiles.
   *
   * @default - an NxD Inference compile on the plan's chip
   */
  readonly plugin?: GenerativePluginCompile;
  /**
   * NxD Inference plans with buckets or levers: the vLLM engine keyword arguments they add (`additional_config` with
   * `override_neuron_config`, `speculative_config`, prefix caching's block layout; `nxdiEngineKwargs`). vLLM loads
   * whatever is under `NEURON_COMPILED_ARTIFACTS` and ignores differing settings, so an FP8 or speculative plan must
   * compile with them, and they are part of the content hash.
   *
   * @default - none: the engine's own buckets, no levers
   */
  readonly engine?: Readonly<Record<string, unknown>>;
}

/** The spec as written, before defaults: `dtype` defaults to `auto`, `logicalNeuronCoreConfig` to the chip's. */
export interface GenerativeCompileSpecInput extends Omit<GenerativeCompileSpec, 'kind' | 'dtype' | 'logicalNeuronCoreConfig'> {
  readonly kind?: 'generative';
  /** @default 'auto' */
  readonly dtype?: GenerativeCompileDtype;
  /** @default 2 on trn2, 1 on inf2 and trn1 */
  readonly logicalNeuronCoreConfig?: number;
}

/** Default Logical NeuronCore configuration per chip (AWS Neuron docs, "Logical NeuronCore configuration": LNC=2 on Trn2). */
export const DEFAULT_LNC: Readonly<Record<GenerativeChip, number>> = { inf2: 1, trn1: 1, trn2: 2 };

const POSITIVE = 'expected a positive integer';
const positive = () => loadZod().int({ error: POSITIVE }).positive({ error: POSITIVE });
const SDK = 'expected a Neuron SDK version such as "2.29.0"';
const nonEmpty = (what: string) => loadZod().string({ error: `expected ${what}` }).refine((s) => s.trim().length > 0 && !/\s/.test(s), { error: `expected ${what} without spaces` });

const weightsSchema = lazySchema((z) => z.union([
  z.strictObject({
    source: z.literal('s3'),
    s3Uri: z.string().regex(/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\/\S+\/$/, {
      error: 'expected s3://bucket/prefix/ (a Hugging Face model directory, ending with /)',
    }),
    version: nonEmpty('a version label').optional(),
  }),
  z.strictObject({
    source: z.literal('huggingface'),
    repository: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/, {
      error: 'expected a Hugging Face repository id owner/name, e.g. meta-llama/Llama-3.1-8B-Instruct',
    }),
    revision: z.string().regex(HF_COMMIT, {
      error: 'expected the 40-hex-digit commit of the repository (the "main" branch and tags move: the same spec must '
        + 'always mean the same weights); copy it from the repository\'s "Files and versions" history',
    }),
  }),
], { error: 'expected { "source": "s3", "s3Uri": "s3://bucket/prefix/" } or { "source": "huggingface", "repository": "owner/name", "revision": "<40-hex commit>" }' }));

/**
 * Zod schema of a generative compile spec.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const generativeCompileSpecSchema = lazySchema((z) => z.strictObject({
  kind: z.literal('generative').default('generative'),
  model: z.string({ error: 'expected a model name' }).refine((s) => s.trim().length > 0, { error: 'expected a non-empty model name' }),
  weights: weightsSchema(),
  tensorParallelSize: positive(),
  maxNumSeqs: positive(),
  maxModelLen: positive(),
  dtype: z.enum(GENERATIVE_COMPILE_DTYPES as [GenerativeCompileDtype, ...GenerativeCompileDtype[]], {
    error: `expected one of ${GENERATIVE_COMPILE_DTYPES.join(', ')}`,
  }).default('auto'),
  chip: z.enum(GENERATIVE_CHIPS as [GenerativeChip, ...GenerativeChip[]], { error: "expected 'inf2', 'trn1' or 'trn2'" }),
  logicalNeuronCoreConfig: z.union([z.literal(1), z.literal(2)], { error: 'expected 1 or 2' }).optional(),
  neuronSdkVersion: z.string({ error: SDK }).regex(/^\d+\.\d+(\.\d+)?$/, { error: SDK }),
  plugin: z.strictObject({
    target: z.string().regex(/^trn\d$/, { error: "expected a Trainium target such as 'trn2'" }),
    cpuCompile: z.boolean(),
    engine: z.record(z.string(), z.unknown()),
  }).optional(),
  engine: z.record(z.string(), z.unknown()).optional(),
}));

/**
 * Validates a generative compile spec and fills in its defaults.
 *
 * @param origin where it came from (a file, a construct path), named in every problem
 * @throws InputError listing every problem, one line each, naming the field, the value and the fix
 */
export function parseGenerativeCompileSpec(json: unknown, origin: string): GenerativeCompileSpec {
  const result = generativeCompileSpecSchema().safeParse(json);
  if (!result.success) {
    throw new InputError(specProblems(result.error.issues, json, origin,
      'an object with model, weights, tensorParallelSize, maxNumSeqs, maxModelLen, chip and neuronSdkVersion'));
  }
  const spec = result.data;
  const lnc = spec.logicalNeuronCoreConfig ?? DEFAULT_LNC[spec.chip];
  const problems: string[] = [];
  if (spec.chip !== 'trn2' && lnc !== 1) {
    problems.push(`${origin}: logicalNeuronCoreConfig: ${lnc} on ${spec.chip}: only Trn2 combines physical cores into logical ones; use 1`);
  }
  if (spec.plugin !== undefined && spec.engine !== undefined) {
    problems.push(`${origin}: engine: set beside plugin; a vLLM Neuron plugin compile takes its settings in plugin.engine: move them there`);
  }
  InputError.throwIfAny(problems);
  return {
    kind: 'generative',
    model: spec.model,
    weights: spec.weights,
    tensorParallelSize: spec.tensorParallelSize,
    maxNumSeqs: spec.maxNumSeqs,
    maxModelLen: spec.maxModelLen,
    dtype: spec.dtype,
    chip: spec.chip,
    logicalNeuronCoreConfig: lnc,
    neuronSdkVersion: spec.neuronSdkVersion,
    ...(spec.plugin !== undefined ? { plugin: spec.plugin } : {}),
    ...(spec.engine !== undefined && Object.keys(spec.engine).length > 0 ? { engine: spec.engine } : {}),
  };
}

/** The part of a generative plan a compile spec is derived from and checked against. */
export type GenerativePlanForArtifact = Pick<GenerativePlan, 'instanceType'> & {
  readonly instance: Pick<GenerativePlan['instance'], 'family'>;
  readonly generative: { readonly engine: GenerativePlan['generative']['engine'] };
};

/**
 * The compile spec a plan asks for: its engine settings and chip, with the weights and the serving image's SDK.
 *
 * @throws InputError when the plan's instance family has no generative chip
 */
export function generativeSpecForPlan(plan: GenerativePlanForArtifact, options: {
  readonly model: string;
  readonly weights: GenerativeWeightsIdentity;
  readonly neuronSdkVersion: string;
  readonly dtype?: GenerativeCompileDtype;
}, origin = 'generative compile'): GenerativeCompileSpec {
  const chip = generativeChipOfFamily(plan.instance.family);
  if (chip === undefined) {
    throw new InputError(`${origin}: the plan runs ${plan.instanceType} (${plan.instance.family}); vLLM on Neuron compiles for `
      + 'inf2, trn1 and trn2 instances: plan with --instance-types on one of them');
  }
  const engine = plan.generative.engine;
  const plugin = pluginCompileSpec(plan.instance.family, engine);
  const nxdi = plugin === undefined ? nxdiEngineKwargs(engine) : {};
  return parseGenerativeCompileSpec({
    model: options.model,
    weights: options.weights,
    tensorParallelSize: engine.tensorParallelSize,
    maxNumSeqs: engine.maxNumSeqs,
    maxModelLen: engine.maxModelLen,
    dtype: options.dtype ?? 'auto',
    chip,
    logicalNeuronCoreConfig: engine.logicalNeuronCoreConfig,
    neuronSdkVersion: options.neuronSdkVersion,
    ...(plugin !== undefined ? { plugin } : {}),
    ...(Object.keys(nxdi).length > 0 ? { engine: nxdi } : {}),
  }, origin);
}

/**
 * SSM public parameter of the generative compile host's AMI: the ECS-optimized Amazon Linux 2023 Neuron AMI (Neuron
 * driver and Docker; what `ecs.EcsOptimizedImage.amazonLinux2023(AmiHardwareType.NEURON)` reads).
 */
export const GENERATIVE_HOST_AMI_PARAMETER = '/aws/service/ecs/optimized-ami/amazon-linux-2023/neuron/recommended/image_id';

/** Folder of the compiled artifacts under the artifact prefix: the hosting's `NEURON_COMPILED_ARTIFACTS`. */
export const COMPILED_ARTIFACTS_DIR = 'compiled/';

/** Folder of the staged Hub weights under the artifact prefix. */
export const STAGED_MODEL_DIR = 'model/';

/**
 * The artifact key of a generative spec: the first {@link HASH_LENGTH} hex digits of a SHA-256 over the canonical
 * spec (weights identity and engine settings) and the bytes of the compile program
 * (serving/compile/compile_generative.py), so a change of either recompiles.
 */
export function generativeCompileHash(spec: GenerativeCompileSpec, program: Uint8Array | string): string {
  return createHash('sha256')
    .update('cdk-inferentia generative compile v1\n')
    .update(canonicalJson(spec))
    .update(`\n${typeof program === 'string' ? Buffer.byteLength(program) : program.length}\n`)
    .update(program)
    .digest('hex')
    .slice(0, HASH_LENGTH);
}

/*
 * Compiling a Trn2/Trn3 plan on a CPU instance: the vLLM Neuron plugin's CPU compilation.
 *
 * With `VLLM_NEURON_CPU_COMPILE=1` the plugin runs the whole torch.compile path and neuronx-cc on a CPU instance, for
 * the target `NEURON_PLATFORM_TARGET_OVERRIDE` names ("required ... since no hardware is present to auto-detect it"),
 * and pushes the NEFFs to the remote cache `NEURON_LIBTORCH_REMOTE_CACHE`; Neuron instances then load them without
 * compiling (plugin docs, design/compilation/cpu_compilation.md and compilation_cache.md, 2026-06-22). The compile
 * job runs the plan's own `vllm serve` arguments that way, so the graphs are the ones the serving copies ask for, and
 * stores the cache under the artifact prefix of the key below: a redeploy of the same plan finds it and compiles
 * nothing. The accelerator hour (85.964 USD for trn2.48xlarge in us-east-2) is not spent on the compiler.
 *
 */
/** `NEURON_PLATFORM_TARGET_OVERRIDE` by instance family: neuronx-cc's `--target` of the chip. */
export const PLUGIN_COMPILE_TARGETS: Readonly<Record<string, string>> = { trn2: 'trn2', trn2u: 'trn2', trn3: 'trn3' };

/** Variables of the CPU compile (the plugin's names). */
export const PLUGIN_COMPILE_ENV = {
  cpuCompile: 'VLLM_NEURON_CPU_COMPILE',
  target: 'NEURON_PLATFORM_TARGET_OVERRIDE',
  remoteCache: VLLM_ENV.pluginRemoteCache,
  logicalNeuronCoreConfig: VLLM_ENV.logicalNeuronCoreConfig,
} as const;

/** What the compiled graphs depend on, as the plugin docs list it: model, dependency versions and the engine settings. */
export interface PluginCompileKeyInput {
  /** The instance family the graphs are for (`trn2`). */
  readonly family: string;
  /** The weights' identity (S3 prefix and version, or Hub repository and commit). */
  readonly weights: unknown;
  /** The serving image by digest: it fixes vLLM, the plugin, torch-neuronx and neuronx-cc. */
  readonly imageDigest: string;
  /** One replica's engine: its arguments and environment, rendered from the plan. */
  readonly replica: Pick<VllmReplicaConfig, 'args' | 'environment'>;
}

/** Arguments that name where the engine listens or what clients call it: they change no graph. */
const NOT_IN_GRAPH = /^--(host|port|served-model-name)=/;

/**
 * The artifact key of a plugin compile: the first {@link HASH_LENGTH} hex digits of a SHA-256 over the target, the
 * weights, the image digest and every engine setting that shapes a graph (tensor parallelism, LNC, lengths, buckets,
 * KV blocks and block size, dtype, speculation), so a change of any recompiles and nothing else does.
 *
 * @throws InputError for a family the plugin does not compile for
 */
export function pluginCompileKey(input: PluginCompileKeyInput): string {
  const target = PLUGIN_COMPILE_TARGETS[input.family];
  if (target === undefined) {
    throw new InputError(`family ${input.family}: the vLLM Neuron plugin compiles for ${Object.keys(PLUGIN_COMPILE_TARGETS).join(', ')}; `
      + 'Inf2 and Trn1 plans compile with NxD Inference on their own chip');
  }
  const [, ...flags] = input.replica.args;
  const settings = flags.filter((a) => !NOT_IN_GRAPH.test(a));
  const lnc = input.replica.environment[VLLM_ENV.logicalNeuronCoreConfig];
  return createHash('sha256')
    .update('cdk-inferentia vllm-neuron cpu compile v1\n')
    .update(canonicalJson({ target, lnc: lnc ?? null, weights: input.weights, image: input.imageDigest, settings }))
    .digest('hex')
    .slice(0, HASH_LENGTH);
}

/** The vLLM Neuron plugin part of a compile spec. */
export interface GenerativePluginCompile {
  /** `NEURON_PLATFORM_TARGET_OVERRIDE`: the chip the graphs are for (`trn2`). */
  readonly target: string;
  /** Compile on a CPU host (`VLLM_NEURON_CPU_COMPILE=1`) rather than on the chip. */
  readonly cpuCompile: boolean;
  /** vLLM engine keyword arguments beyond the spec's own (buckets in `additional_config`, KV blocks, prefix caching). */
  readonly engine: Readonly<Record<string, unknown>>;
}

/**
 * The plugin part of a plan's compile spec: the chip target, a CPU compile, and the engine settings the serving copies
 * run, so the graphs compiled are the ones they ask for; undefined for an NxD Inference family.
 */
export function pluginCompileSpec(family: string, engine: Pick<GenerativePlan['generative']['engine'], 'maxNumSeqs' | 'maxModelLen' | 'levers'>):
  GenerativePluginCompile | undefined {
  if (vllmEngineOf(family) !== 'vllm-neuron-plugin') return undefined;
  const target = PLUGIN_COMPILE_TARGETS[family];
  return { target, cpuCompile: true, engine: { ...pluginEngineKwargs(engine) } };
}

/**
 * The environment of the CPU compile: the replica's own (LNC) plus CPU compilation for the plan's chip, pushing to the
 * cache directory the job then uploads under the key's prefix.
 */
export function cpuCompileEnvironment(family: string, replica: Pick<VllmReplicaConfig, 'environment'>, cacheDir: string): Record<string, string> {
  const target = PLUGIN_COMPILE_TARGETS[family];
  if (target === undefined) {
    throw new InputError(`family ${family}: no CPU compile target; the vLLM Neuron plugin compiles for ${Object.keys(PLUGIN_COMPILE_TARGETS).join(', ')}`);
  }
  return {
    ...replica.environment,
    [PLUGIN_COMPILE_ENV.cpuCompile]: '1',
    [PLUGIN_COMPILE_ENV.target]: target,
    [PLUGIN_COMPILE_ENV.remoteCache]: cacheDir,
  };
}
