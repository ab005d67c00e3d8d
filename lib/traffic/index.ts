/**
 * The user's own traffic: a log's or a benchmark export's token counts and arrival times, read line by line
 * (`TrafficParser`; from disk, `io/traffic`'s `readTrafficFile`), summarised, and drawn from again by the replays and
 * the proofs.
 */
export * from './types';
export * from './quantiles';
export * from './arrivals';
export * from './renewal';
export * from './records';
export * from './parser';
export * from './statistics';
