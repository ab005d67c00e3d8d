/**
 * The compile host: which instance types to launch for a spec, largest RAM need first, and the job's time limits.
 */
import { BUILT_IN_INSTANCES } from '../catalog/instances';
import type { InstanceSpec } from '../catalog/types';
import { chipOfFamily, type CompileSpec } from './spec';

/**
 * Host RAM a compile needs for a model whose weights take `modelSizeGiB` on disk.
 *
 * UNVERIFIED rule of thumb: 4 GiB for the OS, Python and the compiler, plus 6 times the FP32 weights for the traced
 * graph, the compiler's intermediate copies and the CPU reference run. The compiler killed for memory (exit -9,
 * aws-neuron-sdk#431) is the failure it guards against; the host picked has 1.5 times this.
 */
export function compileRamGiB(modelSizeGiB: number): number {
  return 4 + 6 * modelSizeGiB;
}

/** Headroom of host RAM over {@link compileRamGiB}: "well above", because an out-of-memory compile wastes its hour. */
export const HOST_RAM_HEADROOM = 1.5;

/** How many instance types the job tries, in order, when EC2 has no capacity for the first. */
export const FALLBACK_TYPES = 2;

/**
 * Instance types to launch for `spec`, in the order tried on `InsufficientInstanceCapacity`: the smallest of the
 * target chip's families with {@link HOST_RAM_HEADROOM} x the RAM the compile needs, then the next larger ones. On
 * the target chip, so the compile script can measure the artifact into a profile.
 *
 * @param override instance types to use instead, as given (tried in order)
 */
export function compileHostTypes(spec: CompileSpec, modelSizeGiB: number, override?: readonly string[]): string[] {
  if (override !== undefined && override.length > 0) {
    return [...override];
  }
  const needed = compileRamGiB(modelSizeGiB) * HOST_RAM_HEADROOM;
  const candidates = BUILT_IN_INSTANCES
    .filter((i: InstanceSpec) => chipOfFamily(i.family) === spec.chip && i.family !== 'trn1n')
    .filter((i) => i.memoryGiB >= needed)
    .sort((a, b) => a.memoryGiB - b.memoryGiB || a.vcpus - b.vcpus);
  return candidates.slice(0, 1 + FALLBACK_TYPES).map((i) => i.name);
}

/**
 * Longest a CloudFormation custom resource may wait: CloudFormation's one-hour limit, less what the Provider
 * framework and the instance's boot take. A compile allowed longer is refused at synth with the CLI route.
 */
export const MAX_CUSTOM_RESOURCE_COMPILE_MINUTES = 50;

/** SSM public parameter of the Neuron DLAMI the compile host boots, per chip (Neuron DLAMI guide, SSM parameters). */
export const DLAMI_PARAMETERS = {
  inf1: '/aws/service/neuron/dlami/pytorch-1.13-inf1/ubuntu-22.04/latest/image_id',
  inf2: '/aws/service/neuron/dlami/multi-framework/ubuntu-24.04/latest/image_id',
  trn1: '/aws/service/neuron/dlami/multi-framework/ubuntu-24.04/latest/image_id',
} as const;
