/**
 * Shapes a generative planning request carries beside its targets: the length distributions it plans for and the
 * levers it may use. Plain data (lengths travel in the plan's JSON); `types.ts` re-exports every shape here.
 */

/** How a length distribution was chosen. */
export type LengthSpread =
  /** The user gave the p99. */
  | 'stated'
  /** No p99 given: the workload preset's spread (its trace's p99 / mean; chat's is `DEFAULT_LENGTH_SPREAD`). */
  | 'default'
  /** Every request at the mean (asked for with `fixed`, or a p99 equal to the mean). */
  | 'fixed'
  /** The user's own traffic: a log's or a benchmark export's distribution, as its quantile table. */
  | 'empirical';

/**
 * A length distribution, in tokens: lognormal, or a file's own (`empirical`, its quantile table). Plain data: it
 * travels in the plan's JSON.
 */
export interface LengthDistribution {
  readonly spread: LengthSpread;
  readonly mean: number;
  /** 99th percentile, tokens (the mean when fixed). */
  readonly p99: number;
  /**
   * Parameters of the lognormal: ln(length) ~ Normal(mu, sigma). sigma is 0 when fixed. With `quantiles`, the lognormal
   * of the same mean and p99, for readers that know no table.
   */
  readonly mu: number;
  readonly sigma: number;
  /** Squared coefficient of variation: exp(sigma^2) - 1 of the lognormal, the file's own when empirical. */
  readonly scv: number;
  /** Longest length drawn; longer draws are cut to it (the engine's limit). @default - no cap */
  readonly max?: number;
  /**
   * The distribution's tokens at each probability of `QUANTILE_PROBABILITIES` (60 points from 0 to 1, fine in both
   * tails), read between points by linear interpolation: what every draw uses when present.
   *
   * @default - the lognormal of `mu` and `sigma`
   */
  readonly quantiles?: readonly number[];
  /** Where the spread comes from, in words. */
  readonly source: string;
}

/** The input and output length distributions of a workload. */
export interface WorkloadLengths {
  readonly input: LengthDistribution;
  readonly output: LengthDistribution;
  /**
   * Correlation of a request's prompt and output length, as the correlation of the normals a Gaussian copula draws
   * them through (from a file's rank correlation).
   *
   * @default 0 - drawn independently
   */
  readonly correlation?: number;
  /**
   * The p99 of prompt plus output tokens of one request, where the lengths come from a file (their correlation
   * included): what `max_model_len` covers.
   *
   * @default - p99 input + p99 output (at least the p99 of the sum)
   */
  readonly totalP99?: number;
}

/** A lever by the name `--unmeasured-levers` and `GenerativeLeverOptions.unmeasured` take. */
export type LeverName = 'speculation' | 'fp8' | 'prefix-caching';

/**
 * Which levers the planner may use. A lever is a candidate where a published row measured it on the candidate's chip
 * family and serving stack (`lever-evidence.ts`); elsewhere it is priced beside the plan as unmeasured and planned
 * only when `unmeasured` names it. Prefix caching is a candidate only with a hit rate.
 */
export interface GenerativeLeverOptions {
  /** Consider speculative decoding (a draft model) where the model has a cited draft. @default true */
  readonly speculativeDecoding?: boolean;
  /** Tokens kept per verification step with speculation. @default - the published figure for the draft and method */
  readonly acceptedTokens?: number;
  /** Consider FP8 weights and an FP8 KV cache. @default true */
  readonly fp8?: boolean;
  /** Share of prompt tokens a prefix cache serves, 0 to 1. @default 0 - prefix caching is not a candidate */
  readonly prefixHitRate?: number;
  /**
   * Levers to plan where no published row measured them on the candidate's chip family and serving stack: the plan
   * then rests on the lever's modelled effect, which a token proof must confirm. A stated `prefixHitRate` asks for
   * prefix caching by itself.
   *
   * @default - none: unmeasured levers are priced beside the plan (`GenerativePlanReport.unmeasuredLevers`), not planned
   */
  readonly unmeasured?: readonly LeverName[];
}

/**
 * How a draft proposes tokens: NxD Inference's fused speculation with a small draft model (vLLM over NxD Inference,
 * Inf2 and Trn1), or an EAGLE3 head reading the target's hidden states (the vLLM Neuron plugin, Trn2 and Trn3).
 */
export type SpeculationMethod = 'fused' | 'eagle3';

/** A draft model for speculation. */
export interface DraftModel {
  readonly id: string;
  readonly huggingFaceId: string;
  readonly parametersBillions: number;
  /** Tokens kept per verification step by default, and where it comes from. */
  readonly acceptedTokens: number;
  readonly source: string;
  /** How the engine runs the draft. @default 'fused' (plans made before the plugin's EAGLE3) */
  readonly method?: SpeculationMethod;
  /**
   * One draft step's time as a share of the target's decode step, where a published speed-up fixes it.
   *
   * @default - the draft's parameters over the target's (a step reads every weight once)
   */
  readonly stepCost?: number;
}

/** One combination of levers a candidate runs with. */
export interface LeverSet {
  readonly speculation?: { readonly draft: DraftModel; readonly speculativeTokens: number; readonly acceptedTokens: number };
  readonly fp8Weights?: boolean;
  readonly fp8KvCache?: boolean;
  readonly prefixHitRate?: number;
}
