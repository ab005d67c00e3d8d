import { CfnOutput, Stack, StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { InputError } from '../lib/errors';
import type { Plan } from '../lib/planner';
import { ModelData } from './model-data';
import { ModelImage } from './model-image';
import { ModelImageRepository } from './model-image-repository';
import { NeuronSageMakerEndpoint } from './neuron-sagemaker-endpoint';
import type { SmokeBenchmarkOptions } from './smoke-benchmark';

/** Props of {@link InferenceStack}. */
export interface InferenceStackProps extends StackProps {
  /** The plan to deploy, made for hosting `sagemaker` in this stack's region. */
  readonly plan: Plan;

  /**
   * The serving image: the model server on a Neuron DLC pinned by digest (`ModelImage.fromServer`, which runs
   * `stock` and `batching` plans), or a Neuron DLC's stock toolkit (`ModelImage.fromNeuronDlc`, `stock` plans only).
   *
   * Pass either `image` or `imageDigest`.
   *
   * @default - the image with `imageDigest` in this stack's repository
   */
  readonly image?: ModelImage;

  /**
   * Digest of an image pushed to this stack's repository (`sha256:` and 64 hex digits): the model server image
   * (built from `serving/`, e.g. the one `ModelImage.fromServer` builds, or FROM it), configured from the plan.
   *
   * @default - `image` is used
   */
  readonly imageDigest?: string;

  /**
   * Directory with the model data (compiled model, tokenizer, `code/inference.py`), uploaded as an asset and
   * served uncompressed from S3.
   */
  readonly modelDataPath: string;

  /**
   * Files in `modelDataPath` the model handler loads, relative to it, e.g. `['model.pt', 'tokenizer_config.json',
   * 'vocab.txt']`. A missing one warns at synth and makes CloudFormation refuse the deploy before anything is
   * created.
   *
   * @default - only that the directory holds at least one file
   */
  readonly requiredModelFiles?: readonly string[];

  /**
   * Sequence length the model was compiled for, passed to the handler as `MODEL_SEQUENCE_LENGTH`.
   *
   * @default 128 - the Neuron encoder benchmarks' shape
   */
  readonly sequenceLength?: number;

  /**
   * The smoke benchmark that proves each deployment and rolls it back when the endpoint misses the plan's targets.
   *
   * @default - no smoke benchmark
   */
  readonly smokeBenchmark?: SmokeBenchmarkOptions;
}

/**
 * One model served on a SageMaker Neuron endpoint, as the plan sized it: an image repository for your own builds,
 * the endpoint with its guardrails, and outputs for the endpoint name, the repository URI and the plan.
 *
 * The model handler receives the plan's batch as `MODEL_BATCH_SIZE` and the compiled sequence length as
 * `MODEL_SEQUENCE_LENGTH` (see `examples/bert-base-uncased/model/code/inference.py`).
 */
export class InferenceStack extends Stack {
  /** Repository for serving images built for this model. */
  readonly repository: ModelImageRepository;
  /** The endpoint. */
  readonly endpoint: NeuronSageMakerEndpoint;

  constructor(scope: Construct, id: string, props: InferenceStackProps) {
    super(scope, id, props);
    if ((props.image === undefined) === (props.imageDigest === undefined)) {
      throw new InputError(props.image === undefined
        ? 'InferenceStack: neither image nor imageDigest is set; pass image (e.g. ModelImage.fromServer({ tag, '
          + "digest })) or the imageDigest of an image pushed to the stack's repository"
        : 'InferenceStack: both image and imageDigest are set; pass only one');
    }

    this.repository = new ModelImageRepository(this, 'Repository');
    const image = props.image ?? ModelImage.fromRepository(this.repository, props.imageDigest as string, { modelServer: true });
    const plan = props.plan;

    this.endpoint = new NeuronSageMakerEndpoint(this, 'Endpoint', {
      plan,
      image,
      modelData: ModelData.fromAsset(props.modelDataPath, { requiredFiles: props.requiredModelFiles }),
      environment: {
        MODEL_BATCH_SIZE: `${plan.batchSize}`,
        MODEL_SEQUENCE_LENGTH: `${props.sequenceLength ?? 128}`,
      },
      smokeBenchmark: props.smokeBenchmark,
    });

    new CfnOutput(this, 'EndpointName', {
      description: 'SageMaker endpoint to invoke',
      value: this.endpoint.endpointName,
    });
    new CfnOutput(this, 'RepositoryUri', {
      description: 'ECR repository for serving images built for this model',
      value: this.repository.repositoryUri,
    });
    new CfnOutput(this, 'PlanSummary', {
      description: 'What the planner chose and why it meets the targets',
      value: planSummary(plan),
    });
  }
}

/** One line a reviewer reads: layout, capacity against target, latency against target, cost. */
export function planSummary(plan: Plan): string {
  const price = plan.price.unverified ? ' (price UNVERIFIED)' : '';
  return `${plan.profileId}: ${plan.instanceCount} x ${plan.instanceType} `
    + `(max ${plan.maxInstanceCount}), ${plan.processesPerInstance} processes x ${plan.coresPerProcess} NeuronCore(s), `
    + `batch ${plan.batchSize}, ${plan.serving} serving; capacity ${round(plan.capacityRps)} requests/s for `
    + `${plan.targets.throughputRps} requests/s; predicted p99 ${round(plan.predictedP99Ms)} ms for <= ${plan.targets.p99Ms} ms; `
    + `$${plan.hourlyCostUsd.toFixed(2)}/h, $${plan.monthlyCostUsd.toFixed(2)}/month in ${plan.region}${price}`;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
