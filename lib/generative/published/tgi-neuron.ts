/**
 * Rows of Hugging Face optimum-neuron's Text Generation Inference benchmarks (huggingface/optimum-neuron
 * `benchmark/text-generation-inference/`): TGI with the optimum-neuron backend (continuous batching over a compiled
 * batch), several servers behind nginx where the compose file says so. Third-party: every row is `unverified`.
 *
 * Two result formats:
 * - Until 2024-09, LLMPerf (`benchmark.sh`: 1500 +- 150 input and 245 +- 20 output tokens, 8 requests per concurrent
 *   user) summarised by `generate_csv.py`: output tokens/s over the run (`results_mean_output_throughput_token_per_s`),
 *   TTFT p50, and LLMPerf's inter-token latency p50, which "includes TTFT in Time per Output Token" (AWS Neuron docs,
 *   LLM inference benchmarking guide): a per-output-token latency with the prefill in it (`latencyPerToken`, counts
 *   `output`), not a TPOT.
 * - From 2024-10, guidellm (`guidellm.ts`).
 *
 * The SDK of a run is `__sdk_version__` of optimum/neuron/version.py at the commit that added its results.
 */
import { guidellmRuns } from './guidellm';
import type { NeuronChip, PublishedRow } from './types';

/** One LLMPerf sweep's server configuration and file. */
interface LlmperfSweep {
  readonly model: string;
  readonly checkpoint: string;
  readonly instanceType: string;
  readonly chip: NeuronChip;
  readonly weightDtype: 'fp16' | 'bf16';
  readonly tensorParallelDegree: number;
  readonly dataParallel?: number;
  readonly batchSize: number;
  readonly sequenceLength: number;
  readonly sdk: string;
  readonly commit: string;
  readonly date: string;
  readonly path: string;
  readonly run?: string;
  readonly notes?: string;
}

/** One CSV line: concurrent requests, output tokens/s, TTFT p50 (ms), LLMPerf inter-token latency p50 (ms). */
type LlmperfLine = readonly [concurrency: number, outputTokensPerSecond: number, ttftP50Ms: number, latencyPerTokenP50Ms: number];

function llmperfSweep(sweep: LlmperfSweep, lines: readonly LlmperfLine[]): PublishedRow[] {
  return lines.map(([concurrency, tps, ttft, perToken]): PublishedRow => ({
    model: sweep.model,
    instanceType: sweep.instanceType,
    chip: sweep.chip,
    stack: 'tgi-neuron',
    neuronSdkVersion: sweep.sdk,
    tensorParallelDegree: sweep.tensorParallelDegree,
    ...(sweep.dataParallel !== undefined ? { dataParallel: sweep.dataParallel } : {}),
    batchSize: sweep.batchSize,
    load: 'concurrency',
    concurrency,
    inputTokens: 1500,
    outputTokens: 245,
    lengthSpread: 'LLMPerf --mean-input-tokens 1500 --stddev-input-tokens 150 --mean-output-tokens 245 --stddev-output-tokens 20',
    sequenceLength: sweep.sequenceLength,
    weightDtype: sweep.weightDtype,
    levers: {},
    ttft: { p50: ttft },
    latencyPerToken: { p50: perToken, counts: 'output' },
    outputTokensPerSecond: tps,
    ...(sweep.run ? { run: sweep.run } : {}),
    source: {
      repository: 'huggingface/optimum-neuron',
      commit: sweep.commit,
      path: sweep.path,
      date: sweep.date,
      locator: `line "concurrent requests" ${concurrency}`,
    },
    unverified: true,
    notes: [`Serves ${sweep.checkpoint} (HF_AUTO_CAST_TYPE ${sweep.weightDtype})`, sweep.notes].filter(Boolean).join('. '),
  }));
}

const DP3_NOTE = 'Three TGI servers of 8 cores each behind nginx (docker-compose.yaml); the synchronous line reaches one of them';

/** Every row of optimum-neuron's TGI benchmarks. */
export const TGI_NEURON_ROWS: readonly PublishedRow[] = [
  ...llmperfSweep({ model: 'llama-2-7b', checkpoint: 'NousResearch/Llama-2-7b-chat-hf', instanceType: 'inf2.48xlarge', chip: 'inf2', weightDtype: 'fp16', tensorParallelDegree: 8, dataParallel: 3, batchSize: 32, sequenceLength: 4096, run: 'eacf3439', sdk: '2.18.0', commit: 'eacf3439', date: '2024-04-12', path: 'benchmark/text-generation-inference/llama-7b/tgi-results.csv' }, [
    [1, 13.84, 436, 70.64],
    [2, 25.21, 436, 70.55],
    [4, 43.27, 438, 71.41],
    [8, 81.70, 466, 74.66],
    [16, 148.73, 881, 79.46],
    [32, 241.08, 2586, 91.32],
    [64, 338.63, 6262, 118.38],
    [128, 410.40, 12920, 167.83],
    [256, 478.77, 29621, 257.70],
    [512, 496.55, 44486, 329.73],
  ]),
  ...llmperfSweep({ model: 'llama-2-7b', checkpoint: 'NousResearch/Llama-2-7b-chat-hf', instanceType: 'inf2.48xlarge', chip: 'inf2', weightDtype: 'fp16', tensorParallelDegree: 8, dataParallel: 3, batchSize: 32, sequenceLength: 4096, run: '707fff4f', notes: 'Re-run after optimum-neuron change "Improve llama models performance" (#587)', sdk: '2.18.0', commit: '707fff4f', date: '2024-05-03', path: 'benchmark/text-generation-inference/llama-7b/tgi-results.csv' }, [
    [1, 13.81, 378, 71.37],
    [2, 23.46, 360, 71.71],
    [4, 45.45, 361, 73.59],
    [8, 71.13, 375, 74.86],
    [16, 138.55, 645, 81.11],
    [32, 247.33, 1039, 85.10],
    [64, 391.36, 2283, 99.36],
    [128, 464.83, 3342, 120.29],
    [256, 526.72, 6533, 160.52],
    [512, 506.80, 27339, 260.15],
  ]),
  ...llmperfSweep({ model: 'llama-2-7b', checkpoint: 'NousResearch/Llama-2-7b-chat-hf', instanceType: 'inf2.48xlarge', chip: 'inf2', weightDtype: 'fp16', tensorParallelDegree: 12, dataParallel: 2, batchSize: 24, sequenceLength: 4096, sdk: '2.19.1', commit: '278d76c1', date: '2024-07-22', path: 'benchmark/text-generation-inference/llama-7b/tgi-results.csv' }, [
    [1, 32.32, 409, 32.98],
    [8, 280.25, 410, 18.82],
    [16, 606.22, 424, 19.74],
    [24, 778.58, 446, 21.73],
    [32, 660.08, 663, 40.97],
    [50, 809.35, 1111, 32.36],
    [64, 902.20, 1519, 34.53],
    [96, 1000.43, 2581, 44.06],
    [100, 965.89, 5110, 44.77],
    [128, 1070.18, 7600, 49.67],
    [150, 1059.67, 8565, 55.47],
    [200, 1138.04, 13465, 64.28],
  ]),
  ...llmperfSweep({ model: 'mistral-7b-instruct-v0.2', checkpoint: 'mistralai/Mistral-7B-Instruct-v0.2', instanceType: 'inf2.48xlarge', chip: 'inf2', weightDtype: 'bf16', tensorParallelDegree: 8, dataParallel: 3, batchSize: 32, sequenceLength: 4096, run: 'eacf3439', sdk: '2.18.0', commit: 'eacf3439', date: '2024-04-12', path: 'benchmark/text-generation-inference/mistral-7b/tgi-results.csv' }, [
    [1, 34.66, 463, 27.74],
    [2, 67.56, 462, 27.32],
    [4, 115.96, 472, 29.60],
    [8, 177.16, 511, 33.34],
    [16, 156.52, 960, 86.39],
    [32, 247.29, 2506, 100.73],
    [64, 384.58, 4887, 108.16],
    [128, 560.88, 10410, 130.61],
    [256, 623.97, 23142, 190.67],
    [512, 572.87, 41845, 283.43],
  ]),
  ...llmperfSweep({ model: 'mistral-7b-instruct-v0.2', checkpoint: 'mistralai/Mistral-7B-Instruct-v0.2', instanceType: 'inf2.48xlarge', chip: 'inf2', weightDtype: 'bf16', tensorParallelDegree: 8, dataParallel: 3, batchSize: 32, sequenceLength: 4096, run: 'f9360898', notes: 'Replaced the same day\'s first run (eacf3439) in the same file', sdk: '2.18.0', commit: 'f9360898', date: '2024-04-12', path: 'benchmark/text-generation-inference/mistral-7b/tgi-results.csv' }, [
    [1, 34.88, 479, 27.65],
    [4, 120.48, 533, 29.78],
    [8, 182.34, 589, 34.50],
    [16, 298.48, 1048, 41.59],
    [32, 362.19, 2095, 68.46],
    [64, 470.67, 4492, 91.99],
    [128, 652.42, 9770, 117.44],
    [256, 712.51, 20532, 170.34],
    [512, 663.24, 34292, 240.47],
  ]),
  ...llmperfSweep({ model: 'llama-3-8b', checkpoint: 'NousResearch/Meta-Llama-3-8B-Instruct', instanceType: 'inf2.48xlarge', chip: 'inf2', weightDtype: 'fp16', tensorParallelDegree: 8, dataParallel: 3, batchSize: 32, sequenceLength: 4096, sdk: '2.19.1', commit: '278d76c1', date: '2024-07-22', path: 'benchmark/text-generation-inference/llama3-8b/tgi-results.csv' }, [
    [1, 44.73, 293, 21.39],
    [8, 254.27, 307, 24.52],
    [16, 396.50, 313, 29.42],
    [24, 458.95, 317, 36.46],
    [32, 540.39, 319, 39.55],
    [50, 648.60, 698, 47.64],
    [64, 729.17, 898, 51.61],
    [96, 823.75, 1133, 60.63],
    [100, 829.98, 1277, 63.73],
    [128, 838.26, 1513, 74.22],
    [150, 849.25, 1749, 80.72],
    [200, 864.49, 2414, 98.63],
  ]),
  ...llmperfSweep({ model: 'llama-3-70b', checkpoint: 'NousResearch/Meta-Llama-3-70B-Instruct', instanceType: 'inf2.48xlarge', chip: 'inf2', weightDtype: 'fp16', tensorParallelDegree: 24, sequenceLength: 4096, batchSize: 1, sdk: '2.18.0', commit: 'af0506f2', date: '2024-06-05', path: 'benchmark/text-generation-inference/llama3-70b-inf2.48xlarge/tgi-results-batchsize-1.csv' }, [
    [1, 30.17, 769, 31.61],
    [2, 30.94, 3524, 42.89],
    [4, 31.22, 11170, 70.63],
    [8, 31.44, 28048, 138.62],
    [16, 31.62, 60178, 290.14],
    [32, 31.73, 123720, 523.19],
    [64, 31.73, 250508, 1010.62],
    [128, 31.81, 512674, 1997.34],
    [256, 31.78, 1025655, 3954.06],
    [512, 31.72, 2034147, 8002.65],
  ]),
  ...llmperfSweep({ model: 'llama-3-70b', checkpoint: 'NousResearch/Meta-Llama-3-70B-Instruct', instanceType: 'inf2.48xlarge', chip: 'inf2', weightDtype: 'fp16', tensorParallelDegree: 24, sequenceLength: 4096, batchSize: 4, sdk: '2.18.0', commit: 'af0506f2', date: '2024-06-05', path: 'benchmark/text-generation-inference/llama3-70b-inf2.48xlarge/tgi-results.csv' }, [
    [1, 18.82, 1388, 51.47],
    [2, 32.22, 2012, 56.73],
    [4, 50.20, 5206, 66.04],
    [8, 52.13, 9568, 97.33],
    [16, 53.60, 26088, 191.19],
    [32, 56.09, 61253, 310.17],
    [64, 57.40, 129315, 560.25],
    [128, 58.39, 267388, 1095.00],
    [256, 58.59, 541615, 2147.54],
    [512, 58.70, 1085177, 4231.76],
  ]),
  ...llmperfSweep({ model: 'llama-3-70b', checkpoint: 'NousResearch/Meta-Llama-3-70B-Instruct', instanceType: 'inf2.48xlarge', chip: 'inf2', weightDtype: 'fp16', tensorParallelDegree: 24, sequenceLength: 4096, batchSize: 4, sdk: '2.19.1', commit: '278d76c1', date: '2024-07-22', path: 'benchmark/text-generation-inference/llama3-70b-inf2.48xlarge/tgi-results.csv' }, [
    [1, 22.48, 1201, 43.71],
    [8, 64.09, 4925, 85.37],
    [16, 66.62, 22870, 135.41],
  ]),
  ...llmperfSweep({ model: 'llama-3-70b', checkpoint: 'a local export of NousResearch/Meta-Llama-3-70B-Instruct (/data/exportedmodel)', instanceType: 'trn1.32xlarge', chip: 'trn1', weightDtype: 'fp16', tensorParallelDegree: 32, sequenceLength: 4096, batchSize: 1, sdk: '2.18.0', commit: 'af0506f2', date: '2024-06-05', path: 'benchmark/text-generation-inference/llama3-70b-trn1.32xlarge/tgi-results-batchsize-1.csv' }, [
    [1, 38.30, 552, 24.78],
    [2, 38.98, 2722, 32.83],
    [4, 39.39, 8926, 63.80],
    [8, 39.85, 22479, 110.33],
    [16, 39.80, 48748, 218.50],
    [32, 39.88, 98330, 419.02],
    [64, 40.02, 201503, 787.04],
    [128, 40.15, 412922, 1608.14],
    [256, 40.10, 831724, 3167.78],
    [512, 39.95, 1654067, 6348.47],
  ]),
  ...llmperfSweep({ model: 'llama-3-70b', checkpoint: 'a local export of NousResearch/Meta-Llama-3-70B-Instruct (/data/exportedmodel)', instanceType: 'trn1.32xlarge', chip: 'trn1', weightDtype: 'fp16', tensorParallelDegree: 32, sequenceLength: 4096, batchSize: 4, sdk: '2.18.0', commit: 'af0506f2', date: '2024-06-05', path: 'benchmark/text-generation-inference/llama3-70b-trn1.32xlarge/tgi-results.csv' }, [
    [1, 27.32, 990, 34.53],
    [2, 47.15, 1432, 38.48],
    [4, 75.47, 3729, 45.22],
    [8, 76.66, 6710, 67.56],
    [16, 78.11, 18175, 130.33],
    [32, 80.95, 42996, 211.53],
    [64, 83.42, 90689, 387.73],
    [128, 84.68, 187203, 761.19],
    [256, 85.09, 376982, 1484.38],
    [512, 85.00, 758823, 2947.31],
  ]),
  ...llmperfSweep({ model: 'llama-3-70b', checkpoint: 'a local export of NousResearch/Meta-Llama-3-70B-Instruct (/data/exportedmodel)', instanceType: 'trn1.32xlarge', chip: 'trn1', weightDtype: 'fp16', tensorParallelDegree: 32, sequenceLength: 4096, batchSize: 8, sdk: '2.18.0', commit: 'af0506f2', date: '2024-06-05', path: 'benchmark/text-generation-inference/llama3-70b-trn1.32xlarge/tgi-results-batchsize-8.csv' }, [
    [1, 17.83, 994, 54.45],
    [2, 31.14, 1419, 58.18],
    [4, 52.71, 3692, 65.51],
    [8, 85.24, 7403, 79.87],
    [16, 83.42, 12134, 119.80],
    [32, 86.31, 33196, 221.51],
    [64, 91.54, 78173, 378.56],
    [128, 93.59, 163858, 709.48],
    [256, 94.50, 332893, 1342.05],
    [512, 94.76, 671839, 2633.19],
  ]),
  ...llmperfSweep({ model: 'llama-3-70b', checkpoint: 'a local export of NousResearch/Meta-Llama-3-70B-Instruct (/data/exportedmodel)', instanceType: 'trn1.32xlarge', chip: 'trn1', weightDtype: 'fp16', tensorParallelDegree: 32, sequenceLength: 4096, batchSize: 1, sdk: '2.19.1', commit: '3b381c02', date: '2024-09-10', path: 'benchmark/text-generation-inference/llama3-70b-trn1.32xlarge/tgi-results-batchsize-1.csv' }, [
    [1, 47.04, 526, 20.47],
    [2, 47.81, 2379, 28.00],
    [4, 48.46, 7176, 52.26],
    [8, 48.77, 18760, 84.58],
    [16, 49.25, 38442, 170.77],
    [32, 49.42, 80525, 339.17],
    [64, 49.65, 162747, 653.71],
  ]),
  ...llmperfSweep({ model: 'llama-3-70b', checkpoint: 'a local export of NousResearch/Meta-Llama-3-70B-Instruct (/data/exportedmodel)', instanceType: 'trn1.32xlarge', chip: 'trn1', weightDtype: 'fp16', tensorParallelDegree: 32, sequenceLength: 4096, batchSize: 4, sdk: '2.19.1', commit: '3b381c02', date: '2024-09-10', path: 'benchmark/text-generation-inference/llama3-70b-trn1.32xlarge/tgi-results.csv' }, [
    [1, 33.14, 848, 29.19],
    [2, 55.61, 1274, 32.90],
    [4, 86.58, 3344, 39.29],
    [8, 90.20, 5905, 55.93],
    [16, 93.46, 16161, 108.17],
    [32, 94.60, 37349, 182.43],
    [64, 97.62, 80720, 358.00],
    [128, 98.41, 165126, 684.60],
  ]),
  ...llmperfSweep({ model: 'llama-3-70b', checkpoint: 'a local export of NousResearch/Meta-Llama-3-70B-Instruct (/data/exportedmodel)', instanceType: 'trn1.32xlarge', chip: 'trn1', weightDtype: 'fp16', tensorParallelDegree: 32, sequenceLength: 4096, batchSize: 8, sdk: '2.19.1', commit: '3b381c02', date: '2024-09-10', path: 'benchmark/text-generation-inference/llama3-70b-trn1.32xlarge/tgi-results-batchsize-8.csv' }, [
    [1, 30.43, 847, 31.94],
    [2, 51.81, 1658, 35.30],
    [4, 80.27, 3331, 42.57],
    [8, 123.95, 6632, 55.71],
    [16, 123.42, 9614, 86.93],
    [32, 129.02, 24736, 151.74],
    [64, 133.18, 56042, 269.53],
  ]),
  ...guidellmRuns({ stack: 'tgi-neuron', model: 'llama-3.1-8b-instruct', instanceType: 'inf2.48xlarge', chip: 'inf2', tensorParallelDegree: 8, dataParallel: 3, batchSize: 32, sequenceLength: 4096, notes: DP3_NOTE, sdk: '2.20.0', commit: '0ea72855', date: '2024-10-14', path: 'benchmark/text-generation-inference/performance/llama3.1-8b/tgi-results.csv', run: '2024-10-08-10-21-27' }, [
    ['synchronous', 0.17707604193918966, 5.646738231182098, 285.4609489440918, 26.772581349352524, 35.45947739832273],
    ['asynchronous@0.63 req/sec', 0.5966278709751178, 6.268443060592866, 309.66542136501255, 32.83704423088771, 108.18291846385446],
    ['asynchronous@1.09 req/sec', 1.0289050760071914, 7.638242309743708, 324.00399988347834, 41.42797846875169, 181.64851432781506],
    ['asynchronous@1.54 req/sec', 1.3920504339167825, 10.976222453347171, 344.5237688271396, 60.57847998880658, 244.23776438449573],
    ['asynchronous@2.00 req/sec', 1.8544171104562692, 13.558780851765214, 468.7262684385353, 72.71212094988398, 333.422463359934],
    ['asynchronous@2.46 req/sec', 2.1893081609275895, 14.324156277913314, 1087.3510846724876, 76.5860652231618, 378.19456438423754],
    ['asynchronous@2.91 req/sec', 2.4441616608488914, 17.340225928359562, 1300.8383015791576, 93.61847104722578, 417.96013067759395],
    ['asynchronous@3.37 req/sec', 2.7521487916135756, 22.140478122234345, 1764.5187303423882, 116.20489102779324, 481.78944736687777],
    ['asynchronous@3.82 req/sec', 2.9927483957233556, 23.69803158882408, 2487.862518160406, 127.51986101695351, 497.5466020925033],
    ['asynchronous@4.28 req/sec', 3.0893002094536444, 27.976496664771084, 5896.275008484266, 131.24857727275023, 519.0195504248297],
    ['throughput', 4.277698589542856, 18.463767676353456, 6037.6899671554565, 72.4547197160703, 734.5664017962993],
  ]),
  ...guidellmRuns({ stack: 'tgi-neuron', model: 'llama-3.1-8b-instruct', instanceType: 'inf2.48xlarge', chip: 'inf2', tensorParallelDegree: 8, dataParallel: 3, batchSize: 32, sequenceLength: 4096, maxConcurrency: 128, notes: DP3_NOTE, sdk: '2.22.0', commit: '148350c0', date: '2025-06-05', path: 'benchmark/text-generation-inference/performance/llama3.1-8b/tgi-results.csv', run: '2025-06-03-16-40-34' }, [
    ['synchronous', 0.2005813484996457, 4.985056846038155, 315.78953369804054, 26.78693040674557, 34.96220113630781],
    ['asynchronous@5.17 req/sec', 4.708343324536632, 13.241341689903681, 1382.3730966836586, 68.84543424078863, 809.020953241905],
    ['throughput', 5.1749225236749945, 16.939789695325103, 7166.307430681975, 54.528038270277555, 928.9660919891008],
  ]),
  ...guidellmRuns({ stack: 'tgi-neuron', model: 'llama-3.1-8b-instruct', instanceType: 'inf2.48xlarge', chip: 'inf2', tensorParallelDegree: 8, dataParallel: 3, batchSize: 32, sequenceLength: 4096, maxConcurrency: 128, notes: DP3_NOTE, sdk: '2.22.0', commit: '148350c0', date: '2025-06-05', path: 'benchmark/text-generation-inference/performance/llama3.1-8b/tgi-results.csv', run: '2025-06-03-16-45-24' }, [
    ['synchronous', 0.2084656357160233, 4.7964538478851315, 317.9172420501709, 26.900977998474875, 34.705359034003564],
    ['asynchronous@5.01 req/sec', 4.422471332185208, 13.417764843413323, 1356.6865505594196, 68.49323538580047, 777.567620553185],
    ['throughput', 5.006682923972806, 18.138641094207763, 7761.879705429077, 56.950860953881744, 913.5794465031659],
  ]),
  ...guidellmRuns({ stack: 'tgi-neuron', model: 'llama-3.1-8b-instruct', instanceType: 'inf2.48xlarge', chip: 'inf2', tensorParallelDegree: 8, dataParallel: 3, batchSize: 32, sequenceLength: 4096, maxConcurrency: 128, notes: DP3_NOTE, sdk: '2.22.0', commit: '148350c0', date: '2025-06-05', path: 'benchmark/text-generation-inference/performance/llama3.1-8b/tgi-results.csv', run: '2025-06-03-16-50-04' }, [
    ['synchronous', 0.20020447551020948, 4.994422363198322, 316.8053212373153, 26.688904105546232, 35.088010468767585],
    ['asynchronous@5.14 req/sec', 4.472288202024831, 14.629639250508855, 1459.2945758769577, 75.66785792469855, 776.7795102052455],
    ['throughput', 5.1435148956724115, 17.106337978528895, 7250.990904932436, 55.519014489984194, 914.9194843989117],
  ]),
  ...guidellmRuns({ stack: 'tgi-neuron', model: 'qwen2.5-7b-instruct', instanceType: 'inf2.48xlarge', chip: 'inf2', tensorParallelDegree: 8, dataParallel: 3, batchSize: 32, sequenceLength: 4096, notes: DP3_NOTE, sdk: '2.20.2', commit: '6ba3db94', date: '2024-12-05', path: 'benchmark/text-generation-inference/performance/qwen2.5-7b/tgi-results.csv', run: '2024-12-03-14-55-31' }, [
    ['synchronous', 0.16124266966166817, 6.200973322516994, 309.0427423778333, 25.97485797662497, 36.57662664430473],
    ['asynchronous@0.55 req/sec', 0.49461558754572243, 11.853755130606183, 361.0207387956522, 48.287324351631526, 117.7268931509251],
    ['asynchronous@0.93 req/sec', 0.8060968082815412, 16.24768308375744, 375.21653479718145, 67.57783339749032, 189.26981548491378],
    ['asynchronous@1.32 req/sec', 1.083945791108799, 21.60137509382688, 391.8051444567167, 90.79909233959562, 253.1763846248275],
    ['asynchronous@1.71 req/sec', 1.360321529639815, 22.870551178060428, 896.7999958553197, 94.77224932706102, 315.15228174103277],
    ['asynchronous@2.10 req/sec', 1.6004688460192356, 27.518067228297394, 1464.1120346883934, 112.11173711716121, 371.45881623077696],
    ['asynchronous@2.48 req/sec', 1.8374073942778475, 29.824548766450974, 1626.0160196174695, 122.31885821081055, 423.5491627411547],
    ['asynchronous@2.87 req/sec', 2.0547734036381797, 33.20240214091389, 2375.624083671249, 133.96148232126046, 472.60651633847726],
    ['asynchronous@3.64 req/sec', 2.0780593811446972, 40.66464872033365, 8195.832600516658, 138.66332340499426, 486.5759282406912],
    ['asynchronous@3.26 req/sec', 2.116392255309062, 36.28229375148383, 4732.812661824264, 134.96114258046998, 494.68585904605914],
    ['throughput', 3.6428876172319473, 25.543468462793452, 7593.348495583786, 77.56031301334828, 844.191272561698],
  ]),
  ...guidellmRuns({ stack: 'tgi-neuron', model: 'deepseek-r1-distill-llama-70b', instanceType: 'inf2.48xlarge', chip: 'inf2', tensorParallelDegree: 24, batchSize: 8, sequenceLength: 4096, maxConcurrency: 128, sdk: '2.22.0', commit: '591ac13a', date: '2025-06-05', path: 'benchmark/text-generation-inference/performance/llama3-70b-inf2.48xlarge/tgi-results.csv', run: '2025-06-04-13-34-44' }, [
    ['synchronous', 0.0825119745332285, 12.11859589152866, 1089.9265342288547, 44.39257001684126, 20.499641672922102],
    ['asynchronous@0.38 req/sec', 0.32864949560310613, 19.877307952978672, 1112.2565330603184, 76.41583619246207, 80.7129453560654],
    ['throughput', 0.38422302398652847, 69.38023540178935, 52132.53101772732, 69.04361148719963, 95.30438652750291],
  ]),
  ...guidellmRuns({ stack: 'tgi-neuron', model: 'deepseek-r1-distill-llama-70b', instanceType: 'inf2.48xlarge', chip: 'inf2', tensorParallelDegree: 24, batchSize: 8, sequenceLength: 4096, maxConcurrency: 128, sdk: '2.22.0', commit: '591ac13a', date: '2025-06-05', path: 'benchmark/text-generation-inference/performance/llama3-70b-inf2.48xlarge/tgi-results.csv', run: '2025-06-04-13-51-19' }, [
    ['synchronous', 0.0849880565583255, 11.765971350669862, 1090.3651475906372, 44.11355192730536, 20.567109687114772],
    ['asynchronous@0.35 req/sec', 0.30548300737471396, 18.77609086698956, 1130.7736966345046, 72.09326486235919, 74.87727936317988],
    ['throughput', 0.35273430568451203, 66.20515324388232, 48498.16338221232, 70.78686301622659, 86.94060791538259],
  ]),
  ...guidellmRuns({ stack: 'tgi-neuron', model: 'deepseek-r1-distill-llama-70b', instanceType: 'inf2.48xlarge', chip: 'inf2', tensorParallelDegree: 24, batchSize: 8, sequenceLength: 4096, maxConcurrency: 128, sdk: '2.22.0', commit: '591ac13a', date: '2025-06-05', path: 'benchmark/text-generation-inference/performance/llama3-70b-inf2.48xlarge/tgi-results.csv', run: '2025-06-04-14-01-05' }, [
    ['synchronous', 0.08201659964230397, 12.192155493630302, 1090.7714896731907, 44.32589492712892, 20.54060173263924],
    ['asynchronous@0.38 req/sec', 0.33311168361311244, 19.991156046207134, 1118.1710744515442, 76.72924524016832, 82.06505272191755],
    ['throughput', 0.382299061624597, 69.47088685565525, 52837.35580974155, 65.6929910451104, 94.80167174819728],
  ]),];
