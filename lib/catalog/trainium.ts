/**
 * Trainium2 and Trainium3: the facts the catalog holds about them beyond one row per instance type, kept apart from
 * the Inferentia/Trainium1 rows so the two families' sources stay readable.
 *
 * Sources (AWS-authored, see SOURCES.md "Trainium2 and Trainium3"):
 * - Trn2 sizes: AWS Neuron docs, "Amazon EC2 Trn2 Architecture"
 *   (https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/arch/neuron-hardware/trn2-arch.html):
 *   trn2.48xlarge and trn2u.48xlarge each have 16 Trainium2 chips, 192 vCPUs, 2,048 GiB host memory, 1,536 GiB device
 *   memory, the chips on a 4x4 2D torus; a Trn2 UltraServer is four trn2u.48xlarge joined by NeuronLink-v3.
 * - Trainium2 chip: 8 physical NeuronCore-v3 and 96 GiB HBM ("Trainium2 Architecture", trainium2.rst); LNC=2 by default.
 * - Trainium3 chip: 8 NeuronCore-v4 and 144 GiB of device memory ("Trainium3 Architecture", trainium3.rst, 2025-12-02).
 *   No Trn3 instance size is published outside UltraServers, so none is built in: define one in a price file
 *   (`instances`, `coreVersion: "v4"`).
 * - Device requests on Trn: 1, 4, 8 or 16 chips, contiguous on the torus (Neuron Kubernetes device plugin docs).
 *
 * Not built in, and why: trn2.3xlarge (one Trainium2 chip) appears in AWS SDK changelogs (SageMaker HyperPod) but no
 * AWS page read here gives its vCPUs and host memory; define it in a price file with the figures of your console.
 */
import type { InstanceSpec } from './types';

const TRN2_ARCH = 'aws-neuron/aws-neuron-sdk (AWS Neuron docs): about-neuron/arch/neuron-hardware/trn2-arch.rst, trainium2.rst, '
  + 'about-neuron/arch/neuron-features/logical-neuroncore-config.rst (read 2026-11-27)';

/** Chips a Trainium2 (and Trainium3) device request may hold: a sub-torus of the instance's 4x4 torus. */
export const TRAINIUM_DEVICE_REQUEST_CHIPS: readonly number[] = Object.freeze([1, 4, 8, 16]);

/** Families whose chips are Trainium2 or newer, where the Logical NeuronCore Configuration applies. */
export const TRAINIUM2_AND_NEWER_FAMILIES: readonly string[] = Object.freeze(['trn2', 'trn2u', 'trn3']);

/** Whether an instance family is Trainium2 or newer. */
export function isTrainium2OrNewer(family: string): boolean {
  return TRAINIUM2_AND_NEWER_FAMILIES.includes(family);
}

/**
 * Trainium2: 8 physical NeuronCore-v3 and 96 GiB HBM per chip; at the default Logical NeuronCore Configuration (LNC=2)
 * the runtime sees 4 logical cores per chip with 24 GiB each.
 */
function trn2(family: 'trn2', size: string, chips: number, vcpus: number, memoryGiB: number): InstanceSpec {
  return {
    name: `${family}.${size}`, family, chips, coresPerChip: 4, logicalNeuronCoreConfig: 2, coreVersion: 'v3',
    deviceMemoryPerChipGiB: 96, vcpus, memoryGiB, source: TRN2_ARCH, unverified: false,
  };
}

/**
 * The built-in Trainium2 instance types. trn2u.48xlarge, the UltraServer member, has the same facts but is sold as
 * part of a Trn2 UltraServer through Capacity Blocks: define it (and its price) in a price file to plan one instance of
 * it like a trn2.48xlarge (the planner does not span a replica across instances).
 */
export const TRAINIUM_INSTANCES: readonly InstanceSpec[] = Object.freeze([
  trn2('trn2', '48xlarge', 16, 192, 2048),
].map((spec) => Object.freeze(spec)));

/**
 * Why a tensor-parallel group of `cores` logical cores cannot be one device request on a Trainium instance; undefined
 * when it can. A group spans whole chips (1, 4, 8 or 16) or part of one chip.
 */
export function trainiumDeviceRequestProblem(instance: Pick<InstanceSpec, 'name' | 'family' | 'coresPerChip'>, cores: number): string | undefined {
  if (!isTrainium2OrNewer(instance.family) || cores <= instance.coresPerChip) return undefined;
  const chips = cores / instance.coresPerChip;
  if (Number.isInteger(chips) && TRAINIUM_DEVICE_REQUEST_CHIPS.includes(chips)) return undefined;
  return `${cores} logical cores span ${chips} chips of ${instance.name}; a Trainium device request holds `
    + `${TRAINIUM_DEVICE_REQUEST_CHIPS.join(', ')} chips (a sub-torus): use a tensor-parallel degree of `
    + `${TRAINIUM_DEVICE_REQUEST_CHIPS.map((c) => c * instance.coresPerChip).join(', ')} or at most ${instance.coresPerChip}`;
}
