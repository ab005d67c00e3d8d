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
// Types the public API's signatures name (a construct's property, a function's parameter), so each has its page in
// the API reference; type-only, so the root loads no module for them.
export type { GenerativeArtifactFacts, CompiledSettings, SettingDifference } from './lib/compile/generative-check';
export type {
  GenerativeChip,
  GenerativeCompileDtype,
  GenerativeCompileSpec,
  GenerativePlanForArtifact,
  GenerativePluginCompile,
  GenerativeWeightsIdentity,
} from './lib/compile/generative-spec';
export type { ColdStartEstimate, ComponentSizing } from './constructs/sagemaker/private/generative-sizing';
export type { CapacityConfig, CapacityThresholds, PlanBasis } from './lib/smoke/capacity';
export type { ChipTopology, Features, ModelConfiguration, PerformanceCoefficients } from './lib/generative/model/physics';
export type { ErrorSummary } from './lib/generative/model/holdout';
export type { CoefficientLevel, FittedCoefficients } from './lib/generative/model/fit';
export type { ClassError, ErrorReport, KindErrors } from './lib/generative/model/report';
export type { HeldOutError } from './lib/generative/model/evidence';
export type { ServingStack } from './lib/generative/published/types';
export type { TokenPercentiles, TokenPoolLimits, TokenPoolMeasurement } from './lib/bench/token-pools';
export type { GenerativePlanBasis } from './lib/bench/token-calibration';
export type { PoolLimits } from './lib/bench/pools';
export type { EstimateInput } from './lib/generative/estimated-timing';
export type { ModelledWorkload } from './lib/generative/tpot-tail';
export { ACTIVATION_MIB_PER_SAMPLE } from './lib/profiles/memory';
