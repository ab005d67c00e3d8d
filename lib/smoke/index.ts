/**
 * The contract between the SmokeBenchmark construct and its Lambda handler: run budget, configuration schema and
 * environment names, metric names. Pure: both sides import it, neither imports the other.
 */
export * from './budget';
export * from './capacity';
export * from './capacity-merge';
export * from './capacity-verdict';
export * from './config';
export * from './metrics';
