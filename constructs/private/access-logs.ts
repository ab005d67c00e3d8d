import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';

/**
 * Sends `bucket`'s server access logs to `destination` under `prefix`, authorised by a bucket policy that admits
 * only the S3 logging service acting for `bucket` in this account.
 *
 * Written out rather than through `serverAccessLogsBucket`, whose behaviour depends on the app's
 * `@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy` flag: without it, CDK falls back to an ACL that buckets with
 * ACLs disabled (BUCKET_OWNER_ENFORCED) reject.
 *
 * @param sid statement id in the destination's policy; part of the template, so keep it stable
 */
export function logAccessTo(bucket: s3.Bucket, destination: s3.Bucket, prefix: string, sid: string): void {
  (bucket.node.defaultChild as s3.CfnBucket).loggingConfiguration = {
    destinationBucketName: destination.bucketName,
    logFilePrefix: prefix,
  };
  destination.addToResourcePolicy(new iam.PolicyStatement({
    sid,
    principals: [new iam.ServicePrincipal('logging.s3.amazonaws.com')],
    actions: ['s3:PutObject'],
    resources: [destination.arnForObjects(`${prefix}*`)],
    conditions: {
      ArnLike: { 'aws:SourceArn': bucket.bucketArn },
      StringEquals: { 'aws:SourceAccount': Stack.of(bucket).account },
    },
  }));
}
