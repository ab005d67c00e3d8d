/**
 * Shapes of generative (autoregressive) model profiles, targets and plans: planning in tokens.
 *
 * A generative model answers a request with many device steps: one prefill over the prompt (context encoding),
 * then one decode step per output token, shared by every sequence the engine runs at once (continuous batching).
 * Users judge it by time to first token (TTFT), time per output token (TPOT) and tokens per second, so profiles,
 * targets and plans are in those units.
 */
import type { CoreGroupLayout, DeploymentOptions, DeploymentPlan, MixedFleetBase, PoolSummary, ResolvedDeploymentOptions } from '../planner/types';
import type { ArrivalProcess } from '../traffic/types';
import type { WorkloadPresetName } from './workloads';
import type { GenerativeEvidence, GenerativeLengthCut, GenerativeSensitivity } from './evidence-types';
import type { GenerativeLeverOptions, LeverName, LeverSet, WorkloadLengths } from './request-types';

export type { GenerativeEvidence, GenerativeEvidenceRow, GenerativeHeadroom, GenerativeLengthCut, GenerativeLeverEvidence, GenerativeSensitivity } from './evidence-types';
export type { DraftModel, GenerativeLeverOptions, LengthDistribution, LengthSpread, LeverName, LeverSet, SpeculationMethod, WorkloadLengths } from './request-types';

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
  /**
   * `hidden_size`: what a tensor-parallel all-reduce and the per-token work move (the performance model).
   *
   * @default - attentionHeads x headDim
   */
  readonly hiddenSize?: number;
  /** Routed experts of a mixture of experts (the performance model). @default - a dense model */
  readonly experts?: GenerativeExperts;
  /** Where the facts come from (the model's config.json at a revision). */
  readonly source: string;
}

/** A mixture-of-experts layer's facts (config.json `num_experts` / `num_local_experts`, `num_experts_per_tok`). */
export interface GenerativeExperts {
  /** Routed experts per layer. */
  readonly count: number;
  /** Experts each token is routed to. */
  readonly perToken: number;
  /** Parameters of all routed experts together, billions (the rest of `parametersBillions` is shared). */
  readonly parametersBillions: number;
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
  /** Steady requests per second (arriving as `arrivals` says), queueing included. */
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
   * Plan every request at the mean lengths (a benchmark's shape). Without it, a length with no p99 takes the spread
   * its workload preset measured on a public trace (`workload`).
   *
   * @default false
   */
  readonly fixedLengths?: boolean;
  /**
   * The workload preset whose spread a length without a p99 takes: `chat` (a conversation service) or `code` (a
   * coding assistant), each measured on a public Azure trace (`WORKLOAD_PRESETS`).
   *
   * @default 'chat'
   */
  readonly workload?: WorkloadPresetName;
  /**
   * The prompt and output length distributions, whole: a log's or a benchmark's own (`lengthsFromTraffic` of a
   * `readTrafficFile` summary; `plan --lengths-from`). They replace the spread of `inputTokens` and `outputTokens`,
   * which must then state their means and p99s.
   *
   * @default - lognormal with the means and p99s of `inputTokens` and `outputTokens`
   */
  readonly lengths?: WorkloadLengths;
  /**
   * How requests arrive: the gaps' variability, measured on a log's timestamps (`plan --lengths-from`). Bursty arrivals
   * (scv above 1) wait longer at the same rate, so a replica holds fewer requests per second. Arrivals more regular
   * than Poisson (scv below 1) are planned as Poisson.
   *
   * @default - Poisson arrivals (scv 1): independent users
   */
  readonly arrivals?: ArrivalProcess;
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
  /** Leave-one-model-out relative error of the model on the published rows (a whole model held out at a time). */
  readonly tpotError: { readonly median: number; readonly worst: number };
  readonly ttftError: { readonly median: number; readonly worst: number };
  /** Factors the estimated decode step and prefill were raised by for that error (`evidence.headroom` says why). */
  readonly headroom: { readonly tpot: number; readonly ttft: number };
  /** The model's decode step and mean prefill before headroom, ms. */
  readonly stepMs: number;
  readonly prefillMs: number;
  /** Scale from the model's own rows on this chip (1 where it has none). */
  readonly anchors: { readonly tpot: number; readonly ttft: number };
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
  /**
   * What the times rest on: measured rows or the model's estimate, the nearest rows, the headroom and its class.
   *
   * @default - absent in plans made before plans carried evidence
   */
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
  /**
   * Fallback pools, priority 2 first: the cheapest plan of each other instance type that meets the targets, cheapest
   * first, as many as `fallbacks` asked and the catalog has (fewer says so in `warnings`).
   *
   * @default - absent: planned without `fallbacks`
   */
  readonly fallbacks?: readonly GenerativeFallbackPool[];
  /**
   * The copies and instances an inference component with these pools runs so the targets hold on any mix of them; a
   * hosting deploys its counts instead of the chosen plan's.
   *
   * @default - absent: no fallback pools
   */
  readonly mixedFleet?: GenerativeMixedFleet;
}

/** How a generative fallback pool lays its replicas out on each instance. */
export interface GenerativePoolLayout {
  readonly tensorParallelDegree: number;
  readonly replicasPerInstance: number;
  /** `max_num_seqs` of each replica. */
  readonly maxConcurrentSequences: number;
  readonly maxModelLength: number;
  /** `NEURON_RT_VISIBLE_CORES` of each replica, in replica order. */
  readonly visibleCores: readonly string[];
}

/** What a generative fallback pool holds within the targets. */
export interface GenerativePoolCapacity {
  /** Requests per second one instance of the pool holds. */
  readonly perInstanceRps: number;
  /** Requests per second the pool's own `instanceCount` instances hold. */
  readonly rps: number;
  /** Requests per second one replica (one inference component copy) holds. */
  readonly perReplicaRps: number;
  readonly outputTokensPerSecondPerReplica: number;
}

/**
 * One fallback pool of a generative plan: its summary, layout and capacity, and the complete plan of its instance
 * type that meets the targets on its own (what a hosting deploys on the pool's instances: its engine settings,
 * replicas and visible cores).
 */
export interface GenerativeFallbackPool extends PoolSummary {
  readonly layout: GenerativePoolLayout;
  readonly capacity: GenerativePoolCapacity;
  /** The pool's complete plan, made for the same targets and options; it has no `fallbacks` or `mixedFleet` of its own. */
  readonly plan: GenerativePlan;
}

/**
 * The mixed fleet of an inference component whose copies may land on any pool: it scales copies on one per-copy
 * target, so it runs as many copies as the pool that holds the least per copy needs, and managed instance scaling
 * adds the instances of whichever pool SageMaker provisions to place them.
 */
export interface GenerativeMixedFleet extends MixedFleetBase {
  /** Copies at deploy time and the fewest autoscaling keeps: the most any pool's own plan runs. */
  readonly copies: number;
  /** Copies autoscaling may reach at the peak: the most any pool's own plan reaches. */
  readonly maxCopies: number;
  /** Requests per second per copy the fleet is sized from: the smallest `capacityPerReplicaRps` among the pools. */
  readonly capacityPerCopyRps: number;
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
    /** The targets as planned: the means and p99s of the lengths planned for (the distributions are in `lengths`). */
    readonly targets: GenerativeTargets;
    readonly options: ResolvedDeploymentOptions & Pick<GenerativePlanOptions, 'levers' | 'estimates'>;
    /** The length distributions planned for, each naming its `source`. @default - absent in reports made before them */
    readonly lengths?: WorkloadLengths;
    /**
     * How requests arrive, as planned, naming its `source`: Poisson unless the targets said otherwise.
     *
     * @default - absent in reports made before arrivals were planned: Poisson
     */
    readonly arrivals?: ArrivalProcess;
    /** Prompt plus output tokens the engine accepts (`max_model_len`). @default - absent in older reports */
    readonly maxModelLength?: number;
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
