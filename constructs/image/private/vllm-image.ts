import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Annotations, Validations } from 'aws-cdk-lib';
import { DockerImageAsset, Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { NeuronInstanceType } from '../../../lib/catalog/instance-type';
import { InputError } from '../../../lib/errors';
import { VLLM_DLC_REPOSITORY, vllmDlcTagProblems } from '../../../lib/generative/engine-image';
import { MODEL_SERVER_DIRECTORY } from './server-directory';

/**
 * Registry of the Neuron vLLM DLC: ECR Public, where AWS publishes it (https://gallery.ecr.aws/neuron/
 * pytorch-inference-vllm-neuronx; the aws-neuron/deep-learning-containers README lists only these URLs). SageMaker
 * pulls only from a private ECR repository in the endpoint's region, so the wrapper image is built FROM it and pushed
 * to the CDK bootstrap repository; anonymous pulls from ECR Public need no login.
 */
export const VLLM_DLC_PUBLIC_REGISTRY = 'public.ecr.aws/neuron';

/** The files of `serving/` the wrapper image copies (serving/vllm/Dockerfile), and nothing else. */
const IMAGE_FILES = [
  '__init__.py', 'linewriter.py', 'neuron_monitor.py',
  'vllm/__init__.py', 'vllm/cores_seen.py', 'vllm/engine_metrics.py', 'vllm/launch.py', 'vllm/pool_header.py', 'vllm/entrypoint.sh',
  'vllm/Dockerfile',
];

/**
 * The wrapper image's build context: only the files it copies, staged under the OS temporary directory and named by
 * their content hash, so the asset hash changes with them and with nothing else in `serving/`.
 *
 * @returns the directory, or undefined when this installation has no `serving/`
 */
export function stageVllmImageContext(servingDirectory: string | undefined = MODEL_SERVER_DIRECTORY): string | undefined {
  if (servingDirectory === undefined || !IMAGE_FILES.every((file) => fs.existsSync(path.join(servingDirectory, file)))) {
    return undefined;
  }
  const hash = crypto.createHash('sha256');
  for (const file of IMAGE_FILES) {
    hash.update(`${file}\0`).update(fs.readFileSync(path.join(servingDirectory, file))).update('\0');
  }
  const staged = path.join(os.tmpdir(), `cdk-inferentia-vllm-${hash.digest('hex').slice(0, 16)}`);
  if (!fs.existsSync(path.join(staged, 'vllm', 'Dockerfile'))) {
    const building = `${staged}.${process.pid}.tmp`;
    fs.rmSync(building, { recursive: true, force: true });
    for (const file of IMAGE_FILES) {
      fs.mkdirSync(path.dirname(path.join(building, file)), { recursive: true });
      fs.copyFileSync(path.join(servingDirectory, file), path.join(building, file));
    }
    fs.chmodSync(path.join(building, 'vllm', 'entrypoint.sh'), 0o755);
    fs.rmSync(staged, { recursive: true, force: true });
    fs.renameSync(building, staged);
  }
  return staged;
}

/** What the wrapper image is built from. */
export interface VllmImageSource {
  readonly tag: string;
  readonly digest: string;
  /** Registry holding {@link VLLM_DLC_REPOSITORY}. */
  readonly registry: string;
  readonly context: string;
}

/**
 * Builds the wrapper image as a Docker asset in `scope` (once per base image), after checking the tag against the
 * instance, and grants `grantee` pull rights on the bootstrap repository it lands in.
 *
 * @returns the image URI
 * @throws InputError when the tag's SDK or plugin cannot serve the instance
 */
export function bindVllmImage(scope: Construct, grantee: iam.IGrantable, instanceType: NeuronInstanceType, source: VllmImageSource): string {
  InputError.throwIfAny(vllmDlcTagProblems('ModelImage.fromNeuronVllm', source.tag, instanceType.spec.family));
  const baseImage = `${source.registry}/${VLLM_DLC_REPOSITORY}@${source.digest}`;
  // One asset per base image in a scope: two bindings of the same image (a re-bind, two components) build once.
  const id = `NeuronVllmImage${source.digest.slice('sha256:'.length, 'sha256:'.length + 12)}`;
  const asset = (scope.node.tryFindChild(id) as DockerImageAsset | undefined) ?? new DockerImageAsset(scope, id, {
    directory: source.context,
    file: 'vllm/Dockerfile',
    buildArgs: { BASE_IMAGE: baseImage },
    // Inferentia and Trainium hosts are x86_64; a build on an arm64 laptop must still produce amd64.
    platform: Platform.LINUX_AMD64,
    displayName: `cdk-inferentia vLLM on ${VLLM_DLC_REPOSITORY}:${source.tag}`,
  });
  Annotations.of(scope).addInfo(`ModelImage.fromNeuronVllm: cdk deploy builds the vLLM image FROM ${baseImage} `
    + `(${source.tag}) and pushes it to the CDK bootstrap repository, where SageMaker and ECS pull it`);
  Validations.of(scope).acknowledge({
    id: 'Neuron::Neuron-ModelImageByDigest',
    reason: 'The vLLM image is a CDK Docker asset built FROM the Neuron vLLM DLC by digest: its tag is the hash of '
      + 'its build context and build arguments (the DLC digest included), in the bootstrap container-asset '
      + 'repository, whose tags are immutable (aws-cdk bootstrap template, ContainerAssetsRepository '
      + 'ImageTagMutability IMMUTABLE), so the tag names one image for good, as a digest does.',
  });
  asset.repository.grantPull(grantee);
  return asset.imageUri;
}
