/**
 * Inf2 rows of the Neuron "Inf2 Inference Performance" page, last updated February 26th, 2026.
 *
 * Source: /work/shared/reference/inferentia-facts.md §8b (NEURON `about-neuron/benchmarks/inf2/*.csv`, page
 * `inf2-performance.rst`). Every row: inf2.xlarge, Data Parallel, FP32 model with Matmult-BF16 autocast, sequence
 * length 128 for encoders. Throughputs are for the whole instance, as the table writes them.
 *
 * Each row here has the same model, batch size and mode as a September 2024 row (`inf2-2024-09.ts`); `builtin.ts`
 * keeps only this newer one.
 */
import type { TableSection, TableSource } from './rows';

/** The February 2026 Inf2 page, as the facts file quotes it. */
export const INF2_2026_02: TableSource = {
  document: 'AWS Neuron docs, "Inf2 Inference Performance" (inferentia-facts.md §8b)',
  date: '2026-02-26',
};

/** The subset of the February 2026 Inf2 page the facts file quotes. */
export const INF2_2026_02_SECTIONS: readonly TableSection[] = [
  {
    source: INF2_2026_02,
    section: 'Encoder Models',
    rows: [
      { model: 'bert-base-uncased', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 2674.19, p50Ms: 5.97, p99Ms: 6.17, neuronVersion: '2.27.0' },
      { model: 'bert-base-uncased', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 1998.21, p50Ms: 1.0, p99Ms: 1.04, neuronVersion: '2.26.0' },
      { model: 'bert-large-uncased', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 4, instanceThroughputRps: 950.05, p50Ms: 8.41, p99Ms: 8.85, neuronVersion: '2.21.0' },
      { model: 'bert-large-uncased', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 738.65, p50Ms: 2.69, p99Ms: 2.78, neuronVersion: '2.25.0' },
      { model: 'distilbert-base-uncased', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 5307.88, p50Ms: 6.01, p99Ms: 6.23, neuronVersion: '2.27.0' },
      { model: 'distilbert-base-uncased', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 3401.97, p50Ms: 0.58, p99Ms: 0.68, neuronVersion: '2.26.0' },
      { model: 'roberta-base', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 2920.38, p50Ms: 5.42, p99Ms: 5.83, neuronVersion: '2.25.0' },
      { model: 'roberta-base', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 1989.26, p50Ms: 1.0, p99Ms: 1.09, neuronVersion: '2.26.0' },
    ],
  },
  {
    source: INF2_2026_02,
    section: 'Vision Transformers Models',
    rows: [
      { model: 'google/vit-base-patch16-224', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 2, instanceThroughputRps: 1955.41, p50Ms: 4.09, p99Ms: 4.13, neuronVersion: '2.21.0' },
      { model: 'google/vit-base-patch16-224', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 746.14, p50Ms: 1.32, p99Ms: 1.38, neuronVersion: '2.21.0' },
    ],
  },
  {
    source: INF2_2026_02,
    section: 'Convolutional Neural Networks (CNN) Models',
    rows: [
      { model: 'resnet50', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 4393.3, p50Ms: 7.28, p99Ms: 7.33, neuronVersion: '2.21.0' },
      { model: 'resnet50', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 1218.88, p50Ms: 0.83, p99Ms: 0.85, neuronVersion: '2.21.0' },
    ],
  },
];
