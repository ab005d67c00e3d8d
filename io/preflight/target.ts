/**
 * Reads what preflight checks from a plan (`cdk-inferentia plan --json`) or a synthesized stack template.
 */
import { isAwsRegion } from '../../lib/catalog/regions';
import { BUILT_IN_INSTANCES } from '../../lib/catalog/instances';
import { InputError } from '../../lib/errors';
import type { GenerativeFallbackPool } from '../../lib/generative/types';
import { readPlan } from '../../lib/plan-document/read';
import type { FallbackPool } from '../../lib/planner/types';
import { resolveString, type ExpressionScope } from './expression';
import type { PreflightTarget, SubnetPlacement } from './types';

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
  if (isObject(document) && 'chosen' in document && document.chosen === null) {
    throw new InputError(`${source}: the plan has no chosen deployment (no plan fits); preflight needs one`);
  }
  // The plan's shape, kind and version, checked as a construct checks them (lib/plan-document).
  const plan = readPlan(document, source);
  if (!isAwsRegion(plan.region)) {
    throw new InputError(`${source}: chosen.region: ${JSON.stringify(plan.region)} is not an AWS region code such as us-east-1; `
      + 'write the plan with `cdk-inferentia plan ... --json > plan.json`');
  }
  const fleet = plan.mixedFleet;
  const copies = fleet !== undefined && 'copies' in fleet ? fleet : undefined;
  const fallbacks: ReadonlyArray<FallbackPool | GenerativeFallbackPool> = plan.fallbacks ?? [];
  const pools = fallbacks.map((pool) => {
    // A generative fleet is sized in copies: a pool of fewer replicas per instance needs more instances for them.
    const replicas = 'replicasPerInstance' in pool.layout ? pool.layout.replicasPerInstance : undefined;
    const onPool = (n: number | undefined, instances: number) => (n !== undefined && replicas !== undefined ? Math.ceil(n / replicas) : instances);
    const instanceCount = onPool(copies?.copies, fleet?.instanceCount ?? plan.instanceCount);
    return {
      priority: pool.priority,
      instanceType: pool.instanceType,
      vcpus: pool.plan.instance.vcpus,
      instanceCount,
      maxInstanceCount: Math.max(instanceCount, onPool(copies?.maxCopies, fleet?.maxInstanceCount ?? plan.maxInstanceCount)),
    };
  });
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
    pricing: plan.price.kind,
    // With pools the variant runs the mixed fleet, which any one pool may have to hold whole.
    instanceCount: fleet?.instanceCount ?? plan.instanceCount,
    maxInstanceCount: Math.max(fleet?.instanceCount ?? plan.instanceCount, fleet?.maxInstanceCount ?? plan.maxInstanceCount),
    ...(pools.length > 0 ? { pools } : {}),
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
export function targetsFromTemplate(template: unknown, source: string, region: string,
  environment: { account?: string; exports?: ExpressionScope['exports'] } = {}): PreflightTarget[] {
  const resources = (isObject(template) && isObject(template.Resources) ? template.Resources : {}) as Record<string, Resource>;
  const byType = (type: string) => Object.entries(resources).filter(([, r]) => r?.Type === type);
  const scope: ExpressionScope | undefined = environment.account !== undefined
    ? { account: environment.account, region, resources, exports: environment.exports }
    : undefined;
  const endpoints = byType('AWS::SageMaker::Endpoint');
  if (endpoints.length === 0) {
    const ecs = ecsTargets(resources, source, region, scope);
    if (ecs.length > 0) {
      return ecs;
    }
    throw new InputError(`${source}: no AWS::SageMaker::Endpoint and no ECS service on EC2 capacity; preflight reads the stacks `
      + 'NeuronSageMakerEndpoint and NeuronEcsService make');
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
    // With instance pools the variant names its types there, priority 1 first; every pool may hold the whole fleet.
    const poolList = Array.isArray(variant.InstancePools) ? [...variant.InstancePools].filter(isObject)
      .sort((a, b) => Number(a.Priority) - Number(b.Priority)) : [];
    const instanceType = variant.InstanceType ?? poolList[0]?.InstanceType;
    const count = variant.InitialInstanceCount;
    if (typeof instanceType !== 'string' || typeof count !== 'number') {
      problems.push(`${where}: the production variant has no literal InstanceType and InitialInstanceCount (serverless is not checked)`);
      continue;
    }
    const modelId = logicalIdOf(variant.ModelName);
    const model = modelId !== undefined ? resources[modelId] : undefined;
    const container = isObject(model?.Properties?.PrimaryContainer) ? model.Properties.PrimaryContainer : {};
    const image = typeof container.Image === 'string' || scope === undefined ? container.Image : resolveString(container.Image, scope);
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
    const managedMax = isObject(variant.ManagedInstanceScaling) ? Number(variant.ManagedInstanceScaling.MaxInstanceCount) : NaN;
    const ceiling = Math.max(count, ...maxCapacity, ...(Number.isFinite(managedMax) ? [managedMax] : []));
    const pools = poolList.slice(1).filter((pool) => typeof pool.InstanceType === 'string').map((pool) => ({
      priority: Number(pool.Priority),
      instanceType: pool.InstanceType as string,
      vcpus: BUILT_IN_INSTANCES.find((i) => `ml.${i.name}` === pool.InstanceType)?.vcpus,
      instanceCount: count,
      maxInstanceCount: ceiling,
    }));
    targets.push({
      source: where,
      region,
      hosting: 'sagemaker',
      instanceType,
      instanceCount: count,
      maxInstanceCount: ceiling,
      ...(pools.length > 0 ? { pools } : {}),
      image: typeof image === 'string' ? image : undefined,
      modelDataUri: typeof modelDataUri === 'string' ? modelDataUri : undefined,
      endpointName: typeof endpointName === 'string' ? endpointName : undefined,
      unknown,
    });
  }
  InputError.throwIfAny(problems);
  return targets;
}

/**
 * The ECS services on EC2 of a template (NeuronEcsService): instance type from the launch template, count and ceiling
 * from the Auto Scaling group, image from the task definition. The model is in the image, so there is no model data.
 */
function ecsTargets(resources: Record<string, Resource>, source: string, region: string, scope: ExpressionScope | undefined): PreflightTarget[] {
  const of = (type: string) => Object.entries(resources).filter(([, r]) => r?.Type === type);
  const launchTemplates = of('AWS::EC2::LaunchTemplate');
  const groups = of('AWS::AutoScaling::AutoScalingGroup');
  const tasks = of('AWS::ECS::TaskDefinition');
  if (of('AWS::ECS::Service').length === 0 || launchTemplates.length === 0 || groups.length === 0 || tasks.length === 0) {
    return [];
  }
  const [templateId, launchTemplate] = launchTemplates[0];
  const data = launchTemplate.Properties?.LaunchTemplateData;
  const instanceType = isObject(data) ? data.InstanceType : undefined;
  const group = groups[0][1].Properties ?? {};
  const min = Number(group.DesiredCapacity ?? group.MinSize);
  const max = Number(group.MaxSize);
  if (typeof instanceType !== 'string' || !Number.isFinite(min) || !Number.isFinite(max)) {
    throw new InputError(`${source} (${templateId}): the launch template and Auto Scaling group name no literal instance type and sizes`);
  }
  const container = firstOf(tasks[0][1].Properties?.ContainerDefinitions);
  const image = typeof container?.Image === 'string' ? container.Image : scope !== undefined ? resolveString(container?.Image, scope) : undefined;
  const unknown: Record<string, string> = { modelDataUri: 'on ECS the model is in the image: the image check covers it' };
  if (image === undefined) unknown.image = 'the image is a CloudFormation expression this stack cannot resolve before the deploy';
  return [{
    source: `${source} (${tasks[0][0]})`,
    region,
    hosting: 'ec2',
    instanceType,
    vcpus: BUILT_IN_INSTANCES.find((i) => i.name === instanceType)?.vcpus,
    instanceCount: min,
    maxInstanceCount: Math.max(min, max),
    image,
    subnets: subnetPlacements(group, resources),
    unknown,
  }];
}

/**
 * The subnets of an Auto Scaling group where the template says where they are: a subnet of the stack with a literal
 * zone or `Fn::Select [n, Fn::GetAZs]` (what a CDK VPC writes), or an existing subnet's ID; undefined if any is
 * something else, so the offering check never judges half of the group.
 */
function subnetPlacements(group: Record<string, unknown>, resources: Record<string, Resource>): SubnetPlacement[] | undefined {
  const zones = group.AvailabilityZones;
  if (Array.isArray(zones) && zones.length > 0 && zones.every((z) => typeof z === 'string')) {
    return zones.map((zone: string) => ({ zone }));
  }
  const subnets = group.VPCZoneIdentifier;
  if (!Array.isArray(subnets) || subnets.length === 0) {
    return undefined;
  }
  const placements: SubnetPlacement[] = [];
  for (const subnet of subnets) {
    if (typeof subnet === 'string' && /^subnet-[0-9a-f]+$/.test(subnet)) {
      placements.push({ subnetId: subnet });
      continue;
    }
    const id = logicalIdOf(subnet);
    const zone = id !== undefined && resources[id]?.Type === 'AWS::EC2::Subnet' ? resources[id].Properties?.AvailabilityZone : undefined;
    const select = isObject(zone) ? zone['Fn::Select'] : undefined;
    if (typeof zone === 'string') {
      placements.push({ zone });
    } else if (Array.isArray(select) && typeof select[0] === 'number' && isObject(select[1]) && 'Fn::GetAZs' in select[1]) {
      placements.push({ getAzsIndex: select[0] });
    } else {
      return undefined;
    }
  }
  return placements;
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
