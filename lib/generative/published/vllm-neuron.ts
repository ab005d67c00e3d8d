/**
 * Rows of the vLLM Neuron plugin's documentation (model recipes and tutorials of `vllm-project/vllm-neuron`, synced
 * into aws-neuron/aws-neuron-sdk `vllm-neuron/docs/`): vLLM with the plugin on Trn2, measured with `vllm bench serve`.
 * `vllm bench serve` reports medians (`median_ttft_ms`, `median_tpot_ms`) and output tokens per second over the run.
 */
import type { PublishedRow, PublishedSource } from './types';

const EAGLE3_LLAMA = {
  repository: 'aws-neuron/aws-neuron-sdk',
  commit: 'a3247f5b',
  path: 'vllm-neuron/docs/tutorials/tutorial-eagle3-speculative-decoding-llama-3-1.md',
  date: '2026-06-11',
} as const;

function eagle3Source(locator: string): PublishedSource {
  return { ...EAGLE3_LLAMA, locator };
}

/**
 * Llama 3.1 8B Instruct on trn2.48xlarge, `--tensor-parallel-size 8 --max-num-seqs 2 --max-model-len 2048
 * --no-enable-prefix-caching`, Neuron SDK 2.32 (the tutorial's prerequisite), `vllm bench serve` sonnet 512 input /
 * 128 output tokens, 50 prompts at `--max-concurrency 2`.
 */
function eagle3Llama(speculation: boolean, ttftP50: number, tpotP50: number, outputTokensPerSecond: number): PublishedRow {
  return {
    model: 'llama-3.1-8b-instruct',
    instanceType: 'trn2.48xlarge',
    chip: 'trn2',
    stack: 'vllm-neuron-plugin',
    neuronSdkVersion: '2.32',
    tensorParallelDegree: 8,
    batchSize: 2,
    load: 'concurrency',
    concurrency: 2,
    inputTokens: 512,
    outputTokens: 128,
    lengthSpread: 'sonnet dataset, --sonnet-input-len 512 --sonnet-output-len 128',
    sequenceLength: 2048,
    weightDtype: 'bf16',
    levers: speculation
      ? { speculation: { method: 'eagle3', draftModel: 'RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3', speculativeTokens: 3, acceptanceRate: 0.7414, meanAcceptedLength: 3.22 } }
      : {},
    ttft: { p50: ttftP50 },
    tpot: { p50: tpotP50 },
    outputTokensPerSecond,
    source: eagle3Source(`"Representative numbers for this pairing on trn2.48xlarge at --max-concurrency 2" (${speculation ? 'eagle3' : 'baseline'} column)` +
      (speculation ? ' and the Speculative Decoding block (Acceptance rate 74.14 %, Acceptance length 3.22)' : '')),
    notes: 'The tutorial\'s Benchmarks section: "Numbers are illustrative"',
  };
}

/** Every row of the vLLM Neuron plugin's documentation. */
export const VLLM_NEURON_ROWS: readonly PublishedRow[] = [
  eagle3Llama(false, 51.07, 10.52, 184.44),
  eagle3Llama(true, 63.65, 6.41, 288.63),
];
