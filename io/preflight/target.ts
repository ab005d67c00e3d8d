/**
 * Reads what preflight checks from a plan (`cdk-inferentia plan --json`) or a synthesized stack template.
 */
import { z } from 'zod';
import { isAwsRegion } from '../../lib/catalog/regions';
import { InputError } from '../../lib/errors';
import type { PreflightTarget } from './types';

/**
 * The fields of a plan preflight reads. Other fields are left alone: the plan grows, and preflight needs only these.
 */
const planSchema = z.object({
  region: z.string().refine(isAwsRegion, 'not an AWS region code such as us-east-1'),
  hosting: z.enum(['sagemaker', 'ec2']),
  instanceType: z.string().min(1),
  instance: z.object({ vcpus: z.number().int().positive() }).loose(),
  instanceCount: z.number().int().positive(),
  maxInstanceCount: z.number().int().positive(),
});

/** What the user adds on the command line to a plan, which names no image, model data or endpoint. */
export interface PlanExtras {
  readonly image?: string;
  readonly modelDataUri?: string;
  readonly endpointName?: string;
}

/**
 * The deployment a plan describes: its `chosen` plan (the document `plan --json` prints), or a bare plan object.
 *
 * @param source the file name, for messages
 * @throws InputError naming each missing or invalid field and how to get a valid plan
 */
export function targetFromPlan(document: unknown, source: string, extras: PlanExtras = {}): PreflightTarget {
  const chosen = isObject(document) && 'chosen' in document ? document.chosen : document;
  if (chosen === null && isObject(document) && 'chosen' in document) {
    throw new InputError(`${source}: the plan has no chosen deployment (no plan fits); preflight needs one`);
  }
  const parsed = planSchema.safeParse(chosen);
  if (!parsed.success) {
    throw new InputError(
      parsed.error.issues.map(
        (issue) =>
          `${source}: chosen.${issue.path.join('.') || '(plan)'}: ${issue.message}; ` +
          'write the plan with `cdk-inferentia plan ... --json > plan.json`',
      ),
    );
  }
  const plan = parsed.data;
  const unknown: Record<string, string> = {};
  if (extras.image === undefined) unknown.image = 'a plan names no image: add --image <uri@sha256:...>';
  if (extras.modelDataUri === undefined) unknown.modelDataUri = 'a plan names no model data: add --model-data s3://bucket/prefix/';
  if (extras.endpointName === undefined && plan.hosting === 'sagemaker') {
    unknown.endpointName = 'a plan names no endpoint: add --endpoint-name <name>';
  }
  return {
    source,
    region: plan.region,
    hosting: plan.hosting,
    instanceType: plan.instanceType,
    vcpus: plan.instance.vcpus,
    instanceCount: plan.instanceCount,
    maxInstanceCount: Math.max(plan.instanceCount, plan.maxInstanceCount),
    image: extras.image,
    modelDataUri: extras.modelDataUri,
    endpointName: extras.endpointName,
    unknown,
  };
}

interface Resource {
  readonly Type?: string;
  readonly Properties?: Record<string, unknown>;
}

/**
 * The SageMaker endpoints of a synthesized CloudFormation template: one target per `AWS::SageMaker::Endpoint`,
 * read through its EndpointConfig (first production variant: instance type and count) to its Model (image and
 * model data). An Application Auto Scaling target on the variant gives the ceiling.
 *
 * Values that are CloudFormation expressions (a bucket the stack creates, a generated name) are unknown before the
 * deploy; the checks that need them are skipped and say why.
 *
 * @throws InputError when the template has no SageMaker endpoint or a resource cannot be followed
 */
export function targetsFromTemplate(template: unknown, source: string, region: string): PreflightTarget[] {
  const resources = (isObject(template) && isObject(template.Resources) ? template.Resources : {}) as Record<string, Resource>;
  const byType = (type: string) => Object.entries(resources).filter(([, r]) => r?.Type === type);
  const endpoints = byType('AWS::SageMaker::Endpoint');
  if (endpoints.length === 0) {
    throw new InputError(`${source}: no AWS::SageMaker::Endpoint resource; preflight reads SageMaker stacks (for EC2 hosting, check a plan)`);
  }
  const problems: string[] = [];
  const targets: PreflightTarget[] = [];
  for (const [id, endpoint] of endpoints) {
    const where = `${source} (${id})`;
    const configId = logicalIdOf(endpoint.Properties?.EndpointConfigName);
    const config = configId !== undefined ? resources[configId] : undefined;
    const variant = firstOf(config?.Properties?.ProductionVariants);
    if (config?.Type !== 'AWS::SageMaker::EndpointConfig' || variant === undefined) {
      problems.push(`${where}: EndpointConfigName does not lead to an EndpointConfig with a production variant in this template`);
      continue;
    }
    const instanceType = variant.InstanceType;
    const count = variant.InitialInstanceCount;
    if (typeof instanceType !== 'string' || typeof count !== 'number') {
      problems.push(`${where}: the production variant has no literal InstanceType and InitialInstanceCount (serverless is not checked)`);
      continue;
    }
    const modelId = logicalIdOf(variant.ModelName);
    const model = modelId !== undefined ? resources[modelId] : undefined;
    const container = isObject(model?.Properties?.PrimaryContainer) ? model.Properties.PrimaryContainer : {};
    const image = container.Image;
    const modelDataUri = isObject(container.ModelDataSource) && isObject(container.ModelDataSource.S3DataSource)
      ? container.ModelDataSource.S3DataSource.S3Uri
      : container.ModelDataUrl;
    const endpointName = endpoint.Properties?.EndpointName;
    const maxCapacity = byType('AWS::ApplicationAutoScaling::ScalableTarget')
      .map(([, r]) => r.Properties)
      .filter((p) => p?.ServiceNamespace === 'sagemaker' && p?.ScalableDimension === 'sagemaker:variant:DesiredInstanceCount')
      .map((p) => Number(p?.MaxCapacity))
      .filter((n) => Number.isFinite(n));
    const unknown: Record<string, string> = {};
    if (typeof image !== 'string') unknown.image = 'the image is a CloudFormation expression (an asset or repository of the stack)';
    if (typeof modelDataUri !== 'string') unknown.modelDataUri = 'the model data is uploaded by the stack itself during the deploy';
    if (typeof endpointName !== 'string') unknown.endpointName = 'CloudFormation generates the endpoint name';
    targets.push({
      source: where,
      region,
      hosting: 'sagemaker',
      instanceType,
      instanceCount: count,
      maxInstanceCount: Math.max(count, ...maxCapacity),
      image: typeof image === 'string' ? image : undefined,
      modelDataUri: typeof modelDataUri === 'string' ? modelDataUri : undefined,
      endpointName: typeof endpointName === 'string' ? endpointName : undefined,
      unknown,
    });
  }
  InputError.throwIfAny(problems);
  return targets;
}

/** The logical id a `{ Ref }` or `{ 'Fn::GetAtt': [id, attr] }` points at. */
function logicalIdOf(value: unknown): string | undefined {
  if (!isObject(value)) {
    return undefined;
  }
  if (typeof value.Ref === 'string') {
    return value.Ref;
  }
  const getAtt = value['Fn::GetAtt'];
  return Array.isArray(getAtt) && typeof getAtt[0] === 'string' ? getAtt[0] : undefined;
}

function firstOf(value: unknown): Record<string, unknown> | undefined {
  return Array.isArray(value) && isObject(value[0]) ? value[0] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
