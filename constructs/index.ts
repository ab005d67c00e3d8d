/**
 * cdk-inferentia constructs: reuse them in your own CDK app.
 *
 * Plans come from `lib/planner` (`plan(profile, targets, options)`); constructs consume a `Plan` and never re-derive
 * sizing. Internals live in `constructs/private/` and are not exported.
 */
export * from './model-image-repository';
export * from './model-image';
export * from './model-server-metrics';
export * from './model-data';
export * from './neuron-compile-job';
export * from './sagemaker-execution-role';
export * from './endpoint-deployment';
export * from './neuron-sagemaker-endpoint';
export * from './smoke-benchmark';
export * from './inference-stack';
export * from './neuron-ecs-service';
export * from './ecs-inference-stack';
export * from './deploy-refusal';
export * from './inference-stage';
export * from './promotion-pipeline';
export * from './nag';
export { NeuronInstanceType } from '../lib/catalog';
export type { Plan, PlanTargets, PlanOptions } from '../lib/planner';
