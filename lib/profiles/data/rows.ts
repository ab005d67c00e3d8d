/**
 * Shapes of the rows copied from the Neuron performance tables, before they become profile measurements.
 */
import type { MeasurementMode } from '../types';

/** One performance table the rows come from. */
export interface TableSource {
  /** Document the table is in, e.g. `AWS Neuron docs, "Inf2 Inference Performance"`. */
  readonly document: string;
  /** Date the document says it was last updated, ISO `YYYY-MM-DD`. */
  readonly date: string;
}

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
  /** Neuron SDK version of the row, when the table gives one. */
  readonly neuronVersion?: string;
  /**
   * NeuronCores one model process used.
   *
   * @default 1 - the row ran data parallel, one process per NeuronCore of the instance
   */
  readonly coresPerProcess?: number;
  /** Why the row deviates from the table's defaults (cores per process, merged id), shown in its source. */
  readonly note?: string;
}

/** A group of rows from one section of one table. */
export interface TableSection {
  readonly source: TableSource;
  /** Section of the document, e.g. `Encoder Models, Batch`. */
  readonly section: string;
  readonly rows: readonly TableRow[];
}
