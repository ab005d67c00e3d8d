/**
 * NeuronCore layout rules: which cores and devices each model process owns on one instance.
 *
 * Cortex rule (shared/seeds/000, "NeuronCore Groups"): the processes on an instance must divide its NeuronCores,
 * and each process gets an equal group of `cores / processes` NeuronCores.
 * Device rule (shared/reference/anchors.md, "Facts worth reusing"): core i lives on `/dev/neuron(i / coresPerChip)`:
 * 4 cores per chip on Inf1, 2 on Inf2/Trn1 (the FastAPI sample's `core / 4` was wrong on Inf2).
 */
import { neuronCores } from '../catalog/catalog';
import type { InstanceSpec } from '../catalog/types';
import type { ProcessLayout } from './types';

/** Every divisor of `n` in ascending order: the process counts an instance with `n` NeuronCores accepts. */
export function divisors(n: number): number[] {
  const result: number[] = [];
  for (let d = 1; d <= n; d++) {
    if (n % d === 0) {
      result.push(d);
    }
  }
  return result;
}

/**
 * The value of `NEURON_RT_VISIBLE_CORES` for a contiguous run of cores: `"3"` or the inclusive range `"2-3"`.
 *
 * Ranges are accepted by every Neuron runtime; lists only since 2.16 (shared/reference/anchors.md).
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
 * Why `processesPerInstance` processes of `coresPerProcess` cores cannot run on `instance`; empty when they can.
 *
 * Messages name the value, the instance and the valid values, e.g.
 * `processesPerInstance=3 does not divide the 2 NeuronCores of inf2.xlarge; valid values: 1, 2`.
 */
export function validateLayout(instance: InstanceSpec, coresPerProcess: number, processesPerInstance: number): string[] {
  const cores = neuronCores(instance);
  const problems: string[] = [];
  if (!Number.isInteger(coresPerProcess) || coresPerProcess < 1) {
    problems.push(`coresPerProcess=${coresPerProcess} must be a whole number of NeuronCores, at least 1`);
  } else if (coresPerProcess > cores) {
    problems.push(
      `coresPerProcess=${coresPerProcess} exceeds the ${cores} NeuronCores of ${instance.name}; ` +
        `use an instance with at least ${coresPerProcess} NeuronCores or compile the model for fewer cores`,
    );
  }
  if (!Number.isInteger(processesPerInstance) || processesPerInstance < 1) {
    problems.push(`processesPerInstance=${processesPerInstance} must be a whole number, at least 1`);
  } else if (cores % processesPerInstance !== 0) {
    problems.push(
      `processesPerInstance=${processesPerInstance} does not divide the ${cores} NeuronCores of ${instance.name}; ` +
        `valid values: ${divisors(cores).join(', ')}`,
    );
  } else if (problems.length === 0 && processesPerInstance * coresPerProcess > cores) {
    const fits = divisors(cores).filter((p) => p * coresPerProcess <= cores);
    problems.push(
      `processesPerInstance=${processesPerInstance} x coresPerProcess=${coresPerProcess} needs ` +
        `${processesPerInstance * coresPerProcess} NeuronCores but ${instance.name} has ${cores}; ` +
        `valid values for ${coresPerProcess}-core processes: ${fits.join(', ')}`,
    );
  }
  return problems;
}

/**
 * The cores, `NEURON_RT_VISIBLE_CORES` value and devices of every process on one instance.
 *
 * Each process has an equal, contiguous group of `cores / processesPerInstance` NeuronCores (the Cortex NeuronCore
 * Group) and is given the first `coresPerProcess` of them: a model compiled for fewer cores than its group leaves
 * the rest idle and unreserved. Contiguous, aligned groups keep a process on as few chips as possible.
 *
 * @throws Error when the layout is invalid: call `validateLayout` first for user-facing messages.
 */
export function coreLayout(instance: InstanceSpec, coresPerProcess: number, processesPerInstance: number): ProcessLayout[] {
  const problems = validateLayout(instance, coresPerProcess, processesPerInstance);
  if (problems.length > 0) {
    throw new Error(problems.join('; '));
  }
  const groupSize = neuronCores(instance) / processesPerInstance;
  return Array.from({ length: processesPerInstance }, (_, index) => {
    const first = index * groupSize;
    const cores = Array.from({ length: coresPerProcess }, (__, i) => first + i);
    return {
      index,
      cores,
      visibleCores: visibleCoresValue(first, coresPerProcess),
      devices: devicesForCores(cores, instance.coresPerChip),
    };
  });
}
