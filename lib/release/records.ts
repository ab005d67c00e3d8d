/**
 * What an environment runs and how it got there, stored as SSM parameters the next environment can read.
 *
 * Two records per environment, so CloudFormation and the `promote` command never write the same parameter:
 * - the **deployment record** (`/cdk-inferentia/<application>/<environment>/deployment`), written by the
 *   environment's stack through CloudFormation: the image digest, the deployment fingerprint its smoke reports carry,
 *   where those reports are, and the plan. It changes exactly when a deployment does.
 * - the **release record** (`/cdk-inferentia/<application>/<environment>/release`), written by `promote`: the image
 *   and artifact it copied in, from which environment, and the evidence it promoted on (the source's smoke report
 *   and capacity proof with their verdicts). SSM keeps every version (`GetParameterHistory`), so it is also the
 *   environment's promotion history.
 *
 * An environment that also serves a generative model has a third, the **generative deployment record**
 * (`.../<environment>/generative-deployment`), written by its `Generative` stack once its proof in tokens passed: the
 * vLLM image digest and the compiled replica's hash and prefix it serves. The release record then names the same.
 *
 * SSM rather than S3 because a parameter needs no bucket to exist before the first promotion, carries its own
 * version history, and is read with one small IAM action (`ssm:GetParameter`) on one ARN. Records stay under
 * SSM's 4 KB standard tier; `promote` writes with the Intelligent-Tiering tier so a long failure list still fits.
 *
 * @see https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-advanced-parameters.html
 */
import type { z } from 'zod';
import { IMAGE_DIGEST } from '../environments/schema';
import { lazySchema } from '../lazy-schema';

/** The path every record parameter lives under; IAM policies scope to it. */
export const RECORD_PARAMETER_ROOT = '/cdk-inferentia';

/** The deployment record's parameter name. */
export function deploymentParameterName(application: string, environment: string): string {
  return `${RECORD_PARAMETER_ROOT}/${application}/${environment}/deployment`;
}

/** The release record's parameter name. */
export function releaseParameterName(application: string, environment: string): string {
  return `${RECORD_PARAMETER_ROOT}/${application}/${environment}/release`;
}

/** The generative deployment record's parameter name (environments with a `generative` section). */
export function generativeDeploymentParameterName(application: string, environment: string): string {
  return `${RECORD_PARAMETER_ROOT}/${application}/${environment}/generative-deployment`;
}

const planSummarySchema = lazySchema((z) => z.object({
  profileId: z.string(),
  instanceType: z.string(),
  instanceCount: z.number(),
  maxInstanceCount: z.number(),
  serving: z.string(),
  batchSize: z.number(),
  capacityRps: z.number(),
  predictedP99Ms: z.number(),
  hourlyCostUsd: z.number(),
}));

/** The plan in a record: enough to say what runs and what it was sized for. */
export interface PlanSummary {
  readonly profileId: string;
  readonly instanceType: string;
  readonly instanceCount: number;
  readonly maxInstanceCount: number;
  readonly serving: string;
  readonly batchSize: number;
  readonly capacityRps: number;
  readonly predictedP99Ms: number;
  readonly hourlyCostUsd: number;
}

/**
 * Schema of the deployment record.
 *
 * @internal zod types stay out of the published declarations (they need `esModuleInterop` to compile)
 */
export const deploymentRecordSchema = lazySchema((z) => z.object({
  schemaVersion: z.literal(1),
  application: z.string(),
  environment: z.string(),
  account: z.string(),
  region: z.string(),
  repositoryName: z.string(),
  imageDigest: z.string().regex(IMAGE_DIGEST),
  /** The endpoint's deployment fingerprint: the smoke report of this deployment carries the same value. */
  fingerprint: z.string().min(1),
  hosting: z.enum(['sagemaker', 'ec2']),
  /** What the smoke benchmark targets: the SageMaker endpoint name, or the model server URL on ECS. */
  target: z.string().min(1),
  /** The smoke report CI reads: `latest.json` of this endpoint. */
  report: z.object({ bucket: z.string().min(1), key: z.string().min(1) }),
  plan: planSummarySchema(),
  artifact: z.object({ bucket: z.string(), prefix: z.string() }).optional(),
}));

/** What an environment runs, written by its stack. */
export interface DeploymentRecord {
  readonly schemaVersion: 1;
  readonly application: string;
  readonly environment: string;
  readonly account: string;
  readonly region: string;
  readonly repositoryName: string;
  readonly imageDigest: string;
  /** The endpoint's deployment fingerprint: the smoke report of this deployment carries the same value. */
  readonly fingerprint: string;
  readonly hosting: 'sagemaker' | 'ec2';
  /** What the smoke benchmark targets: the SageMaker endpoint name, or the model server URL on ECS. */
  readonly target: string;
  /** The smoke report CI reads: `latest.json` of this endpoint. */
  readonly report: { readonly bucket: string; readonly key: string };
  readonly plan: PlanSummary;
  readonly artifact?: { readonly bucket: string; readonly prefix: string };
}

/**
 * Schema of the generative deployment record.
 *
 * @internal zod types stay out of the published declarations (they need `esModuleInterop` to compile)
 */
export const generativeDeploymentRecordSchema = lazySchema((z) => z.object({
  schemaVersion: z.literal(1),
  application: z.string(),
  environment: z.string(),
  profileId: z.string().min(1),
  imageDigest: z.string().regex(IMAGE_DIGEST),
  hash: z.string().regex(/^[0-9a-f]+$/),
  artifact: z.object({ bucket: z.string().min(1), prefix: z.string().min(1) }),
}));

/**
 * What an environment's generative model serves, written by its `Generative` stack after its proof in tokens passed.
 */
export interface GenerativeDeploymentRecord {
  readonly schemaVersion: 1;
  readonly application: string;
  readonly environment: string;
  /** The generative profile planned for. */
  readonly profileId: string;
  /** Digest of the Neuron vLLM image the served image is built from (the environments config's `generativeImageDigest`). */
  readonly imageDigest: string;
  /** Content hash of the compiled replica: the weights' identity, the engine settings, the SDK and the compile program. */
  readonly hash: string;
  /** Where the compiled replica it serves is: `<artifact.prefix><hash>/` of the environment's artifact location. */
  readonly artifact: { readonly bucket: string; readonly prefix: string };
}

/**
 * The verdicts `promote` promoted on.
 *
 * @internal zod types stay out of the published declarations
 */
export const evidenceSchema = lazySchema((z) => z.object({
  smoke: z.object({
    reportUri: z.string(),
    passed: z.boolean(),
    invokedAt: z.string(),
    fingerprint: z.string(),
    p99Ms: z.number(),
    errorRate: z.number(),
    throughputRps: z.number(),
    requests: z.number(),
  }),
  capacity: z.object({ passed: z.boolean(), summary: z.string() }).optional(),
}));

/** The verdicts a promotion rested on. */
export interface Evidence {
  readonly smoke: {
    readonly reportUri: string;
    readonly passed: boolean;
    readonly invokedAt: string;
    readonly fingerprint: string;
    readonly p99Ms: number;
    readonly errorRate: number;
    readonly throughputRps: number;
    readonly requests: number;
  };
  readonly capacity?: { readonly passed: boolean; readonly summary: string };
}

/**
 * Schema of the release record.
 *
 * @internal zod types stay out of the published declarations
 */
export const releaseRecordSchema = lazySchema((z) => z.object({
  schemaVersion: z.literal(1),
  application: z.string(),
  environment: z.string(),
  promotedFrom: z.string(),
  promotedAt: z.string(),
  image: z.object({
    registryId: z.string(),
    region: z.string(),
    repositoryName: z.string(),
    digest: z.string().regex(IMAGE_DIGEST),
    mediaType: z.string(),
  }),
  artifact: z
    .object({
      bucket: z.string(),
      prefix: z.string(),
      objects: z.number(),
      bytes: z.number(),
      /** SHA-256 over each object's key (relative to the prefix), size and ETag, in key order. */
      sha256: z.string(),
    })
    .optional(),
  source: z.object({
    environment: z.string(),
    target: z.string(),
    fingerprint: z.string(),
    plan: planSummarySchema(),
  }),
  evidence: evidenceSchema(),
  generative: z.object({
    profileId: z.string(),
    imageDigest: z.string().regex(IMAGE_DIGEST),
    hash: z.string(),
    bucket: z.string(),
    prefix: z.string(),
  }).optional(),
}));

/** What `promote` copied into an environment and why it was allowed to. */
export interface ReleaseRecord {
  readonly schemaVersion: 1;
  readonly application: string;
  readonly environment: string;
  readonly promotedFrom: string;
  readonly promotedAt: string;
  readonly image: {
    readonly registryId: string;
    readonly region: string;
    readonly repositoryName: string;
    readonly digest: string;
    readonly mediaType: string;
  };
  readonly artifact?: {
    readonly bucket: string;
    readonly prefix: string;
    readonly objects: number;
    readonly bytes: number;
    /** SHA-256 over each object's key (relative to the prefix), size and ETag, in key order. */
    readonly sha256: string;
  };
  readonly source: { readonly environment: string; readonly target: string; readonly fingerprint: string; readonly plan: PlanSummary };
  readonly evidence: Evidence;
  /**
   * The generative model promoted with it (environments with a `generative` section): the vLLM image digest the
   * source ran, and the compiled replica's hash and prefix as copied into this environment (`<artifact.prefix><hash>/`).
   */
  readonly generative?: {
    readonly profileId: string;
    readonly imageDigest: string;
    readonly hash: string;
    readonly bucket: string;
    readonly prefix: string;
  };
}

/**
 * The smoke report fields the gate reads (`lambdas/smoke-benchmark/report.ts` `SmokeReportDocument`); other fields
 * pass through, so a newer report with more in it still reads.
 *
 * @internal zod types stay out of the published declarations
 */
export const smokeReportSchema = lazySchema((z) => z.looseObject({
  schemaVersion: z.literal(1),
  name: z.string(),
  environment: z.string(),
  fingerprint: z.string().optional(),
  invokedAt: z.string(),
  complete: z.boolean(),
  passed: z.boolean(),
  failures: z.array(z.string()),
  report: z.looseObject({
    requests: z.number(),
    errorRate: z.number(),
    throughputRps: z.number(),
    latencyMs: z.looseObject({ p99: z.number() }),
  }),
  /**
   * The capacity proof (`lambdas/smoke-benchmark/capacity.ts` `CapacityReport`): its verdict and failures, or why it
   * was skipped.
   */
  capacity: z
    .union([
      z.looseObject({ passed: z.boolean(), failures: z.array(z.string()).optional() }),
      z.looseObject({ skipped: z.string() }),
    ])
    .optional(),
}));

/** The parts of a smoke report the gate reads; other fields pass through. */
export interface SmokeReport {
  readonly schemaVersion: 1;
  readonly name: string;
  readonly environment: string;
  readonly fingerprint?: string;
  readonly invokedAt: string;
  readonly complete: boolean;
  readonly passed: boolean;
  readonly failures: readonly string[];
  readonly report: {
    readonly requests: number;
    readonly errorRate: number;
    readonly throughputRps: number;
    readonly latencyMs: { readonly p99: number; readonly [key: string]: unknown };
    readonly [key: string]: unknown;
  };
  /** The capacity proof: its verdict and failures, or why it was skipped. */
  readonly capacity?:
    | { readonly passed: boolean; readonly failures?: readonly string[]; readonly [key: string]: unknown }
    | { readonly skipped: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/**
 * Parses a record or report read from AWS, naming where it came from when it does not fit.
 *
 * @returns the value, or the problem in one sentence
 * @internal takes a zod schema, whose types stay out of the published declarations
 */
export function parseRecord<T>(schema: z.ZodType<T>, json: unknown, where: string): { value: T } | { problem: string } {
  const result = schema.safeParse(json);
  if (result.success) {
    return { value: result.data };
  }
  const issues = result.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  return { problem: `${where} is not a record this version reads (${issues.join('; ')})` };
}
