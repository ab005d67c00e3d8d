/**
 * The built-in generative profiles: each model's architecture from its config.json, and measured rows from the
 * Neuron performance pages and benchmark guides. Third-party rows carry `unverified: true`.
 *
 * Row conventions: `tensorParallelDegree` and `batchSize` are the compiled degree and the sequences decoded together;
 * `tokensPerSecond` is as the source states it, with `throughputCounts` saying which tokens it counts; latencies
 * without a p99 in the source have none here (the planner then uses the p50).
 */
import type { GenerativeMeasurement, GenerativeProfile } from '../../generative/types';

const ENCODER_DECODER_TABLES =
  'AWS Neuron docs, Inf2 and Trn1 Inference Performance, "Encoder-Decoder Models" tables (aws-neuron/aws-neuron-sdk ' +
  'about-neuron/benchmarks/{inf2,trn1}/{throughput,latency}_data_encoder_decoder.csv @ 1db4d74e, 2025-10-17; ' +
  'https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/benchmarks/inf2/inf2-performance.html), whose note ' +
  'says throughput and latency per token count both input and output tokens; NeuronX Distributed T5 tutorial ' +
  '(num_beams 4), not vLLM';

/**
 * One Encoder-Decoder row: TP 8, DP 1, batch 1, input 128, output 84, FP32 with Matmult-BF16. Per-token latency and
 * throughput count input and output tokens, so a request took latency x 212 tokens.
 */
function t5Row(model: string, instanceType: string, mode: string, sdk: string, tokensPerSecond: number, p50: number, p99: number): GenerativeMeasurement {
  return {
    instanceType,
    tensorParallelDegree: 8,
    batchSize: 1,
    inputTokens: 128,
    outputTokens: 84,
    neuronSdkVersion: sdk,
    tpotP50Ms: p50,
    tpotP99Ms: p99,
    latencyCounts: 'input-and-output',
    tokensPerSecond,
    throughputCounts: 'input-and-output',
    source: `${ENCODER_DECODER_TABLES}; ${model} on ${instanceType} (${mode}, Neuron ${sdk}): ${tokensPerSecond} tokens/s, latency per token p50 ${p50} ms, p99 ${p99} ms`,
  };
}

/** The Encoder-Decoder tables' runs, in the order `t5Profile` takes their rows. */
const T5_RUNS = [
  ['inf2.24xlarge', 'Batch', '2.17.0'],
  ['inf2.24xlarge', 'Real Time', '2.18.0'],
  ['trn1.32xlarge', 'Batch', '2.17.0'],
  ['trn1.32xlarge', 'Real Time', '2.18.0'],
] as const;

/** One T5-family model of the Encoder-Decoder tables: what its config.json says. */
interface T5Config {
  readonly id: string;
  readonly huggingFaceId: string;
  readonly description: string;
  readonly headDim: number;
  readonly source: string;
}

/** One row's measured cells, as the table prints them: tokens/s, latency per token p50 and p99 (ms). */
type T5Cells = readonly [tokensPerSecond: number, p50Ms: number, p99Ms: number];

/**
 * A T5-family profile: both tabled models share T5's 24-layer, 32-head fp32 geometry and 32128-token vocabulary, and
 * differ in head size. `rows` holds the cells of each of `T5_RUNS`, in that order.
 */
function t5Profile(config: T5Config, rows: readonly [T5Cells, T5Cells, T5Cells, T5Cells]): GenerativeProfile {
  return {
    kind: 'generative',
    id: config.id,
    huggingFaceId: config.huggingFaceId,
    description: config.description,
    model: {
      architecture: 'encoder-decoder',
      parametersBillions: 2.85,
      dtype: 'fp32',
      layers: 24,
      attentionHeads: 32,
      kvHeads: 32,
      headDim: config.headDim,
      vocabulary: 32128,
      maxContextTokens: 512,
      source: config.source,
    },
    measurements: rows.map(([tps, p50, p99], i) => {
      const [instanceType, mode, sdk] = T5_RUNS[i];
      return t5Row(config.id, instanceType, mode, sdk, tps, p50, p99);
    }),
  };
}

/** google/flan-t5-xl: https://huggingface.co/google/flan-t5-xl/blob/main/config.json */
const FLAN_T5_XL = t5Profile({
  id: 'google/flan-t5-xl',
  huggingFaceId: 'google/flan-t5-xl',
  description: 'FLAN-T5 XL encoder-decoder, 2.85B parameters',
  headDim: 64,
  source: 'https://huggingface.co/google/flan-t5-xl/blob/main/config.json (d_kv 64, num_heads 32, num_decoder_layers 24, vocab_size 32128); ' +
    '2.85B parameters derived from that geometry (untied LM head, gated-GELU feed-forward of 5120); context 512 as T5 was trained (relative attention has no hard limit)',
}, [[117.61, 8.51, 8.53], [117.6, 8.5, 8.53], [122.52, 8.16, 8.19], [120.29, 8.31, 8.34]]);

/** t5-3b: https://huggingface.co/google-t5/t5-3b/blob/main/config.json */
const T5_3B = t5Profile({
  id: 't5-3b',
  huggingFaceId: 'google-t5/t5-3b',
  description: 'T5 3B encoder-decoder',
  headDim: 128,
  source: 'https://huggingface.co/google-t5/t5-3b/blob/main/config.json (d_kv 128, num_heads 32, num_layers 24, vocab_size 32128, n_positions 512); ' +
    '2.85B parameters derived from that geometry (tied embeddings, ReLU feed-forward of 16384)',
}, [[111.92, 8.97, 8.98], [108.18, 9.25, 9.26], [116.29, 8.58, 8.66], [110.23, 9.07, 9.12]]);


const NEURON_SDK_REPO = 'aws-neuron/aws-neuron-sdk';
const OPTIMUM_VLLM =
  'UNVERIFIED (Hugging Face, not AWS): huggingface/optimum-neuron @ 213224e6 benchmark/vllm, vLLM with the optimum-neuron ' +
  'plugin, guidellm 0.1.0, prompts 1500 +- 150 and outputs 250 +- 20 tokens, sequence length 4096; means, not p50 (guidellm ' +
  'Distribution.mean), one request at a time ("synchronous")';
const OPTIMUM_STATIC =
  'UNVERIFIED (Hugging Face, not AWS): huggingface/optimum-neuron @ 9d371f56 benchmark/text-generation/performance, ' +
  'NeuronModelForCausalLM.generate with static batches (every sequence of the batch decodes together; TTFT prefills the ' +
  'whole batch), 256 new tokens, sequence length 4096, values read off the published charts (rounded)';

/** A row of a vLLM (or static-batch) benchmark with one request in flight: a lone prefill, and the compiled batch's step. */
function row(fields: Omit<GenerativeMeasurement, 'throughputCounts'>): GenerativeMeasurement {
  return { throughputCounts: 'output', ...fields };
}

/** meta-llama/Llama-3.1-8B-Instruct: https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/blob/main/config.json */
const LLAMA_31_8B: GenerativeProfile = {
  kind: 'generative',
  id: 'llama-3.1-8b-instruct',
  huggingFaceId: 'meta-llama/Llama-3.1-8B-Instruct',
  description: 'Llama 3.1 8B Instruct, decoder-only, grouped-query attention (8 KV heads), bf16',
  model: {
    architecture: 'decoder-only',
    parametersBillions: 8.03,
    dtype: 'bf16',
    layers: 32,
    attentionHeads: 32,
    kvHeads: 8,
    headDim: 128,
    vocabulary: 128256,
    maxContextTokens: 131072,
    source: 'https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/blob/main/config.json (num_hidden_layers 32, ' +
      'num_attention_heads 32, num_key_value_heads 8, hidden_size 4096, vocab_size 128256, max_position_embeddings 131072, ' +
      'torch_dtype bfloat16); 8.03B parameters from the model card',
  },
  measurements: [
    row({
      instanceType: 'trn2.48xlarge', tensorParallelDegree: 8, batchSize: 2, inputTokens: 512, outputTokens: 128, sequenceLength: 2048,
      neuronSdkVersion: '2.32', ttftP50Ms: 51.07, tpotP50Ms: 10.52, tokensPerSecond: 184.44,
      source: `AWS Neuron docs, vLLM on Neuron tutorial "EAGLE3 speculative decoding with Llama 3.1 8B", baseline without a draft ` +
        `(${NEURON_SDK_REPO} vllm-neuron/docs/tutorials/tutorial-eagle3-speculative-decoding-llama-3-1.md @ a3247f5b, updated ` +
        '2026-06-11): vllm serve --tensor-parallel-size 8 --max-num-seqs 2 --max-model-len 2048, vllm bench serve sonnet 512/128 ' +
        'at concurrency 2: median TTFT 51.07 ms, median TPOT 10.52 ms, 184.44 output tokens/s ("numbers are illustrative")',
    }),
    row({
      instanceType: 'inf2.48xlarge', tensorParallelDegree: 8, batchSize: 32, inputTokens: 1500, outputTokens: 250, sequenceLength: 4096,
      neuronSdkVersion: '2.26.1', ttftP50Ms: 321.9, tpotP50Ms: 24.51, tokensPerSecond: 38.5, unverified: true,
      source: `${OPTIMUM_VLLM}; inf2.48xlarge TP 8 batch 32: TTFT 321.9 ms, inter-token latency 24.51 ms, 38.5 output tokens/s`,
    }),
    row({
      instanceType: 'inf2.48xlarge', tensorParallelDegree: 8, batchSize: 32, inputTokens: 1500, outputTokens: 250, sequenceLength: 4096,
      neuronSdkVersion: '2.26.1', ttftP50Ms: 296.3, tpotP50Ms: 24.56, tokensPerSecond: 38.4, chunkedPrefill: true, unverified: true,
      source: `${OPTIMUM_VLLM}; chunked prefill (chunk 1024) study, inf2.48xlarge TP 8 batch 32: TTFT 296.3 ms, inter-token latency 24.56 ms, 38.4 output tokens/s`,
    }),
    row({
      instanceType: 'trn1.32xlarge', tensorParallelDegree: 8, batchSize: 32, inputTokens: 1500, outputTokens: 250, sequenceLength: 4096,
      neuronSdkVersion: '2.24.0', ttftP50Ms: 242.5, tpotP50Ms: 26.57, tokensPerSecond: 36.2, unverified: true,
      source: `${OPTIMUM_VLLM}; 4 replicas x TP 8 on /dev/neuron0-15 (trn1.32xlarge inferred, the file names no instance), batch 32: ` +
        'TTFT 242.5 ms, inter-token latency 26.57 ms, 36.2 output tokens/s',
    }),
    row({
      instanceType: 'trn2.48xlarge', tensorParallelDegree: 4, batchSize: 32, inputTokens: 1500, outputTokens: 250, sequenceLength: 4096,
      neuronSdkVersion: '2.26.0', ttftP50Ms: 197.2, tpotP50Ms: 22.14, tokensPerSecond: 43.5, unverified: true,
      source: `${OPTIMUM_VLLM}; trn2.48xlarge TP 4 batch 32: TTFT 197.2 ms, inter-token latency 22.14 ms, 43.5 output tokens/s`,
    }),
    ...([[1, 300, 11, 83], [4, 1200, 12, 235], [8, 2300, 16, 322], [16, 4700, 21, 409], [32, 9300, 33, 463]] as const).map(([batch, ttft, tpot, tps]) => row({
      instanceType: 'inf2.48xlarge', tensorParallelDegree: 8, batchSize: batch, inputTokens: 1024, outputTokens: 256, sequenceLength: 4096,
      neuronSdkVersion: '2.24.0', ttftP50Ms: batch === 1 ? ttft : undefined, tpotP50Ms: tpot, tokensPerSecond: tps, unverified: true,
      source: `${OPTIMUM_STATIC}; Llama 3.1 8B Instruct, inf2.48xlarge TP 8, batch ${batch}, input 1024: TTFT ${ttft} ms (whole batch), ` +
        `${tpot} ms per token, ${tps} output tokens/s`,
    })),
  ],
};

/** meta-llama/Llama-3.3-70B-Instruct: https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct/blob/main/config.json */
const LLAMA_33_70B: GenerativeProfile = {
  kind: 'generative',
  id: 'llama-3.3-70b-instruct',
  huggingFaceId: 'meta-llama/Llama-3.3-70B-Instruct',
  description: 'Llama 3.3 70B Instruct, decoder-only, grouped-query attention (8 KV heads), bf16',
  model: {
    architecture: 'decoder-only',
    parametersBillions: 70.6,
    dtype: 'bf16',
    layers: 80,
    attentionHeads: 64,
    kvHeads: 8,
    headDim: 128,
    vocabulary: 128256,
    maxContextTokens: 131072,
    source: 'https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct/blob/main/config.json (num_hidden_layers 80, ' +
      'num_attention_heads 64, num_key_value_heads 8, hidden_size 8192, vocab_size 128256, max_position_embeddings 131072, ' +
      'torch_dtype bfloat16); 70.6B parameters from the model card',
  },
  measurements: [
    row({
      instanceType: 'trn2.48xlarge', tensorParallelDegree: 64, batchSize: 1, inputTokens: 10000, outputTokens: 1500, sequenceLength: 12800,
      neuronSdkVersion: '2.21', ttftP50Ms: 814.2, tpotP50Ms: 19.6, tokensPerSecond: 36,
      source: `AWS Neuron docs, NxD Inference tutorial "Llama 3.3 70B on Trn2" (${NEURON_SDK_REPO} ` +
        'libraries/nxd-inference/tutorials/llama70b_perf_comparison.csv @ ba1c08b0, added with the 2.21 release): TP 64, LNC=2, ' +
        'batch 1, max-model-len 12800, LLMPerf 10,000 input / 1,500 output tokens at concurrency 1: TTFT p50 814.2 ms, ' +
        'TPOT p50 19.6 ms, 36 output tokens/s',
    }),
    ...([[1, 1100, 30, 29], [4, 4200, 37, 75], [8, 8500, 44, 104]] as const).map(([batch, ttft, tpot, tps]) => row({
      instanceType: 'inf2.48xlarge', tensorParallelDegree: 24, batchSize: batch, inputTokens: 1024, outputTokens: 256, sequenceLength: 4096,
      neuronSdkVersion: '2.24.0', ttftP50Ms: batch === 1 ? ttft : undefined, tpotP50Ms: tpot, tokensPerSecond: tps, unverified: true,
      source: `${OPTIMUM_STATIC}; the "Llama 3.3 70B" script loads deepseek-ai/DeepSeek-R1-Distill-Llama-70B (the same architecture), ` +
        `inf2.48xlarge TP 24, batch ${batch}, input 1024: TTFT ${ttft} ms (whole batch), ${tpot} ms per token, ${tps} output tokens/s`,
    })),
  ],
};

/** Qwen/Qwen3-32B: https://huggingface.co/Qwen/Qwen3-32B/blob/main/config.json */
const QWEN3_32B: GenerativeProfile = {
  kind: 'generative',
  id: 'qwen3-32b',
  huggingFaceId: 'Qwen/Qwen3-32B',
  description: 'Qwen3 32B, decoder-only, grouped-query attention (8 KV heads), bf16',
  model: {
    architecture: 'decoder-only',
    parametersBillions: 32.8,
    dtype: 'bf16',
    layers: 64,
    attentionHeads: 64,
    kvHeads: 8,
    headDim: 128,
    vocabulary: 151936,
    maxContextTokens: 40960,
    source: 'https://huggingface.co/Qwen/Qwen3-32B/blob/main/config.json (num_hidden_layers 64, num_attention_heads 64, ' +
      'num_key_value_heads 8, head_dim 128, vocab_size 151936, max_position_embeddings 40960, torch_dtype bfloat16); 32.8B parameters from the model card',
  },
  measurements: [
    row({
      instanceType: 'trn2.48xlarge', tensorParallelDegree: 64, batchSize: 1, inputTokens: 128, outputTokens: 558, sequenceLength: 6400,
      neuronSdkVersion: '2.26.1', ttftP50Ms: 48.3, ttftP99Ms: 48.3, tpotP50Ms: 10.76, tpotP99Ms: 10.76, tokensPerSecond: 102.3,
      source: `AWS Neuron docs, NxD Inference speculative decoding tutorial, baseline without a draft (${NEURON_SDK_REPO} ` +
        'libraries/nxd-inference/tutorials/sd-inference-tutorial.rst @ db1586c3, DLC pytorch-inference-vllm-neuronx ' +
        '0.9.1-neuronx-py311-sdk2.26.1): TP 64, batch 1, max-model-len 6400, LLMPerf 128 input / 558 output tokens at ' +
        'concurrency 1, all values p99: TTFT 48.3 ms, end-to-end 6.04 s, 102.3 output tokens/s per request; TPOT derived ' +
        '(6040 - 48.3) / 557 = 10.76 ms, used as p50 and p99',
    }),
    row({
      instanceType: 'trn2.48xlarge', tensorParallelDegree: 4, batchSize: 2, inputTokens: 1500, outputTokens: 250, sequenceLength: 4096,
      neuronSdkVersion: '2.26.0', ttftP50Ms: 770.9, tpotP50Ms: 32.08, tokensPerSecond: 28.4, unverified: true,
      source: `${OPTIMUM_VLLM}; Qwen3-32B trn2.48xlarge TP 4 batch 2: TTFT 770.9 ms, inter-token latency 32.08 ms, 28.4 output tokens/s`,
    }),
  ],
};

/** Every built-in generative profile, sorted by id. */
export const BUILT_IN_GENERATIVE_PROFILES: readonly GenerativeProfile[] = [FLAN_T5_XL, T5_3B, LLAMA_31_8B, LLAMA_33_70B, QWEN3_32B]
  .sort((a, b) => a.id.localeCompare(b.id));
