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
  /**
   * `[batch][input]`: time to first token of the whole batch, s (null where the label rounds to 0); inter-token latency,
   * ms; output tokens/s.
   */
  readonly ttftSeconds: readonly (readonly (number | null)[])[];
  readonly itlMs: readonly (readonly number[])[];
  readonly tokensPerSecond: readonly (readonly number[])[];
  readonly source: Omit<PublishedSource, 'locator'>;
  readonly notes?: string;
}

function chartRows(chart: StaticChart): PublishedRow[] {
  return chart.batches.flatMap((batchSize, b) => chart.inputs.map((inputTokens, i): PublishedRow => {
    const ttft = chart.ttftSeconds[b][i];
    return {
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
      ...(ttft === null ? {} : { ttft: { mean: Math.round(ttft * 1000) }, ttftCovers: batchSize > 1 ? 'batch' as const : 'request' as const }),
      tpot: { mean: chart.itlMs[b][i] },
      outputTokensPerSecond: chart.tokensPerSecond[b][i],
      source: { ...chart.source, locator: `bars "BS${batchSize}" at ${inputTokens} input tokens of ttft.png, latency.png and throughput.png` },
      unverified: true,
      notes: `Loads ${chart.checkpoint}. ${ttft === null ? 'The TTFT bar is labelled 0 (under 0.05 s) and is left out. ' : ''}${chart.notes ?? ''}`.trim(),
    };
  }));
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
  ...chartRows({
    model: 'llama-3.1-8b-instruct', checkpoint: 'unsloth/Llama-3.1-8B-Instruct', instanceType: 'inf2.48xlarge', sdk: '2.22.0',
    tensorParallelDegree: 8, sequenceLength: 4096, outputTokens: 256, inputs: INPUTS_256_TO_1792, batches: [1, 4, 8, 16, 32, 48],
    ttftSeconds: [
      [0.9, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3],
      [1.6, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2],
      [2.7, 2.3, 2.3, 2.3, 2.4, 2.4, 2.4],
      [5.1, 4.7, 4.7, 4.7, 4.7, 4.7, 4.7],
      [9.7, 9.3, 9.4, 9.4, 9.4, 9.4, 9.5],
      [14.4, 14, 14.1, 14.1, 14.1, 14.2, 14.2],
    ],
    itlMs: [
      [9, 11, 11, 11, 11, 11, 11],
      [12, 13, 13, 13, 13, 13, 13],
      [14, 16, 16, 16, 15, 15, 15],
      [18, 20, 20, 20, 20, 20, 20],
      [25, 26, 26, 26, 26, 26, 26],
      [30, 32, 32, 32, 32, 32, 32],
    ],
    tokensPerSecond: [
      [79, 83, 84, 83, 83, 83, 83],
      [220, 225, 225, 224, 225, 224, 228],
      [318, 323, 322, 322, 327, 327, 326],
      [418, 422, 419, 419, 419, 418, 418],
      [510, 513, 515, 512, 510, 509, 506],
      [553, 555, 551, 550, 549, 549, 548],
    ],
    source: { repository: OPTIMUM, commit: '55ecce60', path: 'docs/assets/benchmarks/inferentia-llama3.1-8b/', date: '2025-06-05' },
  }),
  ...chartRows({
    model: 'llama-3.1-8b-instruct', checkpoint: 'the page\'s Llama 3.1 8B (the commit\'s llama3-8b.py still names meta-llama/Meta-Llama-3-8B, the same architecture)',
    instanceType: 'inf2.48xlarge', sdk: '2.20.0', tensorParallelDegree: 8, sequenceLength: 4096, outputTokens: 256, inputs: INPUTS_256_TO_1792,
    batches: [1, 4, 8, 16, 32],
    ttftSeconds: [
      [0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 0.2],
      [1, 1, 1, 1, 1, 1, 1],
      [2.1, 2.1, 2.1, 2.1, 2.1, 2.1, 2.1],
      [4.1, 4.1, 4.1, 4.2, 4.2, 4.2, 4.2],
      [8.2, 8.2, 8.3, 8.4, 8.4, 8.5, 8.5],
    ],
    itlMs: [
      [12, 12, 12, 12, 11, 11, 11],
      [14, 14, 15, 14, 14, 14, 14],
      [16, 16, 16, 16, 16, 16, 16],
      [20, 20, 20, 20, 20, 20, 20],
      [30, 30, 30, 31, 31, 32, 31],
    ],
    tokensPerSecond: [
      [84, 82, 82, 82, 84, 84, 83],
      [219, 218, 214, 221, 221, 221, 220],
      [330, 332, 335, 334, 335, 335, 335],
      [439, 445, 443, 444, 438, 439, 438],
      [514, 515, 511, 500, 498, 494, 495],
    ],
    source: { repository: OPTIMUM, commit: '7180d482', path: 'docs/assets/benchmarks/inferentia-llama3.1-8b/', date: '2024-09-27' },
  }),
  ...chartRows({
    model: 'deepseek-r1-distill-llama-70b', checkpoint: 'deepseek-ai/DeepSeek-R1-Distill-Llama-70B', instanceType: 'inf2.48xlarge',
    sdk: '2.22.0', tensorParallelDegree: 24, sequenceLength: 4096, outputTokens: 256, inputs: INPUTS_256_TO_1792, batches: [1, 4, 8],
    ttftSeconds: [
      [2.3, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1],
      [5.4, 4.3, 4.3, 4.3, 4.3, 4.3, 4.3],
      [9.1, 8.5, 8.6, 8.6, 8.6, 8.6, 8.7],
    ],
    itlMs: [
      [27, 31, 31, 31, 31, 31, 31],
      [33, 37, 37, 37, 37, 37, 37],
      [42, 43, 44, 44, 44, 44, 43],
    ],
    tokensPerSecond: [
      [28, 29, 29, 29, 28, 28, 28],
      [74, 75, 75, 75, 75, 75, 75],
      [103, 104, 104, 104, 103, 103, 103],
    ],
    source: { repository: OPTIMUM, commit: '8b06ff83', path: 'docs/assets/benchmarks/inferentia-llama3.3-70b/', date: '2025-06-05' },
    notes: 'The page is titled Llama 3.3 70B and lists batches up to 48; the charts show batches 1, 4 and 8.',
  }),
  ...chartRows({
    model: 'mistral-small-instruct-2409', checkpoint: 'mistralai/Mistral-Small-Instruct-2409', instanceType: 'inf2.48xlarge', sdk: '2.20.0',
    tensorParallelDegree: 12, sequenceLength: 4096, outputTokens: 256, inputs: INPUTS_256_TO_1792, batches: [1, 4],
    ttftSeconds: [
      [0.1, 0.2, 0.2, 0.4, 0.4, 0.4, 0.4],
      [4, 4, 4, 4, 4.1, 4.1, 4.1],
    ],
    itlMs: [
      [26, 26, 26, 27, 27, 26, 26],
      [35, 35, 34, 34, 34, 34, 34],
    ],
    tokensPerSecond: [
      [38, 38, 37, 35, 35, 36, 36],
      [80, 79, 80, 80, 80, 80, 79],
    ],
    source: { repository: OPTIMUM, commit: '7180d482', path: 'docs/assets/benchmarks/inferentia-mistral-small/', date: '2024-09-27' },
  }),
  ...chartRows({
    model: 'llama-3-8b', checkpoint: 'meta-llama/Meta-Llama-3-8B', instanceType: 'inf2.48xlarge', sdk: '2.19.1',
    tensorParallelDegree: 8, sequenceLength: 4096, outputTokens: 256, inputs: INPUTS_256_TO_1792, batches: [1, 4, 8, 16, 32],
    ttftSeconds: [
      [0.3, 0.1, 0.1, 0.2, 0.2, 0.2, 0.2],
      [1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1],
      [2.2, 2.2, 2.2, 2.2, 2.2, 2.2, 2.2],
      [4.4, 4.3, 4.4, 4.4, 4.4, 4.4, 4.4],
      [8.7, 8.7, 8.9, 9, 9, 9.1, 9.1],
    ],
    itlMs: [
      [10, 11, 11, 11, 11, 11, 11],
      [13, 13, 13, 13, 13, 13, 13],
      [15, 15, 15, 15, 15, 15, 15],
      [19, 19, 19, 19, 19, 19, 20],
      [30, 31, 32, 32, 32, 33, 34],
    ],
    tokensPerSecond: [
      [92, 89, 89, 86, 87, 86, 86],
      [225, 228, 227, 229, 228, 228, 228],
      [340, 340, 341, 344, 339, 337, 340],
      [449, 449, 448, 441, 440, 439, 434],
      [498, 492, 479, 476, 473, 468, 463],
    ],
    source: { repository: OPTIMUM, commit: '278d76c1', path: 'docs/assets/benchmarks/inferentia-llama3-8b/', date: '2024-07-22' },
  }),
  ...chartRows({
    model: 'llama-2-7b', checkpoint: 'meta-llama/Llama-2-7b-chat-hf', instanceType: 'inf2.48xlarge', sdk: '2.19.1',
    tensorParallelDegree: 12, sequenceLength: 4096, outputTokens: 256, inputs: INPUTS_256_TO_1792, batches: [1, 4, 8, 16, 24],
    ttftSeconds: [
      [null, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
      [1, 1, 1, 1, 1, 1, 1],
      [1.9, 1.9, 1.9, 1.9, 1.9, 1.9, 1.9],
      [3.8, 3.8, 3.8, 3.8, 3.8, 3.8, 3.8],
      [5.9, 5.9, 5.8, 5.8, 5.8, 5.8, 5.8],
    ],
    itlMs: [
      [9, 10, 10, 10, 10, 10, 10],
      [14, 14, 14, 14, 14, 14, 14],
      [18, 18, 18, 18, 18, 18, 18],
      [26, 26, 26, 26, 26, 26, 26],
      [32, 32, 32, 32, 32, 32, 32],
    ],
    tokensPerSecond: [
      [103, 99, 99, 92, 93, 93, 93],
      [224, 223, 222, 222, 222, 222, 222],
      [317, 316, 318, 317, 317, 318, 317],
      [396, 394, 394, 395, 394, 395, 394],
      [436, 437, 439, 440, 438, 439, 439],
    ],
    source: { repository: OPTIMUM, commit: '278d76c1', path: 'docs/assets/benchmarks/inferentia-llama2-7b/', date: '2024-07-22' },
    notes: 'The page\'s table labels the last configuration "BS32" with batch_size 24; the script and charts say 24.',
  }),
  ...chartRows({
    model: 'llama-2-13b', checkpoint: 'meta-llama/Llama-2-13b-chat-hf', instanceType: 'inf2.48xlarge', sdk: '2.18.0',
    tensorParallelDegree: 8, sequenceLength: 4096, outputTokens: 256, inputs: INPUTS_256_TO_1792, batches: [1, 4, 8, 16],
    ttftSeconds: [
      [0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 0.2],
      [2.7, 2.7, 2.7, 2.7, 2.7, 2.7, 2.8],
      [5.4, 5.4, 5.5, 5.5, 5.5, 5.5, 5.6],
      [11, 11, 11, 11.1, 11.1, 11.1, 11.3],
    ],
    itlMs: [
      [16, 16, 16, 16, 16, 16, 16],
      [34, 34, 34, 34, 34, 34, 34],
      [40, 40, 40, 40, 40, 40, 40],
      [69, 69, 69, 69, 69, 69, 69],
    ],
    tokensPerSecond: [
      [62, 61, 62, 58, 59, 59, 59],
      [90, 90, 89, 89, 89, 89, 88],
      [130, 130, 129, 129, 129, 129, 129],
      [143, 143, 142, 142, 142, 142, 141],
    ],
    source: { repository: OPTIMUM, commit: '707fff4f', path: 'docs/assets/benchmarks/inferentia-llama2-13b/', date: '2024-05-03' },
  }),
  ...chartRows({
    model: 'mistral-7b-instruct-v0.2', checkpoint: 'mistralai/Mistral-7B-Instruct-v0.2', instanceType: 'inf2.48xlarge', sdk: '2.18.0',
    tensorParallelDegree: 8, sequenceLength: 4096, outputTokens: 256, inputs: INPUTS_256_TO_1792, batches: [1, 4, 8, 16, 32],
    ttftSeconds: [
      [0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 0.2],
      [1.6, 1.6, 1.6, 1.6, 1.6, 1.7, 1.7],
      [3.4, 3.3, 3.3, 3.3, 3.4, 3.4, 3.4],
      [6.9, 6.9, 6.9, 6.9, 7, 6.9, 6.9],
      [13.2, 13.3, 13.5, 13.5, 13.6, 13.7, 13.8],
    ],
    itlMs: [
      [10, 10, 10, 10, 10, 10, 10],
      [12, 12, 12, 12, 12, 12, 12],
      [14, 14, 14, 14, 15, 15, 15],
      [18, 18, 19, 19, 18, 18, 18],
      [27, 27, 27, 27, 27, 27, 27],
    ],
    tokensPerSecond: [
      [97, 101, 100, 95, 95, 95, 95],
      [216, 217, 216, 214, 216, 212, 211],
      [291, 293, 291, 292, 288, 288, 287],
      [353, 354, 352, 350, 351, 355, 354],
      [406, 405, 403, 401, 400, 396, 396],
    ],
    source: { repository: OPTIMUM, commit: '707fff4f', path: 'docs/assets/benchmarks/inferentia-mistral-v2/', date: '2024-05-03' },
  }),
];
