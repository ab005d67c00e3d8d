/**
 * The engine's settings, rendered from a generative plan: the `vllm serve` arguments and environment of each replica.
 *
 * vLLM with the Neuron plugin (NxD Inference) maps its own settings onto the compiled model (AWS Neuron docs, "vLLM
 * User Guide for NxD Inference", plugin 0.5.0 with Neuron SDK 2.29 and vLLM 0.16,
 * https://awsdocs-neuron.readthedocs-hosted.com/en/v2.29.1/libraries/nxd-inference/developer_guides/vllm-user-guide-v1.html):
 * `--tensor-parallel-size` becomes `tp_degree`, `--max-num-seqs` the compiled decode `batch_size`, `--max-model-len`
 * the sequence length. Without prefix caching or chunked prefill NxD Inference keeps a contiguous KV cache and
 * `--num-gpu-blocks-override` must equal `--max-num-seqs` ("Known Issues", item 2; the plugin adds the one null block
 * itself: vllm-project/vllm-neuron `vllm_neuron/platform.py`, "Adding 1 to num_gpu_blocks_override"). The plugin's
 * Neuron scheduler turns chunked prefill off and sets `block_size` to `max_model_len` without prefix caching (same
 * file); `--no-enable-chunked-prefill --no-enable-prefix-caching` say so explicitly, the continuous-batching model the
 * planner priced (lib/generative/continuous-batching.ts: prefills stop decoding). `NEURON_COMPILED_ARTIFACTS` names
 * the directory of pre-compiled artifacts ("Loading pre-compiled models"; read by the plugin's
 * `neuronx_distributed_model_loader.py`). Not passed: `--block-size` (the plugin overwrites it with `max_model_len`,
 * above) and `--device` (removed in vLLM 0.10, vllm-project/vllm#21349; the plugin is the platform).
 * `--additional-config` is passed only for plans the performance model priced (estimated buckets and levers,
 * `engine-config.ts`): its `override_neuron_config` then compiles exactly those graphs; measured plans keep the
 * engine's defaults, the graphs their rows measured. The
 * same names hold for plugin 0.4.1 with vLLM 0.13 (Neuron SDK 2.28, the
 * last SDK whose NxD Inference runs on Inf2 and Trn1): docs/generative-serving.md lists the pins and sources.
 *
 * The model goes first, as a positional argument: `vllm serve --model` is deprecated ("With `vllm serve`, you should
 * provide the model as a positional argument ... The `--model` option will be removed", vLLM
 * `vllm/utils/argparse_utils.py`). `VLLM_NEURON_FRAMEWORK` is not set: only the retired V0 fork read it; the V1 plugin
 * always uses NxD Inference (`vllm_neuron/platform.py`, `get_neuron_framework_to_use`; the Llama 4 tutorial: "No need
 * to set VLLM_NEURON_FRAMEWORK in V1").
 *
 * Hostings call {@link vllmReplicaConfigs} and never spell an engine setting themselves.
 */
import { InputError } from '../errors';
import type { GenerativePlan } from './types';
import type { EngineSettings } from './types';

/** Port the engine listens on unless the caller says: the port SageMaker sends `/ping` and `/invocations` to. */
export const VLLM_DEFAULT_PORT = 8080;

/** Environment variables the engine reads. */
export const VLLM_ENV = {
  /** Directory of the compiled artifacts vLLM loads (compiles and saves there when missing). */
  compiledArtifacts: 'NEURON_COMPILED_ARTIFACTS',
  /** NeuronCores of one replica when several share a host or container (`0-7`). */
  visibleCores: 'NEURON_RT_VISIBLE_CORES',
  /**
   * Physical NeuronCores per logical core on Trn2 and newer, where the runtime's default is 2 (AWS Neuron docs,
   * "Logical NeuronCore configuration"): set on every instance that has the setting, so the runtime always matches
   * the artifact, compiled for the plan's value.
   */
  logicalNeuronCoreConfig: 'NEURON_LOGICAL_NC_CONFIG',
} as const;

/** Where the model is and how each replica is reached. */
export interface VllmEngineOptions {
  /** The weights: a directory in the container (`/opt/ml/model`) or a Hugging Face repository id. */
  readonly model: string;
  /** Name clients send in the request's `model` field. */
  readonly servedModelName: string;
  /** Directory of compiled artifacts in the container. @default - vLLM compiles at start into the model directory */
  readonly compiledArtifacts?: string;
  /** Port of the first replica. @default 8080 */
  readonly port?: number;
  /**
   * Give each replica its own port (`port + index`), for replicas sharing one network namespace (one host, or
   * containers in host network mode). @default false - every replica listens on `port` in its own container
   */
  readonly portPerReplica?: boolean;
  /**
   * Pin each replica to its NeuronCores with `NEURON_RT_VISIBLE_CORES`, for replicas that see every device of the
   * instance. A container that maps only its replica's `/dev/neuronN` devices, or a SageMaker inference component
   * (SageMaker assigns the devices), needs no pinning. @default false
   */
  readonly pinCores?: boolean;
}

/** One replica's engine: what to run and on which devices. */
export interface VllmReplicaConfig {
  readonly index: number;
  readonly port: number;
  /** Neuron devices the replica's tensor-parallel group spans (`/dev/neuron0`). */
  readonly devices: readonly string[];
  /** The replica's cores, as `NEURON_RT_VISIBLE_CORES` spells them. */
  readonly visibleCores: string;
  /** Arguments after `vllm serve`: the model (positional), then the flags. */
  readonly args: readonly string[];
  readonly environment: Readonly<Record<string, string>>;
}

/**
 * The engine of every replica one instance of the plan runs.
 *
 * @throws InputError for an encoder-decoder plan (vLLM on Neuron serves decoder-only models) or bad options
 */
export function vllmReplicaConfigs(plan: GenerativePlan, options: VllmEngineOptions): VllmReplicaConfig[] {
  checkOptions(plan, options);
  const base = options.port ?? VLLM_DEFAULT_PORT;
  const engine = plan.generative.engine;
  return plan.generative.replicas.map((replica) => {
    const port = options.portPerReplica ? base + replica.index : base;
    const levers = leverArgs(engine);
    const args = [
      options.model,
      `--served-model-name=${options.servedModelName}`,
      `--tensor-parallel-size=${engine.tensorParallelSize}`,
      `--max-num-seqs=${engine.maxNumSeqs}`,
      `--max-model-len=${engine.maxModelLen}`,
      `--num-gpu-blocks-override=${engine.maxNumSeqs}`,
      '--no-enable-chunked-prefill',
      '--no-enable-prefix-caching',
      '--host=0.0.0.0',
      `--port=${port}`,
    ].flatMap((arg) => levers.replace[arg] ?? [arg]);
    args.push(...levers.add);
    const environment: Record<string, string> = {};
    if (options.compiledArtifacts !== undefined) environment[VLLM_ENV.compiledArtifacts] = options.compiledArtifacts;
    if (engine.logicalNeuronCoreConfig > 1 || plan.instance.logicalNeuronCoreConfig !== undefined) {
      environment[VLLM_ENV.logicalNeuronCoreConfig] = String(engine.logicalNeuronCoreConfig);
    }
    if (options.pinCores) environment[VLLM_ENV.visibleCores] = replica.visibleCores;
    return { index: replica.index, port, devices: replica.devices, visibleCores: replica.visibleCores, args, environment };
  });
}

/** The whole command of one replica: `vllm serve ...`. */
export function vllmServeCommand(config: VllmReplicaConfig): string[] {
  return ['vllm', 'serve', ...config.args];
}

function checkOptions(plan: GenerativePlan, options: VllmEngineOptions): void {
  if (plan.generative.architecture !== 'decoder-only') {
    throw new InputError(`plan for ${plan.profileId} is ${plan.generative.architecture}: vLLM on Neuron serves decoder-only models; ` +
      'host an encoder-decoder model with the model server (ModelImage.fromServer) and a handler that runs its generation loop');
  }
  const port = options.port ?? VLLM_DEFAULT_PORT;
  const last = options.portPerReplica ? port + plan.generative.replicas.length - 1 : port;
  if (!Number.isInteger(port) || port < 1 || last > 65535) {
    throw new InputError(`port: ${options.port} (with ${plan.generative.replicas.length} replicas) is not a port; use an integer from 1 to ${65535 - (last - port)}`);
  }
  for (const [field, value] of [['model', options.model], ['servedModelName', options.servedModelName], ['compiledArtifacts', options.compiledArtifacts]] as const) {
    if (value !== undefined && (value.trim() === '' || /\s/.test(value))) {
      throw new InputError(`${field}: '${value}' must be a non-empty path or name without spaces`);
    }
  }
  if (options.model.startsWith('-')) {
    throw new InputError(`model: '${options.model}' starts with '-', which vllm serve would read as an option; pass a path (/opt/ml/model) or a Hugging Face id`);
  }
}

/*

 * The engine arguments of a plan's buckets and levers (NxD Inference through vLLM, the engine Inf2 and Trn1 run):
 * what the performance model priced, rendered so the compiled graphs are those.
 *
 * - Buckets: `override_neuron_config` `enable_bucketing`, `context_encoding_buckets`, `token_generation_buckets`
 *   (AWS Neuron docs, NxD Inference feature guide, "Bucketing"), passed through vLLM's `--additional-config`
 *   (vLLM User Guide for NxD Inference: `--additional-config '{"override_neuron_config": {...}}'`).
 * - Speculative decoding: `enable_fused_speculation` in `override_neuron_config` and `--speculative-config` with the
 *   draft and `num_speculative_tokens` (NxD Inference speculative decoding tutorial, sd-inference-tutorial.rst).
 * - FP8 weights: `quantized`, `quantization_dtype: f8e4m3`, `quantization_type: per_channel_symmetric`; FP8 KV
 *   cache: `kv_cache_quant` (NxD Inference feature guide, "Quantization" and "KV cache quantization").
 * - Prefix caching: `--enable-prefix-caching` with a block KV layout (`is_prefix_caching`, `is_block_kv_layout`,
 *   `--block-size`, blocks for every sequence at the model length), NxD Inference from SDK 2.24.
 */

/** KV block size rendered with prefix caching, tokens. */
export const PREFIX_CACHE_BLOCK_SIZE = 32;

/** The `override_neuron_config` of the plan's buckets and levers; undefined when it has neither. */
export function overrideNeuronConfig(engine: EngineSettings): Record<string, unknown> | undefined {
  const levers = engine.levers;
  if (!engine.contextEncodingBuckets && !levers) {
    return undefined;
  }
  return {
    ...(engine.contextEncodingBuckets ? {
      enable_bucketing: true,
      context_encoding_buckets: engine.contextEncodingBuckets,
      token_generation_buckets: engine.tokenGenerationBuckets,
    } : {}),
    ...(levers?.speculation ? { enable_fused_speculation: true } : {}),
    ...(levers?.fp8Weights ? { quantized: true, quantization_dtype: 'f8e4m3', quantization_type: 'per_channel_symmetric' } : {}),
    ...(levers?.fp8KvCache ? { kv_cache_quant: true } : {}),
    ...(levers?.prefixHitRate !== undefined ? { is_prefix_caching: true, is_block_kv_layout: true } : {}),
  };
}

/**
 * `vllm serve` arguments replacing the defaults `--num-gpu-blocks-override`, `--no-enable-prefix-caching` where a
 * lever changes them, and adding `--additional-config` and `--speculative-config`.
 */
export function leverArgs(engine: EngineSettings): { readonly replace: Readonly<Record<string, string[]>>; readonly add: readonly string[] } {
  const override = overrideNeuronConfig(engine);
  const levers = engine.levers;
  const add = [
    ...(override ? [`--additional-config=${JSON.stringify({ override_neuron_config: override })}`] : []),
    ...(levers?.speculation ? [`--speculative-config=${JSON.stringify({
      model: levers.speculation.draft.huggingFaceId,
      num_speculative_tokens: levers.speculation.speculativeTokens,
      max_model_len: engine.maxModelLen,
    })}`] : []),
  ];
  const replace: Record<string, string[]> = {};
  if (levers?.prefixHitRate !== undefined) {
    const blocks = engine.maxNumSeqs * Math.ceil(engine.maxModelLen / PREFIX_CACHE_BLOCK_SIZE);
    replace['--no-enable-prefix-caching'] = ['--enable-prefix-caching', `--block-size=${PREFIX_CACHE_BLOCK_SIZE}`];
    replace[`--num-gpu-blocks-override=${engine.maxNumSeqs}`] = [`--num-gpu-blocks-override=${blocks}`];
  }
  return { replace, add };
}
