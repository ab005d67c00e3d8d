import type { EndpointLayout } from './endpoint-layout';

/*
 * Defaults for the production variant's storage and container timeouts, sized from the model the plan describes.
 *
 * Limits (SageMaker API Reference, `ProductionVariant`; service model service-2.json of 2026-08-07): VolumeSizeInGB 1-512,
 * ModelDataDownloadTimeoutInSeconds and ContainerStartupHealthCheckTimeoutInSeconds 60-3600.
 */

/** Smallest and largest ML storage volume SageMaker accepts, in GiB. */
export const VOLUME_MIN_GIB = 1;
export const VOLUME_MAX_GIB = 512;

/**
 * Smallest default volume: the SageMaker developer guide tells users to raise the volume only for models larger
 * than 30 GB (realtime-endpoints-large-model-hosting.md), so 30 GiB is what every small model gets anyway.
 */
export const VOLUME_DEFAULT_MIN_GIB = 30;

/** Range of both container timeouts, in seconds. */
export const TIMEOUT_MIN_SECONDS = 60;
export const TIMEOUT_MAX_SECONDS = 3600;

/**
 * Default of both timeouts for small models: 600 s, as generative-ai-cdk-constructs uses, ten times what
 * SageMaker allows without the setting. A Neuron worker loads its compiled NEFF onto its NeuronCores before
 * TorchServe answers `/ping`, and Inf1 ping checks are known to fail intermittently under tight limits
 * (https://github.com/aws-neuron/aws-neuron-sdk/issues/457).
 */
export const TIMEOUT_DEFAULT_SECONDS = 600;

/**
 * Seconds of download time budgeted per GiB of model: a 60 GiB model gets 1800 s, the value the SageMaker large
 * model hosting guide uses for models above ~40 GB (SageMaker Developer Guide, large model inference). About 35 MB/s, far below what S3
 * delivers to one instance, so it only bites when something is wrong.
 */
export const DOWNLOAD_SECONDS_PER_GIB = 30;

/**
 * Seconds of container startup budgeted per GiB of model: loading weights onto NeuronCores (and, for traced
 * models, deserialising the NEFF) is slower than the download; 40 GiB gets the guide's 1800 s. The generative
 * hostings budget loading a checkpoint and its NEFFs at the same pace.
 */
export const STARTUP_SECONDS_PER_GIB = 45;

/**
 * Copies of the model the volume holds: the S3 download in `/opt/ml/model`, and the TorchServe model archive the
 * SageMaker PyTorch toolkit builds from it at startup (`torch-model-archiver --extra-files /opt/ml/model`,
 * sagemaker-pytorch-inference-toolkit `torchserve.py`).
 */
const MODEL_COPIES_ON_VOLUME = 2;

/** Room for logs, the Neuron compile cache and temporary files, on top of the copies. */
const VOLUME_MARGIN = 1.25;

/**
 * Size of the model artifact in GiB as the plan bounds it: the larger of the device and host memory one process
 * needs (both hold the whole weights), or undefined without a plan.
 */
export function modelSizeGiB(layout: EndpointLayout): number | undefined {
  if (layout.deviceMemoryGiB === undefined && layout.hostMemoryGiB === undefined) {
    return undefined;
  }
  return Math.max(layout.deviceMemoryGiB ?? 0, layout.hostMemoryGiB ?? 0);
}

/** Default volume in GiB, and whether the model needed more than SageMaker allows. */
export function defaultVolumeSizeGiB(layout: EndpointLayout): { sizeGiB: number; capped: boolean } {
  const model = modelSizeGiB(layout);
  if (model === undefined) {
    return { sizeGiB: VOLUME_DEFAULT_MIN_GIB, capped: false };
  }
  const wanted = Math.ceil(model * MODEL_COPIES_ON_VOLUME * VOLUME_MARGIN);
  return {
    sizeGiB: Math.min(Math.max(wanted, VOLUME_DEFAULT_MIN_GIB), VOLUME_MAX_GIB),
    capped: wanted > VOLUME_MAX_GIB,
  };
}

/** Default `ModelDataDownloadTimeoutInSeconds`. */
export function defaultDownloadTimeoutSeconds(layout: EndpointLayout): number {
  return scaled(layout, DOWNLOAD_SECONDS_PER_GIB);
}

/** Default `ContainerStartupHealthCheckTimeoutInSeconds`. */
export function defaultStartupTimeoutSeconds(layout: EndpointLayout): number {
  return scaled(layout, STARTUP_SECONDS_PER_GIB);
}

function scaled(layout: EndpointLayout, secondsPerGiB: number): number {
  const model = modelSizeGiB(layout) ?? 0;
  return Math.min(Math.max(Math.ceil(model * secondsPerGiB), TIMEOUT_DEFAULT_SECONDS), TIMEOUT_MAX_SECONDS);
}
