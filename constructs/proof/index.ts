/** Proofs of a deploy: the smoke benchmark and capacity proof that fail a deploy which misses its plan, and deploy-time refusals. */
export * from './smoke-target';
export type * from './smoke-benchmark-props';
export * from './smoke-thresholds';
export * from './smoke-benchmark';
export * from './deploy-refusal';
