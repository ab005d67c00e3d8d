/**
 * Copying one image by digest between ECR repositories, across accounts and regions, byte for byte.
 *
 * `PutImage` only accepts a manifest whose blobs (config and layers) are already in the target repository
 * (`LayersNotFoundException` otherwise), so the blobs the target lacks (`BatchCheckLayerAvailability`) are streamed
 * from the source's `GetDownloadUrlForLayer` URL into `InitiateLayerUpload` / `UploadLayerPart` /
 * `CompleteLayerUpload`, then the exact manifest bytes go to `PutImage` with their media type, so the digest in
 * the target is the digest that passed in the source. An image index (multi-platform) copies each child manifest
 * first.
 *
 * @see https://docs.aws.amazon.com/AmazonECR/latest/APIReference/API_PutImage.html
 * @see https://docs.aws.amazon.com/AmazonECR/latest/APIReference/API_UploadLayerPart.html
 */
import {
  BatchCheckLayerAvailabilityCommand,
  BatchGetImageCommand,
  CompleteLayerUploadCommand,
  ECRClient,
  GetDownloadUrlForLayerCommand,
  InitiateLayerUploadCommand,
  PutImageCommand,
  UploadLayerPartCommand,
} from '@aws-sdk/client-ecr';
import { request } from 'undici';

/** Manifest media types ECR serves; asking for all keeps BatchGetImage from converting the manifest. */
export const MANIFEST_MEDIA_TYPES: readonly string[] = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
];

const INDEX_MEDIA_TYPES = new Set([MANIFEST_MEDIA_TYPES[1], MANIFEST_MEDIA_TYPES[3]]);

/** Where an image lives. */
export interface RepositoryRef {
  /** The registry's account id. */
  readonly registryId: string;
  readonly region: string;
  readonly repositoryName: string;
}

/** One image's manifest as the source serves it. */
export interface SourceManifest {
  readonly digest: string;
  /** The manifest bytes, exactly as stored: re-serializing would change the digest. */
  readonly manifest: string;
  readonly mediaType: string;
}

/** What a copy did, or would do. */
export interface ImageCopyResult {
  readonly mediaType: string;
  /** Blobs (config and layers, of every child manifest) the target lacked and got, or would get. */
  readonly blobsCopied: number;
  readonly bytesCopied: number;
  /** Blobs the target already held. */
  readonly blobsPresent: number;
  /** The target already had the manifest: nothing to put. */
  readonly alreadyPresent: boolean;
}

/**
 * The manifest of `digest` in `repo`.
 *
 * @returns undefined when the repository does not hold that digest
 */
export async function getManifest(client: ECRClient, repo: RepositoryRef, digest: string): Promise<SourceManifest | undefined> {
  const out = await client.send(new BatchGetImageCommand({
    registryId: repo.registryId,
    repositoryName: repo.repositoryName,
    imageIds: [{ imageDigest: digest }],
    acceptedMediaTypes: [...MANIFEST_MEDIA_TYPES],
  }));
  const image = out.images?.find((i) => i.imageId?.imageDigest === digest) ?? out.images?.[0];
  if (image?.imageManifest === undefined) {
    return undefined;
  }
  const mediaType = image.imageManifestMediaType
    ?? (JSON.parse(image.imageManifest) as { mediaType?: string }).mediaType
    ?? MANIFEST_MEDIA_TYPES[2];
  return { digest, manifest: image.imageManifest, mediaType };
}

interface Blob {
  readonly digest: string;
  readonly size: number;
}

interface ParsedManifest {
  readonly children: readonly string[];
  readonly blobs: readonly Blob[];
}

function parseManifest(source: SourceManifest): ParsedManifest {
  const json = JSON.parse(source.manifest) as {
    manifests?: { digest: string }[];
    config?: Blob;
    layers?: Blob[];
  };
  if (INDEX_MEDIA_TYPES.has(source.mediaType)) {
    return { children: (json.manifests ?? []).map((m) => m.digest), blobs: [] };
  }
  return { children: [], blobs: [...(json.config ? [json.config] : []), ...(json.layers ?? [])] };
}

/** Options of {@link copyImage}. */
export interface ImageCopyOptions {
  /** Look only: read the source and the target, write nothing. */
  readonly dryRun: boolean;
  /**
   * Tag the copy gets, so the target repository's untagged-image expiry does not delete it. ECR tags are immutable
   * in repositories the toolkit creates: derive it from the digest so a second promotion of the same image agrees.
   */
  readonly tag: string;
}

/**
 * Copies the image `source` (read from `from`) into `to`.
 *
 * Idempotent: blobs and manifests already in the target are left alone.
 */
export async function copyImage(
  src: ECRClient, dst: ECRClient, from: RepositoryRef, to: RepositoryRef, source: SourceManifest, options: ImageCopyOptions,
): Promise<ImageCopyResult> {
  const totals = { blobsCopied: 0, bytesCopied: 0, blobsPresent: 0 };
  const sameRepository = from.registryId === to.registryId && from.region === to.region && from.repositoryName === to.repositoryName;
  const copyOne = async (manifest: SourceManifest, tag: string | undefined): Promise<boolean> => {
    const parsed = parseManifest(manifest);
    for (const child of parsed.children) {
      const childManifest = await getManifest(src, from, child);
      if (childManifest === undefined) {
        throw new Error(`image index ${manifest.digest} in ${from.repositoryName} names ${child}, which the repository does not hold`);
      }
      await copyOne(childManifest, undefined);
    }
    if (!sameRepository && parsed.blobs.length > 0) {
      const missing = await missingBlobs(dst, to, parsed.blobs);
      totals.blobsPresent += parsed.blobs.length - missing.length;
      for (const blob of missing) {
        totals.blobsCopied += 1;
        totals.bytesCopied += blob.size;
        if (!options.dryRun) {
          await copyBlob(src, dst, from, to, blob);
        }
      }
    }
    if (options.dryRun) {
      return false;
    }
    try {
      await dst.send(new PutImageCommand({
        registryId: to.registryId,
        repositoryName: to.repositoryName,
        imageManifest: manifest.manifest,
        imageManifestMediaType: manifest.mediaType,
        imageDigest: manifest.digest,
        ...(tag !== undefined ? { imageTag: tag } : {}),
      }));
      return false;
    } catch (e) {
      // The same manifest with the same tag: a promotion run twice. ImageTagAlreadyExists cannot be the same image
      // with another digest, because the tag is derived from the digest.
      if ((e as { name?: string }).name === 'ImageAlreadyExistsException' || (e as { name?: string }).name === 'ImageTagAlreadyExistsException') {
        return true;
      }
      throw e;
    }
  };
  const alreadyPresent = await copyOne(source, options.tag);
  return { mediaType: source.mediaType, ...totals, alreadyPresent };
}

/** The blobs `repo` lacks; BatchCheckLayerAvailability takes at most 100 digests a call. */
async function missingBlobs(client: ECRClient, repo: RepositoryRef, blobs: readonly Blob[]): Promise<Blob[]> {
  const missing: Blob[] = [];
  for (let i = 0; i < blobs.length; i += 100) {
    const batch = blobs.slice(i, i + 100);
    const out = await client.send(new BatchCheckLayerAvailabilityCommand({
      registryId: repo.registryId,
      repositoryName: repo.repositoryName,
      layerDigests: batch.map((b) => b.digest),
    }));
    const available = new Set((out.layers ?? []).filter((l) => l.layerAvailability === 'AVAILABLE').map((l) => l.layerDigest));
    missing.push(...batch.filter((b) => !available.has(b.digest)));
  }
  return missing;
}

/** Parts smaller than this are refused except the last (ECR `LayerPartTooSmallException`: 5 MiB). */
const MIN_PART_BYTES = 5 * 1024 * 1024;
/** Part size when ECR suggests none: large enough to keep the number of calls down, small enough for memory. */
const DEFAULT_PART_BYTES = 20 * 1024 * 1024;

async function copyBlob(src: ECRClient, dst: ECRClient, from: RepositoryRef, to: RepositoryRef, blob: Blob): Promise<void> {
  const { downloadUrl } = await src.send(new GetDownloadUrlForLayerCommand({
    registryId: from.registryId, repositoryName: from.repositoryName, layerDigest: blob.digest,
  }));
  if (downloadUrl === undefined) {
    throw new Error(`ECR gave no download URL for ${blob.digest} in ${from.repositoryName}`);
  }
  const response = await request(downloadUrl);
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new Error(`downloading ${blob.digest} from ${from.repositoryName} answered HTTP ${response.statusCode}`);
  }
  const { uploadId, partSize } = await dst.send(new InitiateLayerUploadCommand({
    registryId: to.registryId, repositoryName: to.repositoryName,
  }));
  const partBytes = Math.max(MIN_PART_BYTES, partSize ?? DEFAULT_PART_BYTES);
  let offset = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    const part = Buffer.concat(pending, pendingBytes);
    await dst.send(new UploadLayerPartCommand({
      registryId: to.registryId,
      repositoryName: to.repositoryName,
      uploadId,
      partFirstByte: offset,
      partLastByte: offset + part.length - 1,
      layerPartBlob: part,
    }));
    offset += part.length;
    pending = [];
    pendingBytes = 0;
  };
  for await (const chunk of response.body) {
    const buffer = chunk as Buffer;
    pending.push(buffer);
    pendingBytes += buffer.length;
    if (pendingBytes >= partBytes) {
      await flush();
    }
  }
  if (pendingBytes > 0 || offset === 0) {
    await flush();
  }
  if (offset !== blob.size) {
    throw new Error(`blob ${blob.digest} from ${from.repositoryName} was ${offset} bytes, the manifest says ${blob.size}`);
  }
  try {
    await dst.send(new CompleteLayerUploadCommand({
      registryId: to.registryId, repositoryName: to.repositoryName, uploadId, layerDigests: [blob.digest],
    }));
  } catch (e) {
    // Another promotion (or a push) uploaded the same blob meanwhile: it is there, which is all PutImage needs.
    if ((e as { name?: string }).name !== 'LayerAlreadyExistsException') {
      throw e;
    }
  }
}
