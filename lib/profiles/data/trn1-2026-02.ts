/**
 * Trn1 inference rows of the Neuron "Trn1 Inference Performance" page, last updated February 26th, 2026.
 *
 * Source: /work/shared/reference/inferentia-facts.md §8c (NEURON `about-neuron/benchmarks/trn1/*.csv`). Every row:
 * trn1.2xlarge (2 NeuronCore-v2), data parallel, sequence length 128, FP32 with Matmult-BF16. The facts file does not
 * give the Neuron version of these rows. Throughputs are for the whole instance, as the table writes them.
 */
import type { TableSection, TableSource } from './rows';

/** The February 2026 Trn1 inference page, as the facts file quotes it. */
export const TRN1_2026_02: TableSource = {
  document: 'AWS Neuron docs, "Trn1 Inference Performance" (inferentia-facts.md §8c)',
  date: '2026-02-26',
};

/** The encoder rows of the Trn1 inference page. */
export const TRN1_2026_02_SECTIONS: readonly TableSection[] = [
  {
    source: TRN1_2026_02,
    section: 'Encoder Models',
    rows: [
      { model: 'bert-base-uncased', instanceType: 'trn1.2xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 3421.57, p50Ms: 9.34, p99Ms: 9.42 },
      { model: 'bert-base-uncased', instanceType: 'trn1.2xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 2085.45, p50Ms: 0.94, p99Ms: 1.03 },
      { model: 'bert-large-uncased', instanceType: 'trn1.2xlarge', mode: 'batch', batchSize: 4, instanceThroughputRps: 1104.44, p50Ms: 7.24, p99Ms: 7.3 },
      { model: 'bert-large-uncased', instanceType: 'trn1.2xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 747.48, p50Ms: 2.67, p99Ms: 2.73 },
      { model: 'distilbert-base-uncased', instanceType: 'trn1.2xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 6369.44, p50Ms: 5.01, p99Ms: 5.09 },
      { model: 'distilbert-base-uncased', instanceType: 'trn1.2xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 3672.38, p50Ms: 0.54, p99Ms: 0.59 },
      { model: 'roberta-base', instanceType: 'trn1.2xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 3378.11, p50Ms: 9.46, p99Ms: 9.53 },
      { model: 'roberta-base', instanceType: 'trn1.2xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 2094.37, p50Ms: 0.96, p99Ms: 1.01 },
    ],
  },
];
