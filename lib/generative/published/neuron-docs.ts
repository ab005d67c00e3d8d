/**
 * How the rows of the AWS Neuron performance pages are read (aws-neuron/aws-neuron-sdk `general/benchmarks/` until
 * 2025-10, then `about-neuron/benchmarks/`; pages "Inf2 Inference Performance" and "Trn1/Trn1n Inference
 * Performance"). Every distinct row of every revision of the LLM, decoder and encoder-decoder tables is kept once, with
 * the first commit that shows it. A row shown in both the latency- and the throughput-optimized table (the same run
 * under two "Application Type" labels) is one row.
 *
 * Two table layouts:
 * - Until Neuron 2.17 (`*_LLM.csv`, then `*_decoder.csv`), and for the encoder-decoder tables throughout: throughput in
 *   tokens/s and a "Latency per Token" p50/p99, whose note says both "count both input and output tokens": a request
 *   took `latency x (input + output)` (`latencyPerToken`, counts `input-and-output`). The 2.10-2.13 tables name the
 *   columns "Latency P50/P99" and state no input or output length; their rows take the 9 / (sequence - 9) tokens the
 *   2.14 table states for the same benchmark, as `notes` says.
 * - From Neuron 2.18 (`*_decoder.csv`): output-token throughput, TTFT p50/p99 and TPOT p50/p99 read as such. Batch rows
 *   of transformers-neuronx run static batches: their TTFT is the whole batch's prefill (`ttftCovers: 'batch'`).
 */
import type { PublishedDtype, PublishedRow, ServingStack } from './types';

const REPOSITORY = 'aws-neuron/aws-neuron-sdk';

const PAGE_URL: Readonly<Record<string, string>> = {
  inf2: 'https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/benchmarks/inf2/inf2-performance.html',
  trn1: 'https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/benchmarks/trn1/trn1-inference-performance.html',
};

/** The model columns of a row: model key, instance, SDK, TP degree, batch, sequence length, input and output tokens. */
type RowKey = readonly [model: string, instanceType: string, sdk: string, tp: number, batch: number, sequence: number, input: number, output: number];

/** Where a row is: first commit, its date, the benchmarks folder's parent (`general`, `about-neuron`), the CSV, the Model cell. */
type RowAt = readonly [commit: string, date: string, root: string, file: string, modelCell: string];

function common([model, instanceType, sdk, tp, batch, sequence, input, output]: RowKey, [commit, date, root, file, modelCell]: RowAt, lengthsStated = true) {
  const chip = instanceType.startsWith('inf2') ? 'inf2' : 'trn1';
  const stack: ServingStack = file.includes('encoder_decoder') || model.includes('t5') ? 'neuronx-distributed' : 'transformers-neuronx';
  return {
    model,
    instanceType,
    chip,
    stack,
    neuronSdkVersion: sdk,
    tensorParallelDegree: tp,
    batchSize: batch,
    load: 'static-batch',
    inputTokens: input,
    outputTokens: output,
    // The encoder-decoder tables' "Sequence Length" is the encoder's input length, not prompt plus output.
    ...(stack === 'neuronx-distributed' ? {} : { sequenceLength: sequence }),
    levers: {},
    source: {
      repository: REPOSITORY,
      commit,
      path: `${root}/benchmarks/${chip}/${file}`,
      url: PAGE_URL[chip],
      date,
      locator: `row "${modelCell}", Neuron ${sdk}, TP ${tp}, batch ${batch}, sequence ${sequence}` +
        (lengthsStated ? `, input ${input} / output ${output}` : ''),
    },
  } as const;
}

/**
 * A row of a table with a "Latency per Token" over input and output tokens: `[tokens/s, p50 ms, p99 ms]`.
 * `lengthsInferred` marks the 2.10-2.13 rows whose lengths come from the 2.14 table.
 */
export function perTokenRow(key: RowKey, [tokensPerSecond, p50, p99]: readonly [number, number, number], dtype: PublishedDtype, at: RowAt, lengthsInferred = false, notes?: string): PublishedRow {
  const t5 = key[0].includes('t5')
    ? 'NeuronX Distributed T5 tutorial (src/examples/pytorch/neuronx_distributed/t5-inference/t5-inference-tutorial.ipynb), beam search with num_beams 4'
    : undefined;
  const inferred = lengthsInferred
    ? 'This release\'s table names the columns "Latency P50/P99" and states no input or output length; the lengths and the ' +
      'per-token reading are what the 2.14 table states for the same benchmark script'
    : undefined;
  return {
    ...common(key, at, !lengthsInferred),
    weightDtype: dtype,
    latencyPerToken: { p50, ...(p99 !== undefined ? { p99 } : {}), counts: 'input-and-output' },
    totalTokensPerSecond: tokensPerSecond,
    ...(t5 || inferred || notes ? { notes: [t5, inferred, notes].filter(Boolean).join('. ') } : {}),
  };
}

/**
 * A row of the 2.18+ decoder tables: `[output tokens/s, TTFT p50, TTFT p99, TPOT p50, TPOT p99]` (ms).
 * `weightStorage` is the "Weight Storage Data Type" column (the 2.18.0 rows lack it; the 2.18.1 table shows them as bf16).
 */
export function ttftTpotRow(key: RowKey, [tokensPerSecond, ttftP50, ttftP99, tpotP50, tpotP99]: readonly number[], weightStorage: PublishedDtype, at: RowAt, notes?: string): PublishedRow {
  const base = common(key, at);
  const tpotTailBelowMedian = tpotP99 < tpotP50;
  return {
    ...base,
    weightDtype: weightStorage,
    ...(weightStorage === 'int8' ? { kvDtype: 'bf16' as const } : {}),
    ttft: { p50: ttftP50, p99: ttftP99 },
    ttftCovers: base.batchSize > 1 ? 'batch' : 'request',
    tpot: tpotTailBelowMedian ? { p50: tpotP50 } : { p50: tpotP50, p99: tpotP99 },
    outputTokensPerSecond: tokensPerSecond,
    ...(tpotTailBelowMedian || notes
      ? { notes: [tpotTailBelowMedian ? `The table's TPOT p99 (${tpotP99} ms) is below its p50, an error in the table; the p99 is left out` : undefined, notes].filter(Boolean).join('. ') }
      : {}),
  };
}
