/**
 * Shapes of generative (autoregressive) model profiles, targets and plans: planning in tokens.
 *
 * A generative model answers a request with many device steps: one prefill over the prompt (context encoding),
 * then one decode step per output token, shared by every sequence the engine runs at once (continuous batching).
 * Users judge it by time to first token (TTFT), time per output token (TPOT) and tokens per second, so profiles,
 * targets and plans are in those units.
 */
import type { CoreGroupLayout, DeploymentOptions, DeploymentPlan, ResolvedDeploymentOptions } from '../planner/types';

/** Decoder-only (Llama, Qwen, Mistral) or encoder-decoder (T5). */
export type GenerativeArchitecture = 'decoder-only' | 'encoder-decoder';

/** Precision the weights and the KV cache are stored in on the device. */
export type GenerativeDtype = 'fp32' | 'bf16' | 'fp16' | 'fp8' | 'int8';

/** Which tokens a source's "tokens per second" counts. Kept per row: rows that count differently never mix. */
export type ThroughputCounts = 'output' | 'input-and-output';

/**
 * The architecture facts sizing needs, as the model's `config.json` states them.
 */
export interface GenerativeArchitectureFacts {
  readonly architecture: GenerativeArchitecture;
  /** Parameters, in billions (8.03 for Llama 3.1 8B). */
  readonly parametersBillions: number;
  /** Precision of the weights and KV cache as served. */
  readonly dtype: GenerativeDtype;
  /** Transformer layers holding a KV cache: the decoder layers (`num_hidden_layers`, T5's `num_decoder_layers`). */
  readonly layers: number;
  /** Query heads per layer (`num_attention_heads`). */
  readonly attentionHeads: number;
  /** Key/value heads per layer (`num_key_value_heads`; equal to the query heads without grouped-query attention). */
  readonly kvHeads: number;
  /** Dimension of one head (`head_dim`, or `hidden_size / num_attention_heads`; T5's `d_kv`). */
  readonly headDim: number;
  /** Vocabulary size (`vocab_size`). */
  readonly vocabulary: number;
  /** Longest context the model accepts, prompt plus output (`max_position_embeddings`). */
  readonly maxContextTokens: number;
  /** Where the facts come from (the model's config.json at a revision). */
  readonly source: string;
}

/**
 * One measured operating point: a model compiled for a tensor-parallel degree and a maximum number of concurrent
 * sequences, served on one instance type at given input and output lengths.
 */
export interface GenerativeMeasurement {
  /** EC2 instance type it ran on, e.g. `inf2.48xlarge`. Rows apply to any instance of the same chip. */
  readonly instanceType: string;
  /** NeuronCores one model replica spans (the compiled tensor-parallel degree), logical cores on Trn2. */
  readonly tensorParallelDegree: number;
  /** Sequences decoded together: the compiled batch size, or vLLM's `max_num_seqs`. */
  readonly batchSize: number;
  /** Prompt tokens per request. */
  readonly inputTokens: number;
  /** Generated tokens per request. */
  readonly outputTokens: number;
  /**
   * Longest sequence the artifact was compiled for (prompt plus output).
   *
   * @default - inputTokens + outputTokens
   */
  readonly sequenceLength?: number;
  /** Neuron SDK version of the measurement, e.g. `2.18.0`. */
  readonly neuronSdkVersion: string;
  /**
   * Median time to first token, ms.
   *
   * @default - not measured: the planner estimates the prefill (one decode step per 128 prompt tokens) and warns
   */
  readonly ttftP50Ms?: number;
  /** 99th percentile time to first token, ms. @default - ttftP50Ms (the source gives no p99) */
  readonly ttftP99Ms?: number;
  /** Median time per output token (inter-token latency), ms. */
  readonly tpotP50Ms: number;
  /** 99th percentile time per output token, ms. @default - tpotP50Ms (the source gives no p99) */
  readonly tpotP99Ms?: number;
  /**
   * Which tokens the source divides its per-token latency by. With `input-and-output` (the Neuron encoder-decoder
   * tables), a request took `tpot x (input + output)`, which the planner spreads over the output tokens.
   *
   * @default 'output'
   */
  readonly latencyCounts?: ThroughputCounts;
  /** Tokens per second of the replica as the source states it, counted as `throughputCounts` says. */
  readonly tokensPerSecond?: number;
  /** Which tokens `tokensPerSecond` counts. @default 'output' */
  readonly throughputCounts?: ThroughputCounts;
  /** True when the engine ran chunked prefill, so prefills do not stop decoding. @default false */
  readonly chunkedPrefill?: boolean;
  /** Where the row comes from: document, table, row, date. */
  readonly source: string;
  /** True when no AWS-authored source backs the row; printed as UNVERIFIED wherever it is used. */
  readonly unverified?: boolean;
}

/** A generative model: its architecture and its measurements. */
export interface GenerativeProfile {
  readonly kind: 'generative';
  /** Model id, e.g. `llama-3.1-8b-instruct`. */
  readonly id: string;
  /** Hugging Face repository of the weights, e.g. `meta-llama/Llama-3.1-8B-Instruct`. */
  readonly huggingFaceId?: string;
  readonly description?: string;
  readonly model: GenerativeArchitectureFacts;
  readonly measurements: readonly GenerativeMeasurement[];
}

/** A length in tokens: its mean, and a p99 when lengths vary. */
export interface TokenLength {
  readonly mean: number;
  /** @default - the mean: every request has the same length */
  readonly p99?: number;
}

/** What a generative deployment must sustain, in the units users judge it by. */
export interface GenerativeTargets {
  /** Steady requests per second (Poisson arrivals), queueing included. */
  readonly requestsPerSecond: number;
  readonly inputTokens: TokenLength;
  readonly outputTokens: TokenLength;
  /** Highest acceptable p99 time to first token, ms. */
  readonly ttftP99Ms: number;
  /** Highest acceptable p99 time per output token, ms. */
  readonly tpotP99Ms: number;
  /** Highest acceptable p99 end-to-end latency, ms. @default - no end-to-end target */
  readonly e2eP99Ms?: number;
  /** Peak requests per second autoscaling must reach. @default - the steady rate */
  readonly peakRequestsPerSecond?: number;
  /**
   * Plan every request at the mean lengths (a benchmark's shape). Without it, a length with no p99 takes the default
   * spread measured on a public chat trace (`DEFAULT_LENGTH_SPREAD`).
   *
   * @default false
   */
  readonly fixedLengths?: boolean;
}

/** Where and how to host a generative model: what every workload gives ({@link DeploymentOptions}), and its levers. */
export interface GenerativePlanOptions extends DeploymentOptions {
  /** Which engine levers (speculative decoding, FP8, prefix caching) are candidates. @default - all but prefix caching */
  readonly levers?: GenerativeLeverOptions;
  /**
   * Consider configurations no published row measured, timed by the performance model and flagged ESTIMATE. False
   * plans from measured rows only. @default true
   */
  readonly estimates?: boolean;
  /**
   * Called as the planner finishes each instance type of the catalog, so that a caller can show progress: an LLM plan
   * weighs thousands of configurations and takes seconds. The plan does not depend on it, and nothing of it is kept in
   * the report.
   *
   * @default - no progress is reported
   */
  readonly onProgress?: (progress: PlanningProgress) => void;
}

/** How far a generative plan has got, as {@link GenerativePlanOptions.onProgress} reports it. */
export interface PlanningProgress {
  /** Instance types of the catalog weighed so far. */
  readonly done: number;
  /** Instance types of the catalog. */
  readonly total: number;
  /** The one just weighed, as the plan names it (`ml.` prefixed for SageMaker). */
  readonly instanceType: string;
}

/** Device memory one replica needs, per term, in GiB over all the cores it spans. */
export interface GenerativeMemory {
  /** Weights, split over the tensor-parallel ranks. */
  readonly weights: number;
  /** KV cache at the maximum concurrent sequences and maximum model length, KV-head replication included. */
  readonly kvCache: number;
  /** Runtime, compiled graphs, scratchpad and activations. */
  readonly reserve: number;
  /** HBM of the cores the replica spans. */
  readonly available: number;
  /** KV heads each rank holds (replicated when the tensor-parallel degree exceeds the model's KV heads). */
  readonly kvHeadsPerRank: number;
  /** How NxD Inference shards the KV heads at this degree. */
  readonly kvSharding: 'shard' | 'replicate' | 'convert-to-mha';
  /** Most concurrent sequences whose KV cache fits next to the weights and the reserve at this model length. */
  readonly maxConcurrencyThatFits: number;
}

/** One model replica on an instance: its cores and devices. */
export type ReplicaLayout = CoreGroupLayout;

/** The engine settings the plan implies (vLLM on Neuron names in the comments; the serving issue renders them). */
export interface EngineSettings {
  /** `tensor_parallel_size`. */
  readonly tensorParallelSize: number;
  /** `max_num_seqs`: the compiled batch size. */
  readonly maxNumSeqs: number;
  /** `max_model_len`: prompt plus output tokens. */
  readonly maxModelLen: number;
  /** Logical NeuronCore configuration the replica runs with (`NEURON_LOGICAL_NC_CONFIG`); 1 where cores are physical. */
  readonly logicalNeuronCoreConfig: number;
  /** Prompt buckets compiled (`context_encoding_buckets`). @default - the engine's own (measured configurations) */
  readonly contextEncodingBuckets?: readonly number[];
  /** Sequence buckets compiled (`token_generation_buckets`). @default - the engine's own */
  readonly tokenGenerationBuckets?: readonly number[];
  /** The levers the engine runs with. @default - none */
  readonly levers?: LeverSet;
}

/** What an estimated configuration's times rest on: the performance model and its measured error. */
export interface GenerativeEstimate {
  /** Leave-one-out relative error of the model on the published rows. */
  readonly tpotError: { readonly median: number; readonly worst: number };
  readonly ttftError: { readonly median: number; readonly worst: number };
  /** Factors the estimated decode step and prefill were raised by for that error. */
  readonly headroom: { readonly tpot: number; readonly ttft: number };
  /** The model's decode step and mean prefill before headroom, ms. */
  readonly stepMs: number;
  readonly prefillMs: number;
  /** Scale from the model's own rows on this chip (1 where it has none). */
  readonly anchors: { readonly tpot: number; readonly ttft: number };
}

/** The published measurement behind one lever a plan uses. */
export interface GenerativeLeverEvidence {
  /** The published row (document, figure, commit), or why there is none on this chip family and serving stack. */
  readonly source: string;
  /** True when a published row measured the lever on the plan's chip family and serving stack. */
  readonly measured: boolean;
}

/** What a plan's figures rest on. */
export interface GenerativeEvidence {
  /** One entry per truthy key of `engine.levers` (`speculation`, `fp8Weights`, `fp8KvCache`, `prefixHitRate`). */
  readonly levers?: { readonly [lever: string]: GenerativeLeverEvidence };
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

/** The generative part of a plan. */
export interface GenerativePlanDetails {
  readonly architecture: GenerativeArchitecture;
  readonly tensorParallelDegree: number;
  readonly replicasPerInstance: number;
  readonly maxConcurrentSequences: number;
  readonly maxModelLength: number;
  /**
   * The prompt and output length distributions planned for; the replay, the token proof and the bench draw from them.
   *
   * @default - absent in plans made before lengths were distributions: lognormal with the targets' mean and p99
   */
  readonly lengths?: WorkloadLengths;
  readonly memoryGiB: GenerativeMemory;
  readonly predictedTtftP99Ms: number;
  readonly predictedTpotP99Ms: number;
  readonly predictedE2eP99Ms: number;
  /** Output tokens per second all instances produce at the target rate. */
  readonly outputTokensPerSecond: number;
  /** Output tokens per second one replica holds within the targets (its capacity). */
  readonly capacityOutputTokensPerSecondPerReplica: number;
  /** Requests per second one replica holds within the targets. */
  readonly capacityPerReplicaRps: number;
  /** Mean sequences decoding at once per replica at the target rate. */
  readonly meanRunningSequences: number;
  readonly costPer1MOutputTokensUsd: number;
  /**
   * Requests per second the fleet serves meeting TTFT, TPOT and end-to-end targets together (vLLM `bench serve
   * --goodput`), at its capacity: each p99 holds there, so at most 1 % of requests miss each target.
   */
  readonly goodputRps?: number;
  /** Hourly cost over the output tokens of the goodput, per 1M. */
  readonly costPer1MOutputTokensAtGoodputUsd?: number;
  /** Present when the times are the performance model's, not measured rows. */
  readonly estimate?: GenerativeEstimate;
  /** What the plan's figures rest on. @default - absent in plans made before plans carried their evidence */
  readonly evidence?: GenerativeEvidence;
  /**
   * How far the plan's timings may be off before a target misses: what to watch on the first deploy. Computed for the
   * chosen plan of a report.
   *
   * @default - absent for alternatives and in older plans
   */
  readonly sensitivity?: GenerativeSensitivity;
  /**
   * Present when `maxModelLength` was snapped down to the sequence length a published row was compiled for, so the
   * row plans: the longest requests are cut to it.
   *
   * @default - not snapped: p99 input + p99 output
   */
  readonly lengthCut?: GenerativeLengthCut;
  /** Why a larger tensor-parallel degree was chosen over a smaller one that also meets the targets. @default - it was not */
  readonly tensorParallelReason?: string;
  readonly engine: EngineSettings;
  readonly replicas: readonly ReplicaLayout[];
  /** The measured rows the decode and prefill times come from. */
  readonly measurement: readonly GenerativeMeasurement[];
}

/** A sized, priced generative deployment. */
export interface GenerativePlan extends DeploymentPlan {
  readonly kind: 'generative';
  readonly targets: GenerativeTargets;
  readonly generative: GenerativePlanDetails;
}

/** Why a generative candidate lost. */
export interface GenerativeRejection {
  readonly instanceType: string;
  /** `tp=8 seqs=4` style summary, when the rejection is about one configuration. */
  readonly configuration?: string;
  readonly code:
    | 'no-price'
    | 'no-measurement'
    | 'tensor-parallel'
    | 'engine'
    | 'device-memory'
    | 'host-memory'
    | 'sequence-length'
    | 'ttft'
    | 'tpot'
    | 'e2e'
    | 'max-instances'
    | 'excluded'
    /** Meets the targets only with a lever no published row measured on its chip family and stack, not asked for. */
    | 'unmeasured-lever';
  readonly reason: string;
  /** With `device-memory`: the memory breakdown that did not fit. */
  readonly memoryGiB?: GenerativeMemory;
}

/** The generative planner's full answer. */
export interface GenerativePlanReport {
  readonly request: {
    readonly profileId: string;
    readonly targets: GenerativeTargets;
    readonly options: ResolvedDeploymentOptions & Pick<GenerativePlanOptions, 'levers' | 'estimates'>;
  };
  readonly chosen: GenerativePlan;
  readonly alternatives: readonly GenerativePlan[];
  readonly rejected: readonly GenerativeRejection[];
  /** What each lever of the chosen plan was worth: the cheapest plan without it. */
  readonly leverWorth?: readonly GenerativeLeverWorth[];
  /**
   * The cheapest plan of each lever combination that uses a lever no published row measured on its chip family and
   * serving stack, and was not asked for (`GenerativeLeverOptions.unmeasured`): what it would save if it holds.
   */
  readonly unmeasuredLevers?: readonly GenerativeUnmeasuredLevers[];
}

/** A plan that would need an unmeasured lever, against the chosen plan. */
export interface GenerativeUnmeasuredLevers {
  /** The unmeasured levers it uses, as `--unmeasured-levers` names them. */
  readonly levers: readonly LeverName[];
  readonly plan: GenerativePlan;
  /** Share of the chosen plan's cost per 1M output tokens at goodput it would save (negative: it costs more). */
  readonly saves: number;
}

/** One lever's worth: the chosen plan against the cheapest plan without that lever. */
export interface GenerativeLeverWorth {
  readonly lever: 'speculative-decoding' | 'fp8' | 'prefix-caching';
  /** The cheapest plan that does not use the lever (undefined when none is feasible). */
  readonly without?: GenerativePlan;
}

/** How a length distribution was chosen. */
export type LengthSpread =
  /** The user gave the p99. */
  | 'stated'
  /** No p99 given: the default spread of `DEFAULT_LENGTH_SPREAD` (the trace's p99 / mean). */
  | 'default'
  /** Every request at the mean (asked for with `fixed`, or a p99 equal to the mean). */
  | 'fixed';

/** A lognormal length distribution, in tokens. Plain data: it travels in the plan's JSON. */
export interface LengthDistribution {
  readonly spread: LengthSpread;
  readonly mean: number;
  /** 99th percentile, tokens (the mean when fixed). */
  readonly p99: number;
  /** Parameters of the lognormal: ln(length) ~ Normal(mu, sigma). sigma is 0 when fixed. */
  readonly mu: number;
  readonly sigma: number;
  /** Squared coefficient of variation, exp(sigma^2) - 1. */
  readonly scv: number;
  /** Longest length drawn; longer draws are cut to it (the engine's limit). @default - no cap */
  readonly max?: number;
  /** Where the spread comes from, in words. */
  readonly source: string;
}

/** The input and output length distributions of a workload. */
export interface WorkloadLengths {
  readonly input: LengthDistribution;
  readonly output: LengthDistribution;
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

/** Timings of one compiled configuration, in seconds. */
export interface EngineTiming {
  /** Most sequences decoding at once: the compiled batch size (`max_num_seqs`). */
  readonly maxSequences: number;
  /** Decode step time (p50): the same at any number of running sequences, the graph being padded to the batch. */
  readonly stepSeconds: number;
  /** Prefill time of a prompt of `tokens` tokens (p50). */
  prefillSeconds(tokens: number): number;
  /** Measured p99 / p50 of TPOT at the compiled batch size (1 when the row has no p99). */
  readonly tpotTail: number;
  /** Measured p99 / p50 of TTFT of the prefill row (1 when the row has no p99). */
  readonly ttftTail: number;
  /** True when the rows ran chunked prefill: prefills then share steps instead of stopping decode. */
  readonly chunkedPrefill: boolean;
  /** True when the prefill time is the per-128-tokens estimate, not a measured TTFT. */
  readonly prefillEstimated: boolean;
}
