/**
 * A published model's config.json facts (`lib/generative/published/models.ts`) as planning and the physics read them:
 * the architecture facts every profile has, with the hidden size and, for a mixture of experts, its routed experts.
 */
import type { PublishedModel } from '../published/types';
import type { GenerativeDtype } from '../types';
import type { ModelFacts } from './physics';

/** Checkpoint dtypes the physics has bytes for. */
export const DTYPES: readonly string[] = ['fp32', 'bf16', 'fp16', 'fp8', 'int8'];

/** A published model's facts as the physics reads them. */
export function publishedModelFacts(m: PublishedModel): ModelFacts | undefined {
  if (!DTYPES.includes(m.dtype)) {
    return undefined;
  }
  const moe = m.moe;
  return {
    architecture: m.architecture,
    parametersBillions: m.parametersBillions,
    dtype: m.dtype as GenerativeDtype,
    layers: m.layers,
    attentionHeads: m.attentionHeads,
    kvHeads: m.kvHeads,
    headDim: m.headDim,
    vocabulary: m.vocabulary,
    maxContextTokens: m.maxPositions,
    source: m.source,
    hiddenSize: m.hiddenSize,
    ...(moe ? {
      experts: {
        count: moe.experts,
        perToken: moe.activeExperts,
        // Each routed expert is a gated feed-forward: gate, up and down projections of hidden x expert size.
        parametersBillions: ((moe.moeLayers ?? m.layers) * moe.experts * 3 * m.hiddenSize * moe.expertIntermediateSize) / 1e9,
      },
    } : {}),
  };
}
