/**
 * The Neuron compile job's contract, shared by the construct, its handlers and the CLI: the compile spec, its
 * content hash, the manifest and failure record the compile host writes, the check of an artifact against a plan,
 * the compile host's sizing and boot script. The job's state machine (AWS calls) is in `./job`, imported directly
 * by the handlers and the CLI, so this pure part loads no AWS SDK.
 */
export * from './spec';
export * from './hash';
export * from './manifest';
export * from './check';
export type * from './artifact';
export * from './boot-script';
export * from './host';
// lib/index.ts names these files itself, not this index (so the planner loads one module fewer): a file added here
// is added there too. The generative compile (./generative-spec, ./generative-manifest, ./generative-script) is
// imported from its files, not re-exported here.
