/**
 * What a {@link NeuronGenerativeEndpoint} takes.
 */
import { Duration } from 'aws-cdk-lib';
import type { GenerativePlan } from '../../lib/generative/types';
import type { ModelImage } from '../image/model-image';
import type { ModelData } from '../model/model-data';
import type { ICompiledGenerativeArtifacts } from '../compile/neuron-generative-compile-job';
import type { GenerativeSmokeBenchmarkOptions } from '../proof/smoke-benchmark-props';
import type { EndpointHostingOptions } from './endpoint-props';

/** Scale to zero copies (and zero instances) when idle, and back on the first request. */
export interface GenerativeScaleToZeroOptions {
  /**
   * Minutes without requests before the last copies are removed: the target tracking policy's scale-in cooldown.
   * Whole minutes, 1 to 1440.
   */
  readonly idleMinutes: number;
}

/** How a change of the inference component (image, weights, environment, sizing) reaches its copies. */
export interface GenerativeDeploymentOptions {
  /**
   * Share of the copies replaced per step of the rolling update, 5-50 %.
   *
   * @default 20
   */
  readonly batchPercent?: number;

  /**
   * How long each new batch serves under the rollback alarms before the next, up to 3600 s.
   *
   * @default Duration.minutes(5)
   */
  readonly waitInterval?: Duration;

  /**
   * Time limit of the whole update, 600-28800 s.
   *
   * @default - per batch: the download and startup timeouts, 30 minutes for an instance and the image, and the
   * wait; at least 600 s and at most 28800 s
   */
  readonly maximumExecutionTimeout?: Duration;
}

/** Props of {@link NeuronGenerativeEndpoint}. */
export interface NeuronGenerativeEndpointProps extends EndpointHostingOptions {
  /** The generative plan to deploy (`planGenerative`, hosting `sagemaker`). */
  readonly plan: GenerativePlan;

  /**
   * The vLLM on Neuron serving image, pinned by digest. Its entrypoint runs `vllm serve` with the arguments in
   * `CDK_INFERENTIA_VLLM_ARGS` (a JSON array; {@link VLLM_IMAGE_ENV}).
   */
  readonly image: ModelImage;

  /**
   * The weights (a Hugging Face checkpoint directory), as an uncompressed S3 prefix SageMaker copies to
   * `/opt/ml/model`; with `compiledArtifactsPath`, also the compiled artifacts.
   */
  readonly weights?: ModelData;

  /**
   * Artifacts a compile job made for this plan (`NeuronGenerativeCompileJob`): the weights it staged and the compiled
   * artifacts side by side under one prefix, which SageMaker copies to `/opt/ml/model`. Checked against the plan and
   * the image's Neuron SDK before anything is created. Give this or `weights`, not both.
   *
   * @default - `weights`, with `weightsPath` and `compiledArtifactsPath`
   */
  readonly compiledArtifacts?: ICompiledGenerativeArtifacts;

  /**
   * Compiled artifacts for the plan's fallback pools (`plan.fallbacks`) that `compiledArtifacts` was not compiled
   * for: a pool on another chip family, or with other engine settings. Each pool serves the first of these whose
   * manifest fits its plan, else the artifacts of the earlier pool it shares them with (`sharesCompiledModelWith`);
   * a pool with neither is refused at synth. Requires `compiledArtifacts`; with `weights`, every pool compiles at start.
   *
   * @default - none: every pool must share `compiledArtifacts`
   */
  readonly poolCompiledArtifacts?: readonly ICompiledGenerativeArtifacts[];

  /**
   * Directory of the compiled artifacts inside `weights`, relative (`neuron-compiled/`): vLLM loads them
   * (`NEURON_COMPILED_ARTIFACTS=/opt/ml/model/<path>`) instead of compiling at every start.
   *
   * @default - none: vLLM compiles at start (minutes to tens of minutes); the startup timeout is the API's 3600 s
   */
  readonly compiledArtifactsPath?: string;

  /**
   * Directory of the checkpoint inside `weights`, relative (`model/`), for a prefix that holds the checkpoint and the
   * compiled artifacts side by side.
   *
   * @default - the root of `weights`
   */
  readonly weightsPath?: string;

  /** Name clients send in the request's `model` field. */
  readonly servedModelName: string;

  /**
   * Scale to zero copies when idle. The endpoint then answers the first request after an idle period with an
   * error while an instance starts (see `coldStart`).
   *
   * @default - never below the plan's instance count
   */
  readonly scaleToZero?: GenerativeScaleToZeroOptions;

  /**
   * Rolling update of the copies, with automatic rollback on the rollback alarms.
   *
   * @default - 20 % of the copies per step, 5 minutes each
   */
  readonly deployment?: GenerativeDeploymentOptions;

  /**
   * Extra container environment, merged over the engine's (`CDK_INFERENTIA_VLLM_ARGS`, the metrics variables of
   * {@link VLLM_IMAGE_ENV}, `NEURON_COMPILED_ARTIFACTS`, `NEURON_LOGICAL_NC_CONFIG` on Trn2).
   *
   * @default - the engine's variables only
   */
  readonly environment?: Record<string, string>;

  /**
   * A CloudWatch dashboard: the component's invocations, errors, latency and copies, and the engine's TTFT, TPOT,
   * queue, KV cache and tokens beside the plan's predictions.
   *
   * @default true
   */
  readonly dashboard?: boolean;

  /**
   * The engine's metrics in CloudWatch (TTFT, TPOT, queue, KV cache, tokens, NeuronCore use) and the TTFT and TPOT p99
   * alarms that roll an update back on them.
   *
   * The image's exporter writes them as embedded metrics to the inference component's log group, so the role must be
   * allowed to write there (and `cloudwatch:PutMetricData` in `engineMetricsNamespace`): the endpoint grants both to its
   * own role and to a mutable role you pass. A role imported with `mutable: false` takes no grant, so synth refuses it
   * while this is on: without the grants the alarms would never see data. `false` turns the exporter off
   * (`ENGINE_METRICS=off`), and with it the engine's alarms and dashboard widgets; the 5XX alarm stays.
   *
   * @default true
   */
  readonly engineMetrics?: boolean;

  /**
   * Prove every deployment of this endpoint in tokens: right after CloudFormation deploys it, a Lambda sends the
   * golden prompt and a short streamed run to the inference component, judges them against the plan's TTFT and TPOT
   * targets (and optionally runs the capacity proof at the plan's rate), and fails the deployment (so CloudFormation
   * rolls back) when one is missed. It runs again whenever the endpoint's fingerprint changes. `tokens.servedModelName`
   * is this endpoint's.
   *
   * @default - no proof
   * @see SmokeBenchmark
   */
  readonly smokeBenchmark?: GenerativeSmokeBenchmarkOptions;
}
