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
  /**
   * The vLLM Neuron plugin's shared compilation cache: NEFFs found there are not compiled again (plugin docs,
   * design/compilation/compilation_cache.md, "Remote cache"). Trn2/Trn3 plans point it where `compiledArtifacts` is.
   */
  pluginRemoteCache: 'NEURON_LIBTORCH_REMOTE_CACHE',
} as const;

/** Where the model is and how each replica is reached. */
export interface VllmEngineOptions extends PluginEngineOptions {
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
    const plugin = vllmEngineOf(plan.instance.family) === 'vllm-neuron-plugin';
    const levers = plugin ? pluginLevers(plan) : nxdiLevers(plan);
    const args = [
      options.model,
      `--served-model-name=${options.servedModelName}`,
      `--tensor-parallel-size=${engine.tensorParallelSize}`,
      `--max-num-seqs=${engine.maxNumSeqs}`,
      `--max-model-len=${engine.maxModelLen}`,
      ...(plugin ? pluginArguments(plan, options).args : [
        `--num-gpu-blocks-override=${engine.maxNumSeqs}`,
        '--no-enable-chunked-prefill',
        '--no-enable-prefix-caching',
      ]),
      '--host=0.0.0.0',
      `--port=${port}`,
    ].flatMap((arg) => levers.replace[arg] ?? [arg]);
    args.push(...levers.add);
    const environment: Record<string, string> = {};
    if (options.compiledArtifacts !== undefined) {
      environment[plugin ? VLLM_ENV.pluginRemoteCache : VLLM_ENV.compiledArtifacts] = options.compiledArtifacts;
    }
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
  InputError.throwIfAny(engineSettingProblems('vllmReplicaConfigs', plan, options));
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

/*
 * The vLLM Neuron plugin's settings (Trn2 and Trn3), rendered from a generative plan.
 *
 * Inf2 and Trn1 run vLLM over NxD Inference (above); Trn2 and Trn3 run the vLLM Neuron plugin
 * (vllm-project/vllm-neuron, torch.compile with the `vllm_neuron` backend), documented "relevant for: Trn2, Trn3" only
 * (https://awsdocs-neuron.readthedocs-hosted.com/en/v2.33.0/vllm-neuron/docs/index.html). Its own settings, from its
 * configuration reference (docs/guides/reference-configuration.md, 2026-10-16) and features guide:
 * - `--additional-config '{"neuron_config": {...}}'`: `num_batched_tokens_buckets` (compiled prefill token counts; "largest
 *   must equal max_num_batched_tokens") and `num_seqs_buckets` (compiled decode batch sizes; "largest must equal
 *   max_num_seqs"). Each bucket is one compiled graph and "each bucket consumes device memory", so the buckets are the
 *   powers of two up to the plan's values and no more.
 * - Prefix caching is on by default and needs `--block-size`; the KV cache is sized with `--num-gpu-blocks-override`.
 *   Right-sizing the blocks to `max_model_len * max_num_seqs / block_size` is what the features guide recommends over
 *   the default budget (a capped fraction of HBM).
 * - `--max-num-batched-tokens` splits long prompts (segmented prefill); it is the plan's sequence length, so a prompt
 *   the plan admits prefills in one step, the behaviour the planner priced.
 * - Async scheduling and on-device sampling are on by default; `--speculative-config` takes EAGLE3 or DFlash, and DFlash
 *   needs `--no-async-scheduling` and no prefix caching (features guide, "Speculative decoding").
 *
 * `vllmReplicaConfigs` (above) renders these for Trn2/Trn3 plans; hostings never spell them.
 */

/** Instance families whose vLLM engine is the vLLM Neuron plugin (Trainium2 and newer). */
export const PLUGIN_FAMILIES: readonly string[] = ['trn2', 'trn2u', 'trn3'];

/** Where the plugin is documented, for messages that refuse a setting or an image. */
export const PLUGIN_DOCS = 'https://awsdocs-neuron.readthedocs-hosted.com/en/v2.33.0/vllm-neuron/docs/guides/reference-configuration.html';

/** Where NxD Inference's vLLM integration is documented (Inf2, Trn1). */
export const NXDI_VLLM_DOCS = 'https://awsdocs-neuron.readthedocs-hosted.com/en/v2.28.0/libraries/nxd-inference/developer_guides/vllm-user-guide-v1.html';

/** The vLLM engine an instance family runs. */
export type VllmEngineKind = 'nxd-inference' | 'vllm-neuron-plugin';

/** The engine of an instance family. */
export function vllmEngineOf(family: string): VllmEngineKind {
  return PLUGIN_FAMILIES.includes(family) ? 'vllm-neuron-plugin' : 'nxd-inference';
}

/** KV-cache block size the plugin is given: prefix caching shares whole blocks, so small blocks share more. */
export const PLUGIN_BLOCK_SIZE = 32;

/** Smallest prefill bucket the plugin compiles by default (reference configuration: "Power-of-2 from 128"). */
const SMALLEST_PREFILL_BUCKET = 128;

/** Speculative decoding the plugin runs, as `--speculative-config` spells it. */
export interface PluginSpeculation {
  /** `eagle3` or `dflash`. */
  readonly method: 'eagle3' | 'dflash';
  /** The draft model: a directory in the container or a Hugging Face id. */
  readonly model: string;
  /** Tokens drafted per step. */
  readonly numSpeculativeTokens: number;
}

/** Settings only the plugin runs; NxD Inference plans refuse them. */
export interface PluginEngineOptions {
  /** Speculative decoding. @default - none */
  readonly speculation?: PluginSpeculation;
  /** `fp8` stores the KV cache in FP8 (`--kv-cache-dtype fp8`). @default - the model's dtype */
  readonly kvCacheDtype?: 'fp8';
}

/** The prefill buckets the plugin compiles for a model length: powers of two from 128, then the length itself. */
export function pluginPrefillBuckets(maxModelLen: number): number[] {
  return powerOfTwoBuckets(Math.min(SMALLEST_PREFILL_BUCKET, maxModelLen), maxModelLen);
}

/** The plugin's part of one replica's arguments (after the model and the common flags). */
export interface PluginArguments {
  readonly args: readonly string[];
  /** The `neuron_config` passed in `--additional-config`. */
  readonly neuronConfig: { readonly num_batched_tokens_buckets: number[]; readonly num_seqs_buckets: number[] };
  readonly blockSize: number;
  readonly numGpuBlocks: number;
}

/** Powers of two from `from` below `top`, then `top`: the largest bucket must equal the plan's value. */
export function powerOfTwoBuckets(from: number, top: number): number[] {
  const buckets: number[] = [];
  for (let b = from; b < top; b *= 2) buckets.push(b);
  buckets.push(top);
  return buckets;
}

/**
 * The plugin flags of a plan: buckets, prefix caching with right-sized KV blocks, async scheduling, speculation.
 *
 * @throws InputError when a setting cannot run (DFlash with prefix caching is not a choice here: it turns both off)
 */
export function pluginArguments(plan: Pick<GenerativePlan, 'generative'>, options: PluginEngineOptions = {}): PluginArguments {
  const planned = planSpeculation(plan.generative.engine.levers);
  if (planned && options.speculation) {
    throw new InputError(`speculation: the plan already speculates with ${planned.method} (${planned.model}, ${planned.numSpeculativeTokens} tokens), `
      + 'which its capacity counts on; remove the speculation option, or plan with --no-speculative-decoding to choose your own');
  }
  const engine = pluginEngineKwargs(plan.generative.engine, options);
  const { neuron_config: neuronConfig } = engine.additional_config;
  const speculation = options.speculation ?? planned;
  const args = [
    `--max-num-batched-tokens=${engine.max_num_batched_tokens}`,
    `--block-size=${engine.block_size}`,
    `--num-gpu-blocks-override=${engine.num_gpu_blocks_override}`,
    engine.enable_prefix_caching ? '--enable-prefix-caching' : '--no-enable-prefix-caching',
    engine.async_scheduling ? '--async-scheduling' : '--no-async-scheduling',
    `--additional-config=${JSON.stringify({ neuron_config: neuronConfig })}`,
  ];
  if (speculation) {
    const problems: string[] = [];
    if (!Number.isInteger(speculation.numSpeculativeTokens) || speculation.numSpeculativeTokens < 1 || speculation.numSpeculativeTokens > 16) {
      problems.push(`speculation.numSpeculativeTokens=${speculation.numSpeculativeTokens} must be a whole number from 1 to 16`);
    }
    if (speculation.model.trim() === '' || /\s/.test(speculation.model)) {
      problems.push(`speculation.model: '${speculation.model}' must be a non-empty path or Hugging Face id without spaces`);
    }
    InputError.throwIfAny(problems);
    args.push(`--speculative-config=${JSON.stringify({
      method: speculation.method, model: speculation.model, num_speculative_tokens: speculation.numSpeculativeTokens,
    })}`);
  }
  if (options.kvCacheDtype) args.push(`--kv-cache-dtype=${options.kvCacheDtype}`);
  return { args, neuronConfig, blockSize: engine.block_size, numGpuBlocks: engine.num_gpu_blocks_override };
}

/** The plugin settings as vLLM's engine keyword arguments (what `LLM(...)` takes): one source for serve and compile. */
export interface PluginEngineKwargs {
  readonly max_num_batched_tokens: number;
  readonly block_size: number;
  readonly num_gpu_blocks_override: number;
  readonly enable_prefix_caching: boolean;
  readonly async_scheduling: boolean;
  readonly additional_config: { readonly neuron_config: { readonly num_batched_tokens_buckets: number[]; readonly num_seqs_buckets: number[] } };
  /** The plan's EAGLE3 speculation, so a compile builds the draft's graphs too. @default - none */
  readonly speculative_config?: { readonly method: string; readonly model: string; readonly num_speculative_tokens: number };
}

/** The plugin's engine settings of a plan's engine (speculation: only the plan's own; a caller's has its own flag). */
export function pluginEngineKwargs(engine: Pick<GenerativePlan['generative']['engine'], 'maxNumSeqs' | 'maxModelLen'> & Pick<EngineSettings, 'levers'>,
  options: PluginEngineOptions = {}): PluginEngineKwargs {
  const { maxNumSeqs, maxModelLen } = engine;
  const dflash = options.speculation?.method === 'dflash';
  const planned = planSpeculation(engine.levers);
  return {
    ...(planned ? { speculative_config: { method: planned.method, model: planned.model, num_speculative_tokens: planned.numSpeculativeTokens } } : {}),
    max_num_batched_tokens: maxModelLen,
    block_size: PLUGIN_BLOCK_SIZE,
    // Every sequence the plan admits at its full length, and no more: the rest of HBM stays free for the buckets.
    num_gpu_blocks_override: Math.ceil(maxModelLen / PLUGIN_BLOCK_SIZE) * maxNumSeqs,
    enable_prefix_caching: !dflash,
    async_scheduling: !dflash,
    additional_config: {
      neuron_config: {
        num_batched_tokens_buckets: pluginPrefillBuckets(maxModelLen),
        num_seqs_buckets: powerOfTwoBuckets(1, maxNumSeqs),
      },
    },
  };
}

/**
 * The vLLM engine keyword arguments (what `LLM(...)` takes) that an NxD Inference plan's buckets and levers add to the
 * defaults (contiguous KV cache, no prefix caching): `additional_config` with the `override_neuron_config` above,
 * `speculative_config` with the draft, and prefix caching's block KV layout. Empty without buckets or levers. One
 * source for `vllm serve` ({@link leverArgs}) and the compile (lib/compile/generative-spec.ts), so the graphs compiled
 * are those served.
 */
export function nxdiEngineKwargs(engine: EngineSettings): Record<string, unknown> {
  const override = overrideNeuronConfig(engine);
  const levers = engine.levers;
  return {
    ...(override ? { additional_config: { override_neuron_config: override } } : {}),
    ...(levers?.speculation ? {
      speculative_config: {
        model: levers.speculation.draft.huggingFaceId,
        num_speculative_tokens: levers.speculation.speculativeTokens,
        max_model_len: engine.maxModelLen,
      },
    } : {}),
    ...(levers?.prefixHitRate !== undefined ? {
      enable_prefix_caching: true,
      block_size: PREFIX_CACHE_BLOCK_SIZE,
      num_gpu_blocks_override: engine.maxNumSeqs * Math.ceil(engine.maxModelLen / PREFIX_CACHE_BLOCK_SIZE),
    } : {}),
  };
}

/**
 * `vllm serve` arguments replacing the defaults `--num-gpu-blocks-override`, `--no-enable-prefix-caching` where a
 * lever changes them, and adding `--additional-config` and `--speculative-config`: {@link nxdiEngineKwargs} as flags.
 */
export function leverArgs(engine: EngineSettings): { readonly replace: Readonly<Record<string, string[]>>; readonly add: readonly string[] } {
  const kwargs = nxdiEngineKwargs(engine);
  const add = [
    ...(kwargs.additional_config ? [`--additional-config=${JSON.stringify(kwargs.additional_config)}`] : []),
    ...(kwargs.speculative_config ? [`--speculative-config=${JSON.stringify(kwargs.speculative_config)}`] : []),
  ];
  const replace: Record<string, string[]> = {};
  if (kwargs.enable_prefix_caching === true) {
    replace['--no-enable-prefix-caching'] = ['--enable-prefix-caching', `--block-size=${kwargs.block_size}`];
    replace[`--num-gpu-blocks-override=${engine.maxNumSeqs}`] = [`--num-gpu-blocks-override=${kwargs.num_gpu_blocks_override}`];
  }
  return { replace, add };
}

/**
 * The engine keyword arguments beyond tensor parallelism, sequences, length, LNC and dtype that shape a plan's
 * compiled graphs on its family: the plugin's settings on Trn2/Trn3 ({@link pluginEngineKwargs}), the buckets and
 * levers on NxD Inference ({@link nxdiEngineKwargs}). What a compile passes to `LLM(...)` and its manifest records.
 */
export function compiledEngineKwargs(family: string, engine: EngineSettings): Record<string, unknown> {
  return vllmEngineOf(family) === 'vllm-neuron-plugin' ? { ...pluginEngineKwargs(engine) } : nxdiEngineKwargs(engine);
}

/**
 * Whether the family's engine runs a lever set. NxD Inference (Inf2, Trn1) runs its fused speculation with a draft
 * model, FP8 and prefix caching, not EAGLE3 heads. The vLLM Neuron plugin (Trn2, Trn3) runs prefix caching (on by
 * default) and EAGLE3 (`--speculative-config`), but not NxD Inference's fused speculation or its
 * `override_neuron_config` FP8 quantization (it serves FP8 only from an FP8 checkpoint).
 */
export function engineRunsLevers(family: string, levers: EngineSettings['levers']): boolean {
  if (levers === undefined) return true;
  const method = levers.speculation ? levers.speculation.draft.method ?? 'fused' : undefined;
  if (vllmEngineOf(family) === 'nxd-inference') return method === undefined || method === 'fused';
  return !levers.fp8Weights && !levers.fp8KvCache && (method === undefined || method === 'eagle3');
}

/** Refuses a plan whose levers its engine does not run: the plan priced them, so dropping one would be silent. */
function checkLevers(plan: GenerativePlan): void {
  if (engineRunsLevers(plan.instance.family, plan.generative.engine.levers)) return;
  const plugin = vllmEngineOf(plan.instance.family) === 'vllm-neuron-plugin';
  throw new InputError(plugin
    ? `plan.generative.engine.levers: ${plan.instance.family} runs the vLLM Neuron plugin, which does not run NxD Inference's fused `
      + `speculation or FP8 quantization (${PLUGIN_DOCS}); plan again (the planner offers only the levers the engine runs), or plan for Inf2 or Trn1`
    : `plan.generative.engine.levers: ${plan.instance.family} runs vLLM over NxD Inference, which does not run EAGLE3 heads (${NXDI_VLLM_DOCS}); `
      + 'plan again (the planner offers only the levers the engine runs), or plan for Trn2 or Trn3');
}

/** An NxD Inference plan's lever arguments, once its engine is known to run them. */
function nxdiLevers(plan: GenerativePlan): ReturnType<typeof leverArgs> {
  checkLevers(plan);
  return leverArgs(plan.generative.engine);
}

/**
 * A plugin plan's levers: none to add here (prefix caching is already on; EAGLE3 is rendered with the plugin's other
 * settings, `pluginArguments`), and a lever the plugin does not run is refused rather than dropped, since the plan
 * priced it.
 */
function pluginLevers(plan: GenerativePlan): { readonly replace: Readonly<Record<string, string[]>>; readonly add: readonly string[] } {
  checkLevers(plan);
  return { replace: {}, add: [] };
}

/** The plan's EAGLE3 speculation as the plugin takes it, or undefined when it does not speculate. */
export function planSpeculation(levers: EngineSettings['levers']): PluginSpeculation | undefined {
  const spec = levers?.speculation;
  return spec && spec.draft.method === 'eagle3'
    ? { method: 'eagle3', model: spec.draft.huggingFaceId, numSpeculativeTokens: spec.speculativeTokens }
    : undefined;
}

/**
 * Why settings cannot run on the plan's engine; empty when they can. Names the engine and where it is documented.
 *
 * @param caller how the user spelled the call
 */
export function engineSettingProblems(caller: string, plan: GenerativePlan, options: PluginEngineOptions): string[] {
  const family = plan.instance.family;
  if (vllmEngineOf(family) === 'vllm-neuron-plugin') return [];
  const problems: string[] = [];
  if (options.speculation) {
    problems.push(`${caller}: speculation (${options.speculation.method}) is a vLLM Neuron plugin setting, and ${family} runs vLLM `
      + `over NxD Inference, which does not run it (${NXDI_VLLM_DOCS}); plan for Trn2 or Trn3 (${PLUGIN_DOCS}), or remove it`);
  }
  if (options.kvCacheDtype) {
    problems.push(`${caller}: kvCacheDtype=${options.kvCacheDtype} is a vLLM Neuron plugin setting, and ${family} runs vLLM over `
      + `NxD Inference, which does not take --kv-cache-dtype (${NXDI_VLLM_DOCS}); plan for Trn2 or Trn3 (${PLUGIN_DOCS}), or remove it`);
  }
  return problems;
}
