/**
 * Shapes of `cdk-inferentia preflight`: what is checked (a target read from a plan or a synthesized stack), with
 * which clients, and what each check answers.
 */
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { ECRClient } from '@aws-sdk/client-ecr';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SageMakerClient } from '@aws-sdk/client-sagemaker';
import type { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import type { PricingKind } from '../../lib/catalog/types';

/** Where the model is hosted. */
export type PreflightHosting = 'sagemaker' | 'ec2';

/** One deployment to check, from a plan or from a stack template. */
export interface PreflightTarget {
  /** What it was read from, e.g. `plan.json` or `cdk.out/InferenceStack.template.json (Endpoint)`. */
  readonly source: string;
  readonly region: string;
  readonly hosting: PreflightHosting;
  /** As the hosting names it: `ml.inf2.xlarge` for SageMaker, `inf2.xlarge` for EC2. */
  readonly instanceType: string;
  /** vCPUs of one instance (for the EC2 vCPU quotas); unknown for a stack template. */
  readonly vcpus?: number;
  /** What the plan pays: a `capacity-block` plan needs Capacity Blocks bought ahead. @default - on-demand */
  readonly pricing?: PricingKind;
  /** Instances at the first deploy. */
  readonly instanceCount: number;
  /** Instances at the scaling ceiling. */
  readonly maxInstanceCount: number;
  /** The container image URI; undefined when not known (a plan without --image, or a token in the template). */
  readonly image?: string;
  /** `s3://bucket/key` or `s3://bucket/prefix/`; undefined when not known or uploaded by the stack itself. */
  readonly modelDataUri?: string;
  /** The physical endpoint name; undefined when CloudFormation generates it. */
  readonly endpointName?: string;
  /**
   * Where an ECS service's instances launch, as the template names its Auto Scaling group's subnets; undefined when
   * the template does not say (SageMaker picks its own zones).
   */
  readonly subnets?: readonly SubnetPlacement[];
  /**
   * The fallback instance pools of a SageMaker variant (priority 2 onward; the target's own type is priority 1), each
   * with the instances it may have to hold: the whole fleet, should every instance come from it.
   *
   * @default - no pools
   */
  readonly pools?: readonly PoolTarget[];
  /** Why a value is unknown, by field, e.g. `{ modelDataUri: 'uploaded by the stack during the deploy' }`. */
  readonly unknown?: Readonly<Partial<Record<'image' | 'modelDataUri' | 'endpointName', string>>>;
}

/** One fallback instance pool of a target: its type and the instances it may have to run. */
export interface PoolTarget {
  /** Its SageMaker `Priority`, 2 to 5. */
  readonly priority: number;
  /** `ml.trn1.2xlarge`. */
  readonly instanceType: string;
  /** vCPUs of one instance, when known. */
  readonly vcpus?: number;
  /** Instances at the first deploy, should every one come from this pool. */
  readonly instanceCount: number;
  /** Instances at the scaling ceiling, should every one come from this pool. */
  readonly maxInstanceCount: number;
}

/**
 * One subnet of an Auto Scaling group, as a template names it: a zone written in the template, the n-th zone of
 * `Fn::GetAZs` (a CDK VPC without named zones), or the ID of an existing subnet.
 */
export type SubnetPlacement = { readonly zone: string } | { readonly getAzsIndex: number } | { readonly subnetId: string };

/** The AWS clients the checks call, created by the caller with the user's credentials. */
export interface PreflightClients {
  /** EC2 in the target's region. */
  readonly ec2: EC2Client;
  /** Service Quotas in the target's region (quotas are regional). */
  readonly serviceQuotas: ServiceQuotasClient;
  /** SageMaker in the target's region. */
  readonly sageMaker: SageMakerClient;
  /** S3 (any region: the SDK follows the bucket's region). */
  readonly s3: S3Client;
  /** ECR in the image's region, which may differ from the target's. */
  readonly ecr: (region: string) => ECRClient;
}

/** The ids of the checks, in the order they run. */
export const CHECK_IDS = ['instance-offering', 'instance-quota', 'instance-pools', 'capacity-block', 'image', 'model-data', 'endpoint-name'] as const;

/** One check's id. */
export type CheckId = (typeof CHECK_IDS)[number];

/** What one check found. */
export interface CheckResult {
  readonly id: CheckId;
  /** `fail` stops the deploy from working; `skip` means the check did not apply or lacked an input. */
  readonly status: 'pass' | 'fail' | 'skip';
  /** What was found, in a sentence. */
  readonly detail: string;
  /** What to do about a failure (or a skip); absent on a pass. */
  readonly fix?: string;
}

/** Every check of one target. */
export interface PreflightReport {
  readonly target: PreflightTarget;
  readonly checks: readonly CheckResult[];
  /** No check failed. */
  readonly passed: boolean;
}

/** A check: reads AWS through the clients, never throws for an AWS refusal (that is a `fail` naming it). */
export type Check = (target: PreflightTarget, clients: PreflightClients) => Promise<CheckResult>;
