/**
 * The environments a model is promoted through (dev -> staging -> prod), as a typed, validated config.
 *
 * The config is plain JSON (a file named by the `environments` CDK context key, or the same object inline in
 * `cdk.json`), read by `bin/` and validated here so the CDK app and the `promote` command agree on it. Structure is
 * checked with zod; {@link parseEnvironments} then checks what only the catalog and the targets can tell (region
 * without the family or its prices, thresholds looser than targets, production below two instances).
 */
import { lazySchema } from '../lazy-schema';

/** An environment name: a CDK Stage id, a path segment of its SSM parameters and a GitHub environment. */
export const ENVIRONMENT_NAME = /^[a-z][a-z0-9-]{0,23}$/;

/** The SHA-256 digest form ECR gives images. */
export const IMAGE_DIGEST = /^sha256:[0-9a-f]{64}$/;

/**
 * Repository names as ECR accepts them.
 *
 * @see https://docs.aws.amazon.com/AmazonECR/latest/APIReference/API_CreateRepository.html
 */
export const REPOSITORY_NAME = /^(?:[a-z0-9]+(?:[._-][a-z0-9]+)*\/)*[a-z0-9]+(?:[._-][a-z0-9]+)*$/;

/** Bucket names as S3 accepts them (general purpose buckets; no dots, so virtual-hosted TLS works). */
export const BUCKET_NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

/**
 * IAM role ARNs in any partition.
 *
 * @see https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html
 */
export const ROLE_ARN = /^arn:aws(?:-cn|-us-gov)?:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;

const positive = lazySchema((z) => z.number().positive());

/** A token length: mean, and optionally its 99th percentile (at least the mean, checked by parseEnvironments). */
const tokenLength = lazySchema((z) => z.object({ mean: z.number().int().positive(), p99: z.number().int().positive().optional() }).strict());

/**
 * The generative model an environment also serves, planned in tokens on SageMaker inference components.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const generativeInputSchema = lazySchema((z) => z
  .object({
    profile: z.string().min(1).default('llama-3.1-8b-instruct'),
    targets: z
      .object({
        requestsPerSecond: positive(),
        peakRequestsPerSecond: positive().optional(),
        inputTokens: tokenLength(),
        outputTokens: tokenLength(),
        ttftP99Ms: positive(),
        tpotP99Ms: positive(),
        e2eP99Ms: positive().optional(),
      })
      .strict(),
  })
  .strict());

/**
 * Schema of one environment as written in the config file.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const environmentInputSchema = lazySchema((z) => z
  .object({
    name: z.string().regex(ENVIRONMENT_NAME, 'must be 1-24 lowercase letters, digits or "-", starting with a letter (e.g. "dev")'),
    account: z.string().regex(/^\d{12}$/, 'must be a 12-digit AWS account id as a string, e.g. "111111111111"'),
    region: z.string().min(1),
    hosting: z.enum(['sagemaker', 'ec2']).default('sagemaker'),
    profile: z.string().min(1),
    targets: z
      .object({
        throughputRps: positive(),
        p99Ms: positive(),
        peakThroughputRps: positive().optional(),
      })
      .strict(),
    availability: z
      .object({
        minInstances: z.number().int().min(1).default(1),
        /** Why a production environment may run on one instance (one Availability Zone). */
        waiver: z.string().trim().min(10, 'must say why in at least 10 characters').optional(),
      })
      .strict()
      .default({ minInstances: 1 }),
    production: z.boolean().optional(),
    smoke: z
      .object({
        p99MaxMs: positive().optional(),
        maxErrorRate: z.number().min(0).max(1).default(0.01),
        maxReportAgeHours: positive().default(168),
      })
      .strict()
      .default({ maxErrorRate: 0.01, maxReportAgeHours: 168 }),
    capacityProof: z
      .object({ required: z.boolean().default(false) })
      .strict()
      .default({ required: false }),
    approval: z.enum(['manual', 'none']).optional(),
    repositoryName: z.string().regex(REPOSITORY_NAME, 'must be a valid ECR repository name, e.g. "bert-base-uncased"').optional(),
    artifact: z
      .object({
        bucket: z.string().regex(BUCKET_NAME, 'must be an S3 bucket name without dots'),
        prefix: z.string().regex(/^[A-Za-z0-9._\-/]+\/$/, 'must be a key prefix ending in "/", e.g. "compiled/bert/"'),
      })
      .strict()
      .optional(),
    promotionRoleArn: z.string().regex(ROLE_ARN, 'must be an IAM role ARN, e.g. "arn:aws:iam::111111111111:role/promote"').optional(),
    generative: generativeInputSchema().optional(),
  })
  .strict());

/**
 * Schema of the whole config file.
 *
 * @internal zod types stay out of the published declarations: they need esModuleInterop to compile
 */
export const environmentsInputSchema = lazySchema((z) => z
  .object({
    $schema: z.string().optional(),
    application: z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, 'must be 1-40 lowercase letters, digits or "-" (e.g. "bert-base-uncased")'),
    imageDigest: z.string().optional(),
    artifactHash: z.string().optional(),
    generativeImageDigest: z.string().optional(),
    pipeline: z
      .object({
        account: z.string().regex(/^\d{12}$/, 'must be a 12-digit AWS account id as a string').optional(),
        region: z.string().min(1).optional(),
        source: z.union([
          z.object({
            connectionArn: z.string().regex(/^arn:aws(?:-cn|-us-gov)?:(?:codeconnections|codestar-connections):[a-z0-9-]+:\d{12}:connection\/[\w-]+$/,
              'must be a CodeConnections connection ARN (arn:aws:codeconnections:<region>:<account>:connection/<id>)'),
            repository: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'must be owner/repository'),
            branch: z.string().min(1).default('main'),
          }).strict(),
          z.object({
            codeCommitRepository: z.string().min(1),
            branch: z.string().min(1).default('main'),
          }).strict(),
        ]).optional(),
      })
      .strict()
      .optional(),
    environments: z.array(environmentInputSchema()).min(1, 'must list at least one environment, in promotion order'),
  })
  .strict());

/** One environment as written in the config file; the optional fields have the defaults {@link parseEnvironments} fills in. */
export interface EnvironmentInput {
  readonly name: string;
  readonly account: string;
  readonly region: string;
  readonly hosting?: 'sagemaker' | 'ec2';
  readonly profile: string;
  readonly targets: { readonly throughputRps: number; readonly p99Ms: number; readonly peakThroughputRps?: number };
  readonly availability?: {
    readonly minInstances?: number;
    /** Why a production environment may run on one instance (one Availability Zone). */
    readonly waiver?: string;
  };
  readonly production?: boolean;
  readonly smoke?: { readonly p99MaxMs?: number; readonly maxErrorRate?: number; readonly maxReportAgeHours?: number };
  readonly capacityProof?: { readonly required?: boolean };
  readonly approval?: 'manual' | 'none';
  readonly repositoryName?: string;
  readonly artifact?: { readonly bucket: string; readonly prefix: string };
  readonly promotionRoleArn?: string;
  /** The generative model this environment also serves, planned in tokens (SageMaker inference components). */
  readonly generative?: GenerativeEnvironmentInput;
}

/** A token length as written: the mean and, for drawn lengths, the 99th percentile. */
export interface TokenLengthInput {
  readonly mean: number;
  readonly p99?: number;
}

/** An environment's generative section as written. */
export interface GenerativeEnvironmentInput {
  /** Built-in generative profile id. @default 'llama-3.1-8b-instruct' */
  readonly profile?: string;
  readonly targets: {
    readonly requestsPerSecond: number;
    readonly peakRequestsPerSecond?: number;
    readonly inputTokens: TokenLengthInput;
    readonly outputTokens: TokenLengthInput;
    readonly ttftP99Ms: number;
    readonly tpotP99Ms: number;
    readonly e2eP99Ms?: number;
  };
}

/** The config file as written. */
export interface EnvironmentsInput {
  readonly $schema?: string;
  readonly application: string;
  readonly imageDigest?: string;
  readonly artifactHash?: string;
  /** Digest of the Neuron vLLM image every environment's generative stack runs. */
  readonly generativeImageDigest?: string;
  readonly pipeline?: {
    readonly account?: string;
    readonly region?: string;
    readonly source?:
      | { readonly connectionArn: string; readonly repository: string; readonly branch?: string }
      | { readonly codeCommitRepository: string; readonly branch?: string };
  };
  readonly environments: readonly EnvironmentInput[];
}
