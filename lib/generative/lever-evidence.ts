/**
 * Which levers a published measurement supports, by chip family and serving stack: a lever is a default planning
 * candidate only where a row here measured it on the candidate's chip family with the engine that chip runs (vLLM over
 * NxD Inference on Inf2 and Trn1, the vLLM Neuron plugin on Trn2 and Trn3: `engine-config.ts`, `vllmEngineOf`).
 * Elsewhere the planner still prices it, beside the plan, as unmeasured, and plans it only when asked
 * (`GenerativeLeverOptions.unmeasured`, `--unmeasured-levers`).
 *
 * Speculation is measured per draft and target: acceptance depends on the pair, so a row supports speculation for its
 * own model with its own method only. FP8 and prefix caching change what a step reads or computes on any model, so a
 * row supports them for every model on its chip family and stack.
 *
 * What is published (checked 2026-11): the vLLM Neuron plugin's EAGLE3 on Llama 3.1 8B on Trn2 is the only lever
 * measured on a chip and stack this project deploys. NxD Inference's fused speculation and prefix caching were measured
 * on Trn2, which here runs the plugin instead; no published row measures FP8 speed on any of these stacks (the plugin's
 * Llama 3 recipe measures FP8 accuracy only: GSM8K 0.95 at BF16 and at static FP8, vllm-project/vllm-neuron
 * docs/model-recipes/llama-3.md @ 9fc042ea); no row measures any lever on Inf2 or Trn1.
 */
import { chipOf } from '../planner/planner';
import { vllmEngineOf } from './engine-config';
import type { VllmEngineKind } from './engine-config';
import type { GenerativeLeverEvidence, LeverName, LeverSet, SpeculationMethod } from './types';

/** Every lever name, as `--unmeasured-levers` takes them. */
export const LEVER_NAMES: readonly LeverName[] = ['speculation', 'fp8', 'prefix-caching'];

/** One published measurement of a lever's effect. */
export interface LeverMeasurement {
  readonly lever: LeverName;
  /** Chip family it ran on (`chipOf` names: inf2, trn1, trn2, trn3). */
  readonly chip: string;
  /** The serving stack it ran on. */
  readonly stack: VllmEngineKind;
  /** For speculation: how the draft ran. */
  readonly method?: SpeculationMethod;
  /** The built-in profile id of the model it measured. */
  readonly profileId: string;
  /** What was measured, in the source's words and units. */
  readonly figure: string;
  /** Document, commit, date. */
  readonly source: string;
}

const NEURON_SDK = 'aws-neuron/aws-neuron-sdk';

/** Every published lever measurement the planner knows, on any chip and stack. */
export const LEVER_MEASUREMENTS: readonly LeverMeasurement[] = [
  {
    lever: 'speculation', chip: 'trn2', stack: 'vllm-neuron-plugin', method: 'eagle3', profileId: 'llama-3.1-8b-instruct',
    figure: 'EAGLE3 (RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3, 3 speculative tokens) on trn2.48xlarge TP 8, vllm bench serve ' +
      'sonnet 512/128 at concurrency 2: median TPOT 10.52 -> 6.41 ms, mean accepted length 3.22, acceptance 74.1 %',
    source: `${NEURON_SDK} vllm-neuron/docs/tutorials/tutorial-eagle3-speculative-decoding-llama-3-1.md @ 43a89626 (updated 2026-06-11)`,
  },
  {
    lever: 'speculation', chip: 'trn2', stack: 'nxd-inference', method: 'fused', profileId: 'llama-3.3-70b-instruct',
    figure: 'fused speculation with Llama 3.2 1B on trn2.48xlarge TP 64, batch 1, LLMPerf: TPOT p50 19.8 -> 5.6 ms',
    source: `${NEURON_SDK} libraries/nxd-inference/tutorials/llama70b_perf_comparison.csv @ 06f33784`,
  },
  {
    lever: 'speculation', chip: 'trn2', stack: 'nxd-inference', method: 'fused', profileId: 'qwen3-32b',
    figure: 'fused speculation with Qwen3-0.6B (7 speculative tokens) on trn2.48xlarge TP 64, batch 1, LLMPerf 128/558 tokens: ' +
      'TPOT 10.76 -> 9.91 ms',
    source: `${NEURON_SDK} libraries/nxd-inference/tutorials/sd-inference-tutorial.rst @ db1586c3`,
  },
  {
    lever: 'prefix-caching', chip: 'trn2', stack: 'nxd-inference', profileId: 'llama-3.3-70b-instruct',
    figure: 'Llama 3.3 70B with vLLM over NxD Inference on trn2.48xlarge: TTFT p50 342.8 -> 107.8 ms at > 90 % prefix hits, 89.7 -> 91.8 ms at none',
    source: `${NEURON_SDK} libraries/nxd-inference/tutorials/llama70b_apc_perf_comparison.csv @ 86051b85`,
  },
];

/** The lever names of a lever set's truthy keys (FP8 weights and KV cache are one lever). */
export function leverNamesOf(levers: LeverSet | undefined): LeverName[] {
  if (levers === undefined) return [];
  return [
    ...(levers.speculation ? ['speculation' as const] : []),
    ...(levers.fp8Weights || levers.fp8KvCache ? ['fp8' as const] : []),
    ...(levers.prefixHitRate !== undefined ? ['prefix-caching' as const] : []),
  ];
}

/**
 * The published row that supports a lever of `levers` for `profileId` on an instance family, or undefined when none
 * was measured there.
 */
export function measurementFor(lever: LeverName, levers: LeverSet, family: string, profileId: string): LeverMeasurement | undefined {
  const chip = chipOf(family);
  const stack = vllmEngineOf(family);
  return LEVER_MEASUREMENTS.find((m) => m.lever === lever && m.chip === chip && m.stack === stack && (lever !== 'speculation'
    || (m.profileId === profileId && m.method === (levers.speculation?.draft.method ?? 'fused'))));
}

/** The levers of a set no published row measured on the family for the profile. */
export function unmeasuredLeversOf(levers: LeverSet | undefined, family: string, profileId: string): LeverName[] {
  return leverNamesOf(levers).filter((lever) => measurementFor(lever, levers as LeverSet, family, profileId) === undefined);
}

/** Words for a stack, as the plan prints them. */
export function stackName(stack: VllmEngineKind): string {
  return stack === 'vllm-neuron-plugin' ? 'the vLLM Neuron plugin' : 'vLLM over NxD Inference';
}

/** Where the evidence of each `engine.levers` key sits: FP8 weights and KV cache are the one FP8 lever. */
const KEY_LEVER: Readonly<Record<keyof LeverSet, LeverName>> = {
  speculation: 'speculation', fp8Weights: 'fp8', fp8KvCache: 'fp8', prefixHitRate: 'prefix-caching',
};

/**
 * The evidence of every lever a plan uses (one entry per truthy key of `engine.levers`): the row that measured it on
 * the plan's chip family and stack, or why none did (the nearest row elsewhere) and what asked for it.
 */
export function leverEvidence(levers: LeverSet | undefined, family: string, profileId: string): Record<string, GenerativeLeverEvidence> | undefined {
  if (levers === undefined) return undefined;
  const keys = (Object.keys(KEY_LEVER) as (keyof LeverSet)[]).filter((key) => levers[key] !== undefined && levers[key] !== false);
  if (keys.length === 0) return undefined;
  const entries = keys.map((key) => {
    const lever = KEY_LEVER[key];
    const row = measurementFor(lever, levers, family, profileId);
    if (row) {
      return [key, { source: `${row.figure} (${row.source})`, measured: true }] as const;
    }
    const nearest = LEVER_MEASUREMENTS.find((m) => m.lever === lever && m.profileId === profileId) ?? LEVER_MEASUREMENTS.find((m) => m.lever === lever);
    const asked = lever === 'prefix-caching' ? 'planned because a prefix hit rate was stated' : `planned because asked for (--unmeasured-levers ${lever})`;
    return [key, {
      source: `no published measurement on ${chipOf(family)} with ${stackName(vllmEngineOf(family))}; ${asked}` +
        (nearest ? `; nearest: ${nearest.figure}, on ${nearest.chip} with ${stackName(nearest.stack)} (${nearest.source})` : ''),
      measured: false,
    }] as const;
  });
  return Object.fromEntries(entries);
}
