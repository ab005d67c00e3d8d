/**
 * Rows of the vLLM Neuron plugin's documentation (model recipes, examples and tutorials of `vllm-project/vllm-neuron`,
 * the tutorials also synced into aws-neuron/aws-neuron-sdk `vllm-neuron/docs/`): vLLM with the plugin on Trn2. The
 * tutorials measure with `vllm bench serve` (medians: `median_ttft_ms`, `median_tpot_ms`; output tokens per second
 * over the run); the DFlash examples with the plugin's own fixed-concurrency harness.
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

/**
 * gpt-oss-120b on trn2.48xlarge, `--tensor-parallel-size 16 --max-num-seqs 1 --max-model-len 768`, BF16 weights
 * (`neuron_config.quantization: bf16`), Neuron SDK 2.31 or later (the tutorial's prerequisite), `vllm bench serve`
 * sonnet 512 / 128 tokens, 30 prompts at `--max-concurrency 1`.
 */
function eagle3GptOss(speculation: boolean, ttftP50: number, tpotP50: number, outputTokensPerSecond: number): PublishedRow {
  return {
    model: 'gpt-oss-120b',
    instanceType: 'trn2.48xlarge',
    chip: 'trn2',
    stack: 'vllm-neuron-plugin',
    neuronSdkVersion: '2.31',
    tensorParallelDegree: 16,
    batchSize: 1,
    load: 'concurrency',
    concurrency: 1,
    inputTokens: 512,
    outputTokens: 128,
    lengthSpread: 'sonnet dataset, --sonnet-input-len 512 --sonnet-output-len 128',
    sequenceLength: 768,
    weightDtype: 'bf16',
    levers: speculation
      ? { speculation: { method: 'eagle3', draftModel: 'RedHatAI/gpt-oss-120b-speculator.eagle3', speculativeTokens: 1, acceptanceRate: 0.69, meanAcceptedLength: 1.68 } }
      : {},
    ttft: { p50: ttftP50 },
    tpot: { p50: tpotP50 },
    outputTokensPerSecond,
    source: {
      repository: 'aws-neuron/aws-neuron-sdk',
      commit: 'a3247f5b',
      path: 'vllm-neuron/docs/tutorials/tutorial-eagle3-speculative-decoding-gpt-oss.md',
      date: '2026-07-27',
      locator: `"Representative numbers for this pairing on trn2.48xlarge at --max-concurrency 1" (${speculation ? 'eagle3' : 'baseline'}) and the Benchmarks table`,
    },
    notes: 'The tutorial requires "Neuron SDK 2.31 or later"; the release it was measured on is not stated',
  };
}

const DFLASH_RECIPE = { repository: 'vllm-project/vllm-neuron', commit: '9fc042ea', path: 'docs/model-recipes/llama-3.md', date: '2026-08-17' } as const;

/**
 * DFlash against its baseline on one Trainium2 chip (trn2.3xlarge, TP 4 at LNC=2, BF16 target, draft and KV cache),
 * `--max-num-seqs 4 --max-model-len 8192`, synchronous scheduling, prefix caching and chunked prefill off, measured with
 * the plugin's `dflash_bench/loadgen.py`: its 12 short prompts, 192 output tokens (`ignore_eos`), a fixed number of
 * requests in flight. The harness's TPOT is `(e2e - TTFT) / (tokens - 1)` per request, averaged.
 */
function dflash(
  model: 'llama-3.1-8b-instruct' | 'qwen3-4b', concurrency: 1 | 4, drafted: PublishedRow['levers']['speculation'] | undefined,
  figures: { readonly tps: number; readonly tpot?: number; readonly ttft?: number },
  source: { readonly commit: string; readonly path: string; readonly date: string },
): PublishedRow {
  return {
    model,
    instanceType: 'trn2.3xlarge',
    chip: 'trn2',
    stack: 'vllm-neuron-plugin',
    neuronSdkVersion: '2.32',
    tensorParallelDegree: 4,
    batchSize: 4,
    load: 'concurrency',
    concurrency,
    inputTokens: 25,
    outputTokens: 192,
    lengthSpread: 'the 12 short natural-language and code prompts of dflash_bench/loadgen.py (about 15 to 40 tokens; the source states no count)',
    sequenceLength: 8192,
    weightDtype: 'bf16',
    levers: drafted ? { speculation: drafted } : {},
    ...(figures.ttft !== undefined ? { ttft: { mean: figures.ttft } } : {}),
    ...(figures.tpot !== undefined ? { tpot: { mean: figures.tpot } } : {}),
    outputTokensPerSecond: figures.tps,
    source: { repository: 'vllm-project/vllm-neuron', ...source, locator: `"Measured on one Trn2 chip (trn2.3xlarge, TP4, BF16)" table, ${drafted ? 'DFlash' : 'baseline'} column, concurrency ${concurrency}` },
    notes: 'Prompt length estimated from the harness\'s prompts. The harness reports TTFT and TPOT means; the table does not say which it shows. ' +
      'SDK: the recipe\'s release (its accuracy runs name the Neuron 2.32 build); the example states none',
  };
}

const LLAMA_DFLASH_README = { commit: 'fa252127', path: 'examples/vllm_neuron/models/llama3/dflash/README.md', date: DFLASH_RECIPE.date } as const;
const QWEN_DFLASH_README = { commit: '09006a44', path: 'examples/vllm_neuron/models/qwen3/dflash/README.md', date: '2026-07-23' } as const;
const LLAMA_DFLASH = { method: 'dflash', draftModel: 'z-lab/LLaMA3.1-8B-Instruct-DFlash-UltraChat', speculativeTokens: 9, meanAcceptedLength: 3.2, acceptanceRate: 0.25 } as const;
const QWEN_DFLASH = { method: 'dflash', draftModel: 'z-lab/Qwen3-4B-DFlash-b16', speculativeTokens: 15, meanAcceptedLength: 2.1, acceptanceRate: 0.073 } as const;

/** Every row of the vLLM Neuron plugin's documentation. */
export const VLLM_NEURON_ROWS: readonly PublishedRow[] = [
  eagle3Llama(false, 51.07, 10.52, 184.44),
  eagle3Llama(true, 63.65, 6.41, 288.63),
  eagle3GptOss(false, 252.33, 7.0, 112.13),
  eagle3GptOss(true, 218.21, 5.82, 134.53),
  dflash('llama-3.1-8b-instruct', 1, undefined, { tps: 39.0, tpot: 25.6, ttft: 35.3 }, LLAMA_DFLASH_README),
  dflash('llama-3.1-8b-instruct', 4, undefined, { tps: 151.2 }, LLAMA_DFLASH_README),
  dflash('llama-3.1-8b-instruct', 1, LLAMA_DFLASH, { tps: 121.5, tpot: 8.1, ttft: 42.4 }, LLAMA_DFLASH_README),
  dflash('llama-3.1-8b-instruct', 4, LLAMA_DFLASH, { tps: 184.2 }, LLAMA_DFLASH_README),
  dflash('qwen3-4b', 1, undefined, { tps: 40.5, tpot: 24.7 }, QWEN_DFLASH_README),
  dflash('qwen3-4b', 4, undefined, { tps: 148.6 }, QWEN_DFLASH_README),
  dflash('qwen3-4b', 1, QWEN_DFLASH, { tps: 71.0, tpot: 14.0 }, QWEN_DFLASH_README),
  dflash('qwen3-4b', 4, QWEN_DFLASH, { tps: 51.3 }, QWEN_DFLASH_README),
];
