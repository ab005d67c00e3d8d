/**
 * The reference profiles: every encoder and vision row of the Neuron performance tables, turned into per-process
 * measurements.
 *
 * The tables give the throughput of the whole instance with data parallel over all its NeuronCores, so a process's
 * throughput is the instance throughput divided by the processes the row ran (NeuronCores / cores per process).
 */
import type { CoreVersion } from '../catalog/types';
import type { Measurement, ModelProfile } from './types';
import { INF1_2024_09_SECTIONS } from './data/inf1-2024-09';
import { INF2_2024_09_SECTIONS } from './data/inf2-2024-09';
import { INF2_2026_02_SECTIONS } from './data/inf2-2026-02';
import { MODEL_FACTS } from './data/models';
import type { TableRow, TableSection } from './data/rows';
import { TRN1_2026_02_SECTIONS } from './data/trn1-2026-02';
import { estimateMemory } from './memory';

/**
 * NeuronCores and core version of the instances the tables ran on.
 *
 * Source: /work/shared/reference/inferentia-facts.md §1b (NEURON `about-neuron/arch/neuron-hardware/*-arch.rst`).
 */
const MEASURED_INSTANCES: Readonly<Record<string, { readonly cores: number; readonly coreVersion: CoreVersion }>> = {
  'inf1.xlarge': { cores: 4, coreVersion: 'v1' },
  'inf1.2xlarge': { cores: 4, coreVersion: 'v1' },
  'inf1.6xlarge': { cores: 16, coreVersion: 'v1' },
  'inf2.xlarge': { cores: 2, coreVersion: 'v2' },
  'inf2.8xlarge': { cores: 2, coreVersion: 'v2' },
  'inf2.48xlarge': { cores: 24, coreVersion: 'v2' },
  'trn1.2xlarge': { cores: 2, coreVersion: 'v2' },
};

/** Every table section the built-in profiles come from, newest Inf2 page first. */
const SECTIONS: readonly TableSection[] = [
  ...INF2_2026_02_SECTIONS,
  ...INF2_2024_09_SECTIONS,
  ...TRN1_2026_02_SECTIONS,
  ...INF1_2024_09_SECTIONS,
];

/** A measurement with what deduplication needs. */
interface DatedMeasurement {
  readonly id: string;
  readonly date: string;
  readonly measurement: Measurement;
}

/** Turns one table row into a per-process measurement. */
function toMeasurement(section: TableSection, row: TableRow): DatedMeasurement {
  const instance = MEASURED_INSTANCES[row.instanceType];
  if (!instance) {
    throw new Error(`built-in profile data: unknown instance '${row.instanceType}' in row '${row.model}'`);
  }
  const coresPerProcess = row.coresPerProcess ?? 1;
  const processes = instance.cores / coresPerProcess;
  if (!Number.isInteger(processes)) {
    throw new Error(`built-in profile data: ${coresPerProcess} cores per process do not divide ${row.instanceType}`);
  }
  const version = row.neuronVersion ? `Neuron ${row.neuronVersion}` : 'Neuron version not given';
  const source =
    `${section.source.document}, ${section.section}, ${row.instanceType}, ${version}, ${section.source.date}: ` +
    `${row.instanceThroughputRps}/s per instance over ${processes} process${processes === 1 ? '' : 'es'}` +
    (row.note ? ` (${row.note})` : '');
  return {
    id: row.model,
    date: section.source.date,
    measurement: {
      coreVersion: instance.coreVersion,
      coresPerProcess,
      batchSize: row.batchSize,
      throughputRps: row.instanceThroughputRps / processes,
      p50Ms: row.p50Ms,
      p99Ms: row.p99Ms,
      source,
      instanceType: row.instanceType,
      mode: row.mode,
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
    if (!facts) {
      throw new Error(`built-in profile data: no model facts for '${id}'`);
    }
    const memory = estimateMemory({
      params: facts.params,
      bytesPerParam: facts.bytesPerParam,
      maxBatchSize: Math.max(...measurements.map((m) => m.batchSize)),
      activation: facts.activation,
    });
    profiles.push({
      id,
      description: facts.description,
      deviceMemoryGiB: memory.deviceMemoryGiB,
      hostMemoryGiB: memory.hostMemoryGiB,
      vcpuPerProcess: 1,
      memorySource: `${memory.memorySource} Parameter count: ${facts.paramsSource}.`,
      measurements: [...measurements].sort(compareMeasurements),
    });
  }
  return profiles.sort((a, b) => a.id.localeCompare(b.id));
}

/** Built once; profiles are read-only data. */
export const BUILT_IN_PROFILES: readonly ModelProfile[] = buildProfiles();
