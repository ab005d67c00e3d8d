/**
 * Inf1 rows of the Neuron "Inf1 Inference Performance" page, last updated September 16th, 2024.
 *
 * Source: the page's CSVs in aws-neuron/aws-neuron-sdk, `about-neuron/benchmarks/inf1/` (earlier under
 * `general/benchmarks/inf1/`): `throughput_data_encoder.csv`, `latency_data_encoder.csv`, `throughput_data_cnn.csv`.
 * The page marks its benchmark scripts historical and untested. Throughputs are for the whole instance, as the CSVs
 * write them.
 *
 * Copies: the encoder CSVs state them in their "N Models" and "Workers per Model" columns. The Throughput optimized
 * rows ran 4 models (one per NeuronCore of inf1.xlarge) with 2 workers each (distilroberta-base: 1); the Latency
 * optimized rows ran 1 model with 1 worker, so their throughput is one process's, not four's. The CNN CSV states
 * "Num. Cores" 4 and no model count: one copy per core, as its "Run Mode: Data Parallel" says. Every row checks out
 * against Little's law: throughput x p50 / batch = requests in flight = copies x workers (tested).
 *
 * Ids: PyTorch rows of a model the Inf2 tables also list join that profile (`BERT base (bert-base-cased)` ->
 * `bert-base-cased`, `Resnet50-PT(fp32,b5,c4)` -> `resnet50`). Rows from another framework or precision, or of an
 * unnamed BERT variant, keep a descriptive id, so the planner never mixes a TensorFlow fp16 artifact's numbers into a
 * PyTorch model's profile.
 *
 * Precision: the rows say fp32 (no autocast stated), so weights count 4 bytes; the TensorFlow fp16 rows 2.
 */
import { NEURON_DOCS_REPO, row, section, type TableSection, type TableSource } from './rows';

/** The September 2024 Inf1 page. */
export const INF1_2024_09: TableSource = {
  document: 'AWS Neuron docs, "Inf1 Inference Performance"',
  url: 'https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/benchmarks/inf1/index.html',
  date: '2024-09-16',
};

const CSV_DIR = `${NEURON_DOCS_REPO} about-neuron/benchmarks/inf1`;

/** The encoder and CNN rows of the Inf1 page. */
export const INF1_2024_09_SECTIONS: readonly TableSection[] = [
  section(INF1_2024_09, 'Encoder Models, Throughput optimized', `${CSV_DIR}/throughput_data_encoder.csv`, 'fp32', [
    row('bert-base-cased', 'inf1.xlarge', 'batch', 8, 1095.4, 58.3, 65.0, '2.20.0', { processes: 4, workersPerProcess: 2, note: 'table row "BERT base (bert-base-cased)", PyTorch 1.13.1, N Models 4, Workers per Model 2' }),
    row('bert-base-uncased', 'inf1.xlarge', 'batch', 6, 1180.7, 40.6, 45.0, '2.20.0', { processes: 4, workersPerProcess: 2, note: 'N Models 4, Workers per Model 2' }),
    row('distilbert-base-uncased', 'inf1.xlarge', 'batch', 8, 1876.7, 33.7, 53.2, '2.20.0', { processes: 4, workersPerProcess: 2, note: 'N Models 4, Workers per Model 2' }),
    row('distilroberta-base', 'inf1.xlarge', 'batch', 6, 1512.9, 15.0, 25.9, '2.20.0', { processes: 4, workersPerProcess: 1, note: 'N Models 4, Workers per Model 1' }),
    // The HuggingFace TensorFlow 2 tutorial row leaves N Models empty. Its columns state 2123.4/s at batch 16 and
    // p50 30.0 ms: 2123.4 x 0.030 / 16 = 3.98 batches in flight, i.e. 4 copies of one call each, the one
    // Inferentia chip (4 NeuronCores) TensorFlow-Neuron uses by default per the tutorial. Dividing by all 16 cores
    // of inf1.6xlarge would credit each copy a quarter of what its latency shows.
    row('distilbert SST-2 (TF 2.10)', 'inf1.6xlarge', 'batch', 16, 2123.4, 30.0, 32.2, '2.20.0', { processes: 4, note: 'N Models not given; 2123.4/s x p50 30.0 ms / batch 16 = 3.98 copies in flight, so 4 copies on one chip, 12 cores idle' }),
  ]),
  section(INF1_2024_09, 'Encoder Models, Latency optimized', `${CSV_DIR}/latency_data_encoder.csv`, 'fp32', [
    row('bert-base-cased', 'inf1.xlarge', 'real-time', 1, 125.7, 7.9, 8.0, '2.20.0', { processes: 1, workersPerProcess: 1, note: 'N Models 1, Workers per Model 1: one process' }),
    row('bert-base-uncased', 'inf1.xlarge', 'real-time', 3, 284.7, 10.5, 10.7, '2.20.0', { processes: 1, workersPerProcess: 1, note: 'N Models 1, Workers per Model 1: one process' }),
    row('distilbert-base-uncased', 'inf1.xlarge', 'real-time', 6, 538.2, 11.1, 11.5, '2.20.0', { processes: 1, workersPerProcess: 1, note: 'N Models 1, Workers per Model 1: one process' }),
    row('distilroberta-base', 'inf1.xlarge', 'real-time', 3, 417.0, 7.0, 7.8, '2.20.0', { processes: 1, workersPerProcess: 1, note: 'N Models 1, Workers per Model 1: one process' }),
    // "Run Mode: Model Pipeline": one model process compiled across all 16 NeuronCores of inf1.6xlarge.
    row('BERT base (NeuronCore Pipeline)', 'inf1.6xlarge', 'real-time', 1, 2009.1, 5.9, 6.3, '2.20.0', { coresPerProcess: 16, processes: 1, note: 'Run Mode "Model Pipeline": NeuronCore Pipeline over 16 cores, one process' }),
  ]),
  section(INF1_2024_09, 'Convolutional Neural Networks (CNN) Models', `${CSV_DIR}/throughput_data_cnn.csv`, 'fp32', [
    row('resnet50', 'inf1.xlarge', 'batch', 5, 921.5, 21.6, 22.9, '2.20.0', { processes: 4, note: 'table row "Resnet50-PT(fp32,b5,c4)", Num. Cores 4' }),
    // The row's name says b5, its Batch Size column 10; the column is kept (at 10, its latency and throughput
    // agree with 4 copies of one call each).
    row('ResNet-50 (TF 1.15, fp16)', 'inf1.xlarge', 'batch', 10, 2207, 17.8, 22.7, '2.12.0', { processes: 4, precision: 'half', note: 'table row "Resnet50-TF(fp16,b5,c4)", Batch Size column 10, Num. Cores 4' }),
    row('YOLOv4 (PT 1.13)', 'inf1.2xlarge', 'real-time', 1, 180.3, 40.0, 50.8, '2.20.0', { processes: 4, note: 'Num. Cores 4, 8 threads: 2 requests in flight per copy' }),
    row('OpenPose (TF 1.15, fp16)', 'inf1.xlarge', 'real-time', 1, 57.5, 60.3, 67.4, '2.12.0', { processes: 4, precision: 'half', note: 'Num. Cores 4' }),
  ]),
];
