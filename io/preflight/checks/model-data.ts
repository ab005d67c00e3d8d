import { HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { awsFailure } from './aws-failure';
import type { Check } from '../types';

/**
 * The model data is in S3 and readable: `HeadObject` for an object (a `model.tar.gz`), `ListObjectsV2` for a prefix
 * (an uncompressed model, `S3DataType: S3Prefix`, as the stack's ModelData writes it), which must hold at least one
 * object.
 *
 * @see https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadObject.html
 * @see https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html
 */
export const modelData: Check = async (target, clients) => {
  const uri = target.modelDataUri;
  if (uri === undefined) {
    const why = target.unknown?.modelDataUri ?? 'no model data given';
    return { id: 'model-data', status: 'skip', detail: why, fix: why.includes('--model-data') ? 'add --model-data s3://bucket/prefix/' : undefined };
  }
  const m = /^s3:\/\/([^/]+)\/(.*)$/.exec(uri);
  if (m === null) {
    return { id: 'model-data', status: 'fail', detail: `${uri} is not an s3://bucket/key URI`, fix: 'give the model data as s3://bucket/prefix/ or s3://bucket/model.tar.gz' };
  }
  const [, bucket, key] = m;
  const isPrefix = key === '' || key.endsWith('/');
  try {
    if (isPrefix) {
      const listed = await clients.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: key, MaxKeys: 2 }));
      if ((listed.KeyCount ?? listed.Contents?.length ?? 0) === 0) {
        return {
          id: 'model-data',
          status: 'fail',
          detail: `${uri} holds no object: the endpoint would start with no model`,
          fix: `upload the compiled model there (\`aws s3 sync ./model ${uri}\`) or point at the prefix that holds it`,
        };
      }
      return { id: 'model-data', status: 'pass', detail: `${uri} holds model files (e.g. ${listed.Contents?.[0]?.Key ?? 'one object'})` };
    }
    const head = await clients.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return { id: 'model-data', status: 'pass', detail: `${uri} exists (${head.ContentLength ?? '?'} bytes)` };
  } catch (e) {
    const name = (e as { name?: string }).name;
    if (name === 'NotFound' || name === 'NoSuchKey' || name === 'NoSuchBucket') {
      return {
        id: 'model-data',
        status: 'fail',
        detail: name === 'NoSuchBucket' ? `bucket ${bucket} does not exist` : `${uri} does not exist`,
        fix: 'upload the compiled model, or fix the URI',
      };
    }
    return awsFailure('model-data', `S3 ${isPrefix ? 'ListObjectsV2' : 'HeadObject'} ${uri}`, e, isPrefix ? 's3:ListBucket on the bucket' : 's3:GetObject on the object');
  }
};
