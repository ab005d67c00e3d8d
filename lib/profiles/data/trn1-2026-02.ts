/**
 * Trn1 inference rows of the Neuron "Trn1/Trn1n Inference Performance" page, last updated February 26th, 2026.
 *
 * Source: the page's CSVs in aws-neuron/aws-neuron-sdk `about-neuron/benchmarks/trn1/`, page source
 * `trn1-inference-performance.rst` (commit 86a92868 carries "Last update: Feb 26th, 2026"):
 * `throughput_data_encoder.csv` (commit 86a92868) and `latency_data_encoder.csv` (commit 337e6041, whose rows the
 * current page shows). Every row: FP32 model with Matmult-BF16 autocast, "Run Mode: Data Parallel", sequence length
 * 128; the Neuron version is the row's "Neuron Version" column (2.26.0 to 2.28.0). Throughputs are for the whole
 * instance, as the CSVs write them, rounded to 2 decimals as the page shows them.
 */
import { NEURON_DOCS_REPO, type TableSection, type TableSource } from './rows';

/** The February 2026 Trn1 inference page. */
export const TRN1_2026_02: TableSource = {
  document: 'AWS Neuron docs, "Trn1/Trn1n Inference Performance"',
  url: 'https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/benchmarks/trn1/trn1-inference-performance.html',
  date: '2026-02-26',
};

const CSV_DIR = `${NEURON_DOCS_REPO} about-neuron/benchmarks/trn1`;

/** Like its Inf2 row: the columns state 2 copies (throughput x p50 / batch = 2.0), not one per core of trn1.32xlarge. */
const XLMR_COPIES = 'AutoModelForMaskedLM; the columns state about 2 copies (throughput x p50 / batch = 2.0 in flight), not 32';

/** The encoder rows of the Trn1 inference page. */
export const TRN1_2026_02_SECTIONS: readonly TableSection[] = [
  {
    source: TRN1_2026_02,
    section: 'Encoder Models, Throughput optimized',
    csv: `${CSV_DIR}/throughput_data_encoder.csv`,
    precision: 'fp32-matmult-bf16',
    rows: [
      { model: 'albert-base-v2', instanceType: 'trn1.2xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 3442.53, p50Ms: 9.29, p99Ms: 9.35, neuronVersion: '2.27.0' },
      { model: 'bert-base-uncased', instanceType: 'trn1.2xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 3421.57, p50Ms: 9.34, p99Ms: 9.42, neuronVersion: '2.27.0' },
      { model: 'bert-large-uncased', instanceType: 'trn1.2xlarge', mode: 'batch', batchSize: 4, instanceThroughputRps: 1104.44, p50Ms: 7.24, p99Ms: 7.3, neuronVersion: '2.27.0' },
      { model: 'distilbert-base-uncased', instanceType: 'trn1.2xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 6369.44, p50Ms: 5.01, p99Ms: 5.09, neuronVersion: '2.28.0' },
      { model: 'google/electra-base-discriminator', instanceType: 'trn1.2xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 3425.56, p50Ms: 9.33, p99Ms: 9.46, neuronVersion: '2.28.0' },
      { model: 'roberta-base', instanceType: 'trn1.2xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 3378.11, p50Ms: 9.46, p99Ms: 9.53, neuronVersion: '2.28.0' },
      { model: 'roberta-large', instanceType: 'trn1.2xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 1123.9, p50Ms: 14.23, p99Ms: 14.3, neuronVersion: '2.27.0' },
      { model: 'xlm-roberta-base', instanceType: 'trn1.32xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 46.69, p50Ms: 342.51, p99Ms: 350.86, neuronVersion: '2.27.0', processes: 2, note: XLMR_COPIES },
    ],
  },
  {
    source: TRN1_2026_02,
    section: 'Encoder Models, Latency optimized',
    csv: `${CSV_DIR}/latency_data_encoder.csv`,
    precision: 'fp32-matmult-bf16',
    rows: [
      { model: 'albert-base-v2', instanceType: 'trn1.2xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 2321.98, p50Ms: 0.86, p99Ms: 0.91, neuronVersion: '2.27.0' },
      { model: 'bert-base-uncased', instanceType: 'trn1.2xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 2085.45, p50Ms: 0.94, p99Ms: 1.03, neuronVersion: '2.26.0' },
      { model: 'bert-large-uncased', instanceType: 'trn1.2xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 747.48, p50Ms: 2.67, p99Ms: 2.73, neuronVersion: '2.27.0' },
      { model: 'distilbert-base-uncased', instanceType: 'trn1.2xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 3672.38, p50Ms: 0.54, p99Ms: 0.59, neuronVersion: '2.27.0' },
      { model: 'google/electra-base-discriminator', instanceType: 'trn1.2xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 2127.07, p50Ms: 0.93, p99Ms: 1.0, neuronVersion: '2.27.0' },
      { model: 'roberta-base', instanceType: 'trn1.2xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 2094.37, p50Ms: 0.96, p99Ms: 1.01, neuronVersion: '2.27.0' },
      { model: 'roberta-large', instanceType: 'trn1.2xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 747.58, p50Ms: 2.67, p99Ms: 2.73, neuronVersion: '2.27.0' },
      { model: 'xlm-roberta-base', instanceType: 'trn1.32xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 46.9, p50Ms: 42.62, p99Ms: 44.12, neuronVersion: '2.27.0', processes: 2, note: XLMR_COPIES },
    ],
  },
];
