/**
 * The vLLM Neuron plugin's settings (Trn2 and Trn3), rendered from a generative plan.
 *
 * Inf2 and Trn1 run vLLM over NxD Inference (`engine-config.ts`); Trn2 and Trn3 run the vLLM Neuron plugin
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
 * Hostings call `vllmReplicaConfigs` (engine-config.ts), which hands Trn2/Trn3 plans here.
 */
import { InputError } from '../errors';
import type { GenerativePlan } from './types';

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
  const engine = pluginEngineKwargs(plan.generative.engine, options);
  const { neuron_config: neuronConfig } = engine.additional_config;
  const speculation = options.speculation;
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
}

/** The plugin's engine settings of a plan's engine (without speculation, which has its own flag). */
export function pluginEngineKwargs(engine: Pick<GenerativePlan['generative']['engine'], 'maxNumSeqs' | 'maxModelLen'>,
  options: PluginEngineOptions = {}): PluginEngineKwargs {
  const { maxNumSeqs, maxModelLen } = engine;
  const dflash = options.speculation?.method === 'dflash';
  return {
    max_num_batched_tokens: maxModelLen,
    block_size: PLUGIN_BLOCK_SIZE,
    // Every sequence the plan admits at its full length, and no more: the rest of HBM stays free for the buckets.
    num_gpu_blocks_override: Math.ceil(maxModelLen / PLUGIN_BLOCK_SIZE) * maxNumSeqs,
    enable_prefix_caching: !dflash,
    async_scheduling: !dflash,
    additional_config: {
      neuron_config: {
        num_batched_tokens_buckets: powerOfTwoBuckets(Math.min(SMALLEST_PREFILL_BUCKET, maxModelLen), maxModelLen),
        num_seqs_buckets: powerOfTwoBuckets(1, maxNumSeqs),
      },
    },
  };
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
