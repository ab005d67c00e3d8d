import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, IConstruct } from 'constructs';
import { logAccessTo } from './access-logs';
import { markOwned } from './ownership';

/** Construct id of the store under its stack; with its children's ids, it fixes the logical ids of stateful resources. */
export const MODEL_DATA_STORE_ID = 'NeuronModelData';

/**
 * The bucket `ModelData.fromAsset` uploads model files to when the user brings none: one per stack.
 *
 * KMS-encrypted with a rotating key, versioned, public access blocked, TLS only, server access logs to a sibling
 * bucket, everything retained on delete (model files are what a rollback needs). Children `Key`, `Bucket` and
 * `AccessLogs` are a contract: renaming them replaces stateful resources.
 */
export class ModelDataStore extends Construct {
  /** The stack's store, created on first use. */
  static of(scope: IConstruct): ModelDataStore {
    const stack = Stack.of(scope);
    const existing = stack.node.tryFindChild(MODEL_DATA_STORE_ID);
    return existing instanceof ModelDataStore ? existing : new ModelDataStore(stack, MODEL_DATA_STORE_ID);
  }

  /** Encrypts the model files. */
  readonly key: kms.Key;
  /** Holds the model files under `models/<content hash>/`. */
  readonly bucket: s3.Bucket;
  /** Receives the server access logs of {@link bucket}. */
  readonly accessLogs: s3.Bucket;

  private constructor(scope: Construct, id: string) {
    super(scope, id);
    markOwned(this);
    this.key = new kms.Key(this, 'Key', {
      description: `Encrypts the model files in ${this.node.path}/Bucket`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.accessLogs = new s3.Bucket(this, 'AccessLogs', {
      // S3 server access logging delivers only to SSE-S3 buckets.
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      versioned: true,
      removalPolicy: RemovalPolicy.RETAIN,
      autoDeleteObjects: false,
    });
    Validations.of(this.accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This bucket is the destination of the model bucket\'s server access logs; logging it too would need '
        + 'yet another bucket, or log into itself in a loop.',
    });

    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: this.key,
      // One data key per bucket instead of one KMS call per object: model files are many and large.
      bucketKeyEnabled: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      versioned: true,
      lifecycleRules: [{
        id: 'ExpireReplacedVersionsAndAbandonedUploads',
        // Current objects stay: each model version has its own prefix, and a rollback needs the old one.
        noncurrentVersionExpiration: Duration.days(30),
        abortIncompleteMultipartUploadAfter: Duration.days(7),
      }],
      removalPolicy: RemovalPolicy.RETAIN,
      autoDeleteObjects: false,
    });
    logAccessTo(this.bucket, this.accessLogs, 'model-bucket/', 'S3ServerAccessLogsFromModelBucket');
  }
}
