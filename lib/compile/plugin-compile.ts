/**
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
 * Pure: the construct launches the host and the script; this module says which host, which environment and which key.
 */
import { createHash } from 'node:crypto';
import type { VllmReplicaConfig } from '../generative/engine-config';
import { VLLM_ENV } from '../generative/engine-config';
import { InputError } from '../errors';
import { pluginEngineKwargs, vllmEngineOf } from '../generative/plugin-config';
import type { GenerativePlan } from '../generative/types';
import { canonicalJson, HASH_LENGTH } from './hash';

/** `NEURON_PLATFORM_TARGET_OVERRIDE` by instance family: neuronx-cc's `--target` of the chip. */
export const PLUGIN_COMPILE_TARGETS: Readonly<Record<string, string>> = { trn2: 'trn2', trn2u: 'trn2', trn3: 'trn3' };

/** Variables of the CPU compile (the plugin's names). */
export const PLUGIN_COMPILE_ENV = {
  cpuCompile: 'VLLM_NEURON_CPU_COMPILE',
  target: 'NEURON_PLATFORM_TARGET_OVERRIDE',
  remoteCache: VLLM_ENV.pluginRemoteCache,
  logicalNeuronCoreConfig: VLLM_ENV.logicalNeuronCoreConfig,
} as const;

/**
 * SSM public parameter of the CPU compile host's AMI: the ECS-optimized Amazon Linux 2023 AMI (Docker, no Neuron
 * driver: the CPU compile needs no device).
 */
export const CPU_COMPILE_HOST_AMI_PARAMETER = '/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id';

/**
 * Memory-optimized CPU hosts for the compile (EC2 "Memory optimized instances": R7i, 8 GiB per vCPU), smallest first:
 * vCPUs run neuronx-cc on several buckets at once, memory holds the checkpoint while the graph is captured.
 */
export const CPU_COMPILE_HOSTS: readonly { readonly name: string; readonly vcpus: number; readonly memoryGiB: number }[] = [
  { name: 'r7i.4xlarge', vcpus: 16, memoryGiB: 128 },
  { name: 'r7i.8xlarge', vcpus: 32, memoryGiB: 256 },
  { name: 'r7i.12xlarge', vcpus: 48, memoryGiB: 384 },
  { name: 'r7i.16xlarge', vcpus: 64, memoryGiB: 512 },
  { name: 'r7i.24xlarge', vcpus: 96, memoryGiB: 768 },
  { name: 'r7i.48xlarge', vcpus: 192, memoryGiB: 1536 },
];

/**
 * Host memory a CPU compile needs: the checkpoint read once and sharded (twice the weights), plus 32 GiB for the
 * compiler workers. ESTIMATE (UNVERIFIED): the plugin docs state no figure; an out-of-memory compile is what it avoids.
 */
export function cpuCompileMemoryGiB(weightsGiB: number): number {
  return 2 * weightsGiB + 32;
}

/**
 * The CPU instance types to try for a model of `weightsGiB`, in order: the smallest R7i with the memory, then the next
 * larger one (EC2 capacity fallback).
 *
 * @throws InputError when no R7i size holds the model
 */
export function cpuCompileHostTypes(weightsGiB: number): string[] {
  const needed = cpuCompileMemoryGiB(weightsGiB);
  const fit = CPU_COMPILE_HOSTS.filter((h) => h.memoryGiB >= needed);
  if (fit.length === 0) {
    throw new InputError(`a CPU compile of ${Math.round(weightsGiB)} GiB of weights needs about ${Math.round(needed)} GiB of host memory, `
      + `more than ${CPU_COMPILE_HOSTS[CPU_COMPILE_HOSTS.length - 1].name} has; pass compileInstanceTypes`);
  }
  return fit.slice(0, 2).map((h) => h.name);
}

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
export function pluginCompileSpec(family: string, engine: Pick<GenerativePlan['generative']['engine'], 'maxNumSeqs' | 'maxModelLen'>):
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
