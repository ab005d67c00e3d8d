/**
 * Contracts between the constructs and the model server in `serving/`: the environment it reads and the metrics it writes.
 */
export * from './environment';
export * from './metrics';
export * from './pool';
