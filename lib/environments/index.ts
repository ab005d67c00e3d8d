/**
 * The environments a model is promoted through, as typed config shared by the CDK app and the `promote` command.
 */
export * from './schema';
export * from './environments';
// lib/index.ts names these files itself, not this index: a file added here is added there too.
