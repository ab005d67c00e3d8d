/**
 * NeuronCore layout rules: which cores and devices each model process owns on one instance.
 *
 * Group rule: a process owns a NeuronCore group of a size the Neuron SDK supports on the chip (`supportedGroupSizes`);
 * the groups of an instance need not use all its cores (Cortex docs, "NeuronCore Groups", required them to divide
 * the cores; Neuron itself does not).
 * Device rule (AWS Neuron docs, deploy/tutorials/build-run-container.rst): core i lives on
 * `/dev/neuron(i / coresPerChip)`: 4 cores per chip on Inf1, 2 on Inf2/Trn1 (the FastAPI-on-Inferentia sample's
 * `core / 4` was wrong on Inf2).
 * Topology rule ({@link deviceCountProblem}): on Trainium instances a process or copy spans 1, 4, 8 or 16 chips.
 */
import { neuronCores } from '../catalog/catalog';
import type { InstanceSpec } from '../catalog/types';
import type { ProcessLayout } from './types';

/**
 * The value of `NEURON_RT_VISIBLE_CORES` for a contiguous run of cores: `"3"` or the inclusive range `"2-3"`.
 *
 * Ranges are accepted by every Neuron runtime 2.x (AWS Neuron docs, Neuron Runtime configuration:
 * "Integer range (like 1-3)"); comma lists only by newer runtimes.
 */
export function visibleCoresValue(first: number, count: number): string {
  return count === 1 ? `${first}` : `${first}-${first + count - 1}`;
}

/** The device files (`/dev/neuronN`, one per chip) that a set of cores touches, in order. */
export function devicesForCores(cores: readonly number[], coresPerChip: number): string[] {
  const chips = [...new Set(cores.map((core) => Math.floor(core / coresPerChip)))].sort((a, b) => a - b);
  return chips.map((chip) => `/dev/neuron${chip}`);
}

/**
 * NeuronCore group sizes (cores one model process may own) the Neuron SDK supports on each chip, or `undefined`
 * where any consecutive group fits.
 *
 * - Inferentia (Inf1): any group of consecutive NeuronCores, 1 up to the instance's total (AWS Neuron docs,
 *   "Parallel Execution using NEURON_RT_NUM_CORES", appnotes/perf/neuron-cc/parallel-ncgs.rst: models load "into
 *   different consecutive groups of NeuronCores"; Neuron Runtime configuration: `NEURON_RT_VISIBLE_CORES` takes
 *   "any value or range between 0 to Max NeuronCore in the system").
 * - Inferentia2 (Inf2): 1, 2, 4, 8 and 24 cores; Trainium (Trn1, Trn1n): 1, 2, 8, 16 and 32 cores, the tensor
 *   parallel degrees NxD Inference supports (AWS Neuron docs, libraries/nxd-inference/api-guides/api-guide.rst,
 *   2025-12-19). A one-core model runs data parallel, one copy per process.
 * - Trainium2 (Trn2) at LNC=2: 1, 2, 4, 8, 16, 32 and 64 logical cores (same source).
 */
export function supportedGroupSizes(instance: Pick<InstanceSpec, 'family'>): readonly number[] | undefined {
  switch (instance.family) {
    case 'inf2':
      return [1, 2, 4, 8, 24];
    case 'trn1':
    case 'trn1n':
      return [1, 2, 8, 16, 32];
    case 'trn2':
    case 'trn2u':
      return [1, 2, 4, 8, 16, 32, 64];
    default:
      return undefined;
  }
}

/**
 * Instance families whose chips form a 2D torus. Trn1 and Trn1n: "devices are connected through a 2D torus
 * topology, the Neuron scheduler enforces additional constraints that containers request 1, 4, 8, or all 16 devices"
 * (AWS Neuron docs, "Neuron scheduler extension", containers/tutorials/k8s-neuron-scheduler). Trn2: NeuronLink-v3 is a
 * "4 x 4 torus" of its 16 chips (AWS Neuron docs, training/best-practices), the same shape. Trn3: no topology page was
 * read here; its device requests are taken to be Trn2's (`TRAINIUM_DEVICE_REQUEST_CHIPS` in lib/catalog/instances.ts),
 * the side that refuses a span rather than plans one the device plugin may not grant. Inf1 and Inf2 are rings ("no
 * restrictions on the number of devices", same scheduler page).
 */
export const TORUS_FAMILIES: readonly string[] = ['trn1', 'trn1n', 'trn2', 'trn2u', 'trn3'];

/** Chips one process or copy may span on a torus instance. */
export const TORUS_DEVICE_COUNTS: readonly number[] = [1, 4, 8, 16];

/** The rule and its source, for messages. */
export const TORUS_RULE = 'on a Trainium instance a copy takes 1, 4, 8 or 16 Neuron devices (2D torus; AWS Neuron docs, '
  + '"Neuron scheduler extension")';

/**
 * Why a process or copy of `coresPerCopy` NeuronCores cannot be laid out on `instance` under the topology rule, or
 * undefined when it can: the chips it spans must be 1, 4, 8 or 16 on a Trainium instance of any size (a group within
 * one chip always can; a price file's 3-chip Trn3 once planned a copy over all 3). The message names the cores, the
 * chips, the rule with its source and the next size that fits.
 */
export function deviceCountProblem(instance: Pick<InstanceSpec, 'name' | 'family' | 'chips' | 'coresPerChip'>, coresPerCopy: number): string | undefined {
  if (!TORUS_FAMILIES.includes(instance.family) || !(coresPerCopy > 0)) {
    return undefined;
  }
  const chips = Math.ceil(coresPerCopy / instance.coresPerChip);
  if (TORUS_DEVICE_COUNTS.includes(chips)) {
    return undefined;
  }
  const up = TORUS_DEVICE_COUNTS.find((n) => n >= chips && n <= instance.chips);
  return `${coresPerCopy} NeuronCores span ${chips} Neuron devices of ${instance.name}, but ${TORUS_RULE}`
    + (up === undefined ? `; use at most ${instance.coresPerChip} NeuronCores (1 device)` : `; use ${up * instance.coresPerChip} NeuronCores (${up} devices)`);
}

/**
 * Why `processesPerInstance` processes of `coresPerProcess` cores cannot run on `instance`; empty when they can.
 *
 * A process's cores must be a NeuronCore group the chip supports (`supportedGroupSizes`), and all groups must fit
 * the instance's cores. They need not use every core: five 3-core groups on a 16-core inf1.6xlarge leave one idle,
 * which the plan reports. Messages name the value, the instance and the valid values, e.g.
 * `processesPerInstance=3 x coresPerProcess=1 needs 3 NeuronCores but inf2.xlarge has 2; valid values: 1, 2`.
 */
export function validateLayout(instance: InstanceSpec, coresPerProcess: number, processesPerInstance: number): string[] {
  const cores = neuronCores(instance);
  const problems: string[] = [];
  const sizes = supportedGroupSizes(instance)?.filter((g) => g <= cores);
  if (!Number.isInteger(coresPerProcess) || coresPerProcess < 1) {
    problems.push(`coresPerProcess=${coresPerProcess} must be a whole number of NeuronCores, at least 1`);
  } else if (coresPerProcess > cores) {
    problems.push(
      `coresPerProcess=${coresPerProcess} exceeds the ${cores} NeuronCores of ${instance.name}; ` +
        `use an instance with at least ${coresPerProcess} NeuronCores or compile the model for fewer cores`,
    );
  } else if (sizes && !sizes.includes(coresPerProcess)) {
    problems.push(
      `coresPerProcess=${coresPerProcess} is not a NeuronCore group size the Neuron SDK supports on ${instance.name}; ` +
        `compile the model for one of: ${sizes.join(', ')}`,
    );
  } else {
    const topology = deviceCountProblem(instance, coresPerProcess);
    if (topology !== undefined) {
      problems.push(`coresPerProcess=${coresPerProcess}: ${topology}`);
    }
  }
  if (!Number.isInteger(processesPerInstance) || processesPerInstance < 1) {
    problems.push(`processesPerInstance=${processesPerInstance} must be a whole number, at least 1`);
  } else if (problems.length === 0 && processesPerInstance * coresPerProcess > cores) {
    const most = Math.floor(cores / coresPerProcess);
    problems.push(
      `processesPerInstance=${processesPerInstance} x coresPerProcess=${coresPerProcess} needs ` +
        `${processesPerInstance * coresPerProcess} NeuronCores but ${instance.name} has ${cores}; ` +
        `valid values for ${coresPerProcess}-core processes: 1 to ${most}`,
    );
  }
  return problems;
}

/**
 * The cores, `NEURON_RT_VISIBLE_CORES` value and devices of every process on one instance.
 *
 * Processes are spread evenly: process `i` starts at core `i x stride` and owns the next `coresPerProcess` cores,
 * with the stride `cores / processes` rounded down (to a whole chip or group where the group and the chip nest, so
 * a group never straddles two chips it could have fitted in one). When the processes divide the cores this is the
 * Cortex NeuronCore Group (an equal share each, the unused rest of each share idle), so idle cores sit on different
 * chips instead of one process crowding another's memory bandwidth; otherwise the idle cores are the last.
 *
 * @throws Error when the layout is invalid: call `validateLayout` first for user-facing messages.
 */
export function coreLayout(instance: InstanceSpec, coresPerProcess: number, processesPerInstance: number): ProcessLayout[] {
  const problems = validateLayout(instance, coresPerProcess, processesPerInstance);
  if (problems.length > 0) {
    throw new Error(problems.join('; '));
  }
  const chip = instance.coresPerChip;
  const nested = coresPerProcess % chip === 0 || chip % coresPerProcess === 0;
  const align = nested ? Math.min(coresPerProcess, chip) : 1;
  const stride = Math.floor(Math.floor(neuronCores(instance) / processesPerInstance) / align) * align;
  return Array.from({ length: processesPerInstance }, (_, index) => {
    const first = index * stride;
    const cores = Array.from({ length: coresPerProcess }, (__, i) => first + i);
    return {
      index,
      cores,
      visibleCores: visibleCoresValue(first, coresPerProcess),
      devices: devicesForCores(cores, instance.coresPerChip),
    };
  });
}
