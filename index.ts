/**
 * cdk-inferentia: plan, deploy and prove ML inference on AWS Inferentia and Trainium from your own CDK app.
 *
 * The package root exports the constructs (`NeuronSageMakerEndpoint`, `ModelImage`, `ModelData`, ...), the
 * policy checks (`applyPolicyChecks`) and the planner API (`plan`, `planReport`, the built-in model profiles, the
 * instance catalog and their types). `cdk-inferentia/planner` exports the planner API alone, without `aws-cdk-lib`.
 *
 * @packageDocumentation
 */
export * from './constructs';
export * from './lib';
// The benchmark's option shapes that the smoke benchmark's props use (`expect`, `thresholds`, `load`), as types only:
// the root does not load the load generator.
export type * from './lib/bench/types';
// The proof in tokens' shapes that a generative plan's smoke benchmark props and report use (`tokens.golden.expect`,
// `tokens.api`, the rendered config), as types only.
export type {
  GoldenAnswer,
  GoldenPrompt,
  TokenApi,
  TokenCapacityConfig,
  TokenFigures,
  TokenMeasurement,
  TokenProofConfig,
  TokenSmokeRun,
  TokenThresholdResult,
  TokenThresholds,
  Percentiles,
} from './lib/bench/token-proof';
