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
