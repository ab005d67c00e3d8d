/**
 * Shapes of the rows copied from the Neuron performance tables, before they become profile measurements.
 */
import type { MeasurementMode } from '../types';

/** One performance page the rows come from, at one revision. */
export interface TableSource {
  /** Document the table is in, e.g. `AWS Neuron docs, "Inf2 Inference Performance"`. */
  readonly document: string;
  /** Where users read the page. */
  readonly url: string;
  /** Date the page says it was last updated ("Last update: ..."), ISO `YYYY-MM-DD`. */
  readonly date: string;
}

/**
 * Precision of the compiled model, as the table's "Model Data Type" and "Compilation Autocast Data Type" columns (Inf2,
 * Trn1) or "Model details" / "Framework" columns (Inf1) write it. It sets the bytes per stored weight.
 */
export type TablePrecision =
  /** FP32 model compiled with `--auto-cast matmult` to BF16: matmul weights are stored as BF16. */
  | 'fp32-matmult-bf16'
  /** FP32 model, no autocast (`Compilation Autocast Data Type: None`, or an Inf1 row that says fp32). */
  | 'fp32'
  /** FP16 or BF16 model. */
  | 'half';

/** One row of a Neuron performance table, as the table writes it (instance throughput, not per process). */
export interface TableRow {
  /** Profile id the row belongs to: the model name as the table writes it. */
  readonly model: string;
  /** EC2 instance type the row ran on, lower case (`inf2.xlarge`). */
  readonly instanceType: string;
  readonly mode: MeasurementMode;
  readonly batchSize: number;
  /** Throughput of the whole instance, inferences per second, as the table writes it. */
  readonly instanceThroughputRps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Neuron SDK version of the row, as the table's "Neuron Version" column writes it. */
  readonly neuronVersion: string;
  /**
   * NeuronCores one model process used.
   *
   * @default 1 - the row ran data parallel, one model copy per NeuronCore
   */
  readonly coresPerProcess?: number;
  /**
   * Model copies (processes) the row's throughput is the sum of: the Inf1 "N Models" column, or what the row's own
   * columns state otherwise (see `note`).
   *
   * @default - the instance's NeuronCores / `coresPerProcess` ("Run Mode: Data Parallel" over the whole instance)
   */
  readonly processes?: number;
  /**
   * Requests each copy had in flight, when the table states it (the Inf1 "Workers per Model" column). Used only to
   * test the derivation: throughput x p50 / batch must come out near processes x workers.
   */
  readonly workersPerProcess?: number;
  /**
   * Precision of the compiled model.
   *
   * @default - the section's `precision`
   */
  readonly precision?: TablePrecision;
  /** Why the row deviates from the table's defaults (copies, cores per process, merged id), shown in its source. */
  readonly note?: string;
}

/** A group of rows from one CSV of one page revision. */
export interface TableSection {
  readonly source: TableSource;
  /** Section and tab of the page, e.g. `Encoder Models, Throughput optimized`. */
  readonly section: string;
  /** The CSV the page renders the section from: repository and path, e.g. `aws-neuron/aws-neuron-sdk about-neuron/...`. */
  readonly csv: string;
  /** Precision of every row unless the row says otherwise. */
  readonly precision: TablePrecision;
  readonly rows: readonly TableRow[];
}

/** The repository the Neuron documentation, and its performance CSVs, are published from. */
export const NEURON_DOCS_REPO = 'aws-neuron/aws-neuron-sdk';

/** What a row states beyond the columns every table has. */
export type RowExtras = Pick<TableRow, 'coresPerProcess' | 'processes' | 'workersPerProcess' | 'precision' | 'note'>;

/**
 * One table row, its columns in the order the Neuron tables print them, then what the row states beyond them.
 */
export function row(
  model: string,
  instanceType: string,
  mode: MeasurementMode,
  batchSize: number,
  instanceThroughputRps: number,
  p50Ms: number,
  p99Ms: number,
  neuronVersion: string,
  extras: RowExtras = {},
): TableRow {
  return { model, instanceType, mode, batchSize, instanceThroughputRps, p50Ms, p99Ms, neuronVersion, ...extras };
}

/** One section of a page: where its rows come from, their default precision, and the rows. */
export function section(
  source: TableSource,
  title: string,
  csv: string,
  precision: TablePrecision,
  rows: readonly TableRow[],
): TableSection {
  return { source, section: title, csv, precision, rows };
}
