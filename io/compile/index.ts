/** The compile job's state machine: the AWS calls that start, poll and clean up a compile (`lib/compile` is its contract). */
export * from './job';
export * from './generative-job';
