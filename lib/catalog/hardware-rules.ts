/**
 * The hardware rules every instance type passes, built in or defined in a price file: a Neuron family, and the chip
 * that family carries (its NeuronCore generation, cores and device memory per chip, the Logical NeuronCore
 * Configurations it runs). A price file that defined a trn3.48xlarge with `coreVersion: "v2"` or
 * `logicalNeuronCoreConfig: 3` planned layouts no Neuron runtime can run.
 *
 * Sources: the chip facts of `instances.ts` (AWS Neuron docs, about-neuron/arch/neuron-hardware: inferentia.rst,
 * inferentia2.rst, trainium.rst, trainium2.rst, trainium3.rst); Logical NeuronCore Configuration 1 or 2 on Trn2 and
 * Trn3 only (about-neuron/arch/neuron-features/logical-neuroncore-config.rst).
 */
import type { CoreVersion, InstanceSpec } from './types';

/** One Neuron chip as an instance family carries it. */
export interface NeuronChip {
  /** How the Neuron docs name the chip. */
  readonly name: string;
  readonly coreVersion: CoreVersion;
  /** Physical NeuronCores per chip. */
  readonly physicalCoresPerChip: number;
  readonly deviceMemoryPerChipGiB: number;
  /** Logical NeuronCore Configurations the chip runs: physical cores one logical core combines. */
  readonly logicalNeuronCoreConfigs: readonly number[];
}

const INFERENTIA: NeuronChip = { name: 'Inferentia', coreVersion: 'v1', physicalCoresPerChip: 4, deviceMemoryPerChipGiB: 8, logicalNeuronCoreConfigs: [1] };
const INFERENTIA2: NeuronChip = { name: 'Inferentia2', coreVersion: 'v2', physicalCoresPerChip: 2, deviceMemoryPerChipGiB: 32, logicalNeuronCoreConfigs: [1] };
const TRAINIUM: NeuronChip = { name: 'Trainium', coreVersion: 'v2', physicalCoresPerChip: 2, deviceMemoryPerChipGiB: 32, logicalNeuronCoreConfigs: [1] };
const TRAINIUM2: NeuronChip = { name: 'Trainium2', coreVersion: 'v3', physicalCoresPerChip: 8, deviceMemoryPerChipGiB: 96, logicalNeuronCoreConfigs: [1, 2] };
const TRAINIUM3: NeuronChip = { name: 'Trainium3', coreVersion: 'v4', physicalCoresPerChip: 8, deviceMemoryPerChipGiB: 144, logicalNeuronCoreConfigs: [1, 2] };

/** The chip of every Neuron instance family (`NEURON_FAMILIES`). */
export const NEURON_CHIPS: Readonly<Record<string, NeuronChip>> = Object.freeze({
  inf1: INFERENTIA, inf2: INFERENTIA2, trn1: TRAINIUM, trn1n: TRAINIUM, trn2: TRAINIUM2, trn2u: TRAINIUM2, trn3: TRAINIUM3,
});

/** The hardware facts a price file may not change silently: what planning reads. */
export const HARDWARE_FACTS = ['chips', 'coresPerChip', 'logicalNeuronCoreConfig', 'coreVersion', 'deviceMemoryPerChipGiB', 'vcpus', 'memoryGiB'] as const;

/**
 * Why an instance type's facts are not those of its family's chip, one problem per field: `field: expected ..., got
 * ...` with the fix. Empty when they are.
 */
export function hardwareProblems(spec: Omit<InstanceSpec, 'source' | 'unverified'>): string[] {
  const chip = NEURON_CHIPS[spec.family];
  if (chip === undefined) {
    return [`name: "${spec.name}" is not of a Neuron instance family (${Object.keys(NEURON_CHIPS).join(', ')}); the planner plans Inferentia and Trainium only`];
  }
  const problems: string[] = [];
  const of = `${spec.family} (${chip.name})`;
  if (spec.coreVersion !== chip.coreVersion) {
    problems.push(`coreVersion: expected "${chip.coreVersion}" for ${of}, got "${spec.coreVersion}"`);
  }
  const lnc = spec.logicalNeuronCoreConfig ?? 1;
  if (!chip.logicalNeuronCoreConfigs.includes(lnc)) {
    problems.push(chip.logicalNeuronCoreConfigs.length === 1
      ? `logicalNeuronCoreConfig: ${of} has no Logical NeuronCore Configuration (every core is physical); leave it out, got ${lnc}`
      : `logicalNeuronCoreConfig: expected ${chip.logicalNeuronCoreConfigs.join(' or ')} on ${of} (physical NeuronCores one logical core combines), got ${lnc}`);
  } else if (spec.coresPerChip !== chip.physicalCoresPerChip / lnc) {
    problems.push(`coresPerChip: expected ${chip.physicalCoresPerChip / lnc} for ${of} at logicalNeuronCoreConfig ${lnc} ` +
      `(${chip.physicalCoresPerChip} physical NeuronCore-${chip.coreVersion} per chip / ${lnc}), got ${spec.coresPerChip}` +
      (chip.logicalNeuronCoreConfigs.length > 1 && spec.logicalNeuronCoreConfig === undefined ? '; at the default LNC=2 also give "logicalNeuronCoreConfig": 2' : ''));
  }
  if (spec.deviceMemoryPerChipGiB !== chip.deviceMemoryPerChipGiB) {
    problems.push(`deviceMemoryPerChipGiB: expected ${chip.deviceMemoryPerChipGiB} for ${of}, got ${spec.deviceMemoryPerChipGiB}`);
  }
  return problems;
}

/**
 * The hardware facts in which `spec` differs from `builtIn`, as `chips 12 (built in: 16)`; empty when they agree (as
 * the facts `catalog refresh` reads from EC2 do).
 */
export function differingFacts(spec: Omit<InstanceSpec, 'source' | 'unverified'>, builtIn: InstanceSpec): string[] {
  return HARDWARE_FACTS
    .filter((fact) => (spec[fact] ?? 1) !== (builtIn[fact] ?? 1))
    .map((fact) => `${fact} ${JSON.stringify(spec[fact] ?? 1)} (built in: ${JSON.stringify(builtIn[fact] ?? 1)})`);
}
