import { BatchGetImageCommand, DescribeImagesCommand, type ECRClient } from '@aws-sdk/client-ecr';
import { awsProblemOf } from '../../../lib/aws-errors';
import { ECR_IMAGE_URI } from '../../../lib/aws-names';
import { awsFailure } from './aws-failure';
import type { Check, CheckResult } from '../types';

/** An image in ECR, as its URI names it. */
export interface EcrImageRef {
  readonly registryId: string;
  readonly region: string;
  readonly repositoryName: string;
  readonly digest?: string;
  readonly tag?: string;
}

/** Splits an ECR image URI; undefined for an image elsewhere (Docker Hub, ECR Public). */
export function parseEcrImage(uri: string): EcrImageRef | undefined {
  const m = ECR_IMAGE_URI.exec(uri);
  if (m === null) {
    return undefined;
  }
  return { registryId: m[1], region: m[2], repositoryName: m[3], digest: m[4], tag: m[5] };
}

/**
 * The image is pinned by digest, exists, and the user's credentials can read it.
 *
 * ECR `DescribeImages` with `registryId`, so an image in another account (the AWS Deep Learning Containers account
 * of the Neuron DLCs, 763104351884 in most regions) is looked up where it lives. Those repositories grant pulls,
 * not always `DescribeImages`: when it is denied on another account, `BatchGetImage` (the pull's first call) says
 * whether the digest exists and is readable.
 *
 * @see https://docs.aws.amazon.com/AmazonECR/latest/APIReference/API_DescribeImages.html
 * @see https://docs.aws.amazon.com/AmazonECR/latest/APIReference/API_BatchGetImage.html
 * @see https://github.com/aws/deep-learning-containers/blob/master/available_images.md
 */
export const image: Check = async (target, clients) => {
  if (target.image === undefined) {
    return { id: 'image', status: 'skip', detail: target.unknown?.image ?? 'no image given', fix: target.unknown?.image?.includes('--image') ? 'add --image <uri@sha256:...>' : undefined };
  }
  const ref = parseEcrImage(target.image);
  if (ref === undefined) {
    return { id: 'image', status: 'skip', detail: `${target.image} is not an ECR image; SageMaker pulls only from ECR`, fix: 'push the image to ECR and pin it by digest' };
  }
  if (ref.digest === undefined) {
    return {
      id: 'image',
      status: 'fail',
      detail: `${target.image} is pinned by tag, not by digest: a pushed tag changes the image under a running deployment`,
      fix: `use its digest: \`aws ecr describe-images --registry-id ${ref.registryId} --repository-name ${ref.repositoryName} --image-ids imageTag=${ref.tag ?? 'latest'} --region ${ref.region}\``,
    };
  }
  const pinned = { ...ref, digest: ref.digest };
  const ecr = clients.ecr(ref.region);
  const where = `ECR DescribeImages ${ref.registryId}/${ref.repositoryName} in ${ref.region}`;
  try {
    const found = await ecr.send(
      new DescribeImagesCommand({ registryId: ref.registryId, repositoryName: ref.repositoryName, imageIds: [{ imageDigest: ref.digest }] }),
    );
    const pushed = found.imageDetails?.[0]?.imagePushedAt;
    return {
      id: 'image',
      status: 'pass',
      detail: `${ref.repositoryName}@${ref.digest.slice(0, 19)}... exists in account ${ref.registryId}${pushed ? ` (pushed ${pushed.toISOString().slice(0, 10)})` : ''}`,
    };
  } catch (e) {
    const name = (e as { name?: string }).name;
    if (name === 'ImageNotFoundException' || name === 'RepositoryNotFoundException') {
      return notFound(pinned, name === 'RepositoryNotFoundException' ? 'repository' : 'digest');
    }
    if (awsProblemOf(e)?.kind === 'access-denied') {
      return batchGet(ecr, pinned);
    }
    return awsFailure('image', where, e, 'ecr:DescribeImages');
  }
};

/** Pull access without describe access (typical of another account's repository): try the pull's first call. */
async function batchGet(ecr: ECRClient, ref: EcrImageRef & { digest: string }): Promise<CheckResult> {
  try {
    const got = await ecr.send(
      new BatchGetImageCommand({ registryId: ref.registryId, repositoryName: ref.repositoryName, imageIds: [{ imageDigest: ref.digest }] }),
    );
    if ((got.images ?? []).length > 0) {
      return {
        id: 'image',
        status: 'pass',
        detail: `${ref.repositoryName}@${ref.digest.slice(0, 19)}... is readable in account ${ref.registryId} (BatchGetImage; DescribeImages is not granted there)`,
      };
    }
    const code = got.failures?.[0]?.failureCode;
    if (code === 'ImageNotFound' || code === 'InvalidImageDigest') {
      return notFound(ref, 'digest');
    }
    return {
      id: 'image',
      status: 'fail',
      detail: `ECR BatchGetImage ${ref.registryId}/${ref.repositoryName} in ${ref.region}: ${code ?? 'no image'}: ${got.failures?.[0]?.failureReason ?? ''}`.trim(),
      fix: 'check the repository policy grants ecr:BatchGetImage to your account',
    };
  } catch (e) {
    return awsFailure('image', `ECR DescribeImages and BatchGetImage ${ref.registryId}/${ref.repositoryName} in ${ref.region}`, e, 'ecr:DescribeImages or ecr:BatchGetImage on the repository');
  }
}

function notFound(ref: EcrImageRef & { digest: string }, what: 'repository' | 'digest'): CheckResult {
  return {
    id: 'image',
    status: 'fail',
    detail:
      what === 'repository'
        ? `repository ${ref.repositoryName} does not exist in account ${ref.registryId} (${ref.region})`
        : `${ref.repositoryName}@${ref.digest} does not exist in account ${ref.registryId} (${ref.region})`,
    fix:
      'push the image and use the digest ECR reports, or for a Deep Learning Container take the URI from ' +
      'https://github.com/aws/deep-learning-containers/blob/master/available_images.md for this region',
  };
}
