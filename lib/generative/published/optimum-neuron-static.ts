/**
 * Rows of Hugging Face optimum-neuron's static-batch benchmarks (`benchmark/text-generation/performance/`, charts in
 * `docs/assets/benchmarks/inferentia-*`): `NeuronModelForCausalLM.generate()` on a batch of identical prompts, every
 * sequence decoding together. Third-party: every row is `unverified`.
 *
 * The script (`benchmark.py` `run`) times, for each input length, a `generate` of one token (the `encoding_time`: the
 * whole batch's prefill, charted as time to first token) and a `generate` of `new_tokens` tokens; its inter-token
 * latency is `(duration - encoding_time) / new_tokens` and its throughput `new_tokens x batch / duration` (TTFT folded
 * in). One run per point, so each figure is that run's mean. The charts label every bar with its value rounded to
 * two significant figures: those labels are the figures here.
 */
import type { PublishedRow, PublishedSource } from './types';

/** One chart set (TTFT, inter-token latency, throughput) of one model's static-batch benchmark. */
interface StaticChart {
  readonly model: string;
  /** Hugging Face id the script loads (it may differ from the model the chart is titled after). */
  readonly checkpoint: string;
  readonly instanceType: string;
  readonly sdk: string;
  readonly tensorParallelDegree: number;
  readonly sequenceLength: number;
  /** `new_tokens` per request. */
  readonly outputTokens: number;
  readonly inputs: readonly number[];
  readonly batches: readonly number[];
  /** `[batch][input]`: time to first token of the whole batch, s; inter-token latency, ms; output tokens/s. */
  readonly ttftSeconds: readonly (readonly number[])[];
  readonly itlMs: readonly (readonly number[])[];
  readonly tokensPerSecond: readonly (readonly number[])[];
  readonly source: Omit<PublishedSource, 'locator'>;
  readonly notes?: string;
}

function chartRows(chart: StaticChart): PublishedRow[] {
  return chart.batches.flatMap((batchSize, b) => chart.inputs.map((inputTokens, i): PublishedRow => ({
    model: chart.model,
    instanceType: chart.instanceType,
    chip: 'inf2',
    stack: 'optimum-neuron',
    neuronSdkVersion: chart.sdk,
    tensorParallelDegree: chart.tensorParallelDegree,
    batchSize,
    load: 'static-batch',
    inputTokens,
    outputTokens: chart.outputTokens,
    sequenceLength: chart.sequenceLength,
    weightDtype: 'bf16',
    levers: {},
    ttft: { mean: Math.round(chart.ttftSeconds[b][i] * 1000) },
    ttftCovers: batchSize > 1 ? 'batch' : 'request',
    tpot: { mean: chart.itlMs[b][i] },
    outputTokensPerSecond: chart.tokensPerSecond[b][i],
    source: { ...chart.source, locator: `bars "BS${batchSize}" at ${inputTokens} input tokens of ttft.png, latency.png and throughput.png` },
    unverified: true,
    notes: `Loads ${chart.checkpoint}. ${chart.notes ?? ''}`.trim(),
  })));
}

const OPTIMUM = 'huggingface/optimum-neuron';
const INPUTS_256_TO_1792 = [256, 512, 768, 1024, 1280, 1536, 1792] as const;

/** Every row of optimum-neuron's static-batch charts. */
export const OPTIMUM_NEURON_STATIC_ROWS: readonly PublishedRow[] = [
  ...chartRows({
    model: 'llama-3.1-8b-instruct', checkpoint: 'unsloth/Llama-3.1-8B-Instruct', instanceType: 'inf2.48xlarge', sdk: '2.24.0',
    tensorParallelDegree: 8, sequenceLength: 4096, outputTokens: 256, inputs: INPUTS_256_TO_1792, batches: [1, 4, 8, 16, 32, 48],
    ttftSeconds: [
      [0.7, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3],
      [1.6, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2],
      [2.7, 2.3, 2.3, 2.3, 2.3, 2.4, 2.4],
      [5, 4.6, 4.7, 4.7, 4.7, 4.7, 4.7],
      [9.7, 9.3, 9.3, 9.3, 9.4, 9.4, 9.5],
      [14.3, 13.9, 14, 14, 14.1, 14.1, 14.2],
    ],
    itlMs: [
      [10, 11, 11, 11, 11, 11, 11],
      [11, 12, 12, 12, 13, 13, 13],
      [14, 16, 16, 16, 16, 16, 16],
      [20, 21, 21, 21, 21, 21, 21],
      [25, 26, 26, 33, 33, 33, 33],
      [31, 34, 39, 39, 39, 39, 39],
    ],
    tokensPerSecond: [
      [81, 84, 83, 83, 82, 83, 83],
      [231, 236, 236, 235, 234, 232, 232],
      [319, 323, 323, 322, 321, 320, 319],
      [407, 410, 409, 409, 407, 406, 405],
      [511, 514, 513, 463, 457, 458, 456],
      [555, 542, 512, 512, 510, 510, 509],
    ],
    source: { repository: OPTIMUM, commit: '9d371f56', path: 'docs/assets/benchmarks/inferentia-llama3.1-8b/', date: '2025-07-10' },
    notes: 'Commit message: "The results for higher batch sizes are significantly worse with AWS Neuron SDK 2.24."',
  }),
  ...chartRows({
    model: 'deepseek-r1-distill-llama-70b', checkpoint: 'deepseek-ai/DeepSeek-R1-Distill-Llama-70B', instanceType: 'inf2.48xlarge',
    sdk: '2.24.0', tensorParallelDegree: 24, sequenceLength: 4096, outputTokens: 256, inputs: INPUTS_256_TO_1792, batches: [1, 4, 8],
    ttftSeconds: [
      [1.9, 1, 1, 1.1, 1.1, 1.1, 1.1],
      [4.7, 4.2, 4.2, 4.2, 4.3, 4.3, 4.3],
      [8.8, 8.4, 8.5, 8.5, 8.5, 8.6, 8.6],
    ],
    itlMs: [
      [28, 30, 30, 30, 30, 30, 30],
      [36, 37, 37, 37, 37, 30, 37],
      [44, 44, 44, 44, 44, 44, 44],
    ],
    tokensPerSecond: [
      [28, 29, 29, 29, 29, 29, 29],
      [74, 75, 75, 75, 75, 85, 75],
      [102, 103, 104, 104, 104, 104, 104],
    ],
    source: { repository: OPTIMUM, commit: '2bb1c707', path: 'docs/assets/benchmarks/inferentia-llama3.3-70b/', date: '2025-07-10' },
    notes: 'The page is titled Llama 3.3 70B; the script (llama3.3-70b.py) loads the distilled model of the same architecture.',
  }),
];
