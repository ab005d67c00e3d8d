/**
 * Release records and the promotion gate: what each environment runs, what was promoted into it and on what evidence.
 */
export * from './records';
export * from './gate';
// lib/index.ts names these files itself, not this index: a file added here is added there too.
