/**
 * The planner API without the constructs: plan a deployment, look up model profiles, read the instance catalog.
 *
 * Imported as `cdk-inferentia/planner`, it loads no `aws-cdk-lib`, so scripts, CLIs and Lambda handlers can plan
 * without the construct library. The package root re-exports all of it next to the constructs.
 */
export * from './errors';
export * from './profiles';
export * from './planner';
export * from './generative';
// The folders below are plain re-exporting indexes: named here by file, as constructs/index.ts names its files, so
// importing the planner (and the package root) loads no index module on top of the files. Their `index.ts` stays for
// bin/, io/ and lambdas/; a file added to one is added here too (test/lib/public-types.test.ts lists the names).
// lib/catalog/index.ts: the instance catalog, prices and price files.
export * from './catalog/types';
export { BUILT_IN_INSTANCES } from './catalog/instances';
export { BUILT_IN_PRICES } from './catalog/prices';
export { AWS_REGIONS, isAwsRegion } from './catalog/regions';
export type { PriceFile } from './catalog/catalog';
export { Catalog, deviceMemoryPerCoreGiB, ec2Name, neuronCores, priceKey, sageMakerName } from './catalog/catalog';
export type { PriceFileInput } from './catalog/price-file';
export { DEFAULT_PRICE_FILE_SOURCE, MAX_USD_PER_HOUR, UNDATED, parsePriceFile } from './catalog/price-file';
export type { NeuronChip } from './catalog/hardware-rules';
export { hardwareProblems, NEURON_CHIPS } from './catalog/hardware-rules';
/** @internal a zod schema: out of the published declarations */
export { priceFileSchema } from './catalog/price-file';
export { NEURON_FAMILIES, NeuronInstanceType } from './catalog/instance-type';
export type { InstanceStorage, InstanceStorageFact } from './catalog/instance-storage';
export { INSTANCE_STORAGE, instanceStorage } from './catalog/instance-storage';
export type { SageMakerAvailability } from './catalog/availability';
export { sageMakerAvailability } from './catalog/availability';
export type { OfferFileRead } from './catalog/data/on-demand';
// lib/plan-document/index.ts: plans read back (plan --json documents, plans passed to constructs).
export * from './plan-document/read';
// lib/compile/index.ts: the compile job's contract.
export * from './compile/spec';
export * from './compile/hash';
export * from './compile/manifest';
export * from './compile/check';
export type * from './compile/artifact';
export * from './compile/boot-script';
export * from './compile/host';
// lib/environments/index.ts: the environments a model is promoted through.
export * from './environments/schema';
export * from './environments/environments';
// lib/traffic/index.ts: the user's own traffic, read from a log or a benchmark export.
export * from './traffic/types';
export * from './traffic/quantiles';
export * from './traffic/arrivals';
export * from './traffic/renewal';
export * from './traffic/records';
export * from './traffic/parser';
export * from './traffic/statistics';
// lib/release/index.ts: release records and the promotion gate.
export * from './release/records';
export * from './release/gate';
