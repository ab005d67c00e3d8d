/**
 * The engine's levers as planning candidates (below), over the performance model of `model/`: the physics of a decode
 * step and a prefill (`model/physics.ts`), re-exported here for the code that priced levers with it.
 */
import type { DraftModel, GenerativeArchitectureFacts, GenerativeLeverOptions, GenerativeProfile, LeverSet } from './types';
import { decodeStepSeconds } from './model/physics';
import type { ModelConfiguration, PerformanceCoefficients } from './model/physics';

export type { DraftModel, GenerativeLeverOptions, LeverSet } from './types';
export { CHIP_FIGURES, decodeFeatures, decodeStepSeconds, dot, kvBytesPerToken, prefillFeatures, prefillSeconds } from './model/physics';
export type { ChipFigures, Features, ModelConfiguration, PerformanceCoefficients } from './model/physics';
/*

 * The engine's levers as planning candidates: speculative decoding, FP8 weights and KV cache, prefix caching. Each
 * has its cited effect, its memory, the settings it renders into the engine, and an off switch
 * (`GenerativeLeverOptions`).
 *
 * - **Speculative decoding** (NxD Inference fused speculation; EAGLE with an EAGLE draft): a draft model proposes
 *   `k` tokens, the target verifies `k + 1` positions per sequence in one step, and on average `a` tokens are kept per
 *   step. A step costs the target's verify step (its compute term grows with `k + 1`, so the gain shrinks as batches
 *   grow compute-bound) plus `k` draft steps, each costing the draft's share of the weights read
 *   (`draft parameters / target parameters` of a target step). `a` is an input (`acceptedTokens`), defaulting to
 *   the value that reproduces the published speed-up of the model's family under this cost: Llama 3.3 70B with a
 *   Llama 3.2 1B draft on trn2.48xlarge, TPOT 19.8 -> 5.6 ms (aws-neuron/aws-neuron-sdk
 *   libraries/nxd-inference/tutorials/llama70b_perf_comparison.csv @ 06f33784); Qwen3-32B with a Qwen3-0.6B draft,
 *   TPOT 10.76 -> 9.91 ms (libraries/nxd-inference/tutorials/sd-inference-tutorial.rst @ db1586c3, p99 end-to-end
 *   6.04 -> 5.64 s over 558 / 565 tokens). Draft weights are added to the replica's memory.
 * - **FP8 weights** halve the bytes every decode step reads and the weights' memory; Trn2/Trn3 run FP8 matmuls at
 *   twice BF16's rate (trainium2.rst), Inf2/Trn1 at the same rate (cFP8, inferentia2.rst). Rendered as NxD
 *   Inference's `quantized`, `quantization_dtype: f8e4m3`, `quantization_type: per_channel_symmetric`.
 *   Accuracy: the vLLM Neuron Llama recipe serves FP8 weights at equal accuracy (vllm-project/vllm-neuron
 *   docs/model-recipes/llama-3.md); a plan using it says so, and `fp8: false` turns it off.
 * - **FP8 KV cache** halves the cache's memory and the KV bytes a step reads (`kv_cache_quant` in NxD Inference,
 *   `--kv-cache-dtype fp8` in the vLLM Neuron plugin).
 * - **Prefix caching** (`--enable-prefix-caching`, block KV layout): prompt tokens found in the cache are read, not
 *   computed, so the prefill's compute term scales by `1 - hit rate`; offered only when the user states a hit rate
 *   (`prefixHitRate`). Published: Llama 3.3 70B TTFT 342.8 -> 107.8 ms at > 90 % hits, 89.7 -> 91.8 ms at none
 *   (llama70b_apc_perf_comparison.csv @ 86051b85).
 */

/** Tokens the draft proposes per step (`num_speculative_tokens`), as the Neuron speculative decoding tutorial sets. */
export const SPECULATIVE_TOKENS = 7;

/**
 * `a` such that `tpotBase x (verify / plain + k x ratio) / a = tpotSpec`: the accepted tokens per step that reproduce
 * a published speed-up under this cost model, `verifyToPlain` being the verify step's cost in plain steps (1, the
 * defaults' reading: a verify step as cheap as a plain one, which is what a batch-1 memory-bound step nearly is).
 */
export function acceptedTokensFrom(tpotBaseMs: number, tpotSpecMs: number, draftToTargetRatio: number, verifyToPlain = 1): number {
  return (tpotBaseMs * (verifyToPlain + SPECULATIVE_TOKENS * draftToTargetRatio)) / tpotSpecMs;
}


const LLAMA_DRAFT_SOURCE = 'meta-llama/Llama-3.2-1B-Instruct (1.24B parameters, model card); accepted tokens back-solved from ' +
  'Llama 3.3 70B on trn2.48xlarge, TPOT 19.8 -> 5.6 ms with fused speculation (aws-neuron/aws-neuron-sdk ' +
  'libraries/nxd-inference/tutorials/llama70b_perf_comparison.csv @ 06f33784)';
const QWEN_DRAFT_SOURCE = 'Qwen/Qwen3-0.6B (0.6B parameters, model card); accepted tokens back-solved from Qwen3-32B on trn2.48xlarge, ' +
  'TPOT 10.76 -> 9.91 ms with fused speculation, 7 speculative tokens (aws-neuron/aws-neuron-sdk ' +
  'libraries/nxd-inference/tutorials/sd-inference-tutorial.rst @ db1586c3)';

/** The draft a model family speculates with, or undefined when none is cited. */
export function draftFor(profile: Pick<GenerativeProfile, 'id' | 'model'>): DraftModel | undefined {
  const id = profile.id.toLowerCase();
  if (id.startsWith('llama-3')) {
    return { id: 'llama-3.2-1b-instruct', huggingFaceId: 'meta-llama/Llama-3.2-1B-Instruct', parametersBillions: 1.24, acceptedTokens: round(acceptedTokensFrom(19.8, 5.6, 1.24 / 70.6)), source: LLAMA_DRAFT_SOURCE };
  }
  if (id.startsWith('qwen3')) {
    return { id: 'qwen3-0.6b', huggingFaceId: 'Qwen/Qwen3-0.6B', parametersBillions: 0.6, acceptedTokens: round(acceptedTokensFrom(10.76, 9.91, 0.6 / 32.8)), source: QWEN_DRAFT_SOURCE };
  }
  return undefined;
}

/** The lever sets to plan: every combination of the levers on and available (none of them first). */
export function leverSets(profile: Pick<GenerativeProfile, 'id' | 'model'>, options: GenerativeLeverOptions = {}): LeverSet[] {
  const draft = options.speculativeDecoding === false ? undefined : draftFor(profile);
  const spec = draft ? [undefined, { draft, speculativeTokens: SPECULATIVE_TOKENS, acceptedTokens: options.acceptedTokens ?? draft.acceptedTokens }] : [undefined];
  const fp8 = options.fp8 === false || profile.model.dtype === 'fp8' || profile.model.dtype === 'int8' ? [false] : [false, true];
  const prefix = options.prefixHitRate !== undefined && options.prefixHitRate > 0 ? options.prefixHitRate : undefined;
  const sets: LeverSet[] = [];
  for (const s of spec) {
    for (const f of fp8) {
      sets.push({ ...(s ? { speculation: s } : {}), ...(f ? { fp8Weights: true, fp8KvCache: true } : {}), ...(prefix !== undefined ? { prefixHitRate: prefix } : {}) });
    }
  }
  return sets;
}

/** `speculation+fp8` style name; `none` without levers. */
export function describeLevers(levers: LeverSet): string {
  const names = [
    ...(levers.speculation ? [`speculation (${levers.speculation.draft.id} draft, ${levers.speculation.speculativeTokens} tokens, ${levers.speculation.acceptedTokens} kept per step)`] : []),
    ...(levers.fp8Weights ? ['FP8 weights'] : []),
    ...(levers.fp8KvCache ? ['FP8 KV cache'] : []),
    ...(levers.prefixHitRate !== undefined ? [`prefix caching (${Math.round(levers.prefixHitRate * 100)} % hits)`] : []),
  ];
  return names.length === 0 ? 'none' : names.join(', ');
}

/** Decode time per emitted token with speculation: (verify step + k draft steps) / accepted tokens. */
export function speculativeDecodeScale(levers: LeverSet, model: GenerativeArchitectureFacts) {
  const spec = levers.speculation;
  if (!spec) {
    return undefined;
  }
  const ratio = spec.draft.parametersBillions / model.parametersBillions;
  return (cfg: ModelConfiguration, context: number, c: PerformanceCoefficients): number => {
    const verify = decodeStepSeconds(c, cfg, context, spec.speculativeTokens + 1);
    const plain = decodeStepSeconds(c, cfg, context);
    return (verify + spec.speculativeTokens * ratio * plain) / spec.acceptedTokens;
  };
}

/** Weights the draft adds to a replica, GiB (BF16). */
export function draftWeightsGiB(levers: LeverSet): number {
  return levers.speculation ? (levers.speculation.draft.parametersBillions * 1e9 * 2) / 1024 ** 3 : 0;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
