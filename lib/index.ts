/**
 * The planner API without the constructs: plan a deployment, look up model profiles, read the instance catalog.
 *
 * Imported as `cdk-inferentia/planner`, it loads no `aws-cdk-lib`, so scripts, CLIs and Lambda handlers can plan
 * without the construct library. The package root re-exports all of it next to the constructs.
 */
export * from './errors';
export * from './catalog';
export * from './profiles';
export * from './planner';
export * from './generative';
export * from './compile';
export * from './environments';
export * from './release';
