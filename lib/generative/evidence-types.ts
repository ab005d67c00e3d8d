/**
 * Shapes of what a generative plan's figures rest on (`GenerativePlanDetails.evidence`, `sensitivity`, `lengthCut`):
 * the rows its times come from and how far it extrapolated, the headroom applied, the measurement behind each lever,
 * how much slower the chip may be before a target misses, and a model length snapped to a measured row's. Plain data
 * carried in the plan's JSON; `types.ts` re-exports every shape here.
 */

/** A published (or the profile's own) row a plan's times rest on, and how far the plan is from it. */
export interface GenerativeEvidenceRow {
  /** The row's model (a built-in profile id or a published model key). */
  readonly model: string;
  readonly source: string;
  readonly instanceType: string;
  /** The serving stack that measured it (`vllm-nxdi`, `vllm-neuron-plugin`, `optimum-neuron`, ...). */
  readonly stack: string;
  readonly neuronSdkVersion: string;
  readonly tensorParallelDegree: number;
  readonly batchSize: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** What differs and by how much: `same model and chip; TP 8 -> 16; batch 32 -> 16`; `measured` for a measured plan's rows. */
  readonly distance: string;
}

/** The headroom a plan's times carry, and the held-out error it comes from. */
export interface GenerativeHeadroom {
  /** Factors the decode step and the prefill were raised by (1 for measured times). */
  readonly tpot: number;
  readonly ttft: number;
  /**
   * The extrapolation class whose held-out error sized them, e.g. `same model, same chip, TP beyond measured` or
   * `new model, same chip`; `measured` for a measured plan.
   */
  readonly class: string;
  /** Held-out TPOT and TTFT predictions of that class (0 for a measured plan). */
  readonly heldOutRows: number;
  /** The share of the class's held-out predictions the factors cover (measured / predicted at this quantile). */
  readonly quantile: number;
  /** The plan's own, narrower class when it had too few held-out rows and the broader `class` was used. @default - none */
  readonly narrowestClass?: string;
  /** Held-out rows of `narrowestClass`. @default - none */
  readonly narrowestHeldOutRows?: number;
}

/** The published measurement behind one lever a plan uses. */
export interface GenerativeLeverEvidence {
  /** The published row (document, figure, commit), or why there is none on this chip family and serving stack. */
  readonly source: string;
  /** False when no published row measured it on the plan's chip family and stack (planned because it was asked for). */
  readonly measured: boolean;
}

/** What a generative plan's times rest on: measured rows, or the performance model and how far it reached. */
export interface GenerativeEvidence {
  /** `measured`: the times are published rows'; `estimated`: the performance model's. */
  readonly basis: 'measured' | 'estimated';
  /** The rows the times rest on (a measured plan's own), nearest first. */
  readonly nearest: readonly GenerativeEvidenceRow[];
  readonly headroom: GenerativeHeadroom;
  /**
   * For each lever of `engine.levers` the plan uses (each truthy key), the measurement behind it.
   *
   * @default - absent when the plan uses no lever
   */
  readonly levers?: Readonly<Record<string, GenerativeLeverEvidence>>;
}

/**
 * How much the plan's timings may be off before a p99 target misses at the target rate, with the plan's own instance
 * count and layout, by the same queueing model that sized it.
 */
export interface GenerativeSensitivity {
  /**
   * The factor decode steps and prefills may both be slower by (1.31: 31 % slower) before a target misses; 1 when the
   * plan is already at its limit.
   */
  readonly stepSlowdownToMissTarget: number;
  /** For speculative plans: the accepted tokens per step below which a target misses (1 when none does). */
  readonly acceptedTokensToMissTarget?: number;
}

/** A model length snapped to a measured row's: how many requests it cuts. */
export interface GenerativeLengthCut {
  /** p99 input + p99 output, the length the targets imply. */
  readonly requestedLength: number;
  /** The measured row's sequence length the plan uses instead. */
  readonly measuredLength: number;
  /** Share of requests (from the plan's length distributions) longer than `measuredLength`: their output is cut. */
  readonly cutShare: number;
  /** The row whose length it is. */
  readonly source: string;
}
