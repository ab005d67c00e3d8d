/**
 * The reference profiles: every encoder and vision row of the Neuron performance tables, turned into per-process
 * measurements.
 *
 * The tables give the throughput of the whole instance, summed over the model copies the row ran. A process's
 * throughput is that figure divided by the copies, taken from the row's own columns:
 * - the Inf1 encoder CSVs state them ("N Models"): 4 for the Throughput optimized rows, 1 for the Latency optimized
 *   ones; the rows' `processes` field carries them;
 * - elsewhere "Run Mode: Data Parallel" means one copy per core group, capped by what the row's throughput, latency
 *   and batch size show were in flight (Little's law: in flight = throughput x p50 / batch). A row whose calls never
 *   overlapped (in flight about 1 on 2 cores) ran one copy at a time, and dividing by 2 would halve its rate.
 */
import type { CoreVersion } from '../catalog/types';
import type { Measurement, ModelProfile } from './types';
import { INF1_2024_09_SECTIONS } from './data/inf1-2024-09';
import { INF2_2024_09_SECTIONS } from './data/inf2-2024-09';
import { INF2_2026_02_SECTIONS } from './data/inf2-2026-02';
import { MODEL_FACTS } from './data/models';
import type { TablePrecision, TableRow, TableSection } from './data/rows';
import { TRN1_2026_02_SECTIONS } from './data/trn1-2026-02';
import { HOST_CPU_DEFAULTS } from './host-cpu';
import { estimateMemory, type WeightPrecision } from './memory';

/**
 * NeuronCores and core version of the instances the tables ran on.
 *
 * Source: the Neuron instance pages, aws-neuron/aws-neuron-sdk `about-neuron/arch/neuron-hardware/{inf1,inf2,trn1}-arch.rst`
 * (chips x NeuronCores per chip).
 */
const MEASURED_INSTANCES: Readonly<Record<string, { readonly cores: number; readonly coreVersion: CoreVersion }>> = {
  'inf1.xlarge': { cores: 4, coreVersion: 'v1' },
  'inf1.2xlarge': { cores: 4, coreVersion: 'v1' },
  'inf1.6xlarge': { cores: 16, coreVersion: 'v1' },
  'inf2.xlarge': { cores: 2, coreVersion: 'v2' },
  'inf2.8xlarge': { cores: 2, coreVersion: 'v2' },
  'inf2.48xlarge': { cores: 24, coreVersion: 'v2' },
  'trn1.2xlarge': { cores: 2, coreVersion: 'v2' },
  'trn1.32xlarge': { cores: 32, coreVersion: 'v2' },
};

/** Every table section the built-in profiles come from, newest Inf2 page first. */
const SECTIONS: readonly TableSection[] = [
  ...INF2_2026_02_SECTIONS,
  ...INF2_2024_09_SECTIONS,
  ...TRN1_2026_02_SECTIONS,
  ...INF1_2024_09_SECTIONS,
];

/** Weight precision for the memory estimate: autocast to BF16 and half models store 2 bytes, FP32 4. */
const WEIGHT_PRECISION: Readonly<Record<TablePrecision, WeightPrecision>> = {
  'fp32-matmult-bf16': 'bf16',
  half: 'bf16',
  fp32: 'fp32',
};

/** Requests in flight over the whole instance, by Little's law: throughput x p50 / batch size. */
export function inFlight(row: Pick<TableRow, 'instanceThroughputRps' | 'p50Ms' | 'batchSize'>): number {
  return (row.instanceThroughputRps * row.p50Ms) / 1000 / row.batchSize;
}

/** What `copiesOf` found, and from which columns. */
export interface Copies {
  readonly processes: number;
  /** How the count was obtained, for the measurement's source. */
  readonly how: string;
}

/**
 * The model copies (processes) a row's instance throughput is the sum of.
 *
 * The row's `processes` when the table states it; otherwise one per core group ("Data Parallel"), but no more than the
 * requests its columns show in flight (rounded, at least 1).
 */
export function copiesOf(row: TableRow): Copies {
  const instance = MEASURED_INSTANCES[row.instanceType];
  if (!instance) {
    throw new Error(`built-in profile data: unknown instance '${row.instanceType}' in row '${row.model}'`);
  }
  const coresPerProcess = row.coresPerProcess ?? 1;
  const groups = instance.cores / coresPerProcess;
  if (!Number.isInteger(groups)) {
    throw new Error(`built-in profile data: ${coresPerProcess} cores per process do not divide ${row.instanceType}`);
  }
  const busy = inFlight(row);
  if (row.processes !== undefined) {
    if (!Number.isInteger(row.processes) || row.processes < 1 || row.processes > groups) {
      throw new Error(`built-in profile data: ${row.processes} processes of ${coresPerProcess} cores on ${row.instanceType} in row '${row.model}'`);
    }
    return { processes: row.processes, how: `${row.processes} stated by the table` };
  }
  const processes = Math.max(1, Math.min(groups, Math.round(busy)));
  const how =
    processes === groups
      ? `${processes}, one per ${coresPerProcess === 1 ? 'NeuronCore' : `${coresPerProcess}-core group`} (Data Parallel)`
      : `${processes}: throughput x p50 / batch = ${busy.toFixed(2)} in flight on ${groups} core groups`;
  return { processes, how };
}

/** A measurement with what deduplication needs. */
interface DatedMeasurement {
  readonly id: string;
  readonly date: string;
  readonly measurement: Measurement;
}

/** `2674.19` -> `2674.19`, `0.5` -> `0.5`: the table's number as written. */
function fmt(n: number): string {
  return String(+n.toFixed(4));
}

/** Turns one table row into a per-process measurement, with its memory. */
function toMeasurement(section: TableSection, row: TableRow): DatedMeasurement {
  const instance = MEASURED_INSTANCES[row.instanceType];
  const { processes, how } = copiesOf(row);
  const facts = MODEL_FACTS[row.model];
  if (!facts) {
    throw new Error(`built-in profile data: no model facts for '${row.model}'`);
  }
  const precision = WEIGHT_PRECISION[row.precision ?? section.precision];
  const memory = estimateMemory({
    params: facts.params,
    precision,
    batchSize: row.batchSize,
    activation: facts.activation,
    ...(facts.outputMiBPerSample !== undefined ? { outputMiBPerSample: facts.outputMiBPerSample } : {}),
  });
  const { source: page } = section;
  const source =
    `${page.document}, last updated ${page.date} (${page.url}), ${section.section}: ${section.csv}; ` +
    `${row.instanceType}, Neuron ${row.neuronVersion}, batch ${row.batchSize}: ${fmt(row.instanceThroughputRps)}/s ` +
    `per instance over ${processes} process${processes === 1 ? '' : 'es'} (${how})` +
    (row.note ? `; ${row.note}` : '');
  return {
    id: row.model,
    date: page.date,
    measurement: {
      coreVersion: instance.coreVersion,
      coresPerProcess: row.coresPerProcess ?? 1,
      batchSize: row.batchSize,
      throughputRps: row.instanceThroughputRps / processes,
      p50Ms: row.p50Ms,
      p99Ms: row.p99Ms,
      source,
      instanceType: row.instanceType,
      mode: row.mode,
      deviceMemoryGiB: memory.deviceMemoryGiB,
      hostMemoryGiB: memory.hostMemoryGiB,
      memorySource: `estimated: ${memory.memorySource}`,
      measuredProcesses: processes,
    },
  };
}

/**
 * Key of "the same operating point": model, core version, instance family, batch size and mode. The family is part
 * of the key so a Trn1 row never replaces an Inf2 row measured the same day.
 */
function operatingPoint(d: DatedMeasurement): string {
  const m = d.measurement;
  const family = (m.instanceType ?? '').split('.')[0];
  return [d.id, m.coreVersion, family, m.batchSize, m.mode].join('|');
}

/** Stable order: core version, instance type, batch before real-time, batch size. */
function compareMeasurements(a: Measurement, b: Measurement): number {
  return (
    a.coreVersion.localeCompare(b.coreVersion) ||
    (a.instanceType ?? '').localeCompare(b.instanceType ?? '') ||
    (a.mode ?? '').localeCompare(b.mode ?? '') ||
    a.batchSize - b.batchSize
  );
}

/** The measurement with the largest device memory (ties: larger host memory). */
function largestMemory(measurements: readonly Measurement[]): Measurement {
  return measurements.reduce((a, b) =>
    (b.deviceMemoryGiB ?? 0) > (a.deviceMemoryGiB ?? 0) ||
    ((b.deviceMemoryGiB ?? 0) === (a.deviceMemoryGiB ?? 0) && (b.hostMemoryGiB ?? 0) > (a.hostMemoryGiB ?? 0))
      ? b
      : a,
  );
}

/** Builds every built-in profile from the table rows. Throws on inconsistent data (caught by the tests). */
function buildProfiles(): readonly ModelProfile[] {
  // When a Feb 2026 row and a Sept 2024 row share model, core version, batch size and mode, keep only the newer one.
  const newest = new Map<string, DatedMeasurement>();
  for (const section of SECTIONS) {
    for (const row of section.rows) {
      const dated = toMeasurement(section, row);
      const key = operatingPoint(dated);
      const previous = newest.get(key);
      if (previous && previous.date === dated.date) {
        throw new Error(`built-in profile data: two rows of the same date for ${key}`);
      }
      if (!previous || previous.date < dated.date) {
        newest.set(key, dated);
      }
    }
  }

  const byModel = new Map<string, Measurement[]>();
  for (const dated of newest.values()) {
    const list = byModel.get(dated.id) ?? [];
    list.push(dated.measurement);
    byModel.set(dated.id, list);
  }

  const profiles: ModelProfile[] = [];
  for (const [id, measurements] of byModel) {
    const facts = MODEL_FACTS[id];
    const largest = largestMemory(measurements);
    const hostCpu = HOST_CPU_DEFAULTS[facts.activation];
    profiles.push({
      id,
      description: facts.description,
      // The profile's figures are its largest measurement's, for listings and for measurements without their own.
      deviceMemoryGiB: largest.deviceMemoryGiB as number,
      hostMemoryGiB: largest.hostMemoryGiB as number,
      vcpuPerProcess: 1,
      hostCpuMsPerRequest: hostCpu.ms,
      hostCpuSource: hostCpu.source,
      memorySource:
        `estimated per measurement (see each measurement's memorySource); the profile's figures are the largest, ` +
        `${largest.instanceType} batch ${largest.batchSize}: ${(largest.memorySource as string).replace(/^estimated: /, '')}. ` +
        `Parameter count: ${facts.paramsSource}. Not measured: pass your own profile when it matters.`,
      measurements: [...measurements].sort(compareMeasurements),
    });
  }
  return profiles.sort((a, b) => a.id.localeCompare(b.id));
}

/** Built once; profiles are read-only data. */
export const BUILT_IN_PROFILES: readonly ModelProfile[] = buildProfiles();

/** Every table section the built-in profiles are built from, for tests that check the derivation row by row. */
export const BUILT_IN_SECTIONS: readonly TableSection[] = SECTIONS;
