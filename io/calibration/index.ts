/**
 * Reading a measured run's report from S3 for `cdk-inferentia calibrate`: the capacity proof writes it there.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { AwsCallError } from '../../lib/aws-errors';
import { InputError } from '../../lib/errors';

/** `s3://bucket/key` split; the caller has checked the URI (`s3UriProblem`). */
export function splitS3Uri(uri: string): { readonly bucket: string; readonly key: string } {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (match === null) {
    throw new InputError(`${uri}: not an s3://bucket/key URI`);
  }
  return { bucket: match[1], key: match[2] };
}

/**
 * The text of the object at `uri`.
 *
 * @param s3 a client; `followRegionRedirects` lets one client read a bucket in any region
 * @throws InputError when there is no such object (the proof has not written it yet), AwsCallError for any other
 *   refusal (credentials, access denied), naming the call and the URI
 */
export async function readS3Report(s3: S3Client, uri: string): Promise<string> {
  const { bucket, key } = splitS3Uri(uri);
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const text = await out.Body?.transformToString();
    if (text === undefined) {
      throw new InputError(`${uri}: the object is empty`);
    }
    return text;
  } catch (e) {
    const name = (e as { name?: string }).name;
    if (name === 'NoSuchKey' || name === 'NotFound') {
      throw new InputError(
        `${uri}: no such object; the capacity proof writes <reportPrefix>/<endpoint>/latest.json after its run: check the ` +
          "bucket and key (the staging deployment record's report field holds them) and that the proof has run",
      );
    }
    if (e instanceof InputError) {
      throw e;
    }
    throw new AwsCallError(`S3 GetObject ${uri}`, e);
  }
}

/** A client for {@link readS3Report}. */
export function reportClient(region?: string): S3Client {
  return new S3Client({ ...(region !== undefined ? { region } : {}), followRegionRedirects: true });
}
