/**
 * The architecture facts of every model the published rows cover, from each model's config.json on Hugging Face
 * (`main` revision; the field names are config.json's). Parameter counts are the model card's where it states one,
 * else computed from the geometry (embeddings, attention, feed-forward, norms), as `source` says.
 *
 * Models that share an architecture keep separate entries when the rows name them separately (Llama 3 8B and
 * Llama 3.1 8B differ in `max_position_embeddings` only): a row records what was served.
 */
import type { PublishedModel } from './types';

const HF = 'https://huggingface.co';

/** A Llama-architecture (`LlamaForCausalLM`) model: untied embeddings, SwiGLU feed-forward, RMSNorm. */
function llama(id: string, huggingFaceId: string, facts: Omit<PublishedModel, 'id' | 'huggingFaceId' | 'architecture' | 'source'>, parameters: string): PublishedModel {
  return {
    id,
    huggingFaceId,
    architecture: 'decoder-only',
    ...facts,
    source: `${HF}/${huggingFaceId}/blob/main/config.json (num_hidden_layers ${facts.layers}, hidden_size ${facts.hiddenSize}, ` +
      `intermediate_size ${facts.intermediateSize}, num_attention_heads ${facts.attentionHeads}, num_key_value_heads ${facts.kvHeads}, ` +
      `head_dim ${facts.headDim} (hidden_size / num_attention_heads where config.json has no head_dim), vocab_size ${facts.vocabulary}, max_position_embeddings ${facts.maxPositions}, torch_dtype ` +
      `${facts.dtype === 'bf16' ? 'bfloat16' : facts.dtype === 'fp16' ? 'float16' : facts.dtype}); ${parameters}`,
  };
}

/** An OPT model (`OPTForCausalLM`): multi-head attention, ReLU feed-forward of `ffn_dim`, learned positions, tied embeddings. */
function opt(size: string, facts: Pick<PublishedModel, 'layers' | 'attentionHeads' | 'hiddenSize' | 'intermediateSize' | 'parametersBillions'>): PublishedModel {
  const huggingFaceId = `facebook/opt-${size}`;
  return {
    id: `opt-${size}`,
    huggingFaceId,
    architecture: 'decoder-only',
    ...facts,
    kvHeads: facts.attentionHeads,
    headDim: facts.hiddenSize / facts.attentionHeads,
    tiedEmbeddings: true,
    vocabulary: 50272,
    maxPositions: 2048,
    dtype: 'fp16',
    source: `${HF}/${huggingFaceId}/blob/main/config.json (num_hidden_layers ${facts.layers}, hidden_size ${facts.hiddenSize}, ` +
      `ffn_dim ${facts.intermediateSize}, num_attention_heads ${facts.attentionHeads}, vocab_size 50272, max_position_embeddings 2048, ` +
      `torch_dtype float16); ${facts.parametersBillions}B parameters computed from that geometry (tied embeddings, biases, learned positions)`,
  };
}

const LLAMA_3_8B_GEOMETRY = { layers: 32, attentionHeads: 32, kvHeads: 8, headDim: 128, hiddenSize: 4096, intermediateSize: 14336, vocabulary: 128256 } as const;
const LLAMA_3_70B_GEOMETRY = { layers: 80, attentionHeads: 64, kvHeads: 8, headDim: 128, hiddenSize: 8192, intermediateSize: 28672, vocabulary: 128256 } as const;

/** A Qwen3 mixture-of-experts model (`Qwen3MoeForCausalLM`): every layer MoE, no shared expert, untied embeddings. */
function qwen3Moe(id: string, huggingFaceId: string, facts: Omit<PublishedModel, 'id' | 'huggingFaceId' | 'architecture' | 'source' | 'moe' | 'dtype'>,
  experts: { readonly experts: number; readonly activeExperts: number; readonly expertIntermediateSize: number }, parameters: string): PublishedModel {
  return {
    id,
    huggingFaceId,
    architecture: 'decoder-only',
    ...facts,
    dtype: 'bf16',
    moe: experts,
    source: `${HF}/${huggingFaceId}/blob/main/config.json (num_hidden_layers ${facts.layers}, hidden_size ${facts.hiddenSize}, ` +
      `intermediate_size ${facts.intermediateSize}, moe_intermediate_size ${experts.expertIntermediateSize}, num_experts ${experts.experts}, ` +
      `num_experts_per_tok ${experts.activeExperts}, num_attention_heads ${facts.attentionHeads}, num_key_value_heads ${facts.kvHeads}, ` +
      `head_dim ${facts.headDim}, vocab_size ${facts.vocabulary}, max_position_embeddings ${facts.maxPositions}, torch_dtype bfloat16); ${parameters}`,
  };
}

/**
 * A Llama 4 model (`Llama4ForConditionalGeneration`, the facts of its `text_config`): MoE layers of `num_local_experts`
 * routed experts (top-1) plus one shared expert, every `interleave_moe_layer_step`-th layer; the other layers dense
 * with `intermediate_size_mlp`. The vision encoder is not counted in the geometry (the rows serve text).
 */
function llama4(id: string, huggingFaceId: string, experts: number, moeLayers: number, maxPositions: number, total: number): PublishedModel {
  return {
    id,
    huggingFaceId,
    architecture: 'decoder-only',
    layers: 48,
    attentionHeads: 40,
    kvHeads: 8,
    headDim: 128,
    hiddenSize: 5120,
    intermediateSize: 16384,
    vocabulary: 202048,
    maxPositions,
    dtype: 'bf16',
    parametersBillions: total,
    activeParametersBillions: 17,
    moe: { experts, activeExperts: 1, sharedExperts: 1, expertIntermediateSize: 8192, moeLayers },
    source: `${HF}/${huggingFaceId}/blob/main/config.json (text_config: num_hidden_layers 48, hidden_size 5120, intermediate_size 8192, ` +
      `intermediate_size_mlp 16384, num_local_experts ${experts}, num_experts_per_tok 1, interleave_moe_layer_step ${48 / moeLayers}, ` +
      `num_attention_heads 40, num_key_value_heads 8, head_dim 128, vocab_size 202048, max_position_embeddings ${maxPositions}, ` +
      `torch_dtype bfloat16); ${total}B total and 17B active parameters from the model card`,
  };
}

const MODELS: readonly PublishedModel[] = [
  opt('13b', { layers: 40, attentionHeads: 40, hiddenSize: 5120, intermediateSize: 20480, parametersBillions: 12.85 }),
  opt('30b', { layers: 48, attentionHeads: 56, hiddenSize: 7168, intermediateSize: 28672, parametersBillions: 29.97 }),
  opt('66b', { layers: 64, attentionHeads: 72, hiddenSize: 9216, intermediateSize: 36864, parametersBillions: 65.7 }),
  llama('llama-2-7b', 'meta-llama/Llama-2-7b-hf',
    { layers: 32, attentionHeads: 32, kvHeads: 32, headDim: 128, hiddenSize: 4096, intermediateSize: 11008, vocabulary: 32000, maxPositions: 4096, dtype: 'fp16', parametersBillions: 6.74 },
    '6.74B parameters computed from that geometry (the model card says 7B)'),
  llama('llama-2-13b', 'meta-llama/Llama-2-13b-hf',
    { layers: 40, attentionHeads: 40, kvHeads: 40, headDim: 128, hiddenSize: 5120, intermediateSize: 13824, vocabulary: 32000, maxPositions: 4096, dtype: 'fp16', parametersBillions: 13.02 },
    '13.02B parameters computed from that geometry (the model card says 13B)'),
  llama('llama-2-70b', 'meta-llama/Llama-2-70b-hf',
    { layers: 80, attentionHeads: 64, kvHeads: 8, headDim: 128, hiddenSize: 8192, intermediateSize: 28672, vocabulary: 32000, maxPositions: 4096, dtype: 'fp16', parametersBillions: 68.98 },
    '68.98B parameters computed from that geometry (the model card says 70B)'),
  llama('codellama-13b', 'codellama/CodeLlama-13b-hf',
    { layers: 40, attentionHeads: 40, kvHeads: 40, headDim: 128, hiddenSize: 5120, intermediateSize: 13824, vocabulary: 32016, maxPositions: 16384, dtype: 'bf16', parametersBillions: 13.02 },
    '13.02B parameters computed from that geometry'),
  llama('mistral-7b-instruct-v0.2', 'mistralai/Mistral-7B-Instruct-v0.2',
    { layers: 32, attentionHeads: 32, kvHeads: 8, headDim: 128, hiddenSize: 4096, intermediateSize: 14336, vocabulary: 32000, maxPositions: 32768, dtype: 'bf16', parametersBillions: 7.24 },
    'MistralForCausalLM, the Llama layout; 7.24B parameters computed from that geometry'),
  llama('mistral-small-instruct-2409', 'mistralai/Mistral-Small-Instruct-2409',
    { layers: 56, attentionHeads: 48, kvHeads: 8, headDim: 128, hiddenSize: 6144, intermediateSize: 16384, vocabulary: 32768, maxPositions: 32768, dtype: 'bf16', parametersBillions: 22.25 },
    'MistralForCausalLM, the Llama layout; 22.25B parameters computed from that geometry (the model card says 22B)'),
  llama('llama-3-8b', 'meta-llama/Meta-Llama-3-8B',
    { ...LLAMA_3_8B_GEOMETRY, maxPositions: 8192, dtype: 'bf16', parametersBillions: 8.03 }, '8.03B parameters from the model card'),
  llama('llama-3-70b', 'meta-llama/Meta-Llama-3-70B',
    { ...LLAMA_3_70B_GEOMETRY, maxPositions: 8192, dtype: 'bf16', parametersBillions: 70.6 }, '70.6B parameters from the model card'),
  llama('llama-3.1-8b-instruct', 'meta-llama/Llama-3.1-8B-Instruct',
    { ...LLAMA_3_8B_GEOMETRY, maxPositions: 131072, dtype: 'bf16', parametersBillions: 8.03 }, '8.03B parameters from the model card'),
  llama('llama-3.3-70b-instruct', 'meta-llama/Llama-3.3-70B-Instruct',
    { ...LLAMA_3_70B_GEOMETRY, maxPositions: 131072, dtype: 'bf16', parametersBillions: 70.6 }, '70.6B parameters from the model card'),
  llama('llama-3.1-405b-instruct', 'meta-llama/Llama-3.1-405B-Instruct',
    { layers: 126, attentionHeads: 128, kvHeads: 8, headDim: 128, hiddenSize: 16384, intermediateSize: 53248, vocabulary: 128256, maxPositions: 131072, dtype: 'bf16', parametersBillions: 405.85 },
    '405.85B parameters computed from that geometry (the model card says 405B)'),
  llama('deepseek-r1-distill-llama-70b', 'deepseek-ai/DeepSeek-R1-Distill-Llama-70B',
    { ...LLAMA_3_70B_GEOMETRY, maxPositions: 131072, dtype: 'bf16', parametersBillions: 70.6 },
    '70.6B parameters: the Llama 3.3 70B geometry it was distilled into (model card: "Llama-3.3-70B-Instruct" base)'),
  qwen3Moe('qwen3-30b-a3b-instruct-2507', 'Qwen/Qwen3-30B-A3B-Instruct-2507',
    { layers: 48, attentionHeads: 32, kvHeads: 4, headDim: 128, hiddenSize: 2048, intermediateSize: 6144, vocabulary: 151936, maxPositions: 262144, parametersBillions: 30.5, activeParametersBillions: 3.3 },
    { experts: 128, activeExperts: 8, expertIntermediateSize: 768 }, '30.5B total and 3.3B active parameters from the model card'),
  qwen3Moe('qwen3-235b-a22b-instruct-2507', 'Qwen/Qwen3-235B-A22B-Instruct-2507',
    { layers: 94, attentionHeads: 64, kvHeads: 4, headDim: 128, hiddenSize: 4096, intermediateSize: 12288, vocabulary: 151936, maxPositions: 262144, parametersBillions: 235, activeParametersBillions: 22 },
    { experts: 128, activeExperts: 8, expertIntermediateSize: 1536 }, '235B total and 22B active parameters from the model card'),
  llama4('llama-4-scout-17b-16e-instruct', 'meta-llama/Llama-4-Scout-17B-16E-Instruct', 16, 48, 10485760, 109),
  llama4('llama-4-maverick-17b-128e-instruct', 'meta-llama/Llama-4-Maverick-17B-128E-Instruct', 128, 24, 1048576, 400),
  {
    id: 'qwen3-4b',
    huggingFaceId: 'Qwen/Qwen3-4B',
    architecture: 'decoder-only',
    layers: 36,
    attentionHeads: 32,
    kvHeads: 8,
    headDim: 128,
    hiddenSize: 2560,
    intermediateSize: 9728,
    vocabulary: 151936,
    maxPositions: 40960,
    dtype: 'bf16',
    parametersBillions: 4.02,
    tiedEmbeddings: true,
    source: `${HF}/Qwen/Qwen3-4B/blob/main/config.json (num_hidden_layers 36, hidden_size 2560, intermediate_size 9728, ` +
      'num_attention_heads 32, num_key_value_heads 8, head_dim 128, vocab_size 151936, max_position_embeddings 40960, ' +
      'tie_word_embeddings true, torch_dtype bfloat16); 4.02B parameters from the model card',
  },
  {
    id: 'gpt-oss-120b',
    huggingFaceId: 'openai/gpt-oss-120b',
    architecture: 'decoder-only',
    layers: 36,
    attentionHeads: 64,
    kvHeads: 8,
    headDim: 64,
    hiddenSize: 2880,
    intermediateSize: 2880,
    vocabulary: 201088,
    maxPositions: 131072,
    dtype: 'bf16',
    parametersBillions: 116.8,
    activeParametersBillions: 5.1,
    moe: { experts: 128, activeExperts: 4, expertIntermediateSize: 2880 },
    source: `${HF}/openai/gpt-oss-120b/blob/main/config.json (num_hidden_layers 36, hidden_size 2880, intermediate_size 2880, ` +
      'num_local_experts 128, num_experts_per_tok 4, num_attention_heads 64, num_key_value_heads 8, head_dim 64, vocab_size 201088, ' +
      'max_position_embeddings 131072, torch_dtype bfloat16; expert weights ship as MXFP4); 116.8B total and 5.1B active parameters ' +
      'from the model card',
  },
  {
    id: 'qwen2.5-7b-instruct',
    huggingFaceId: 'Qwen/Qwen2.5-7B-Instruct',
    architecture: 'decoder-only',
    layers: 28,
    attentionHeads: 28,
    kvHeads: 4,
    headDim: 128,
    hiddenSize: 3584,
    intermediateSize: 18944,
    vocabulary: 152064,
    maxPositions: 32768,
    dtype: 'bf16',
    parametersBillions: 7.61,
    source: `${HF}/Qwen/Qwen2.5-7B-Instruct/blob/main/config.json (num_hidden_layers 28, hidden_size 3584, intermediate_size 18944, ` +
      'num_attention_heads 28, num_key_value_heads 4, vocab_size 152064, max_position_embeddings 32768, tie_word_embeddings false, ' +
      'torch_dtype bfloat16); 7.61B parameters from the model card',
  },
  {
    id: 'qwen3-32b',
    huggingFaceId: 'Qwen/Qwen3-32B',
    architecture: 'decoder-only',
    layers: 64,
    attentionHeads: 64,
    kvHeads: 8,
    headDim: 128,
    hiddenSize: 5120,
    intermediateSize: 25600,
    vocabulary: 151936,
    maxPositions: 40960,
    dtype: 'bf16',
    parametersBillions: 32.8,
    source: `${HF}/Qwen/Qwen3-32B/blob/main/config.json (num_hidden_layers 64, hidden_size 5120, intermediate_size 25600, ` +
      'num_attention_heads 64, num_key_value_heads 8, head_dim 128, vocab_size 151936, max_position_embeddings 40960, ' +
      'torch_dtype bfloat16); 32.8B parameters from the model card',
  },
  {
    id: 'google/flan-t5-xl',
    huggingFaceId: 'google/flan-t5-xl',
    architecture: 'encoder-decoder',
    layers: 24,
    attentionHeads: 32,
    kvHeads: 32,
    headDim: 64,
    hiddenSize: 2048,
    intermediateSize: 5120,
    vocabulary: 32128,
    maxPositions: 512,
    dtype: 'fp32',
    parametersBillions: 2.85,
    source: `${HF}/google/flan-t5-xl/blob/main/config.json (d_model 2048, d_ff 5120, d_kv 64, num_heads 32, num_layers 24, ` +
      'num_decoder_layers 24, vocab_size 32128, feed_forward_proj gated-gelu, tie_word_embeddings false, torch_dtype float32); ' +
      '2.85B parameters computed from that geometry; context 512 as T5 was trained (relative attention has no hard limit)',
  },
  {
    id: 't5-3b',
    huggingFaceId: 'google-t5/t5-3b',
    architecture: 'encoder-decoder',
    layers: 24,
    attentionHeads: 32,
    kvHeads: 32,
    headDim: 128,
    hiddenSize: 1024,
    intermediateSize: 16384,
    vocabulary: 32128,
    maxPositions: 512,
    dtype: 'fp32',
    parametersBillions: 2.85,
    tiedEmbeddings: true,
    source: `${HF}/google-t5/t5-3b/blob/main/config.json (d_model 1024, d_ff 16384, d_kv 128, num_heads 32, num_layers 24, ` +
      'vocab_size 32128, n_positions 512, ReLU feed-forward, tied embeddings); 2.85B parameters computed from that geometry',
  },
];

/** Every model a published row names, by key. */
export const PUBLISHED_MODELS: Readonly<Record<string, PublishedModel>> = Object.fromEntries(MODELS.map((m) => [m.id, m]));
