/**
 * Inf2 rows of the Neuron "Inf2 Inference Performance" page as it stood on September 16th, 2024 ("Last update:
 * September 16th, 2024"), then at https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/benchmarks/inf2/inf2-performance.html.
 *
 * Source: that page revision and its CSVs in aws-neuron/aws-neuron-sdk (`general/benchmarks/inf2/*.csv` then,
 * `about-neuron/benchmarks/inf2/` now). Every row: "Run Mode: Data Parallel", FP32 model compiled with Matmult-BF16
 * autocast unless noted; encoders at sequence length 128. Throughputs are for the whole instance, exactly as the
 * table writes them; `builtin.ts` divides them per process.
 *
 * Rows here are used only where the February 2026 page (`inf2-2026-02.ts`) has no row of the same model, batch size
 * and mode: models the current page dropped (bert-base-cased, bert-base-cased-finetuned-mrpc, bert-large-cased,
 * camembert-base, distilbert-base-cased, distilbert-base-cased-distilled-squad), and the sections whose current CSV
 * this project could not read (CNN batch rows other than resnet50, CLIP real time, Stable Diffusion, PixArt).
 * Superseded rows stay here as the table wrote them and `builtin.ts` keeps the newer one.
 *
 * Left out: the Encoder-Decoder tables (google/flan-t5-xl, t5-3b): their throughput counts tokens, not inferences.
 * Left out: the bert-base-cased Real Time row (41.24/s at p50 1.02 ms, p99 1.09 ms). Its throughput is the
 * xlm-roberta-base Real Time row's 41.24/s, a copy slip in the table: at 1.02 ms per call one copy alone does 980/s.
 * Kept, it would make any plan that picks it 50x too large; not kept, bert-base-cased plans from its batch-4 row.
 * The page repeats the vision, Stable Diffusion and Diffusion Transformer tables in a second tab; identical repeats
 * appear here once.
 */
import { NEURON_DOCS_REPO, type TableSection, type TableSource } from './rows';

/** The September 2024 Inf2 page. */
export const INF2_2024_09: TableSource = {
  document: 'AWS Neuron docs, "Inf2 Inference Performance"',
  url: 'https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/benchmarks/inf2/inf2-performance.html',
  date: '2024-09-16',
};

const CSV_DIR = `${NEURON_DOCS_REPO} general/benchmarks/inf2`;

/**
 * Image-generation pipelines load their UNet / transformer on both NeuronCores of the chip with
 * `torch_neuronx.DataParallel(model, [0, 1])` and serve one image at a time (aws-neuron-samples
 * `torch-neuronx/inference/hf_pretrained_sd15_512_inference.ipynb`, `hf_pretrained_pixart_alpha_inference_on_inf2.ipynb`).
 * The rows agree: throughput x p50 is about 1 (SD 1.5: 0.48/s x 2.089 s = 1.0). So one process uses 2 cores.
 */
const PIPELINE_ON_TWO_CORES =
  'one pipeline process on both NeuronCores (torch_neuronx.DataParallel over cores 0-1, aws-neuron-samples notebooks)';

/** Several image sizes of one model are different workloads, so each size is its own profile. */
const SIZE_IN_ID = 'the table lists this model at several image sizes; the size is part of the id';

/** Encoder models, Batch tab. */
const ENCODER_BATCH: TableSection = {
  source: INF2_2024_09,
  section: 'Encoder Models, Batch',
  csv: `${CSV_DIR}/throughput_data_encoder.csv`,
  precision: 'fp32-matmult-bf16',
  rows: [
    { model: 'albert-base-v2', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 2999.88, p50Ms: 5.32, p99Ms: 5.49, neuronVersion: '2.20.0' },
    { model: 'bert-base-cased', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 4, instanceThroughputRps: 2697.72, p50Ms: 2.95, p99Ms: 3.11, neuronVersion: '2.20.0' },
    { model: 'bert-base-cased-finetuned-mrpc', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 2907.45, p50Ms: 11.03, p99Ms: 11.32, neuronVersion: '2.20.0' },
    { model: 'bert-base-uncased', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 2756.19, p50Ms: 5.75, p99Ms: 6.35, neuronVersion: '2.20.0' },
    { model: 'bert-large-cased', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 906.91, p50Ms: 16.95, p99Ms: 18.93, neuronVersion: '2.20.0' },
    { model: 'bert-large-uncased', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 4, instanceThroughputRps: 919.08, p50Ms: 8.73, p99Ms: 9.12, neuronVersion: '2.18.0' },
    { model: 'camembert-base', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 2904.22, p50Ms: 10.98, p99Ms: 11.51, neuronVersion: '2.20.0' },
    { model: 'distilbert-base-cased', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 4, instanceThroughputRps: 4756.25, p50Ms: 1.67, p99Ms: 1.81, neuronVersion: '2.20.0' },
    { model: 'distilbert-base-cased-distilled-squad', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 4, instanceThroughputRps: 4741.08, p50Ms: 1.68, p99Ms: 1.81, neuronVersion: '2.20.0' },
    { model: 'distilbert-base-uncased', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 5043.38, p50Ms: 6.3, p99Ms: 6.88, neuronVersion: '2.20.0' },
    { model: 'google/electra-base-discriminator', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 2756.87, p50Ms: 11.54, p99Ms: 12.19, neuronVersion: '2.20.0' },
    { model: 'roberta-base', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 2743.63, p50Ms: 5.84, p99Ms: 5.95, neuronVersion: '2.20.0' },
    { model: 'roberta-large', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 4, instanceThroughputRps: 969.49, p50Ms: 8.23, p99Ms: 8.68, neuronVersion: '2.20.0' },
    { model: 'xlm-roberta-base', instanceType: 'inf2.48xlarge', mode: 'batch', batchSize: 16, instanceThroughputRps: 51.29, p50Ms: 628.73, p99Ms: 695.07, neuronVersion: '2.20.0' },
  ],
};

/** Encoder models, Real Time tab (batch 1). */
const ENCODER_REAL_TIME: TableSection = {
  source: INF2_2024_09,
  section: 'Encoder Models, Real Time',
  csv: `${CSV_DIR}/latency_data_encoder.csv`,
  precision: 'fp32-matmult-bf16',
  rows: [
    { model: 'albert-base-v2', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 2034.71, p50Ms: 0.98, p99Ms: 1.05, neuronVersion: '2.20.0' },
    // bert-base-cased left out: see the file comment.
    { model: 'bert-base-cased-finetuned-mrpc', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 2117.52, p50Ms: 0.93, p99Ms: 1.0, neuronVersion: '2.20.0' },
    { model: 'bert-base-uncased', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 1974.52, p50Ms: 1.01, p99Ms: 1.09, neuronVersion: '2.20.0' },
    { model: 'bert-large-cased', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 718.66, p50Ms: 2.78, p99Ms: 2.86, neuronVersion: '2.20.0' },
    { model: 'bert-large-uncased', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 728.39, p50Ms: 2.78, p99Ms: 2.86, neuronVersion: '2.20.0' },
    { model: 'camembert-base', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 1931.2, p50Ms: 1.03, p99Ms: 1.09, neuronVersion: '2.20.0' },
    { model: 'distilbert-base-cased', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 3255.95, p50Ms: 0.61, p99Ms: 0.67, neuronVersion: '2.20.0' },
    { model: 'distilbert-base-cased-distilled-squad', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 3255.97, p50Ms: 0.61, p99Ms: 0.68, neuronVersion: '2.20.0' },
    { model: 'distilbert-base-uncased', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 3248.31, p50Ms: 0.61, p99Ms: 0.68, neuronVersion: '2.20.0' },
    { model: 'google/electra-base-discriminator', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 2019.69, p50Ms: 0.98, p99Ms: 1.08, neuronVersion: '2.20.0' },
    { model: 'roberta-base', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 1926.26, p50Ms: 1.03, p99Ms: 1.1, neuronVersion: '2.20.0' },
    { model: 'roberta-large', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 721.21, p50Ms: 2.76, p99Ms: 2.84, neuronVersion: '2.20.0' },
    { model: 'xlm-roberta-base', instanceType: 'inf2.48xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 41.24, p50Ms: 48.27, p99Ms: 58.71, neuronVersion: '2.20.0' },
  ],
};

/**
 * Vision Transformers models, both tabs. The Perceiver rows (Real Time only, PyTorch 1.13.1) appear in both tabs
 * with the same values and are listed once. deepmind/multimodal-perceiver has no autocast (plain FP32).
 */
const VISION_TRANSFORMERS: TableSection = {
  source: INF2_2024_09,
  section: 'Vision Transformers Models',
  csv: `${CSV_DIR}/throughput_data_vision_transformers.csv and latency_data_vision_transformers.csv`,
  precision: 'fp32-matmult-bf16',
  rows: [
    { model: 'deepmind/multimodal-perceiver', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 0.83, p50Ms: 1250.0, p99Ms: 1271.0, neuronVersion: '2.18.0', precision: 'fp32' },
    { model: 'deepmind/vision-perceiver-conv', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 126.5, p50Ms: 14.14, p99Ms: 14.2, neuronVersion: '2.18.0' },
    { model: 'deepmind/vision-perceiver-fourier', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 67.9, p50Ms: 29.5, p99Ms: 29.68, neuronVersion: '2.18.0' },
    { model: 'deepmind/vision-perceiver-learned', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 99.6, p50Ms: 18.6, p99Ms: 18.7, neuronVersion: '2.18.0' },
    { model: 'google/vit-base-patch16-224', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 2, instanceThroughputRps: 1773.97, p50Ms: 4.5, p99Ms: 4.69, neuronVersion: '2.18.0' },
    { model: 'openai/clip-vit-base-patch32', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 64, instanceThroughputRps: 6099.53, p50Ms: 46.31, p99Ms: 66.27, neuronVersion: '2.18.0' },
    { model: 'openai/clip-vit-large-patch14', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 304.07, p50Ms: 105.9, p99Ms: 110.58, neuronVersion: '2.18.0' },
    { model: 'google/vit-base-patch16-224', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 728.93, p50Ms: 1.36, p99Ms: 1.4, neuronVersion: '2.18.0' },
    { model: 'openai/clip-vit-base-patch32', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 158.38, p50Ms: 6.31, p99Ms: 6.34, neuronVersion: '2.18.0' },
    { model: 'openai/clip-vit-large-patch14', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 73.23, p50Ms: 13.65, p99Ms: 13.71, neuronVersion: '2.18.0' },
  ],
};

/** Convolutional Neural Networks (CNN) models, Batch tab (224x224). */
const CNN_BATCH: TableSection = {
  source: INF2_2024_09,
  section: 'Convolutional Neural Networks (CNN) Models, Batch',
  csv: `${CSV_DIR}/throughput_data_vision_cnn.csv`,
  precision: 'fp32-matmult-bf16',
  rows: [
    { model: 'UNet', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 4, instanceThroughputRps: 999.94, p50Ms: 15.99, p99Ms: 16.08, neuronVersion: '2.20.0' },
    { model: 'resnet101', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 64, instanceThroughputRps: 3178.53, p50Ms: 80.43, p99Ms: 80.56, neuronVersion: '2.20.0' },
    { model: 'resnet152', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 64, instanceThroughputRps: 2430.45, p50Ms: 105.24, p99Ms: 105.36, neuronVersion: '2.20.0' },
    { model: 'resnet18', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 6944.75, p50Ms: 4.59, p99Ms: 4.66, neuronVersion: '2.20.0' },
    { model: 'resnet34', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 5116.51, p50Ms: 6.24, p99Ms: 6.31, neuronVersion: '2.20.0' },
    { model: 'resnet50', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 4420.47, p50Ms: 7.23, p99Ms: 7.31, neuronVersion: '2.20.0' },
    { model: 'vgg11', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 64, instanceThroughputRps: 4687.13, p50Ms: 54.55, p99Ms: 54.65, neuronVersion: '2.20.0' },
    { model: 'vgg16', instanceType: 'inf2.xlarge', mode: 'batch', batchSize: 8, instanceThroughputRps: 2095.37, p50Ms: 15.25, p99Ms: 15.32, neuronVersion: '2.20.0' },
  ],
};

/** Convolutional Neural Networks (CNN) models, Real Time tab (224x224, batch 1). */
const CNN_REAL_TIME: TableSection = {
  source: INF2_2024_09,
  section: 'Convolutional Neural Networks (CNN) Models, Real Time',
  csv: `${CSV_DIR}/latency_data_vision_cnn.csv`,
  precision: 'fp32-matmult-bf16',
  rows: [
    { model: 'UNet', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 443.54, p50Ms: 2.26, p99Ms: 2.28, neuronVersion: '2.20.0' },
    { model: 'resnet101', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 984.12, p50Ms: 1.01, p99Ms: 1.03, neuronVersion: '2.20.0' },
    { model: 'resnet152', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 828.62, p50Ms: 1.2, p99Ms: 1.23, neuronVersion: '2.20.0' },
    { model: 'resnet18', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 1637.7, p50Ms: 0.6, p99Ms: 0.63, neuronVersion: '2.20.0' },
    { model: 'resnet34', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 1368.5, p50Ms: 0.73, p99Ms: 0.74, neuronVersion: '2.20.0' },
    { model: 'resnet50', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 1246.26, p50Ms: 0.79, p99Ms: 0.85, neuronVersion: '2.20.0' },
    { model: 'vgg11', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 630.69, p50Ms: 1.61, p99Ms: 1.63, neuronVersion: '2.20.0' },
    { model: 'vgg16', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 441.12, p50Ms: 2.26, p99Ms: 2.3, neuronVersion: '2.20.0' },
  ],
};

/** Stable Diffusion models (Real Time, batch 1; both tabs identical). */
const STABLE_DIFFUSION: TableSection = {
  source: INF2_2024_09,
  section: 'Stable Diffusion Models, Real Time',
  csv: `${CSV_DIR}/latency_data_vision_sd.csv`,
  precision: 'fp32-matmult-bf16',
  rows: [
    { model: 'Stable Diffusion 1.5', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 0.48, p50Ms: 2089.0, p99Ms: 2093.0, neuronVersion: '2.18.0', coresPerProcess: 2, note: `512x512; ${PIPELINE_ON_TWO_CORES}` },
    { model: 'Stable Diffusion 2 Inpainting', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 0.16, p50Ms: 6045.0, p99Ms: 6063.4, neuronVersion: '2.18.0', coresPerProcess: 2, note: `936x624; ${PIPELINE_ON_TWO_CORES}` },
    { model: 'Stable Diffusion 2.1 (512x512)', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 0.6, p50Ms: 1655.0, p99Ms: 1663.0, neuronVersion: '2.18.0', coresPerProcess: 2, note: `${SIZE_IN_ID}; ${PIPELINE_ON_TWO_CORES}` },
    { model: 'Stable Diffusion 2.1 (768x768)', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 0.18, p50Ms: 5504.0, p99Ms: 5519.0, neuronVersion: '2.18.0', coresPerProcess: 2, note: `${SIZE_IN_ID}; ${PIPELINE_ON_TWO_CORES}` },
    { model: 'Stable Diffusion XL Base', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 0.08, p50Ms: 12200.0, p99Ms: 12260.0, neuronVersion: '2.18.0', coresPerProcess: 2, note: `1024x1024; ${PIPELINE_ON_TWO_CORES}` },
    { model: 'Stable Diffusion XL Base & Refiner', instanceType: 'inf2.8xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 0.09, p50Ms: 10741.0, p99Ms: 11006.0, neuronVersion: '2.18.0', coresPerProcess: 2, note: `1024x1024; ${PIPELINE_ON_TWO_CORES}` },
  ],
};

/** Diffusion Transformer models (Real Time, batch 1; both tabs identical). The table writes the Neuron version as "2.2". */
const DIFFUSION_TRANSFORMERS: TableSection = {
  source: INF2_2024_09,
  section: 'Diffusion Transformer Models, Real Time',
  csv: `${CSV_DIR}/latency_data_vision_dit.csv`,
  precision: 'half',
  rows: [
    { model: 'PixArt Alpha (256x256)', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 1.98, p50Ms: 502.59, p99Ms: 537.26, neuronVersion: '2.2', coresPerProcess: 2, note: `${SIZE_IN_ID}; ${PIPELINE_ON_TWO_CORES}` },
    { model: 'PixArt Alpha (512x512)', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 0.56, p50Ms: 1769.76, p99Ms: 1775.7, neuronVersion: '2.2', coresPerProcess: 2, note: `${SIZE_IN_ID}; ${PIPELINE_ON_TWO_CORES}` },
    { model: 'PixArt Sigma (256x256)', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 1.86, p50Ms: 540.83, p99Ms: 548.41, neuronVersion: '2.2', coresPerProcess: 2, note: `${SIZE_IN_ID}; ${PIPELINE_ON_TWO_CORES}` },
    { model: 'PixArt Sigma (512x512)', instanceType: 'inf2.xlarge', mode: 'real-time', batchSize: 1, instanceThroughputRps: 0.54, p50Ms: 1841.88, p99Ms: 1850.68, neuronVersion: '2.2', coresPerProcess: 2, note: `${SIZE_IN_ID}; ${PIPELINE_ON_TWO_CORES}` },
  ],
};

/** Every encoder and vision section of the September 2024 Inf2 page. */
export const INF2_2024_09_SECTIONS: readonly TableSection[] = [
  ENCODER_BATCH,
  ENCODER_REAL_TIME,
  VISION_TRANSFORMERS,
  CNN_BATCH,
  CNN_REAL_TIME,
  STABLE_DIFFUSION,
  DIFFUSION_TRANSFORMERS,
];
