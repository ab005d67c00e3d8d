import { InstanceSpec } from './types';

/*
 * Hardware facts of the Neuron instances the toolkit plans for.
 *
 * Trainium2 and newer: their section below. Source: aws-neuron/aws-neuron-sdk at 81ce03ae (2026-08-21, Neuron SDK 2.32),
 * about-neuron/arch/neuron-hardware/{inf1,inf2,trn1,trn2}-arch.rst for chips, vCPUs and host memory, and
 * inferentia.rst / inferentia2.rst / trainium.rst for cores per chip, core version and device memory per chip;
 * (see SOURCES.md). No value here is UNVERIFIED.
 */

const NEURON = 'aws-neuron/aws-neuron-sdk 81ce03ae (2026-08-21)';
const INF1_SOURCE = `${NEURON}: about-neuron/arch/neuron-hardware/inf1-arch.rst, inferentia.rst`;
const INF2_SOURCE = `${NEURON}: about-neuron/arch/neuron-hardware/inf2-arch.rst, inferentia2.rst`;
const TRN1_SOURCE = `${NEURON}: about-neuron/arch/neuron-hardware/trn1-arch.rst, trainium.rst`;

/** Inferentia (v1): 4 NeuronCore-v1 and 8 GiB DRAM per chip. */
function inf1(size: string, chips: number, vcpus: number, memoryGiB: number): InstanceSpec {
  return {
    name: `inf1.${size}`, family: 'inf1', chips, coresPerChip: 4, coreVersion: 'v1', deviceMemoryPerChipGiB: 8,
    vcpus, memoryGiB, source: INF1_SOURCE, unverified: false,
  };
}

/** Inferentia2: 2 NeuronCore-v2 and 32 GiB HBM per chip. */
function inf2(size: string, chips: number, vcpus: number, memoryGiB: number): InstanceSpec {
  return {
    name: `inf2.${size}`, family: 'inf2', chips, coresPerChip: 2, coreVersion: 'v2', deviceMemoryPerChipGiB: 32,
    vcpus, memoryGiB, source: INF2_SOURCE, unverified: false,
  };
}

/** Trainium (v1), also in Trn1n: 2 NeuronCore-v2 and 32 GiB per chip. */
function trn1(family: 'trn1' | 'trn1n', size: string, chips: number, vcpus: number, memoryGiB: number): InstanceSpec {
  return {
    name: `${family}.${size}`, family, chips, coresPerChip: 2, coreVersion: 'v2', deviceMemoryPerChipGiB: 32,
    vcpus, memoryGiB, source: TRN1_SOURCE, unverified: false,
  };
}

/*
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

/**
 * The built-in Neuron instance catalog, in family then size order.
 *
 * @see https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/arch/neuron-hardware/inf2-arch.html
 */
export const BUILT_IN_INSTANCES: readonly InstanceSpec[] = Object.freeze([
  //   size        chips vCPU  GiB
  inf1('xlarge', 1, 4, 8),
  inf1('2xlarge', 1, 8, 16),
  inf1('6xlarge', 4, 24, 48),
  inf1('24xlarge', 16, 96, 192),
  inf2('xlarge', 1, 4, 16),
  inf2('8xlarge', 1, 32, 128),
  inf2('24xlarge', 6, 96, 384),
  inf2('48xlarge', 12, 192, 768),
  trn1('trn1', '2xlarge', 1, 8, 32),
  trn1('trn1', '32xlarge', 16, 128, 512),
  trn1('trn1n', '32xlarge', 16, 128, 512),
].map((spec) => Object.freeze(spec)).concat(TRAINIUM_INSTANCES));
