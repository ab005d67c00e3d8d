/**
 * The Neuron instance catalog: hardware facts, hourly prices and price files. Their refresh from AWS is `io/catalog`.
 *
 * `lib/index.ts` names these files itself (so the planner and the package root load no index module); keep both
 * lists in step.
 */
export * from './types';
export { BUILT_IN_INSTANCES } from './instances';
export { BUILT_IN_PRICES } from './prices';
export { AWS_REGIONS, isAwsRegion } from './regions';
export type { PriceFile } from './catalog';
export { Catalog, deviceMemoryPerCoreGiB, ec2Name, neuronCores, priceKey, sageMakerName } from './catalog';
export type { PriceFileInput } from './price-file';
export { DEFAULT_PRICE_FILE_SOURCE, MAX_USD_PER_HOUR, UNDATED, parsePriceFile } from './price-file';
export type { NeuronChip } from './hardware-rules';
export { hardwareProblems, NEURON_CHIPS } from './hardware-rules';
/** @internal a zod schema: out of the published declarations */
export { priceFileSchema } from './price-file';
export { NEURON_FAMILIES, NeuronInstanceType } from './instance-type';
export type { InstanceStorage, InstanceStorageFact } from './instance-storage';
export { INSTANCE_STORAGE, instanceStorage } from './instance-storage';
export type { SageMakerAvailability } from './availability';
export { sageMakerAvailability } from './availability';
export { SAGEMAKER_RATIO_REGION, sageMakerEstimates } from './prices';
export type { OfferFileRead } from './data/on-demand';
