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
import { NEURON_DOCS_REPO, row, section, type TableSection, type TableSource } from './rows';

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
const ENCODER_BATCH = section(INF2_2024_09, 'Encoder Models, Batch', `${CSV_DIR}/throughput_data_encoder.csv`, 'fp32-matmult-bf16', [
  row('albert-base-v2', 'inf2.xlarge', 'batch', 8, 2999.88, 5.32, 5.49, '2.20.0'),
  row('bert-base-cased', 'inf2.xlarge', 'batch', 4, 2697.72, 2.95, 3.11, '2.20.0'),
  row('bert-base-cased-finetuned-mrpc', 'inf2.xlarge', 'batch', 16, 2907.45, 11.03, 11.32, '2.20.0'),
  row('bert-base-uncased', 'inf2.xlarge', 'batch', 8, 2756.19, 5.75, 6.35, '2.20.0'),
  row('bert-large-cased', 'inf2.xlarge', 'batch', 8, 906.91, 16.95, 18.93, '2.20.0'),
  row('bert-large-uncased', 'inf2.xlarge', 'batch', 4, 919.08, 8.73, 9.12, '2.18.0'),
  row('camembert-base', 'inf2.xlarge', 'batch', 16, 2904.22, 10.98, 11.51, '2.20.0'),
  row('distilbert-base-cased', 'inf2.xlarge', 'batch', 4, 4756.25, 1.67, 1.81, '2.20.0'),
  row('distilbert-base-cased-distilled-squad', 'inf2.xlarge', 'batch', 4, 4741.08, 1.68, 1.81, '2.20.0'),
  row('distilbert-base-uncased', 'inf2.xlarge', 'batch', 16, 5043.38, 6.3, 6.88, '2.20.0'),
  row('google/electra-base-discriminator', 'inf2.xlarge', 'batch', 16, 2756.87, 11.54, 12.19, '2.20.0'),
  row('roberta-base', 'inf2.xlarge', 'batch', 8, 2743.63, 5.84, 5.95, '2.20.0'),
  row('roberta-large', 'inf2.xlarge', 'batch', 4, 969.49, 8.23, 8.68, '2.20.0'),
  row('xlm-roberta-base', 'inf2.48xlarge', 'batch', 16, 51.29, 628.73, 695.07, '2.20.0'),
]);

/** Encoder models, Real Time tab (batch 1). */
const ENCODER_REAL_TIME = section(INF2_2024_09, 'Encoder Models, Real Time', `${CSV_DIR}/latency_data_encoder.csv`, 'fp32-matmult-bf16', [
  row('albert-base-v2', 'inf2.xlarge', 'real-time', 1, 2034.71, 0.98, 1.05, '2.20.0'),
  // bert-base-cased left out: see the file comment.
  row('bert-base-cased-finetuned-mrpc', 'inf2.xlarge', 'real-time', 1, 2117.52, 0.93, 1.0, '2.20.0'),
  row('bert-base-uncased', 'inf2.xlarge', 'real-time', 1, 1974.52, 1.01, 1.09, '2.20.0'),
  row('bert-large-cased', 'inf2.xlarge', 'real-time', 1, 718.66, 2.78, 2.86, '2.20.0'),
  row('bert-large-uncased', 'inf2.xlarge', 'real-time', 1, 728.39, 2.78, 2.86, '2.20.0'),
  row('camembert-base', 'inf2.xlarge', 'real-time', 1, 1931.2, 1.03, 1.09, '2.20.0'),
  row('distilbert-base-cased', 'inf2.xlarge', 'real-time', 1, 3255.95, 0.61, 0.67, '2.20.0'),
  row('distilbert-base-cased-distilled-squad', 'inf2.xlarge', 'real-time', 1, 3255.97, 0.61, 0.68, '2.20.0'),
  row('distilbert-base-uncased', 'inf2.xlarge', 'real-time', 1, 3248.31, 0.61, 0.68, '2.20.0'),
  row('google/electra-base-discriminator', 'inf2.xlarge', 'real-time', 1, 2019.69, 0.98, 1.08, '2.20.0'),
  row('roberta-base', 'inf2.xlarge', 'real-time', 1, 1926.26, 1.03, 1.1, '2.20.0'),
  row('roberta-large', 'inf2.xlarge', 'real-time', 1, 721.21, 2.76, 2.84, '2.20.0'),
  row('xlm-roberta-base', 'inf2.48xlarge', 'real-time', 1, 41.24, 48.27, 58.71, '2.20.0'),
]);

/**
 * Vision Transformers models, both tabs. The Perceiver rows (Real Time only, PyTorch 1.13.1) appear in both tabs
 * with the same values and are listed once. deepmind/multimodal-perceiver has no autocast (plain FP32).
 */
const VISION_TRANSFORMERS = section(INF2_2024_09, 'Vision Transformers Models', `${CSV_DIR}/throughput_data_vision_transformers.csv and latency_data_vision_transformers.csv`, 'fp32-matmult-bf16', [
  row('deepmind/multimodal-perceiver', 'inf2.xlarge', 'real-time', 1, 0.83, 1250.0, 1271.0, '2.18.0', { precision: 'fp32' }),
  row('deepmind/vision-perceiver-conv', 'inf2.xlarge', 'real-time', 1, 126.5, 14.14, 14.2, '2.18.0'),
  row('deepmind/vision-perceiver-fourier', 'inf2.xlarge', 'real-time', 1, 67.9, 29.5, 29.68, '2.18.0'),
  row('deepmind/vision-perceiver-learned', 'inf2.xlarge', 'real-time', 1, 99.6, 18.6, 18.7, '2.18.0'),
  row('google/vit-base-patch16-224', 'inf2.xlarge', 'batch', 2, 1773.97, 4.5, 4.69, '2.18.0'),
  row('openai/clip-vit-base-patch32', 'inf2.xlarge', 'batch', 64, 6099.53, 46.31, 66.27, '2.18.0'),
  row('openai/clip-vit-large-patch14', 'inf2.xlarge', 'batch', 8, 304.07, 105.9, 110.58, '2.18.0'),
  row('google/vit-base-patch16-224', 'inf2.xlarge', 'real-time', 1, 728.93, 1.36, 1.4, '2.18.0'),
  row('openai/clip-vit-base-patch32', 'inf2.xlarge', 'real-time', 1, 158.38, 6.31, 6.34, '2.18.0'),
  row('openai/clip-vit-large-patch14', 'inf2.xlarge', 'real-time', 1, 73.23, 13.65, 13.71, '2.18.0'),
]);

/** Convolutional Neural Networks (CNN) models, Batch tab (224x224). */
const CNN_BATCH = section(INF2_2024_09, 'Convolutional Neural Networks (CNN) Models, Batch', `${CSV_DIR}/throughput_data_vision_cnn.csv`, 'fp32-matmult-bf16', [
  row('UNet', 'inf2.xlarge', 'batch', 4, 999.94, 15.99, 16.08, '2.20.0'),
  row('resnet101', 'inf2.xlarge', 'batch', 64, 3178.53, 80.43, 80.56, '2.20.0'),
  row('resnet152', 'inf2.xlarge', 'batch', 64, 2430.45, 105.24, 105.36, '2.20.0'),
  row('resnet18', 'inf2.xlarge', 'batch', 8, 6944.75, 4.59, 4.66, '2.20.0'),
  row('resnet34', 'inf2.xlarge', 'batch', 8, 5116.51, 6.24, 6.31, '2.20.0'),
  row('resnet50', 'inf2.xlarge', 'batch', 8, 4420.47, 7.23, 7.31, '2.20.0'),
  row('vgg11', 'inf2.xlarge', 'batch', 64, 4687.13, 54.55, 54.65, '2.20.0'),
  row('vgg16', 'inf2.xlarge', 'batch', 8, 2095.37, 15.25, 15.32, '2.20.0'),
]);

/** Convolutional Neural Networks (CNN) models, Real Time tab (224x224, batch 1). */
const CNN_REAL_TIME = section(INF2_2024_09, 'Convolutional Neural Networks (CNN) Models, Real Time', `${CSV_DIR}/latency_data_vision_cnn.csv`, 'fp32-matmult-bf16', [
  row('UNet', 'inf2.xlarge', 'real-time', 1, 443.54, 2.26, 2.28, '2.20.0'),
  row('resnet101', 'inf2.xlarge', 'real-time', 1, 984.12, 1.01, 1.03, '2.20.0'),
  row('resnet152', 'inf2.xlarge', 'real-time', 1, 828.62, 1.2, 1.23, '2.20.0'),
  row('resnet18', 'inf2.xlarge', 'real-time', 1, 1637.7, 0.6, 0.63, '2.20.0'),
  row('resnet34', 'inf2.xlarge', 'real-time', 1, 1368.5, 0.73, 0.74, '2.20.0'),
  row('resnet50', 'inf2.xlarge', 'real-time', 1, 1246.26, 0.79, 0.85, '2.20.0'),
  row('vgg11', 'inf2.xlarge', 'real-time', 1, 630.69, 1.61, 1.63, '2.20.0'),
  row('vgg16', 'inf2.xlarge', 'real-time', 1, 441.12, 2.26, 2.3, '2.20.0'),
]);

/** Stable Diffusion models (Real Time, batch 1; both tabs identical). */
const STABLE_DIFFUSION = section(INF2_2024_09, 'Stable Diffusion Models, Real Time', `${CSV_DIR}/latency_data_vision_sd.csv`, 'fp32-matmult-bf16', [
  row('Stable Diffusion 1.5', 'inf2.xlarge', 'real-time', 1, 0.48, 2089.0, 2093.0, '2.18.0', { coresPerProcess: 2, note: `512x512; ${PIPELINE_ON_TWO_CORES}` }),
  row('Stable Diffusion 2 Inpainting', 'inf2.xlarge', 'real-time', 1, 0.16, 6045.0, 6063.4, '2.18.0', { coresPerProcess: 2, note: `936x624; ${PIPELINE_ON_TWO_CORES}` }),
  row('Stable Diffusion 2.1 (512x512)', 'inf2.xlarge', 'real-time', 1, 0.6, 1655.0, 1663.0, '2.18.0', { coresPerProcess: 2, note: `${SIZE_IN_ID}; ${PIPELINE_ON_TWO_CORES}` }),
  row('Stable Diffusion 2.1 (768x768)', 'inf2.xlarge', 'real-time', 1, 0.18, 5504.0, 5519.0, '2.18.0', { coresPerProcess: 2, note: `${SIZE_IN_ID}; ${PIPELINE_ON_TWO_CORES}` }),
  row('Stable Diffusion XL Base', 'inf2.xlarge', 'real-time', 1, 0.08, 12200.0, 12260.0, '2.18.0', { coresPerProcess: 2, note: `1024x1024; ${PIPELINE_ON_TWO_CORES}` }),
  row('Stable Diffusion XL Base & Refiner', 'inf2.8xlarge', 'real-time', 1, 0.09, 10741.0, 11006.0, '2.18.0', { coresPerProcess: 2, note: `1024x1024; ${PIPELINE_ON_TWO_CORES}` }),
]);

/** Diffusion Transformer models (Real Time, batch 1; both tabs identical). The table writes the Neuron version as "2.2". */
const DIFFUSION_TRANSFORMERS = section(INF2_2024_09, 'Diffusion Transformer Models, Real Time', `${CSV_DIR}/latency_data_vision_dit.csv`, 'half', [
  row('PixArt Alpha (256x256)', 'inf2.xlarge', 'real-time', 1, 1.98, 502.59, 537.26, '2.2', { coresPerProcess: 2, note: `${SIZE_IN_ID}; ${PIPELINE_ON_TWO_CORES}` }),
  row('PixArt Alpha (512x512)', 'inf2.xlarge', 'real-time', 1, 0.56, 1769.76, 1775.7, '2.2', { coresPerProcess: 2, note: `${SIZE_IN_ID}; ${PIPELINE_ON_TWO_CORES}` }),
  row('PixArt Sigma (256x256)', 'inf2.xlarge', 'real-time', 1, 1.86, 540.83, 548.41, '2.2', { coresPerProcess: 2, note: `${SIZE_IN_ID}; ${PIPELINE_ON_TWO_CORES}` }),
  row('PixArt Sigma (512x512)', 'inf2.xlarge', 'real-time', 1, 0.54, 1841.88, 1850.68, '2.2', { coresPerProcess: 2, note: `${SIZE_IN_ID}; ${PIPELINE_ON_TWO_CORES}` }),
]);

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
