/**
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
import type { EngineSettings } from './types';

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
