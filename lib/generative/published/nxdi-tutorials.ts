/**
 * Rows of the NxD Inference tutorials in the AWS Neuron docs (aws-neuron/aws-neuron-sdk
 * `libraries/nxd-inference/tutorials/`): vLLM over NxD Inference on trn2.48xlarge, measured with LLMPerf at one request
 * in flight. Each tutorial prints LLMPerf's statistics in seconds; the rows keep them in ms.
 *
 * LLMPerf's TTFT tails in these runs (p75 to p99 of 25-49 s against a p50 under 1 s) are requests queued behind the
 * previous one, not prefills, so the rows keep the TTFT median and leave the tails out (`notes` says so).
 */
import type { PublishedRow, PublishedSource } from './types';

const REPOSITORY = 'aws-neuron/aws-neuron-sdk';
const LLAMA_70B_TUTORIAL = 'libraries/nxd-inference/tutorials/trn2-llama3.3-70b-tutorial.rst';
const TTFT_TAIL_NOTE = 'LLMPerf TTFT p99 of tens of seconds in the printed output is queueing behind the previous request (concurrency 1 ' +
  'against max-num-seqs 1), left out';

function tutorial(commit: string, date: string, path: string, locator: string): PublishedSource {
  return { repository: REPOSITORY, commit, path, date, locator };
}

/**
 * Llama 3.3 70B Instruct on trn2.48xlarge, TP 64 at LNC=2, batch 1, `seq-len` 12800, LLMPerf 10,000 input / 1,500
 * output tokens at concurrency 1 (the tutorial's printed LLMPerf output; `llama70b_perf_comparison.csv` rounds the same
 * run). The 2.21.0 release published one run; a docs update two weeks after 2.21.1 replaced its printed output and
 * table with a second run.
 */
function llama70b(
  commit: string, date: string, sdk: string,
  speculation: boolean,
  itl: { p50: number; p90: number; p99: number; mean: number },
  ttftP50: number, e2eP50: number, outputTokensPerSecond: number,
  notes: string,
): PublishedRow {
  return {
    model: 'llama-3.3-70b-instruct',
    instanceType: 'trn2.48xlarge',
    chip: 'trn2',
    stack: 'vllm-nxdi',
    neuronSdkVersion: sdk,
    tensorParallelDegree: 64,
    batchSize: 1,
    load: 'concurrency',
    concurrency: 1,
    inputTokens: 10000,
    outputTokens: 1500,
    sequenceLength: 12800,
    weightDtype: 'bf16',
    levers: {
      onDeviceSampling: true,
      ...(speculation ? { speculation: { method: 'fused-draft', draftModel: 'meta-llama/Llama-3.2-1B-Instruct', speculativeTokens: 7 } as const } : {}),
    },
    ttft: { p50: ttftP50 },
    tpot: itl,
    e2e: { p50: e2eP50 },
    outputTokensPerSecond,
    source: tutorial(commit, date, LLAMA_70B_TUTORIAL,
      `${speculation ? 'Scenario 2 (fused speculation, Llama 3.2 1B draft, speculation-length 7)' : 'Scenario 1 (no speculative decoding)'}, ` +
      'printed LLMPerf output (inter_token_latency_s, ttft_s, end_to_end_latency_s, Overall Output Throughput) and llama70b_perf_comparison.csv'),
    notes: `${TTFT_TAIL_NOTE}. ${notes}`,
  };
}

const SDK_2_21_0 = 'Published with the Neuron 2.21.0 release (commit "Llama 3.3-70B inference sample - 2.21 release")';
const SDK_2_21_1 = 'Re-measured in a docs update (2025-02-04) after the 2.21.1 release (2025-01-14); the SDK is the release current then';

const LLAMA_405B_TUTORIAL = 'libraries/nxd-inference/tutorials/trn2-llama3.1-405b-speculative-tutorial.rst';

/**
 * Llama 3.1 405B Instruct on trn2.48xlarge, TP 64 at LNC=2, batch 1, `seq-len` 12800, LLMPerf 10,000 input / 1,500
 * requested output tokens at concurrency 1 (printed LLMPerf output; `llama405b_perf_comparison.csv` rounds it).
 * Scenario 1 serves BF16 weights; scenario 2 the FP8 checkpoint rescaled to Neuron's FP8_EXP4 with per-channel
 * symmetric quantization and fused speculation with a Llama 3.2 1B draft.
 */
function llama405b(
  optimized: boolean,
  itl: { p50: number; p90: number; p99: number; mean: number },
  ttft: { p50: number; p90: number },
  e2eP50: number, outputTokens: number, outputTokensPerSecond: number,
): PublishedRow {
  return {
    model: 'llama-3.1-405b-instruct',
    instanceType: 'trn2.48xlarge',
    chip: 'trn2',
    stack: 'vllm-nxdi',
    neuronSdkVersion: '2.21.1',
    tensorParallelDegree: 64,
    batchSize: 1,
    load: 'concurrency',
    concurrency: 1,
    inputTokens: 10000,
    outputTokens,
    sequenceLength: 12800,
    weightDtype: optimized ? 'fp8' : 'bf16',
    ...(optimized ? { kvDtype: 'bf16' as const } : {}),
    levers: {
      onDeviceSampling: true,
      ...(optimized
        ? {
          speculation: { method: 'fused-draft', draftModel: 'meta-llama/Llama-3.2-1B-Instruct', speculativeTokens: 7 } as const,
          quantization: 'per_channel_symmetric FP8 (meta-llama/Llama-3.1-405B-Instruct-FP8 rescaled to FP8_EXP4), quantized MLP kernel',
        }
        : {}),
    },
    ttft,
    tpot: itl,
    e2e: { p50: e2eP50 },
    outputTokensPerSecond,
    source: tutorial('ba1c08b0', '2025-02-04', LLAMA_405B_TUTORIAL,
      `${optimized ? 'Scenario 2 (fp8 weights and fused speculation with a Llama 3.2 1B draft)' : 'Scenario 1 (bf16 weights)'}, ` +
      'printed LLMPerf output and llama405b_perf_comparison.csv'),
    notes: `${TTFT_TAIL_NOTE}. ${SDK_2_21_1}; the tutorial is unchanged through 2.28.` +
      (optimized ? '' : ' LLMPerf counted a mean of 1,787.9 output tokens for the 1,500 requested'),
  };
}

const QWEN_SD_TUTORIAL = 'libraries/nxd-inference/tutorials/sd-inference-tutorial.rst';

/**
 * Qwen3-32B on trn2.48xlarge, TP 64, `max-num-seqs 1`, `max-model-len 6400`, DLC
 * pytorch-inference-vllm-neuronx 0.9.1-neuronx-py311-sdk2.26.1, LLMPerf 128 input / 512 requested output tokens at
 * concurrency 1, 10 requests. The tutorial prints p99 values only ("we kept p99 for brevity").
 */
function qwen32bSd(speculation: boolean, ttftP99: number, e2eP99Ms: number, outputTokens: number, perRequestTokensPerSecond: number): PublishedRow {
  const tpot = Math.round(((e2eP99Ms - ttftP99) / (outputTokens - 1)) * 100) / 100;
  return {
    model: 'qwen3-32b',
    instanceType: 'trn2.48xlarge',
    chip: 'trn2',
    stack: 'vllm-nxdi',
    neuronSdkVersion: '2.26.1',
    tensorParallelDegree: 64,
    batchSize: 1,
    load: 'concurrency',
    concurrency: 1,
    inputTokens: 128,
    outputTokens,
    sequenceLength: 6400,
    weightDtype: 'bf16',
    levers: speculation ? { speculation: { method: 'fused-draft', draftModel: 'Qwen/Qwen3-0.6B', speculativeTokens: 7 } } : {},
    ttft: { p99: ttftP99 },
    e2e: { p99: e2eP99Ms },
    outputTokensPerSecond: perRequestTokensPerSecond,
    throughputPer: 'request',
    derived: {
      tpot: { p50: tpot, p99: tpot },
      how: `(end-to-end p99 - TTFT p99) / (output tokens - 1) = (${e2eP99Ms} - ${ttftP99}) / (${outputTokens} - 1) = ${tpot} ms; ` +
        'the tutorial states p99s only, so the one figure stands for both statistics',
    },
    source: tutorial('db1586c3', '2025-12-02', QWEN_SD_TUTORIAL,
      `${speculation ? 'Scenario 2 (speculative decoding)' : 'Scenario 1 (without speculative decoding)'}, "Log the results (we kept p99 for brevity)" and the Performance Comparison table`),
    notes: 'LLMPerf was asked for 512 output tokens (stddev 0); the logged number_output_tokens is the stated count' +
      (speculation ? '. vLLM --speculative-config names method "eagle" with the Qwen3-0.6B draft and enable_fused_speculation: NxDI fused speculation with a draft model' : ''),
  };
}

/** Every row of the NxD Inference tutorials. */
export const NXDI_TUTORIAL_ROWS: readonly PublishedRow[] = [
  llama70b('06f33784', '2024-12-21', '2.21.0', false, { p50: 19.83, p90: 19.86, p99: 20.62, mean: 19.86 }, 575.7, 30326.8, 47.48, SDK_2_21_0),
  llama70b('06f33784', '2024-12-21', '2.21.0', true, { p50: 5.63, p90: 5.68, p99: 6.58, mean: 5.67 }, 612.4, 9060.3, 143.38, SDK_2_21_0),
  llama70b('ba1c08b0', '2025-02-04', '2.21.1', false, { p50: 19.66, p90: 19.70, p99: 20.35, mean: 19.69 }, 814.3, 30326.0, 36.56, SDK_2_21_1),
  llama70b('ba1c08b0', '2025-02-04', '2.21.1', true, { p50: 5.39, p90: 5.50, p99: 5.91, mean: 5.41 }, 870.1, 8950.9, 144.17, SDK_2_21_1),
  llama405b(false, { p50: 37.93, p90: 38.06, p99: 38.63, mean: 37.91 }, { p50: 2442.0, p90: 2444.7 }, 70096.4, 1788, 24.42),
  llama405b(true, { p50: 8.27, p90: 8.48, p99: 11.14, mean: 8.42 }, { p50: 2255.0, p90: 2259.6 }, 14656.1, 1501, 100.7),
  qwen32bSd(false, 48.3, 6044.9, 558, 102.27),
  qwen32bSd(true, 47.4, 5636.8, 565.37, 137.84),
];
