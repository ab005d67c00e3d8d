/**
 * The Neuron compile job's contract, shared by the construct, its handlers and the CLI: the compile spec, its
 * content hash, the manifest and failure record the compile host writes, the check of an artifact against a plan,
 * the compile host's sizing and boot script, and the generative compile's spec and plan check. The job's state machine (AWS calls) is in `./job`, imported directly
 * by the handlers and the CLI, so this pure part loads no AWS SDK.
 */
export * from './spec';
export * from './hash';
export * from './manifest';
export * from './check';
export type * from './artifact';
export * from './boot-script';
export * from './host';
export * from './generative-spec';
// The manifest's parser and the generative boot script are the edge's (io/compile, tests): imported from their files.
export type * from './generative-manifest';
