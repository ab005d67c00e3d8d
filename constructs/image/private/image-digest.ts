import { Token } from 'aws-cdk-lib';

/** An OCI content digest as ECR reports it: `sha256:` and 64 lowercase hex digits. */
const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** The commands that print the digest of a pushed image; quoted in every digest error. */
export const DIGEST_FIX =
  "push the image, then pass its digest: `docker inspect --format '{{index .RepoDigests 0}}' IMAGE` "
  + "(the part after '@') or `aws ecr describe-images --repository-name REPO --image-ids imageTag=TAG "
  + "--query 'imageDetails[0].imageDigest' --output text`";

/**
 * The problem with a digest, or undefined when it is one (or an unresolved token, checked at deploy time).
 *
 * @param field how the user spells the input, e.g. `ModelImage.fromRepository(repository, digest)`
 */
export function digestProblem(field: string, digest: string): string | undefined {
  if (Token.isUnresolved(digest) || DIGEST.test(digest)) {
    return undefined;
  }
  const received = JSON.stringify(digest);
  if (/@sha256:[0-9a-f]{64}$/.test(digest)) {
    return `${field}: digest=${received} is a full image reference; pass only the digest after '@' `
      + `(${digest.slice(digest.indexOf('@') + 1)})`;
  }
  if (/^sha256:/i.test(digest)) {
    return `${field}: digest=${received} is not 'sha256:' followed by 64 lowercase hex digits; ${DIGEST_FIX}`;
  }
  return `${field}: digest=${received} looks like a tag, and tags can move; `
    + `deploy by digest ('sha256:<64 hex>') so every stage runs the same bytes: ${DIGEST_FIX}`;
}

/** The all-zero digest example configurations ship with (bin/environment-stages.ts, bin/llama-example.ts): it names no image. */
export const PLACEHOLDER_DIGEST = `sha256:${'0'.repeat(64)}`;

/**
 * Whether the image is pinned to {@link PLACEHOLDER_DIGEST}: any string field of the image, or of a plain object it
 * holds (the vLLM image's base-image source), naming it. Constructs it holds (a repository) are not read.
 */
export function mentionsPlaceholderDigest(image: object): boolean {
  const strings = (o: object) => Object.values(o).filter((v): v is string => typeof v === 'string');
  const plain = Object.values(image).filter((v) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype);
  return [image, ...plain].some((o) => strings(o).some((v) => v.includes(PLACEHOLDER_DIGEST)));
}

/** The refusal message of a hosting whose image is pinned to the placeholder digest. */
export function placeholderDigestMessage(path: string): string {
  return `${path}: the image is pinned to the placeholder digest ${PLACEHOLDER_DIGEST}, which names no image; pass the `
    + 'digest of the tag you deploy (docker pull, then docker inspect --format \'{{index .RepoDigests 0}}\')';
}
