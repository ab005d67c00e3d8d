/**
 * Shapes of the published Neuron LLM measurements: one row per distinct measured operating point, as its source
 * states it, and the architecture facts of every model the rows cover.
 *
 * A row keeps the source's own figures and statistics. Nothing is converted on the way in: a mean stays a mean, a
 * "latency per token" that divides a whole request by input and output tokens stays that (`latencyPerToken`), and a
 * figure this project computed from other figures (a TPOT from end-to-end latency and TTFT) sits under `derived` with
 * how it was computed, never under `tpot`. Readers (the profile converter, the performance model's fit) decide what a
 * figure may stand for.
 */
import type { GenerativeArchitecture, GenerativeDtype } from '../types';

/** Neuron chip family a row ran on (`chipOf` of the instance family). */
export type NeuronChip = 'inf2' | 'trn1' | 'trn2' | 'trn3';

/**
 * The software that served the model in the measurement.
 *
 * - `transformers-neuronx`: the legacy transformers-neuronx library, static batches, `sample()` / `generate()`.
 * - `nxd-inference`: NxD Inference's own runner (`inference_demo`), static batches.
 * - `vllm-nxdi`: vLLM with the Neuron worker over NxD Inference (the NxDI vLLM integration, Inf2/Trn1/Trn2).
 * - `vllm-neuron-plugin`: vLLM with the vLLM Neuron plugin (`vllm-project/vllm-neuron`, torch.compile, Trn2/Trn3).
 * - `optimum-neuron`: Hugging Face optimum-neuron `NeuronModelForCausalLM.generate()`, static batches.
 * - `optimum-neuron-vllm`: vLLM with optimum-neuron's platform plugin (Hugging Face Neuron DLCs).
 * - `tgi-neuron`: Hugging Face Text Generation Inference with the optimum-neuron backend.
 * - `neuronx-distributed`: a NeuronX Distributed (NxD Core) tutorial script (the T5 rows).
 */
export type ServingStack =
  | 'transformers-neuronx'
  | 'nxd-inference'
  | 'vllm-nxdi'
  | 'vllm-neuron-plugin'
  | 'optimum-neuron'
  | 'optimum-neuron-vllm'
  | 'tgi-neuron'
  | 'neuronx-distributed';

/** Every serving stack, for tests and summaries. */
export const SERVING_STACKS: readonly ServingStack[] = [
  'transformers-neuronx',
  'nxd-inference',
  'vllm-nxdi',
  'vllm-neuron-plugin',
  'optimum-neuron',
  'optimum-neuron-vllm',
  'tgi-neuron',
  'neuronx-distributed',
];

/**
 * Precision of a row's weights or KV cache. The generative dtypes, plus `mxfp4` (gpt-oss on Trn3) where a source
 * states it.
 */
export type PublishedDtype = GenerativeDtype | 'mxfp4';

/**
 * One latency figure with the statistics the source states, in milliseconds. At least one is present.
 */
export interface LatencyStatistics {
  /** Median, ms. @default - not stated */
  readonly p50?: number;
  /** 90th percentile, ms. @default - not stated */
  readonly p90?: number;
  /** 99th percentile, ms. @default - not stated */
  readonly p99?: number;
  /** Arithmetic mean, ms. @default - not stated */
  readonly mean?: number;
}

/**
 * A source's "latency per token": a request's whole time (prefill included) divided by the tokens `counts` names.
 * It is not an inter-token latency: with `input-and-output` a request took `latency x (input + output)`.
 */
export interface LatencyPerToken extends LatencyStatistics {
  /** Which tokens the source divides by (the Neuron tables' note: "counts both input and output tokens"). */
  readonly counts: 'input-and-output' | 'output';
}

/**
 * Figures this project computed from the source's figures, with how. They are never stored as figures read off the
 * source: a reader that uses one says so.
 */
export interface DerivedFigures {
  /** Time per output token, ms, computed as `how` says. @default - none derived */
  readonly tpot?: LatencyStatistics;
  /** Time to first token, ms, computed as `how` says. @default - none derived */
  readonly ttft?: LatencyStatistics;
  /** The arithmetic, in words and numbers, e.g. `(6040 - 48.3) / (558 - 1)`. */
  readonly how: string;
}

/** Speculative decoding as the source ran it. */
export interface PublishedSpeculation {
  /**
   * - `fused-draft`: NxD Inference fused speculation with a small draft model of the same family.
   * - `draft`: a separate draft model (vLLM's draft-model speculation).
   * - `eagle`, `eagle3`: an EAGLE / EAGLE-3 draft head.
   * - `dflash`: DFlash (block diffusion drafting).
   * - `medusa`: Medusa heads.
   */
  readonly method: 'fused-draft' | 'draft' | 'eagle' | 'eagle3' | 'dflash' | 'medusa';
  /** Hugging Face id of the draft model or head, as the source names it. @default - not stated */
  readonly draftModel?: string;
  /** Tokens the draft proposes per step (`num_speculative_tokens`, `speculation_length`). @default - not stated */
  readonly speculativeTokens?: number;
  /** Share of proposed tokens accepted, 0 to 1, as measured in the run. @default - not stated */
  readonly acceptanceRate?: number;
  /** Mean tokens emitted per target step (accepted + the bonus token), as measured in the run. @default - not stated */
  readonly meanAcceptedLength?: number;
}

/**
 * Engine features the run used beyond its dtypes (FP8 / INT8 weights and an FP8 KV cache are `weightDtype` and
 * `kvDtype`). Absent means the source does not say the feature was on.
 */
export interface PublishedLevers {
  /** Speculative decoding. @default - none */
  readonly speculation?: PublishedSpeculation;
  /**
   * Prefix caching (automatic prefix caching / block KV layout).
   *
   * @default - off
   */
  readonly prefixCaching?: {
    /** Share of prompt tokens served from the cache, 0 to 1, as the source states it. @default - not stated */
    readonly hitRate?: number;
    /** The source's words for the workload's sharing, e.g. `> 90 % cache hits`. @default - none */
    readonly description?: string;
  };
  /** Chunked prefill, with its chunk size in tokens when stated. @default - off */
  readonly chunkedPrefill?: { readonly chunkTokens?: number };
  /** On-device sampling (the sampler runs on the NeuronCores). @default - not stated */
  readonly onDeviceSampling?: boolean;
  /** Flash decoding (KV sharded over ranks for long contexts). @default - not stated */
  readonly flashDecoding?: boolean;
  /** Quantization scheme behind a lower-precision `weightDtype`, e.g. `per-channel-symmetric`, `awq`. @default - none */
  readonly quantization?: string;
}

/** How the benchmark loaded the server. */
export type LoadMode =
  /** Static batches: the batch is formed once and every sequence decodes together (`generate()`, the Neuron tables). */
  | 'static-batch'
  /** A closed loop with `concurrency` requests in flight (LLMPerf, `vllm bench serve --max-concurrency`, guidellm synchronous = 1). */
  | 'concurrency'
  /** An open loop at `requestRate` requests per second (guidellm asynchronous / constant, vLLM `--request-rate`). */
  | 'rate'
  /** Every request sent at once: the server's saturation throughput (guidellm throughput). */
  | 'saturation';

/** Where a row comes from, exactly enough for a reviewer to find the figure. */
export interface PublishedSource {
  /** GitHub repository, `owner/name`. @default - not a repository (see `url`) */
  readonly repository?: string;
  /** Commit the file was read at, at least 8 hex digits. @default - not a repository */
  readonly commit?: string;
  /** File in the repository. @default - not a repository */
  readonly path?: string;
  /** Web address of the page. @default - the repository file only */
  readonly url?: string;
  /** Date of the commit or the page, ISO `YYYY-MM-DD`. */
  readonly date: string;
  /** Row, table or figure within the file or page, in words, e.g. `row "Llama-3-8B ... 4096/128"`. */
  readonly locator: string;
}

/**
 * One published measurement: a model served on one instance type by one serving stack and SDK, compiled for a
 * tensor-parallel degree and a batch, loaded in one way, with the figures the source states.
 */
export interface PublishedRow {
  /** Key into `PUBLISHED_MODELS`. */
  readonly model: string;
  /** EC2 instance type, lower case, e.g. `inf2.48xlarge`. */
  readonly instanceType: string;
  /** Chip family of the instance. */
  readonly chip: NeuronChip;
  readonly stack: ServingStack;
  /** Neuron SDK version as the source states it (`2.18.1`), or the version its container or release implies. */
  readonly neuronSdkVersion: string;
  /**
   * NeuronCores one replica spans, as the catalog counts them: physical cores on Inf2/Trn1 (2 per chip), logical
   * cores at LNC=2 on Trn2/Trn3 (4 per chip).
   */
  readonly tensorParallelDegree: number;
  /** Replicas the run's throughput is the sum of. @default 1 */
  readonly dataParallel?: number;
  /** Sequences one replica decodes together: the compiled batch size, or vLLM's `max_num_seqs`. */
  readonly batchSize: number;
  /** How the benchmark loaded the server. */
  readonly load: LoadMode;
  /** Requests in flight (closed loop, over all replicas). @default - set only with `load: 'concurrency'` */
  readonly concurrency?: number;
  /** Offered requests per second (open loop). @default - set only with `load: 'rate'` */
  readonly requestRate?: number;
  /** Prompt tokens per request (the mean where lengths vary; see `lengthSpread`). */
  readonly inputTokens: number;
  /** Generated tokens per request (the mean where lengths vary). */
  readonly outputTokens: number;
  /** How lengths vary around the means, in the source's words (`1500 +- 150`). @default - every request the same */
  readonly lengthSpread?: string;
  /** Longest sequence the artifact was compiled for (`max_model_len`, `seq_len`). @default - not stated */
  readonly sequenceLength?: number;
  /** Precision of the weights on the device. */
  readonly weightDtype: PublishedDtype;
  /** Precision of the KV cache. @default - the weights' precision (BF16 where the weights are quantized) */
  readonly kvDtype?: PublishedDtype;
  /** Engine features used beyond the dtypes. */
  readonly levers: PublishedLevers;
  /** Time to first token as stated. @default - not stated */
  readonly ttft?: LatencyStatistics;
  /**
   * What `ttft` times: one request's prefill, or the prefill of the whole static batch before any token (static
   * batching at batch > 1).
   *
   * @default 'request'
   */
  readonly ttftCovers?: 'request' | 'batch';
  /** Time per output token (inter-token latency, TTFT excluded) as stated. @default - not stated */
  readonly tpot?: LatencyStatistics;
  /** A "latency per token" that includes the prefill (see `LatencyPerToken`). @default - not stated */
  readonly latencyPerToken?: LatencyPerToken;
  /** End-to-end request latency as stated, ms. @default - not stated */
  readonly e2e?: LatencyStatistics;
  /** Output tokens per second as stated (over the run; per request with `throughputPer: 'request'`). @default - not stated */
  readonly outputTokensPerSecond?: number;
  /** Input plus output tokens per second as stated. @default - not stated */
  readonly totalTokensPerSecond?: number;
  /** Completed requests per second as stated. @default - not stated */
  readonly requestsPerSecond?: number;
  /** Whether the tokens-per-second figures are the whole run's or one request's. @default 'run' */
  readonly throughputPer?: 'run' | 'request';
  /** Figures computed from the stated ones. @default - none */
  readonly derived?: DerivedFigures;
  /**
   * The source's label of the run (a timestamp), where it publishes repeated runs of one configuration: rows that
   * differ only in `run` are repeats, not duplicates.
   *
   * @default - the source publishes one run of the configuration
   */
  readonly run?: string;
  /** Where the figures are. */
  readonly source: PublishedSource;
  /** True when no AWS-authored source backs the row (Hugging Face, third parties). @default false */
  readonly unverified?: boolean;
  /** What else a reader must know: corrections, caveats the source states ("numbers are illustrative"). @default - none */
  readonly notes?: string;
}

/** Mixture-of-experts facts of a model (config.json). */
export interface MixtureOfExperts {
  /** Routed experts per MoE layer (`num_experts`, `num_local_experts`). */
  readonly experts: number;
  /** Routed experts each token uses (`num_experts_per_tok`). */
  readonly activeExperts: number;
  /** Shared experts every token uses in addition. @default 0 */
  readonly sharedExperts?: number;
  /** Hidden size of one expert's feed-forward (`moe_intermediate_size`, or `intermediate_size` where experts use it). */
  readonly expertIntermediateSize: number;
  /** Layers that are MoE (the others dense). @default - every layer */
  readonly moeLayers?: number;
}

/** The architecture facts of a model the rows cover, as its config.json states them. */
export interface PublishedModel {
  /** Key the rows use. */
  readonly id: string;
  /** Hugging Face repository of the weights. */
  readonly huggingFaceId: string;
  readonly architecture: GenerativeArchitecture;
  /** Decoder layers (`num_hidden_layers`; T5's `num_decoder_layers`). */
  readonly layers: number;
  /** Query heads per layer (`num_attention_heads`). */
  readonly attentionHeads: number;
  /** Key/value heads per layer (`num_key_value_heads`, the query heads without it). */
  readonly kvHeads: number;
  /** Dimension of one head (`head_dim`, else `hidden_size / num_attention_heads`; T5's `d_kv`). */
  readonly headDim: number;
  /** `hidden_size` (T5's `d_model`). */
  readonly hiddenSize: number;
  /** Dense feed-forward size (`intermediate_size`, OPT's `ffn_dim`, T5's `d_ff`). */
  readonly intermediateSize: number;
  /** `vocab_size`. */
  readonly vocabulary: number;
  /** Longest context (`max_position_embeddings`; T5's trained 512). */
  readonly maxPositions: number;
  /** `torch_dtype` of the checkpoint. */
  readonly dtype: PublishedDtype;
  /** Total parameters, billions. */
  readonly parametersBillions: number;
  /** Parameters one token uses, billions (MoE models). @default - parametersBillions */
  readonly activeParametersBillions?: number;
  /** True when the LM head shares the embedding matrix (`tie_word_embeddings`). @default false */
  readonly tiedEmbeddings?: boolean;
  /** Mixture-of-experts facts. @default - a dense model */
  readonly moe?: MixtureOfExperts;
  /** The config.json URL and the fields read, and where the parameter count comes from. */
  readonly source: string;
}
