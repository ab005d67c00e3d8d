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
import { NEURON_DOCS_REPO, row, section, type TableSection, type TableSource } from './rows';

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
  section(TRN1_2026_02, 'Encoder Models, Throughput optimized', `${CSV_DIR}/throughput_data_encoder.csv`, 'fp32-matmult-bf16', [
    row('albert-base-v2', 'trn1.2xlarge', 'batch', 16, 3442.53, 9.29, 9.35, '2.27.0'),
    row('bert-base-uncased', 'trn1.2xlarge', 'batch', 16, 3421.57, 9.34, 9.42, '2.27.0'),
    row('bert-large-uncased', 'trn1.2xlarge', 'batch', 4, 1104.44, 7.24, 7.3, '2.27.0'),
    row('distilbert-base-uncased', 'trn1.2xlarge', 'batch', 16, 6369.44, 5.01, 5.09, '2.28.0'),
    row('google/electra-base-discriminator', 'trn1.2xlarge', 'batch', 16, 3425.56, 9.33, 9.46, '2.28.0'),
    row('roberta-base', 'trn1.2xlarge', 'batch', 16, 3378.11, 9.46, 9.53, '2.28.0'),
    row('roberta-large', 'trn1.2xlarge', 'batch', 8, 1123.9, 14.23, 14.3, '2.27.0'),
    row('xlm-roberta-base', 'trn1.32xlarge', 'batch', 8, 46.69, 342.51, 350.86, '2.27.0', { processes: 2, note: XLMR_COPIES }),
  ]),
  section(TRN1_2026_02, 'Encoder Models, Latency optimized', `${CSV_DIR}/latency_data_encoder.csv`, 'fp32-matmult-bf16', [
    row('albert-base-v2', 'trn1.2xlarge', 'real-time', 1, 2321.98, 0.86, 0.91, '2.27.0'),
    row('bert-base-uncased', 'trn1.2xlarge', 'real-time', 1, 2085.45, 0.94, 1.03, '2.26.0'),
    row('bert-large-uncased', 'trn1.2xlarge', 'real-time', 1, 747.48, 2.67, 2.73, '2.27.0'),
    row('distilbert-base-uncased', 'trn1.2xlarge', 'real-time', 1, 3672.38, 0.54, 0.59, '2.27.0'),
    row('google/electra-base-discriminator', 'trn1.2xlarge', 'real-time', 1, 2127.07, 0.93, 1.0, '2.27.0'),
    row('roberta-base', 'trn1.2xlarge', 'real-time', 1, 2094.37, 0.96, 1.01, '2.27.0'),
    row('roberta-large', 'trn1.2xlarge', 'real-time', 1, 747.58, 2.67, 2.73, '2.27.0'),
    row('xlm-roberta-base', 'trn1.32xlarge', 'real-time', 1, 46.9, 42.62, 44.12, '2.27.0', { processes: 2, note: XLMR_COPIES }),
  ]),
];
