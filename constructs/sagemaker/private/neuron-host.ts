import type { NeuronInstanceType } from '../../../lib/catalog';

/** A SageMaker inference AMI for Neuron instances and the Neuron driver it carries. */
export interface NeuronInferenceAmi {
  /** The `InferenceAmiVersion` value. */
  readonly version: string;
  /** Neuron driver (`aws-neuronx-dkms`) major and minor version on the host. */
  readonly driver: readonly [number, number];
}

/**
 * The SageMaker inference AMIs for Neuron instances. Source: SageMaker API Reference, `ProductionVariant`,
 * `InferenceAmiVersion` ("al2-ami-sagemaker-inference-neuron-2: Accelerator: Inferentia2 and Trainium; Neuron
 * driver version: 2.19"), https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ProductionVariant.html
 * (same text in the SageMaker service model, botocore `sagemaker/2017-07-24/service-2.json`). None is listed for
 * Inf1.
 */
export const NEURON_INFERENCE_AMIS: readonly NeuronInferenceAmi[] = [
  { version: 'al2-ami-sagemaker-inference-neuron-2', driver: [2, 19] },
];

/**
 * The Neuron driver each Neuron SDK release ships and was tested with, by SDK `major.minor`. Source: the Neuron
 * documentation's "Release Content" (release artifacts) page of each release,
 * https://awsdocs-neuron.readthedocs-hosted.com/en/v<version>/release-notes/releasecontent.html ("Driver
 * aws-neuronx-dkms-<version>"): 2.18.1 -> 2.16.7.0, 2.25.0 -> 2.23.9.0, 2.26.1 -> 2.24.7.0, 2.27.1 -> 2.25.4.0,
 * 2.28.0 -> 2.26.5.0, 2.29.0 -> 2.27.4.0, 2.30.0 -> 2.28.0.0, 2.31.0 -> 2.29.0.0. Releases whose page was not read
 * are left out rather than guessed.
 *
 * The Neuron Runtime inside the container checks the host driver at start and refuses an older one than it needs
 * ("This runtime requires Neuron Driver version X or greater", Neuron Runtime FAQ,
 * https://awsdocs-neuron.readthedocs-hosted.com/en/latest/neuron-runtime/faq.html). Neuron documents no minimum
 * per release, so a combination counts as listed only when the host driver is at least the one the SDK release
 * shipped with.
 */
export const NEURON_SDK_DRIVERS: Readonly<Record<string, readonly [number, number]>> = {
  '2.18': [2, 16],
  '2.25': [2, 23],
  '2.26': [2, 24],
  '2.27': [2, 25],
  '2.28': [2, 26],
  '2.29': [2, 27],
  '2.30': [2, 28],
  '2.31': [2, 29],
};

/** What the endpoint writes as `InferenceAmiVersion`, and what synth says about it. */
export interface HostImageChoice {
  /** The AMI to pin; undefined lets SageMaker choose the host image. */
  readonly amiVersion?: string;
  /** A combination the table does not list, with the fix; synth fails. */
  readonly problem?: string;
  /** Something the user should know, with what to do; synth warns. */
  readonly warning?: string;
  /** Why no AMI is pinned where one could be expected; synth notes it. */
  readonly info?: string;
}

const SDK_VERSION = /^(\d+)\.(\d+)(?:\.\d+)?$/;

/** `2.31` for `2.31.1`; undefined when not a Neuron SDK version. */
export function sdkMinor(version: string): string | undefined {
  const m = SDK_VERSION.exec(version);
  return m ? `${m[1]}.${m[2]}` : undefined;
}

/**
 * Derives the host AMI from the image's Neuron SDK, or checks the one the user pinned.
 *
 * Without a pin: the AMI with the newest driver that is at least the SDK's, when one exists; otherwise no pin, so
 * SageMaker picks its current host image (as the SageMaker Python SDK does when it deploys the Neuron DLCs AWS
 * publishes for SageMaker). With a pin: refused unless the table lists the AMI and the SDK and the AMI's driver is
 * at least the SDK's.
 *
 * @param sdk the image's Neuron SDK version (`2.31.1`), when known
 * @param pinned the `inferenceAmiVersion` the user asked for
 */
export function chooseHostImage(type: NeuronInstanceType, sdk: string | undefined, pinned: string | undefined): HostImageChoice {
  const name = type.sageMakerName;
  const listedAmis = NEURON_INFERENCE_AMIS.map((a) => a.version).join(', ');
  if (type.spec.coreVersion === 'v1') {
    return pinned === undefined ? {} : {
      problem: `inferenceAmiVersion=${JSON.stringify(pinned)} but SageMaker lists no inference AMI for Inf1 `
        + `(${name}); remove inferenceAmiVersion`,
    };
  }
  const minor = sdk === undefined ? undefined : sdkMinor(sdk);
  if (sdk !== undefined && minor === undefined) {
    return { problem: `neuronSdkVersion=${JSON.stringify(sdk)} is not a Neuron SDK version; pass e.g. '2.31.1'` };
  }
  const sdkDriver = minor === undefined ? undefined : NEURON_SDK_DRIVERS[minor];
  const listedSdks = Object.keys(NEURON_SDK_DRIVERS).join(', ');

  if (pinned !== undefined) {
    const ami = NEURON_INFERENCE_AMIS.find((a) => a.version === pinned);
    if (ami === undefined) {
      return { problem: `inferenceAmiVersion=${JSON.stringify(pinned)} is not a SageMaker inference AMI for Neuron `
        + `instances (known: ${listedAmis}); use one of them or remove inferenceAmiVersion` };
    }
    if (sdk === undefined) {
      return { problem: `inferenceAmiVersion=${pinned} pins Neuron driver ${ami.driver.join('.')}, but the image's `
        + 'Neuron SDK is unknown, so nothing shows its runtime accepts that driver; pass neuronSdkVersion (the SDK the '
        + 'image was built with), or remove inferenceAmiVersion to let SageMaker choose the host image' };
    }
    if (sdkDriver === undefined) {
      return { problem: `inferenceAmiVersion=${pinned} with Neuron SDK ${sdk} is not a listed combination (SDK `
        + `releases with a known driver: ${listedSdks}); use an image of a listed release, or remove `
        + 'inferenceAmiVersion to let SageMaker choose the host image' };
    }
    if (compare(ami.driver, sdkDriver) < 0) {
      return { problem: `inferenceAmiVersion=${pinned} carries Neuron driver ${ami.driver.join('.')}, older than the `
        + `driver ${sdkDriver.join('.')} Neuron SDK ${sdk} (the image) shipped with, and the Neuron runtime refuses to `
        + `start on an older driver; remove inferenceAmiVersion to let SageMaker choose the host image, or use an `
        + `image of a Neuron SDK whose driver is ${ami.driver.join('.')} or older` };
    }
    return { amiVersion: pinned };
  }

  if (sdk === undefined) {
    return { warning: `${name}: the image's Neuron SDK version is unknown (not a Neuron DLC tag), so no host AMI `
      + 'is pinned and SageMaker chooses the host image and its Neuron driver; pass neuronSdkVersion (the SDK the '
      + 'image was built with) to pin a compatible AMI or be told of an incompatible one' };
  }
  if (sdkDriver === undefined) {
    return { warning: `${name}: Neuron SDK ${sdk} is not in the host compatibility table (releases with a known `
      + `driver: ${listedSdks}), so no host AMI is pinned and SageMaker chooses the host image; prefer an image of `
      + 'a listed release' };
  }
  const fitting = NEURON_INFERENCE_AMIS.filter((a) => compare(a.driver, sdkDriver) >= 0)
    .sort((a, b) => compare(b.driver, a.driver));
  return fitting.length > 0 ? { amiVersion: fitting[0].version } : {
    info: `${name}: Neuron SDK ${sdk} shipped with driver ${sdkDriver.join('.')}, newer than any SageMaker Neuron `
      + `inference AMI (${NEURON_INFERENCE_AMIS.map((a) => `${a.version}: ${a.driver.join('.')}`).join(', ')}), so `
      + 'none is pinned and SageMaker chooses the host image, as it does for the Neuron DLCs it hosts',
  };
}

function compare(a: readonly number[], b: readonly number[]): number {
  return a[0] - b[0] || a[1] - b[1];
}
