/** What a {@link NeuronGenerativeEcsService} takes. */
import { Duration, Size } from 'aws-cdk-lib';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { GenerativePlan } from '../../lib/generative';
import type { ICompiledGenerativeArtifacts } from '../compile/neuron-generative-compile-job';
import type { ModelImage } from '../image/model-image';
import type { EcsAutoScalingOptions, EcsHostingOptions } from './ecs-service-props';
import type { SmokeBenchmarkOptions, TokenProofOptions } from '../proof/smoke-benchmark-props';

/** Where a generative model's weights and compiled artifacts are in S3; every task downloads them when it starts. */
export interface GenerativeModelLocation {
  /** The bucket. Tasks get read access to the prefixes below only (and decrypt on its key, when it has one). */
  readonly bucket: s3.IBucket;

  /**
   * Key prefix of the weights in Hugging Face layout (`config.json`, tokenizer files, `*.safetensors`), without a
   * trailing slash, e.g. `models/llama-3.1-8b-instruct`.
   */
  readonly weightsPrefix: string;

  /**
   * Key prefix of the artifacts compiled for this plan's tensor-parallel degree, sequences, length and Neuron SDK,
   * loaded through `NEURON_COMPILED_ARTIFACTS`.
   *
   * @default - none: vLLM compiles at every task start (minutes to an hour), warned at synth
   */
  readonly compiledArtifactsPrefix?: string;
}

/** Props of {@link NeuronGenerativeEcsService}. */
export interface NeuronGenerativeEcsServiceProps extends EcsHostingOptions {
  /**
   * The generative plan to deploy, made with `hosting: 'ec2'`: instance type, instances at the target and at the
   * peak, and the replicas of each instance with their NeuronCores and `/dev/neuronN` devices.
   */
  readonly plan: GenerativePlan;

  /** The image that runs `vllm serve` on Neuron (the AWS Neuron vLLM deep learning container), pinned by digest. */
  readonly image: ModelImage;

  /**
   * Where the weights and compiled artifacts are, as S3 prefixes. Pass either this or `compiledArtifacts`.
   *
   * @default - `compiledArtifacts`
   */
  readonly model?: GenerativeModelLocation;

  /**
   * The weights and artifacts a `NeuronGenerativeCompileJob` compiled, checked at synth against the plan and the
   * image's Neuron SDK (tensor parallel size, sequences, length, SDK, chip, LNC) before anything is created; the
   * services start after the compile. Pass either this or `model`.
   *
   * @default - `model`
   */
  readonly compiledArtifacts?: ICompiledGenerativeArtifacts;

  /** Name clients send in the request's `model` field (`--served-model-name`). */
  readonly servedModelName: string;

  /**
   * The proof each deploy must pass, in tokens, against the load balancer (golden prompt, short streamed run, and
   * optionally the capacity proof at the plan's rate); `tokens.servedModelName` is this service's.
   *
   * @default - no proof
   */
  readonly smokeBenchmark?: Omit<SmokeBenchmarkOptions, 'request' | 'expect' | 'tokens'> & { readonly tokens?: Omit<TokenProofOptions, 'servedModelName'> };

  /**
   * Image of the container that copies the weights and artifacts from S3 into the task before the engine starts:
   * it runs `/bin/sh -c` with the AWS CLI.
   *
   * @default - the engine's image (the Neuron vLLM DLC installs the AWS CLI), so an instance pulls one image
   */
  readonly downloadImage?: ecs.ContainerImage;

  /** Port vLLM listens on in each task. @default 8080 */
  readonly containerPort?: number;

  /**
   * Root volume of each instance (encrypted gp3): the image, and each task's copy of the weights and artifacts.
   *
   * @default - `(50 GiB + replicas x (weights + artifacts)) x 1.25`, at least 100 GiB
   */
  readonly rootVolumeSize?: Size;

  /**
   * Time a new task has before failing load balancer checks count against it: download, weights load and compiled
   * artifacts load.
   *
   * @default - twice the replica's predicted start, from 600 s to 7200 s: weights and artifacts from S3 at 200 MiB/s,
   * the weights onto the NeuronCores at 0.58 GiB/s (750 GB in 20 minutes, vLLM Neuron docs, checkpoint loading), 120 s
   * of engine start, plus 1800 s without compiled artifacts (`predictedStartup`, lib/generative/memory.ts)
   */
  readonly healthCheckGracePeriod?: Duration;

  /**
   * Longest a request may take: the load balancer's idle timeout (a non-streamed request sends nothing until it
   * ends) and the deregistration delay (a draining task finishes the streams it serves). At most 3600 s.
   *
   * @default - twice the plan's predicted p99 end-to-end latency plus 30 s, from 60 s to 3600 s
   */
  readonly requestTimeout?: Duration;

  /**
   * Task count scaling on `ALBRequestCountPerTarget`, per replica slot.
   *
   * `targetUtilization` is a fraction of one replica's capacity (`plan.generative.capacityPerReplicaRps`).
   *
   * @default - enabled when the plan has a peak above its target, tracking the plan's own rate per replica
   */
  readonly autoScaling?: EcsAutoScalingOptions;

  /**
   * CloudWatch namespace of the engine's metrics and NeuronCore utilization, which the `ModelImage.fromNeuronVllm`
   * image exports as embedded-metric-format log lines.
   *
   * @default 'CdkInferentia/GenerativeEngine'
   */
  readonly metricsNamespace?: string;

  /** Extra engine environment, merged over the rendered one. @default - none */
  readonly environment?: Record<string, string>;

  /**
   * Add a CloudWatch dashboard: the load balancer's requests, healthy tasks, engine 5XX and requests per task against
   * the scaling target, then the engine's widgets beside the plan (`GenerativeEngineMetrics.widgets()`).
   *
   * @default true
   */
  readonly dashboard?: boolean;
}
