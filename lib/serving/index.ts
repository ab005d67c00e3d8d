/**
 * Contracts between the constructs and the model server in `serving/`: the environment it reads.
 */
export * from './environment';
