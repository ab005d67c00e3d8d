/**
 * Inf1 rows of the Neuron "Inf1 Inference Performance" page, last updated September 16th, 2024.
 *
 * Source: /work/shared/reference/inferentia-facts.md §8a (NEURON
 * `about-neuron/benchmarks/inf1/{throughput_data_encoder,latency_data_encoder,throughput_data_cnn}.csv`). The page
 * marks its benchmark scripts historical and untested. Batch encoder rows: sequence length 128, fp32, data parallel
 * over the 4 NeuronCore-v1 of the instance. Throughputs are for the whole instance, as the table writes them.
 *
 * Ids: the facts table folds framework and run mode into its Model column. PyTorch rows of a model the Inf2 tables
 * also list join that profile (`bert-base-cased (PT 1.13.1)` -> `bert-base-cased`, `ResNet-50 (PT 1.13, fp32)` ->
 * `resnet50`). Rows from another framework or precision, or of an unnamed BERT variant, keep the table's text as id,
 * so the planner never mixes a TensorFlow fp16 artifact's numbers into a PyTorch model's profile.
 */
import type { TableSection, TableSource } from './rows';

/** The September 2024 Inf1 page, as the facts file quotes it. */
export const INF1_2024_09: TableSource = {
  document: 'AWS Neuron docs, "Inf1 Inference Performance" (inferentia-facts.md §8a)',
  date: '2024-09-16',
};

/** The encoder and CNN rows of the Inf1 page. */
export const INF1_2024_09_SECTIONS: readonly TableSection[] = [
  {
    source: INF1_2024_09,
    section: 'Encoder Models, Throughput optimized',
    rows: [
      // "4 models x 2 workers": still 4 processes, one per NeuronCore.
      { model: 'bert-base-cased', instanceType: 'inf1.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 1095.4, p50Ms: 58.3, p99Ms: 65.0, neuronVersion: '2.20.0', note: 'table row "bert-base-cased (PT 1.13.1)", 4 models x 2 workers' },
      { model: 'bert-base-uncased', instanceType: 'inf1.xlarge', mode: 'batch', batchSize: 6, instanceThroughputRps: 1180.7, p50Ms: 40.6, p99Ms: 45.0, neuronVersion: '2.20.0' },
      { model: 'distilbert-base-uncased', instanceType: 'inf1.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 1876.7, p50Ms: 33.7, p99Ms: 53.2, neuronVersion: '2.20.0' },
      { model: 'distilroberta-base', instanceType: 'inf1.xlarge', mode: 'batch', batchSize: 6, instanceThroughputRps: 1512.9, p50Ms: 15.0, p99Ms: 25.9, neuronVersion: '2.20.0' },
      // TensorFlow 2.10, 16 processes over the 16 NeuronCores of inf1.6xlarge.
      { model: 'distilbert SST-2 (TF 2.10)', instanceType: 'inf1.6xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 2123.4, p50Ms: 30.0, p99Ms: 32.2, neuronVersion: '2.20.0' },
    ],
  },
  {
    source: INF1_2024_09,
    section: 'Encoder Models, Latency optimized',
    rows: [
      { model: 'bert-base-cased', instanceType: 'inf1.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 125.7, p50Ms: 7.9, p99Ms: 8.0, neuronVersion: '2.20.0' },
      { model: 'bert-base-uncased', instanceType: 'inf1.xlarge', mode: 'real-time', batchSize: 3, instanceThroughputRps: 284.7, p50Ms: 10.5, p99Ms: 10.7, neuronVersion: '2.20.0' },
      { model: 'distilbert-base-uncased', instanceType: 'inf1.xlarge', mode: 'real-time', batchSize: 6, instanceThroughputRps: 538.2, p50Ms: 11.1, p99Ms: 11.5, neuronVersion: '2.20.0' },
      { model: 'distilroberta-base', instanceType: 'inf1.xlarge', mode: 'real-time', batchSize: 3, instanceThroughputRps: 417.0, p50Ms: 7.0, p99Ms: 7.8, neuronVersion: '2.20.0' },
      // NeuronCore Pipeline: one model process compiled across all 16 NeuronCores of inf1.6xlarge.
      { model: 'BERT base (NeuronCore Pipeline)', instanceType: 'inf1.6xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 2009.1, p50Ms: 5.9, p99Ms: 6.3, neuronVersion: '2.20.0', coresPerProcess: 16, note: 'NeuronCore Pipeline over 16 cores, one process' },
    ],
  },
  {
    source: INF1_2024_09,
    section: 'Convolutional Neural Networks (CNN) Models',
    rows: [
      { model: 'resnet50', instanceType: 'inf1.xlarge', mode: 'batch', batchSize: 5, instanceThroughputRps: 921.5, p50Ms: 21.6, p99Ms: 22.9, neuronVersion: '2.20.0', note: 'table row "ResNet-50 (PT 1.13, fp32)"' },
      { model: 'ResNet-50 (TF 1.15, fp16)', instanceType: 'inf1.xlarge', mode: 'batch', batchSize: 10, instanceThroughputRps: 2207, p50Ms: 17.8, p99Ms: 22.7, neuronVersion: '2.12.0' },
      { model: 'YOLOv4 (PT 1.13)', instanceType: 'inf1.2xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 180.3, p50Ms: 40.0, p99Ms: 50.8, neuronVersion: '2.20.0' },
      { model: 'OpenPose (TF 1.15, fp16)', instanceType: 'inf1.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 57.5, p50Ms: 60.3, p99Ms: 67.4, neuronVersion: '2.12.0' },
    ],
  },
];
