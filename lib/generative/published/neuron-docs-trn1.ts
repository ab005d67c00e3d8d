/**
 * Rows of the AWS Neuron "Trn1/Trn1n Inference Performance" page's LLM, decoder and encoder-decoder tables, every
 * revision (how they are read: `neuron-docs.ts`).
 * Left out: the opt-13b and opt-30b rows of the 2.11 trn1 tables (4f22a5d4: "Data Parallel" at batch 256 under
 * "Real Time", no tensor-parallel degree) and the "Real Time" opt rows of the 2.14 trn1 tables (5b489f8f: batch 256 at
 * sequence 2048, throughput below one token per p50 latency, and a p99 below the p50 for opt-30b).
 */
import { perTokenRow, ttftTpotRow } from './neuron-docs';
import type { PublishedRow } from './types';

/** Every distinct trn1 row of the Neuron performance pages. */
export const NEURON_DOCS_TRN1_ROWS: readonly PublishedRow[] = [
  perTokenRow(['llama-2-13b', 'trn1.32xlarge', '2.14.0', 32, 1, 256, 64, 192], [152.5, 6.6, 6.6], 'fp16', ['5b489f8f', '2023-09-21', 'general', 'trn1_latency_data_LLM.csv', 'Llama-2-13b']),
  perTokenRow(['t5-3b', 'trn1.32xlarge', '2.14.0', 8, 1, 128, 128, 84], [93.69, 10.67, 10.78], 'fp32', ['277baef4', '2023-09-28', 'general', 'trn1_latency_data_LLM.csv', 't5-3b']),
  perTokenRow(['opt-13b', 'trn1.32xlarge', '2.14.0', 8, 256, 128, 9, 119], [3622.3, 59.4, 69.6], 'fp16', ['5b489f8f', '2023-09-21', 'general', 'trn1_throughput_data_LLM.csv', 'opt-13b']),
  perTokenRow(['opt-30b', 'trn1.32xlarge', '2.14.0', 8, 256, 128, 9, 119], [2382.7, 96.9, 101.1], 'fp16', ['5b489f8f', '2023-09-21', 'general', 'trn1_throughput_data_LLM.csv', 'opt-30b']),
  perTokenRow(['llama-2-13b', 'trn1.32xlarge', '2.16.0', 32, 1, 2048, 1024, 1024], [230.3, 4.3, 4.3], 'fp16', ['1351ee12', '2024-01-18', 'general', 'latency_data_decoder.csv', 'Llama-2-13b']),
  perTokenRow(['llama-2-13b', 'trn1.32xlarge', '2.16.0', 32, 1, 4096, 128, 3968], [117.4, 8.5, 8.5], 'fp16', ['1351ee12', '2024-01-18', 'general', 'latency_data_decoder.csv', 'Llama-2-13b']),
  perTokenRow(['llama-2-13b', 'trn1.32xlarge', '2.16.0', 32, 1, 4096, 3968, 128], [2756.3, 0.36, 0.36], 'fp16', ['1351ee12', '2024-01-18', 'general', 'latency_data_decoder.csv', 'Llama-2-13b']),
  perTokenRow(['llama-2-70b', 'trn1.32xlarge', '2.16.0', 32, 1, 2304, 256, 2048], [7.5, 133.3, 133.3], 'fp16', ['1351ee12', '2024-01-18', 'general', 'latency_data_decoder.csv', 'Llama-2-70b']),
  perTokenRow(['llama-2-70b', 'trn1.32xlarge', '2.16.0', 32, 1, 512, 256, 256], [13.4, 74.6, 74.7], 'fp16', ['1351ee12', '2024-01-18', 'general', 'latency_data_decoder.csv', 'Llama-2-70b']),
  perTokenRow(['llama-2-13b', 'trn1.32xlarge', '2.17.0', 32, 1, 2048, 1024, 1024], [240, 4.17, 4.18], 'fp16', ['82ffe529', '2024-02-13', 'general', 'latency_data_decoder.csv', 'Llama-2-13b']),
  perTokenRow(['llama-2-13b', 'trn1.32xlarge', '2.17.0', 32, 1, 4096, 128, 3968], [123.1, 8.13, 8.14], 'fp16', ['82ffe529', '2024-02-13', 'general', 'latency_data_decoder.csv', 'Llama-2-13b']),
  perTokenRow(['llama-2-13b', 'trn1.32xlarge', '2.17.0', 32, 1, 4096, 3968, 128], [2917, 0.33, 0.34], 'fp16', ['82ffe529', '2024-02-13', 'general', 'latency_data_decoder.csv', 'Llama-2-13b']),
  perTokenRow(['llama-2-70b', 'trn1.32xlarge', '2.17.0', 32, 1, 2304, 256, 2048], [7.5, 132.6, 132.6], 'fp16', ['82ffe529', '2024-02-13', 'general', 'latency_data_decoder.csv', 'Llama-2-70b']),
  perTokenRow(['llama-2-70b', 'trn1.32xlarge', '2.17.0', 32, 1, 512, 256, 256], [13.5, 74.23, 74.29], 'fp16', ['82ffe529', '2024-02-13', 'general', 'latency_data_decoder.csv', 'Llama-2-70b']),
  ttftTpotRow(['llama-2-7b', 'trn1.32xlarge', '2.18.0', 32, 1, 8192, 128, 8064], [161.71, 13.32, 14.12, 6.7, 6.85], 'bf16', ['8907253c', '2024-04-11', 'general', 'latency_data_decoder.csv', 'Llama-2-7b']),
  ttftTpotRow(['llama-2-13b', 'trn1.32xlarge', '2.18.0', 32, 1, 8192, 4096, 4096], [60.43, 864.14, 865.91, 9.84, 10.15], 'bf16', ['8907253c', '2024-04-11', 'general', 'latency_data_decoder.csv', 'Llama-2-13b']),
  ttftTpotRow(['llama-2-13b', 'trn1.32xlarge', '2.18.0', 32, 1, 16384, 8192, 8192], [31.4, 2367.93, 2369.14, 13.41, 15.77], 'bf16', ['8907253c', '2024-04-11', 'general', 'latency_data_decoder.csv', 'Llama-2-13b']),
  ttftTpotRow(['llama-2-70b', 'trn1.32xlarge', '2.18.0', 32, 1, 256, 128, 128], [39.29, 53.91, 54.95, 25.18, 26.58], 'bf16', ['8907253c', '2024-04-11', 'general', 'latency_data_decoder.csv', 'Llama-2-70b']),
  ttftTpotRow(['llama-2-70b', 'trn1.32xlarge', '2.18.0', 32, 1, 512, 256, 256], [39.18, 81.88, 98.78, 25.27, 25.76], 'bf16', ['8907253c', '2024-04-11', 'general', 'latency_data_decoder.csv', 'Llama-2-70b']),
  ttftTpotRow(['llama-2-70b', 'trn1.32xlarge', '2.18.0', 32, 1, 1152, 128, 1024], [39.16, 57.75, 64.76, 25.45, 26.13], 'bf16', ['8907253c', '2024-04-11', 'general', 'latency_data_decoder.csv', 'Llama-2-70b']),
  ttftTpotRow(['llama-2-70b', 'trn1.32xlarge', '2.18.0', 32, 1, 2048, 1024, 1024], [38.1, 232.48, 239.03, 26.04, 26.18], 'bf16', ['8907253c', '2024-04-11', 'general', 'latency_data_decoder.csv', 'Llama-2-70b']),
  ttftTpotRow(['llama-2-70b', 'trn1.32xlarge', '2.18.0', 32, 1, 3072, 1024, 2048], [37.71, 236.78, 241.15, 26.62, 27.03], 'bf16', ['8907253c', '2024-04-11', 'general', 'latency_data_decoder.csv', 'Llama-2-70b']),
  ttftTpotRow(['llama-2-70b', 'trn1.32xlarge', '2.18.0', 32, 1, 4096, 2048, 2048], [36.78, 690.96, 695.92, 26.85, 27.04], 'bf16', ['8907253c', '2024-04-11', 'general', 'latency_data_decoder.csv', 'Llama-2-70b']),
  ttftTpotRow(['mistral-7b-instruct-v0.2', 'trn1.32xlarge', '2.18.0', 32, 1, 16384, 8192, 8192], [49.56, 1322.87, 1325.86, 9.89, 10.18], 'bf16', ['8907253c', '2024-04-11', 'general', 'latency_data_decoder.csv', 'Mistral-7B-Instruct-v0.2']),
  ttftTpotRow(['codellama-13b', 'trn1.32xlarge', '2.18.0', 32, 1, 8192, 4096, 4096], [60.22, 868.64, 870.98, 9.86, 10.24], 'bf16', ['8907253c', '2024-04-11', 'general', 'latency_data_decoder.csv', 'CodeLlama-13b-hf']),
  ttftTpotRow(['codellama-13b', 'trn1.32xlarge', '2.18.0', 32, 1, 16384, 8192, 8192], [31.38, 2372.93, 2375.92, 13.4, 13.79], 'bf16', ['8907253c', '2024-04-11', 'general', 'latency_data_decoder.csv', 'CodeLlama-13b-hf']),
  ttftTpotRow(['llama-3-8b', 'trn1.32xlarge', '2.18.1', 32, 1, 8192, 128, 8064], [157.25, 17.09, 21.62, 7.03, 7.16], 'int8', ['78169c6c', '2024-04-30', 'general', 'latency_data_decoder.csv', 'Llama-3-8B']),
  ttftTpotRow(['llama-3-8b', 'trn1.32xlarge', '2.18.1', 32, 1, 8192, 4096, 4096], [140.5, 153.02, 159.13, 7.04, 7.13], 'int8', ['78169c6c', '2024-04-30', 'general', 'latency_data_decoder.csv', 'Llama-3-8B']),
  ttftTpotRow(['llama-3-8b', 'trn1.32xlarge', '2.18.1', 32, 1, 4096, 128, 3968], [178.19, 14.75, 22.94, 5.86, 6], 'int8', ['78169c6c', '2024-04-30', 'general', 'latency_data_decoder.csv', 'Llama-3-8B']),
  ttftTpotRow(['llama-3-70b', 'trn1.32xlarge', '2.18.1', 32, 1, 4096, 2048, 2048], [37.7, 547, 553.89, 26.2, 26.79], 'bf16', ['78169c6c', '2024-04-30', 'general', 'latency_data_decoder.csv', 'Llama-3-70B']),
  ttftTpotRow(['llama-3-70b', 'trn1.32xlarge', '2.18.1', 32, 1, 1152, 128, 1024], [40.64, 53.2, 59.5, 24.48, 26.17], 'bf16', ['78169c6c', '2024-04-30', 'general', 'latency_data_decoder.csv', 'Llama-3-70B']),
  ttftTpotRow(['llama-3-70b', 'trn1.32xlarge', '2.18.1', 32, 1, 256, 128, 128], [40.81, 52.53, 52.79, 26.48, 24.22], 'bf16', ['78169c6c', '2024-04-30', 'general', 'latency_data_decoder.csv', 'Llama-3-70B']),
  ttftTpotRow(['llama-2-7b', 'trn1.32xlarge', '2.18.0', 32, 8, 8192, 128, 8064], [917.25, 66.4, 70.64, 10.1, 10.46], 'bf16', ['8907253c', '2024-04-11', 'general', 'throughput_data_decoder.csv', 'Llama-2-7b']),
  ttftTpotRow(['llama-2-13b', 'trn1.32xlarge', '2.18.0', 32, 8, 8192, 4096, 4096], [371.7, 6668.7, 6689.8, 19.86, 21.06], 'bf16', ['8907253c', '2024-04-11', 'general', 'throughput_data_decoder.csv', 'Llama-2-13b']),
  ttftTpotRow(['llama-2-13b', 'trn1.32xlarge', '2.18.0', 32, 4, 16384, 8192, 8192], [184.28, 4628.45, 4635.25, 21.09, 22.39], 'bf16', ['8907253c', '2024-04-11', 'general', 'throughput_data_decoder.csv', 'Llama-2-13b']),
  ttftTpotRow(['llama-2-70b', 'trn1.32xlarge', '2.18.0', 32, 4, 256, 128, 128], [141.45, 156.85, 158.41, 26.72, 30.17], 'bf16', ['8907253c', '2024-04-11', 'general', 'throughput_data_decoder.csv', 'Llama-2-70b']),
  ttftTpotRow(['llama-2-70b', 'trn1.32xlarge', '2.18.0', 32, 4, 512, 256, 256], [143.43, 270.16, 270.56, 26.91, 27.91], 'bf16', ['8907253c', '2024-04-11', 'general', 'throughput_data_decoder.csv', 'Llama-2-70b']),
  ttftTpotRow(['llama-2-70b', 'trn1.32xlarge', '2.18.0', 32, 4, 1152, 128, 1024], [145.13, 156.69, 161.41, 27.21, 30.6], 'bf16', ['8907253c', '2024-04-11', 'general', 'throughput_data_decoder.csv', 'Llama-2-70b']),
  ttftTpotRow(['llama-2-70b', 'trn1.32xlarge', '2.18.0', 32, 4, 2048, 1024, 1024], [133.25, 1478.64, 1479.78, 28.55, 29.5], 'bf16', ['8907253c', '2024-04-11', 'general', 'throughput_data_decoder.csv', 'Llama-2-70b']),
  ttftTpotRow(['llama-2-70b', 'trn1.32xlarge', '2.18.0', 32, 4, 3072, 1024, 2048], [129.28, 1478.85, 1482.93, 31.67, 32.02], 'bf16', ['8907253c', '2024-04-11', 'general', 'throughput_data_decoder.csv', 'Llama-2-70b']),
  ttftTpotRow(['llama-2-70b', 'trn1.32xlarge', '2.18.0', 32, 4, 4096, 2048, 2048], [120.63, 2722.03, 2730.95, 31.79, 33.23], 'bf16', ['8907253c', '2024-04-11', 'general', 'throughput_data_decoder.csv', 'Llama-2-70b']),
  ttftTpotRow(['mistral-7b-instruct-v0.2', 'trn1.32xlarge', '2.18.0', 32, 8, 16384, 8192, 8192], [484.58, 8614.85, 8630.24, 15.44, 15.94], 'bf16', ['8907253c', '2024-04-11', 'general', 'throughput_data_decoder.csv', 'Mistral-7B-Instruct-v0.2']),
  ttftTpotRow(['codellama-13b', 'trn1.32xlarge', '2.18.0', 32, 8, 8192, 4096, 4096], [370.98, 6625.16, 6628.26, 19.92, 20.95], 'bf16', ['8907253c', '2024-04-11', 'general', 'throughput_data_decoder.csv', 'CodeLlama-13b-hf']),
  ttftTpotRow(['codellama-13b', 'trn1.32xlarge', '2.18.0', 32, 4, 16384, 8192, 8192], [184.18, 4626.17, 4630.67, 21.1, 22.17], 'bf16', ['8907253c', '2024-04-11', 'general', 'throughput_data_decoder.csv', 'CodeLlama-13b-hf']),
  ttftTpotRow(['llama-3-8b', 'trn1.32xlarge', '2.18.1', 32, 8, 8192, 128, 8064], [933.5, 55.16, 61.47, 9.95, 10.1], 'int8', ['78169c6c', '2024-04-30', 'general', 'throughput_data_decoder.csv', 'Llama-3-8B']),
  ttftTpotRow(['llama-3-8b', 'trn1.32xlarge', '2.18.1', 32, 8, 8192, 4096, 4096], [770.16, 1265.95, 1292.94, 10.04, 10.33], 'int8', ['78169c6c', '2024-04-30', 'general', 'throughput_data_decoder.csv', 'Llama-3-8B']),
  ttftTpotRow(['llama-3-8b', 'trn1.32xlarge', '2.18.1', 32, 8, 4096, 128, 3968], [1142.7, 49.05, 52.79, 7.65, 7.94], 'int8', ['78169c6c', '2024-04-30', 'general', 'throughput_data_decoder.csv', 'Llama-3-8B']),
  ttftTpotRow(['llama-3-70b', 'trn1.32xlarge', '2.18.1', 32, 4, 4096, 2048, 2048], [120.36, 1661.12, 1672.71, 32.33, 33.27], 'bf16', ['78169c6c', '2024-04-30', 'general', 'throughput_data_decoder.csv', 'Llama-3-70B']),
  ttftTpotRow(['llama-3-70b', 'trn1.32xlarge', '2.18.1', 32, 4, 1152, 128, 1024], [140.51, 129.86, 132.03, 28.38, 29.11], 'bf16', ['78169c6c', '2024-04-30', 'general', 'throughput_data_decoder.csv', 'Llama-3-70B']),
  ttftTpotRow(['llama-3-70b', 'trn1.32xlarge', '2.18.1', 32, 4, 256, 128, 128], [138.01, 130.37, 130.48, 28.08, 28.53], 'bf16', ['78169c6c', '2024-04-30', 'general', 'throughput_data_decoder.csv', 'Llama-3-70B']),
  perTokenRow(['t5-3b', 'trn1.32xlarge', '2.16.0', 8, 1, 128, 128, 84], [111.29, 8.98, 9.03], 'fp32', ['1351ee12', '2024-01-18', 'general', 'latency_data_encoder_decoder.csv', 't5-3b']),
  perTokenRow(['google/flan-t5-xl', 'trn1.32xlarge', '2.16.0', 8, 1, 128, 128, 84], [116.44, 8.58, 8.61], 'fp32', ['1351ee12', '2024-01-18', 'general', 'latency_data_encoder_decoder.csv', 'google/flan-t5-xl']),
  perTokenRow(['t5-3b', 'trn1.32xlarge', '2.17.0', 8, 1, 128, 128, 84], [116.29, 8.58, 8.66], 'fp32', ['82ffe529', '2024-02-13', 'general', 'latency_data_encoder_decoder.csv', 't5-3b']),
  perTokenRow(['google/flan-t5-xl', 'trn1.32xlarge', '2.17.0', 8, 1, 128, 128, 84], [122.52, 8.16, 8.19], 'fp32', ['82ffe529', '2024-02-13', 'general', 'latency_data_encoder_decoder.csv', 'google/flan-t5-xl']),
  perTokenRow(['t5-3b', 'trn1.32xlarge', '2.18.0', 8, 1, 128, 128, 84], [110.23, 9.07, 9.12], 'fp32', ['8907253c', '2024-04-11', 'general', 'latency_data_encoder_decoder.csv', 't5-3b']),
  perTokenRow(['google/flan-t5-xl', 'trn1.32xlarge', '2.18.0', 8, 1, 128, 128, 84], [120.29, 8.31, 8.34], 'fp32', ['8907253c', '2024-04-11', 'general', 'latency_data_encoder_decoder.csv', 'google/flan-t5-xl']),
];
