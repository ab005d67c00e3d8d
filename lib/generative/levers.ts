/**
 * The engine's levers as planning candidates: speculative decoding, FP8 weights and KV cache, prefix caching. Each
 * has its cited effect, its memory, the settings it renders into the engine (`engine-config.ts`), an off switch
 * (`GenerativeLeverOptions`), and the published rows that make it a default candidate (`lever-evidence.ts`).
 *
 * - **Speculative decoding**: a draft proposes `k` tokens, the target verifies `k + 1` positions per sequence in one
 *   step, and on average `a` tokens are kept per step. A step costs the target's verify step (its compute term grows
 *   with `k + 1`, so the gain shrinks as batches grow compute-bound) plus `k` draft steps, each a share of a target
 *   step: the draft's parameters over the target's, or the share a published speed-up fixes. The draft is the one the
 *   chip's engine runs: NxD Inference's fused speculation with a small draft model on Inf2 and Trn1 (7 speculative
 *   tokens, as the Neuron speculative decoding tutorial sets), an EAGLE3 head in the vLLM Neuron plugin on Trn2 and
 *   Trn3 (3, as the plugin's EAGLE3 tutorial sets). `a` defaults to published chat-like measurements: EAGLE3 on Llama
 *   3.1 8B (trn2.48xlarge TP 8, sonnet 512/128 at concurrency 2) keeps 3.22 of 4 (aws-neuron/aws-neuron-sdk
 *   vllm-neuron/docs/tutorials/tutorial-eagle3-speculative-decoding-llama-3-1.md @ 43a89626), DFlash on the same model
 *   3.2 of 10 (vllm-project/vllm-neuron docs/model-recipes/llama-3.md @ 9fc042ea). A fused draft takes the lower of
 *   those and its family's own published speed-up, back-solved under this cost (`acceptedTokensFrom`): the 70B's
 *   batch-1 synthetic run back-solves to 3.97, more than any chat-like figure. Draft weights are added to the replica's
 *   memory.
 * - **FP8 weights** halve the bytes every decode step reads and the weights' memory; Trn2/Trn3 run FP8 matmuls at
 *   twice BF16's rate (trainium2.rst), Inf2/Trn1 at the same rate (cFP8, inferentia2.rst). Rendered as NxD
 *   Inference's `quantized`, `quantization_dtype: f8e4m3`, `quantization_type: per_channel_symmetric`. The plugin
 *   serves FP8 only from a static FP8 checkpoint, which the plan does not choose, so Trn2/Trn3 candidates run without.
 * - **FP8 KV cache** halves the cache's memory and the KV bytes a step reads (`kv_cache_quant` in NxD Inference).
 * - **Prefix caching** (`--enable-prefix-caching`, block KV layout): prompt tokens found in the cache are read, not
 *   computed, so the prefill's compute term scales by `1 - hit rate`; offered only when the user states a hit rate.
 */
import { decodeStepSeconds } from './model/physics';
import type { ModelConfiguration, PerformanceCoefficients } from './model/physics';
import { vllmEngineOf } from './engine-config';
import type { DraftModel, GenerativeArchitectureFacts, GenerativeLeverOptions, GenerativeProfile, LeverSet, SpeculationMethod } from './types';

/** Tokens a fused draft proposes per step (`num_speculative_tokens`), as the Neuron speculative decoding tutorial sets. */
export const SPECULATIVE_TOKENS = 7;

/** Tokens an EAGLE3 head proposes per step, as the vLLM Neuron plugin's EAGLE3 tutorial sets (`num_speculative_tokens 3`). */
export const EAGLE3_SPECULATIVE_TOKENS = 3;

/** Tokens a draft of a method proposes per step. */
export function speculativeTokensOf(method: SpeculationMethod): number {
  return method === 'eagle3' ? EAGLE3_SPECULATIVE_TOKENS : SPECULATIVE_TOKENS;
}

/**
 * `a` such that `tpotBase x (verify / plain + k x ratio) / a = tpotSpec`: the accepted tokens per step that reproduce
 * a published speed-up under this cost model, `verifyToPlain` being the verify step's cost in plain steps (1, the
 * defaults' reading: a verify step as cheap as a plain one, which is what a batch-1 memory-bound step nearly is).
 */
export function acceptedTokensFrom(tpotBaseMs: number, tpotSpecMs: number, draftToTargetRatio: number, verifyToPlain = 1,
  speculativeTokens = SPECULATIVE_TOKENS): number {
  return (tpotBaseMs * (verifyToPlain + speculativeTokens * draftToTargetRatio)) / tpotSpecMs;
}

/**
 * The share of a target step one draft step costs, from a published speed-up at a measured acceptance: `(tpotSpec x a
 * / tpotBase - 1) / k`, the verify step taken as the plain step (a decode step of a few sequences reads the weights once
 * whatever it scores).
 */
export function draftStepCostFrom(tpotBaseMs: number, tpotSpecMs: number, acceptedTokens: number, speculativeTokens: number): number {
  return ((tpotSpecMs * acceptedTokens) / tpotBaseMs - 1) / speculativeTokens;
}

/** The published chat-like accepted length: EAGLE3 on Llama 3.1 8B keeps 3.22 of 4, DFlash 3.2 of 10; the lower. */
export const CHAT_ACCEPTED_TOKENS = 3.2;

const CHAT_SOURCE = 'published chat-like acceptance on Llama 3.1 8B with the vLLM Neuron plugin on Trn2: EAGLE3 3.22 of 4 ' +
  '(aws-neuron/aws-neuron-sdk vllm-neuron/docs/tutorials/tutorial-eagle3-speculative-decoding-llama-3-1.md @ 43a89626), ' +
  'DFlash 3.2 of 10 (vllm-project/vllm-neuron docs/model-recipes/llama-3.md @ 9fc042ea)';

/** EAGLE3 on Llama 3.1 8B, trn2.48xlarge TP 8: TPOT 10.52 -> 6.41 ms at 3.22 accepted tokens of 3 proposed. */
const EAGLE3_8B = { tpotBaseMs: 10.52, tpotSpecMs: 6.41, acceptedTokens: 3.22 } as const;

/** Its draft step's share of a target step: (6.41 x 3.22 / 10.52 - 1) / 3 = 0.32. */
const EAGLE3_STEP_COST = round(draftStepCostFrom(EAGLE3_8B.tpotBaseMs, EAGLE3_8B.tpotSpecMs, EAGLE3_8B.acceptedTokens, EAGLE3_SPECULATIVE_TOKENS));

const EAGLE3_PARAMETERS = 'parameters an ESTIMATE from the geometry (embeddings, one decoder layer of the target\'s width with a doubled ' +
  'attention input, an FC over 3 hidden states, a 32,000-token draft head)';

/**
 * The drafts per engine and model family. Fused drafts (vLLM over NxD Inference) keep the lower of the published
 * chat-like acceptance and their family's own back-solved speed-up; EAGLE3 heads (the vLLM Neuron plugin) keep the
 * published EAGLE3 acceptance and draft cost, measured on Llama 3.1 8B and carried over to the 70B's head unmeasured.
 */
function draftsOf(profile: Pick<GenerativeProfile, 'id'>, method: SpeculationMethod): DraftModel | undefined {
  const id = profile.id.toLowerCase();
  if (method === 'fused') {
    if (id.startsWith('llama-3')) {
      const backSolved = round(acceptedTokensFrom(19.8, 5.6, 1.24 / 70.6));
      return {
        id: 'llama-3.2-1b-instruct', huggingFaceId: 'meta-llama/Llama-3.2-1B-Instruct', parametersBillions: 1.24, method,
        acceptedTokens: Math.min(backSolved, CHAT_ACCEPTED_TOKENS),
        source: `meta-llama/Llama-3.2-1B-Instruct (1.24B parameters, model card); accepted tokens ${CHAT_ACCEPTED_TOKENS}: the ${CHAT_SOURCE}, ` +
          `below the ${backSolved} back-solved from Llama 3.3 70B at batch 1 on trn2.48xlarge, TPOT 19.8 -> 5.6 ms with fused speculation ` +
          '(aws-neuron/aws-neuron-sdk libraries/nxd-inference/tutorials/llama70b_perf_comparison.csv @ 06f33784); an EAGLE3 head ' +
          'typically accepts more than a separate small draft (the EAGLE3 tutorial), so this is an upper figure',
      };
    }
    if (id.startsWith('qwen3')) {
      const backSolved = round(acceptedTokensFrom(10.76, 9.91, 0.6 / 32.8));
      return {
        id: 'qwen3-0.6b', huggingFaceId: 'Qwen/Qwen3-0.6B', parametersBillions: 0.6, method,
        acceptedTokens: Math.min(backSolved, CHAT_ACCEPTED_TOKENS),
        source: `Qwen/Qwen3-0.6B (0.6B parameters, model card); accepted tokens ${backSolved} back-solved from Qwen3-32B on trn2.48xlarge, ` +
          'TPOT 10.76 -> 9.91 ms with fused speculation, 7 speculative tokens (aws-neuron/aws-neuron-sdk ' +
          `libraries/nxd-inference/tutorials/sd-inference-tutorial.rst @ db1586c3), below the ${CHAT_SOURCE}`,
      };
    }
    return undefined;
  }
  const eagle3 = (hf: string, parametersBillions: number, measured: string): DraftModel => ({
    id: `${hf.split('/')[1].toLowerCase()}`, huggingFaceId: hf, parametersBillions, method, acceptedTokens: EAGLE3_8B.acceptedTokens,
    stepCost: EAGLE3_STEP_COST,
    source: `${hf} (${parametersBillions}B ${EAGLE3_PARAMETERS}); ${measured}`,
  });
  if (id === 'llama-3.1-8b-instruct') {
    return eagle3('RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3', 0.95, `accepted tokens 3.22 and a draft step of ${EAGLE3_STEP_COST} target ` +
      'steps from its published run on trn2.48xlarge TP 8: TPOT 10.52 -> 6.41 ms at 3 speculative tokens (aws-neuron/aws-neuron-sdk ' +
      'vllm-neuron/docs/tutorials/tutorial-eagle3-speculative-decoding-llama-3-1.md @ 43a89626)');
  }
  if (id === 'llama-3.3-70b-instruct') {
    return eagle3('RedHatAI/Llama-3.3-70B-Instruct-speculator.eagle3', 2.45, 'the draft the vLLM Neuron Llama 3 recipe names ' +
      '(vllm-project/vllm-neuron docs/model-recipes/llama-3.md @ 9fc042ea); no published run measures it: accepted tokens and draft ' +
      `cost (${EAGLE3_STEP_COST} of a target step, conservative for a larger target) carried over from Llama 3.1 8B's EAGLE3 run`);
  }
  return undefined;
}

/** Whether any engine here has a cited draft for the model (a fused draft on Inf2 and Trn1, or an EAGLE3 head on Trn2 and Trn3). */
export function hasDraft(profile: Pick<GenerativeProfile, 'id'>): boolean {
  return draftsOf(profile, 'fused') !== undefined || draftsOf(profile, 'eagle3') !== undefined;
}

/** The draft a model speculates with on an instance family's engine, or undefined when none is cited. */
export function draftFor(profile: Pick<GenerativeProfile, 'id'>, family: string): DraftModel | undefined {
  return draftsOf(profile, vllmEngineOf(family) === 'vllm-neuron-plugin' ? 'eagle3' : 'fused');
}

/**
 * Why speculation is no candidate on the family with these options (an accepted length the draft cannot keep), or
 * undefined.
 */
export function speculationProblem(profile: Pick<GenerativeProfile, 'id'>, options: GenerativeLeverOptions, family: string): string | undefined {
  const draft = options.speculativeDecoding === false ? undefined : draftFor(profile, family);
  if (!draft || options.acceptedTokens === undefined) return undefined;
  const k = speculativeTokensOf(draft.method ?? 'fused');
  return options.acceptedTokens > k + 1
    ? `acceptedTokens=${options.acceptedTokens}: the ${draft.method === 'eagle3' ? 'EAGLE3' : 'fused'} draft here (${draft.huggingFaceId}) ` +
      `proposes ${k} tokens, so a step keeps at most ${k + 1}; speculation is not planned on this chip`
    : undefined;
}

/** The lever sets to plan on an instance family: every combination of the levers on and available (none of them first). */
export function leverSets(profile: Pick<GenerativeProfile, 'id' | 'model'>, options: GenerativeLeverOptions, family: string): LeverSet[] {
  const draft = options.speculativeDecoding === false || speculationProblem(profile, options, family) ? undefined : draftFor(profile, family);
  const speculation = draft
    ? { draft, speculativeTokens: speculativeTokensOf(draft.method ?? 'fused'), acceptedTokens: options.acceptedTokens ?? draft.acceptedTokens }
    : undefined;
  const spec = speculation ? [undefined, speculation] : [undefined];
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
  const spec = levers.speculation;
  const names = [
    ...(spec ? [`speculation (${spec.draft.method === 'eagle3' ? 'EAGLE3 ' : ''}${spec.draft.id} draft, ${spec.speculativeTokens} tokens, ${spec.acceptedTokens} kept per step)`] : []),
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
  const ratio = spec.draft.stepCost ?? spec.draft.parametersBillions / model.parametersBillions;
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
