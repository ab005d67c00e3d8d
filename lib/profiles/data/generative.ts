/**
 * The built-in generative profiles: each model's architecture and the measured rows it plans from, both taken from the
 * published dataset (`lib/generative/published/`), so no figure is written twice. Third-party rows carry
 * `unverified: true`.
 *
 * Each profile names the published rows it plans from (`RowPattern`s): the rows the planner can use as measured
 * (`plannerUsable`) of the sources below, one run per configuration. Other usable rows of the same models exist in the
 * dataset (other input lengths of the static-batch charts, repeated runs, older SDKs); they feed the performance
 * model's fit, and a profile takes them when a pattern here names them.
 */
import type { GenerativeArchitectureFacts, GenerativeProfile } from '../../generative/types';
import { PUBLISHED_MODELS, PUBLISHED_ROWS, measurementsOf } from '../../generative/published';
import type { RowPattern } from '../../generative/published';
import { publishedModelFacts } from '../../generative/model/facts';

/** The planner's architecture facts of a published model, with the hidden size and experts the physics reads. */
function architectureOf(id: string): GenerativeArchitectureFacts {
  const facts = publishedModelFacts(PUBLISHED_MODELS[id]);
  if (!facts) {
    throw new Error(`${id}: a built-in profile needs a bf16, fp16 or fp32 checkpoint, not ${PUBLISHED_MODELS[id].dtype}`);
  }
  return facts;
}

function profile(id: string, description: string, models: readonly string[], patterns: readonly RowPattern[]): GenerativeProfile {
  return {
    kind: 'generative',
    id,
    huggingFaceId: PUBLISHED_MODELS[id].huggingFaceId,
    description,
    model: architectureOf(id),
    measurements: measurementsOf(PUBLISHED_ROWS, models, patterns),
  };
}

/** The Encoder-Decoder tables' runs a T5 profile plans from: the rows the current Neuron pages show (1db4d74e). */
const T5_ROWS: readonly RowPattern[] = [
  { instanceType: 'inf2.24xlarge', neuronSdkVersion: '2.17.0', path: 'throughput_data_encoder_decoder.csv' },
  { instanceType: 'inf2.24xlarge', neuronSdkVersion: '2.17.0', path: 'latency_data_encoder_decoder.csv' },
  { instanceType: 'inf2.24xlarge', neuronSdkVersion: '2.18.0' },
  { instanceType: 'trn1.32xlarge', neuronSdkVersion: '2.17.0' },
  { instanceType: 'trn1.32xlarge', neuronSdkVersion: '2.18.0' },
];

const OPTIMUM_VLLM = 'benchmark/vllm/';

/** Every built-in generative profile, sorted by id. */
export const BUILT_IN_GENERATIVE_PROFILES: readonly GenerativeProfile[] = [
  profile('google/flan-t5-xl', 'FLAN-T5 XL encoder-decoder, 2.85B parameters', ['google/flan-t5-xl'], T5_ROWS),
  profile('t5-3b', 'T5 3B encoder-decoder', ['t5-3b'], T5_ROWS),
  profile('llama-3.1-8b-instruct', 'Llama 3.1 8B Instruct, decoder-only, grouped-query attention (8 KV heads), bf16', ['llama-3.1-8b-instruct'], [
    { stack: 'vllm-neuron-plugin', path: 'tutorial-eagle3-speculative-decoding-llama-3-1.md' },
    { path: `${OPTIMUM_VLLM}chunked-prefill/std-ods.csv` },
    { path: `${OPTIMUM_VLLM}chunked-prefill/hybrid-ods.csv` },
    { path: `${OPTIMUM_VLLM}data-parallel/llama3.1-8b/vllm-results-dp4.csv`, run: '2025-09-22-08-51-27' },
    { path: `${OPTIMUM_VLLM}single-instance/llama-3.1-8b-trn2/vllm-results.csv` },
    { stack: 'optimum-neuron', neuronSdkVersion: '2.24.0', inputTokens: 1024, batchSizes: [1, 4, 8, 16, 32] },
  ]),
  profile('llama-3.3-70b-instruct', 'Llama 3.3 70B Instruct, decoder-only, grouped-query attention (8 KV heads), bf16',
    ['llama-3.3-70b-instruct', 'deepseek-r1-distill-llama-70b'], [
      { stack: 'vllm-nxdi', neuronSdkVersion: '2.21.1' },
      { stack: 'optimum-neuron', neuronSdkVersion: '2.24.0', inputTokens: 1024 },
    ]),
  profile('qwen3-32b', 'Qwen3 32B, decoder-only, grouped-query attention (8 KV heads), bf16', ['qwen3-32b'], [
    { stack: 'vllm-nxdi' },
    { stack: 'optimum-neuron-vllm' },
  ]),
].sort((a, b) => a.id.localeCompare(b.id));
