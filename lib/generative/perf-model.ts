/**
 * The performance model of LLM serving on Neuron as the planner reads it: the physics of a decode step and a prefill
 * (`model/physics.ts`), and the engine's levers priced over it (`levers.ts`), re-exported here for the code that
 * priced levers with it.
 */
export type { DraftModel, GenerativeLeverOptions, LeverSet } from './types';
export { CHIP_FIGURES, decodeFeatures, decodeStepSeconds, dot, kvBytesPerToken, prefillFeatures, prefillSeconds } from './model/physics';
export type { ChipFigures, Features, ModelConfiguration, PerformanceCoefficients } from './model/physics';
export {
  acceptedTokensFrom, CHAT_ACCEPTED_TOKENS, describeLevers, draftFor, draftWeightsGiB, EAGLE3_SPECULATIVE_TOKENS, leverSets, SPECULATIVE_TOKENS,
  speculationProblem, speculativeDecodeScale, speculativeTokensOf,
} from './levers';
