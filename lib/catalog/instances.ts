import { TRAINIUM_INSTANCES } from './trainium';
import { InstanceSpec } from './types';

/*
 * Hardware facts of the Neuron instances the toolkit plans for.
 *
 * Trainium2 and newer are in `trainium.ts`. Source: aws-neuron/aws-neuron-sdk at 81ce03ae (2026-08-21, Neuron SDK 2.32),
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
