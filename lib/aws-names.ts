/**
 * Syntax of the AWS names and identifiers users type on the command line, checked offline so a bad flag is refused
 * (exit 2, flag, value and fix) before any AWS call rather than answered by a credentials error or a billed launch.
 *
 * Each check returns the problem (what is wrong and an example of a valid value) or `undefined`; the caller puts the
 * flag and the value in front.
 */

/**
 * SageMaker's endpoint name pattern and length (1 to 63 characters, letters, digits and hyphens, starting and
 * ending with a letter or digit).
 *
 * @see https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateEndpoint.html
 */
export const SAGEMAKER_ENDPOINT_NAME = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/;

/** Problem with a SageMaker endpoint name, or undefined. */
export function endpointNameProblem(name: string): string | undefined {
  if (SAGEMAKER_ENDPOINT_NAME.test(name)) {
    return undefined;
  }
  const why = name.length > 63 ? `${name.length} characters, SageMaker allows 63` : 'SageMaker allows letters, digits and hyphens, starting and ending with a letter or digit';
  return `not a SageMaker endpoint name (${why}); e.g. my-model-prod`;
}

/**
 * Problem with a general purpose S3 bucket name, or undefined: 3 to 63 lowercase letters, digits, dots and hyphens,
 * starting and ending with a letter or digit, no two adjacent dots, not an IP address, none of S3's reserved
 * prefixes and suffixes.
 *
 * @see https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
 */
export function bucketNameProblem(name: string): string | undefined {
  const fix = 'a bucket name has 3 to 63 lowercase letters, digits, dots and hyphens, e.g. my-models-bucket';
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) || name.includes('..')) {
    return `not an S3 bucket name; ${fix}`;
  }
  if (/^\d+\.\d+\.\d+\.\d+$/.test(name)) {
    return `an IP address is not an S3 bucket name; ${fix}`;
  }
  const reserved = ['xn--', 'sthree-', 'amzn-s3-demo-'].find((p) => name.startsWith(p))
    ?? ['-s3alias', '--ol-s3', '.mrap', '--x-s3', '--table-s3'].find((s) => name.endsWith(s));
  return reserved !== undefined ? `S3 reserves '${reserved}' in bucket names; ${fix}` : undefined;
}

/** Problem with an `s3://bucket/key` URI (a key or a prefix ending with '/'), or undefined. */
export function s3UriProblem(uri: string, example: string): string | undefined {
  const m = /^s3:\/\/([^/]*)\/(.*)$/.exec(uri);
  if (m === null) {
    return `not an s3://bucket/key URI; e.g. ${example}`;
  }
  const bucket = bucketNameProblem(m[1]);
  return bucket !== undefined ? `bucket '${m[1]}': ${bucket}` : undefined;
}

/**
 * EC2 resource IDs: the prefix, then 8 hex digits (older resources) or 17.
 *
 * @see https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/resource-ids.html
 */
function ec2IdProblem(id: string, prefix: string, what: string): string | undefined {
  return new RegExp(`^${prefix}-([0-9a-f]{8}|[0-9a-f]{17})$`).test(id) ? undefined : `not ${what} ID; e.g. ${prefix}-0123456789abcdef0`;
}

/** Problem with a VPC subnet ID, or undefined. */
export function subnetIdProblem(id: string): string | undefined {
  return ec2IdProblem(id, 'subnet', 'a subnet');
}

/** Problem with a VPC security group ID, or undefined. */
export function securityGroupIdProblem(id: string): string | undefined {
  return ec2IdProblem(id, 'sg', 'a security group');
}

/**
 * Problem with an IAM instance profile ARN, or undefined.
 *
 * @see https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-arns
 */
export function instanceProfileArnProblem(arn: string): string | undefined {
  return /^arn:aws[a-z-]*:iam::\d{12}:instance-profile\/[\w+=,.@/-]{1,128}$/.test(arn)
    ? undefined
    : 'not an instance profile ARN; e.g. arn:aws:iam::123456789012:instance-profile/neuron-compile';
}

/**
 * An image in ECR, as its URI names it: `<account>.dkr.ecr.<region>.amazonaws.com[.cn]/<repository>` with an
 * `@sha256:<digest>` or a `:<tag>`.
 */
export const ECR_IMAGE_URI = /^(\d{12})\.dkr\.ecr(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?\/([a-z0-9._/-]+?)(?:@(sha256:[0-9a-f]{64})|:([\w][\w.-]{0,127}))?$/;

/**
 * A container image reference as Docker reads it: `[registry/]repository[:tag][@sha256:digest]`, lowercase
 * repository path.
 *
 * @see https://github.com/distribution/reference/blob/main/regexp.go
 */
const IMAGE_REFERENCE = /^(?:[a-zA-Z0-9.-]+(?::\d+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[0-9a-f]{64})?$/;

/**
 * Problem with an image URI, or undefined.
 *
 * @param ecrOnly SageMaker pulls only from ECR; ECS on EC2 can pull from any registry
 */
export function imageUriProblem(uri: string, ecrOnly: boolean): string | undefined {
  const example = '123456789012.dkr.ecr.us-east-1.amazonaws.com/my-model@sha256:<64 hex digits>';
  if (ECR_IMAGE_URI.test(uri)) {
    return undefined;
  }
  if (!IMAGE_REFERENCE.test(uri)) {
    return `not an image reference; e.g. ${example}`;
  }
  return ecrOnly ? `SageMaker pulls images only from ECR: push it to ECR and give its URI by digest, e.g. ${example}` : undefined;
}
