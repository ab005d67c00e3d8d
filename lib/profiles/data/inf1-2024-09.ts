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
import { NEURON_DOCS_REPO, type TableSection, type TableSource } from './rows';

/** The September 2024 Inf1 page. */
export const INF1_2024_09: TableSource = {
  document: 'AWS Neuron docs, "Inf1 Inference Performance"',
  url: 'https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/benchmarks/inf1/index.html',
  date: '2024-09-16',
};

const CSV_DIR = `${NEURON_DOCS_REPO} about-neuron/benchmarks/inf1`;

/** The encoder and CNN rows of the Inf1 page. */
export const INF1_2024_09_SECTIONS: readonly TableSection[] = [
  {
    source: INF1_2024_09,
    section: 'Encoder Models, Throughput optimized',
    csv: `${CSV_DIR}/throughput_data_encoder.csv`,
    precision: 'fp32',
    rows: [
      { model: 'bert-base-cased', instanceType: 'inf1.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 1095.4, p50Ms: 58.3, p99Ms: 65.0, neuronVersion: '2.20.0', processes: 4, workersPerProcess: 2, note: 'table row "BERT base (bert-base-cased)", PyTorch 1.13.1, N Models 4, Workers per Model 2' },
      { model: 'bert-base-uncased', instanceType: 'inf1.xlarge', mode: 'batch', batchSize: 6, instanceThroughputRps: 1180.7, p50Ms: 40.6, p99Ms: 45.0, neuronVersion: '2.20.0', processes: 4, workersPerProcess: 2, note: 'N Models 4, Workers per Model 2' },
      { model: 'distilbert-base-uncased', instanceType: 'inf1.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 1876.7, p50Ms: 33.7, p99Ms: 53.2, neuronVersion: '2.20.0', processes: 4, workersPerProcess: 2, note: 'N Models 4, Workers per Model 2' },
      { model: 'distilroberta-base', instanceType: 'inf1.xlarge', mode: 'batch', batchSize: 6, instanceThroughputRps: 1512.9, p50Ms: 15.0, p99Ms: 25.9, neuronVersion: '2.20.0', processes: 4, workersPerProcess: 1, note: 'N Models 4, Workers per Model 1' },
      // The HuggingFace TensorFlow 2 tutorial row leaves N Models empty. Its columns state 2123.4/s at batch 16 and
      // p50 30.0 ms: 2123.4 x 0.030 / 16 = 3.98 batches in flight, i.e. 4 copies of one call each, the one
      // Inferentia chip (4 NeuronCores) TensorFlow-Neuron uses by default per the tutorial. Dividing by all 16 cores
      // of inf1.6xlarge would credit each copy a quarter of what its latency shows.
      { model: 'distilbert SST-2 (TF 2.10)', instanceType: 'inf1.6xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 2123.4, p50Ms: 30.0, p99Ms: 32.2, neuronVersion: '2.20.0', processes: 4, note: 'N Models not given; 2123.4/s x p50 30.0 ms / batch 16 = 3.98 copies in flight, so 4 copies on one chip, 12 cores idle' },
    ],
  },
  {
    source: INF1_2024_09,
    section: 'Encoder Models, Latency optimized',
    csv: `${CSV_DIR}/latency_data_encoder.csv`,
    precision: 'fp32',
    rows: [
      { model: 'bert-base-cased', instanceType: 'inf1.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 125.7, p50Ms: 7.9, p99Ms: 8.0, neuronVersion: '2.20.0', processes: 1, workersPerProcess: 1, note: 'N Models 1, Workers per Model 1: one process' },
      { model: 'bert-base-uncased', instanceType: 'inf1.xlarge', mode: 'real-time', batchSize: 3, instanceThroughputRps: 284.7, p50Ms: 10.5, p99Ms: 10.7, neuronVersion: '2.20.0', processes: 1, workersPerProcess: 1, note: 'N Models 1, Workers per Model 1: one process' },
      { model: 'distilbert-base-uncased', instanceType: 'inf1.xlarge', mode: 'real-time', batchSize: 6, instanceThroughputRps: 538.2, p50Ms: 11.1, p99Ms: 11.5, neuronVersion: '2.20.0', processes: 1, workersPerProcess: 1, note: 'N Models 1, Workers per Model 1: one process' },
      { model: 'distilroberta-base', instanceType: 'inf1.xlarge', mode: 'real-time', batchSize: 3, instanceThroughputRps: 417.0, p50Ms: 7.0, p99Ms: 7.8, neuronVersion: '2.20.0', processes: 1, workersPerProcess: 1, note: 'N Models 1, Workers per Model 1: one process' },
      // "Run Mode: Model Pipeline": one model process compiled across all 16 NeuronCores of inf1.6xlarge.
      { model: 'BERT base (NeuronCore Pipeline)', instanceType: 'inf1.6xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 2009.1, p50Ms: 5.9, p99Ms: 6.3, neuronVersion: '2.20.0', coresPerProcess: 16, processes: 1, note: 'Run Mode "Model Pipeline": NeuronCore Pipeline over 16 cores, one process' },
    ],
  },
  {
    source: INF1_2024_09,
    section: 'Convolutional Neural Networks (CNN) Models',
    csv: `${CSV_DIR}/throughput_data_cnn.csv`,
    precision: 'fp32',
    rows: [
      { model: 'resnet50', instanceType: 'inf1.xlarge', mode: 'batch', batchSize: 5, instanceThroughputRps: 921.5, p50Ms: 21.6, p99Ms: 22.9, neuronVersion: '2.20.0', processes: 4, note: 'table row "Resnet50-PT(fp32,b5,c4)", Num. Cores 4' },
      // The row's name says b5, its Batch Size column 10; the column is kept (at 10, its latency and throughput
      // agree with 4 copies of one call each).
      { model: 'ResNet-50 (TF 1.15, fp16)', instanceType: 'inf1.xlarge', mode: 'batch', batchSize: 10, instanceThroughputRps: 2207, p50Ms: 17.8, p99Ms: 22.7, neuronVersion: '2.12.0', processes: 4, precision: 'half', note: 'table row "Resnet50-TF(fp16,b5,c4)", Batch Size column 10, Num. Cores 4' },
      { model: 'YOLOv4 (PT 1.13)', instanceType: 'inf1.2xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 180.3, p50Ms: 40.0, p99Ms: 50.8, neuronVersion: '2.20.0', processes: 4, note: 'Num. Cores 4, 8 threads: 2 requests in flight per copy' },
      { model: 'OpenPose (TF 1.15, fp16)', instanceType: 'inf1.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 57.5, p50Ms: 60.3, p99Ms: 67.4, neuronVersion: '2.12.0', processes: 4, precision: 'half', note: 'Num. Cores 4' },
    ],
  },
];
