/**
 * Which levers a published measurement supports, by chip family and serving stack: a lever is a default planning
 * candidate only where a published row (`published/`, `PUBLISHED_ROWS`) measured it on the candidate's chip family with
 * the engine that chip runs here (vLLM over NxD Inference on Inf2 and Trn1, the vLLM Neuron plugin on Trn2 and Trn3:
 * `engine-config.ts`, `vllmEngineOf`). Elsewhere the planner still prices it, beside the plan, as unmeasured, and plans
 * it only when asked (`GenerativeLeverOptions.unmeasured`, `--unmeasured-levers`).
 *
 * Speculation is measured per draft and target: acceptance depends on the pair, so a row supports speculation for its
 * own model with its own method only. FP8 and prefix caching change what a step reads or computes on any model, so a
 * row supports them for every model on its chip family and stack. NxD Inference measured on its own (`nxd-inference`)
 * counts for the vLLM integration over it (`vllm-nxdi`): the levers are NxD Inference's.
 *
 * What is published (the dataset of 2026-11): the vLLM Neuron plugin's EAGLE3 on Llama 3.1 8B on Trn2 is the only lever
 * measured on a chip and stack this project deploys. NxD Inference's fused speculation and FP8 were measured on Trn2,
 * which here runs the plugin instead; the plugin's Llama 3 recipe measures FP8 accuracy only (GSM8K 0.95 at BF16 and at
 * static FP8, vllm-project/vllm-neuron docs/model-recipes/llama-3.md @ 9fc042ea); no row measures any lever on Inf2 or
 * Trn1 with NxD Inference.
 */
import { chipOf } from '../planner/planner';
import { vllmEngineOf } from './engine-config';
import type { VllmEngineKind } from './engine-config';
import { describeSource, PUBLISHED_ROWS } from './published';
import type { PublishedRow, ServingStack } from './published';
import type { GenerativeLeverEvidence, LeverName, LeverSet, SpeculationMethod } from './types';

/** Every lever name, as `--unmeasured-levers` takes them. */
export const LEVER_NAMES: readonly LeverName[] = ['speculation', 'fp8', 'prefix-caching'];

/** One published measurement of a lever's effect. */
export interface LeverMeasurement {
  readonly lever: LeverName;
  /** Chip family it ran on (`chipOf` names: inf2, trn1, trn2, trn3). */
  readonly chip: string;
  /** The serving stack it ran on, as the dataset names it. */
  readonly stack: ServingStack;
  /** For speculation: how the draft ran. @default - not speculation, or a method the planner does not plan */
  readonly method?: SpeculationMethod;
  /** The model it measured (a built-in profile id where there is one). */
  readonly profileId: string;
  /** What was measured. */
  readonly figure: string;
  /** Document, commit, date. */
  readonly source: string;
}

/** The engine a published stack is, where this project deploys it. */
function engineOfStack(stack: ServingStack): VllmEngineKind | undefined {
  return stack === 'vllm-nxdi' || stack === 'nxd-inference' ? 'nxd-inference' : stack === 'vllm-neuron-plugin' ? 'vllm-neuron-plugin' : undefined;
}

/** The levers one published row measured. */
function measurementsOfRow(row: PublishedRow): LeverMeasurement[] {
  const where = `${row.model} on ${row.instanceType} TP ${row.tensorParallelDegree}, batch ${row.batchSize} (${row.stack}, Neuron ${row.neuronSdkVersion})`;
  const tpot = row.tpot?.p50 ?? row.tpot?.mean;
  const timing = tpot !== undefined ? `: TPOT ${row.tpot?.p50 !== undefined ? 'p50' : 'mean'} ${tpot} ms` : '';
  const base = { chip: row.chip, stack: row.stack, profileId: row.model, source: describeSource(row) };
  const spec = row.levers.speculation;
  const fp8 = row.weightDtype === 'fp8' || row.kvDtype === 'fp8';
  return [
    ...(spec ? [{
      ...base, lever: 'speculation' as const,
      ...(spec.method === 'fused-draft' ? { method: 'fused' as const } : spec.method === 'eagle3' ? { method: 'eagle3' as const } : {}),
      figure: `${spec.method}${spec.draftModel ? ` (${spec.draftModel}` : ' ('}${spec.speculativeTokens !== undefined ? `, ${spec.speculativeTokens} speculative tokens` : ''}) ` +
        `with ${where}${timing}${spec.meanAcceptedLength !== undefined ? `, mean accepted length ${spec.meanAcceptedLength}` : ''}`,
    }] : []),
    ...(fp8 ? [{ ...base, lever: 'fp8' as const, figure: `FP8 ${row.weightDtype === 'fp8' ? 'weights' : 'KV cache'} with ${where}${timing}` }] : []),
    ...(row.levers.prefixCaching ? [{
      ...base, lever: 'prefix-caching' as const,
      figure: `prefix caching${row.levers.prefixCaching.description ? ` (${row.levers.prefixCaching.description})` : ''} with ${where}${timing}`,
    }] : []),
  ];
}

/**
 * Prefix caching measured with NxD Inference's vLLM integration on Trn2; its table reports TTFT only, so the dataset
 * (which keeps rows with a per-token figure) does not hold it.
 */
const PREFIX_CACHING_70B: LeverMeasurement = {
  lever: 'prefix-caching', chip: 'trn2', stack: 'vllm-nxdi', profileId: 'llama-3.3-70b-instruct',
  figure: 'prefix caching with llama-3.3-70b-instruct on trn2.48xlarge (vllm-nxdi): TTFT p50 342.8 -> 107.8 ms at > 90 % prefix hits, 89.7 -> 91.8 ms at none',
  source: 'aws-neuron/aws-neuron-sdk @ 86051b85 libraries/nxd-inference/tutorials/llama70b_apc_perf_comparison.csv',
};

/** Every published lever measurement the planner knows, on any chip and stack. */
export const LEVER_MEASUREMENTS: readonly LeverMeasurement[] = [...PUBLISHED_ROWS.flatMap(measurementsOfRow), PREFIX_CACHING_70B];

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
  const engine = vllmEngineOf(family);
  return LEVER_MEASUREMENTS.find((m) => m.lever === lever && m.chip === chip && engineOfStack(m.stack) === engine && (lever !== 'speculation'
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
        (nearest ? `; nearest: ${nearest.figure} (${nearest.source})` : ''),
      measured: false,
    }] as const;
  });
  return Object.fromEntries(entries);
}
