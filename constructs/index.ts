/**
 * cdk-inferentia constructs: reuse them in your own CDK app.
 *
 * Plans come from `lib/planner` (`plan(profile, targets, options)`); constructs consume a `Plan` and never re-derive
 * sizing. One folder per capability, each with its `index.ts`; a folder's `private/` and the shared `private/` hold
 * internals, which are not exported. docs/architecture.md has the map. This barrel names the files, not the folders'
 * indexes, so importing the package loads no module it does not use.
 */
export * from './image/model-image-repository';
export * from './image/model-image';
export * from './monitoring/model-server-metrics';
export * from './monitoring/generative-engine-metrics';
export * from './model/model-data';
export * from './compile/neuron-compile-job';
export * from './compile/neuron-generative-compile-job';
export * from './sagemaker/sagemaker-execution-role';
export * from './sagemaker/endpoint-deployment';
export * from './sagemaker/endpoint-props';
export * from './sagemaker/neuron-sagemaker-endpoint';
export * from './sagemaker/inference-stack';
export type * from './sagemaker/generative-endpoint-props';
export * from './sagemaker/neuron-generative-endpoint';
export * from './sagemaker/generative-inference-stack';
export * from './proof/smoke-target';
export type * from './proof/smoke-benchmark-props';
export * from './proof/smoke-thresholds';
export * from './proof/smoke-benchmark';
export * from './proof/deploy-refusal';
export * from './ecs/ecs-service-props';
export * from './ecs/neuron-ecs-service';
export * from './ecs/ecs-inference-stack';
export type * from './ecs/generative-ecs-service-props';
export * from './ecs/neuron-generative-ecs-service';
export * from './ecs/generative-ecs-inference-stack';
export * from './release/inference-stage';
export * from './release/promotion-pipeline';
export * from './nag/apply-policy-checks';
export * from './nag/neuron-checks';
export * from './nag/rules/neuron-ecr-immutable-tags';
export * from './nag/rules/neuron-ecr-kms-encryption';
export * from './nag/rules/neuron-ecr-scan-on-push';
export * from './nag/rules/neuron-endpoint-config-kms';
export * from './nag/rules/neuron-endpoint-config-trn-no-kms-or-volume';
export * from './nag/rules/neuron-endpoint-instance-is-neuron';
export * from './nag/rules/neuron-endpoint-network-isolation-has-model-data';
export * from './nag/rules/neuron-model-image-by-digest';
export { NeuronInstanceType } from '../lib/catalog/instance-type';
export type { Plan, PlanTargets, PlanOptions } from '../lib/planner';
