import { Annotations, Stack, Token } from 'aws-cdk-lib';
import { Fact, FactName } from 'aws-cdk-lib/region-info';
import { Construct } from 'constructs';
import { NeuronInstanceType } from '../../../lib/catalog/instance-type';
import type { CoreVersion } from '../../../lib/catalog/types';
import { InputError } from '../../../lib/errors';

/**
 * The hosting families of Neuron DLC repositories (https://github.com/aws-neuron/deep-learning-containers README;
 * tag format from aws/deep-learning-containers `pytorch/inference/buildspec-neuron(x).yml`).
 */
export interface DlcFamily {
  /** Marker in the tag: `neuron` (Inf1) or `neuronx` (Inf2/Trn1). */
  readonly marker: 'neuron' | 'neuronx';
  /** Repository name in the regional DLC registry. */
  readonly repository: string;
  /** Which instances it runs on, in user terms. */
  readonly instances: string;
  /** A tag users can copy. */
  readonly exampleTag: string;
  /**
   * Newest Neuron SDK release with a published image, as precise as the source says (`[2, 31]` is any 2.31.x);
   * newer tags do not exist (https://github.com/aws-neuron/deep-learning-containers README; Neuron release notes,
   * "Neuron Containers" component).
   */
  readonly lastSdk: readonly number[];
}

const NEURONX: DlcFamily = {
  marker: 'neuronx',
  repository: 'pytorch-inference-neuronx',
  instances: 'Inf2/Trn1/Trn2',
  exampleTag: '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04',
  // Neuron release notes, "Neuron Containers" component (2.32.0): no pytorch-inference-neuronx from SDK 2.32.0 on.
  lastSdk: [2, 31],
};

/** By NeuronCore version: the neuronx images serve every NeuronCore-v2 and v3 instance (Inf2, Trn1, Trn2). */
export const DLC_FAMILIES: Record<CoreVersion, DlcFamily> = {
  v1: {
    marker: 'neuron',
    repository: 'pytorch-inference-neuron',
    instances: 'Inf1',
    exampleTag: '1.13.1-neuron-py310-sdk2.20.2-ubuntu20.04',
    // NDLC README: the last pytorch-inference-neuron image listed is SDK 2.20.2.
    lastSdk: [2, 20, 2],
  },
  v2: NEURONX,
  v3: NEURONX,
  // The same README lists trn3 among the instances of the last pytorch-inference-neuronx images.
  v4: NEURONX,
};

/** `{framework version}-{neuron|neuronx}-py{XY}-sdk{X.Y.Z}-{os}` (DLCREPO buildspec-neuron(x).yml). */
export const DLC_TAG = /^\d+\.\d+(?:\.\d+)?-(neuronx?)-py\d+-sdk(\d+)\.(\d+)\.(\d+)-[a-z]+[0-9.]*$/;

/**
 * The DLC family of the instance, after checking a DLC tag against it and the stack's region against the known DLC
 * registries. Throws the collected problems (with those passed in) when there is any.
 */
export function checkDlcTag(
  scope: Construct, caller: string, tag: string, instanceType: NeuronInstanceType, problems: string[],
): DlcFamily {
  const family = DLC_FAMILIES[instanceType.spec.coreVersion];
  const stack = Stack.of(scope);
  const match = Token.isUnresolved(tag) ? null : DLC_TAG.exec(tag);
  if (match && match[1] !== family.marker) {
    const other = family.marker === 'neuron' ? DLC_FAMILIES.v2 : DLC_FAMILIES.v1;
    problems.push(`${caller}: tag ${tag} is a ${other.marker} (${other.instances}) image but the `
      + `instance ${instanceType.sageMakerName} is ${family.instances}; use ${family.repository} tags such as `
      + `${family.exampleTag}`);
  }
  if (!Token.isUnresolved(stack.region) && Fact.find(stack.region, FactName.DLC_REPOSITORY_ACCOUNT) === undefined) {
    problems.push(`${caller}: region ${stack.region} has no known AWS Deep Learning Containers `
      + 'registry (aws-cdk-lib region-info DLC_REPOSITORY_ACCOUNT); copy the image into your own ECR repository '
      + 'and use ModelImage.fromRepository(repository, digest), or register the account with '
      + `Fact.register({ region: '${stack.region}', name: FactName.DLC_REPOSITORY_ACCOUNT, value: '<account>' })`);
  }
  InputError.throwIfAny(problems);

  if (match) {
    const sdk = [Number(match[2]), Number(match[3]), Number(match[4])].slice(0, family.lastSdk.length);
    if (compareVersions(sdk, family.lastSdk) > 0) {
      const last = family.lastSdk.join('.') + (family.lastSdk.length < 3 ? '.x' : '');
      Annotations.of(scope).addWarningV2('@cdk-inferentia/model-image:dlcSdkNotPublished',
        `Neuron DLC tag ${tag}: ${family.repository} images are not published after Neuron SDK ${last}, so `
        + `this tag most likely does not exist and the endpoint will fail to pull it; use e.g. ${family.exampleTag}.`);
    }
  }
  return family;
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) {
      return d;
    }
  }
  return 0;
}
