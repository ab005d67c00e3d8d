/**
 * The endpoint's props checked before any resource exists: each function records every problem it finds and
 * returns what the constructor needs, so the constructor throws once with all of them.
 */
import { Duration, Stack, Token } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { ec2Name } from '../../../lib/catalog/catalog';
import { NEURON_FAMILIES, NeuronInstanceType } from '../../../lib/catalog/instance-type';
import { validateLayout } from '../../../lib/planner';
import type { NeuronSageMakerEndpointProps } from '../endpoint-props';
import { EndpointLayout, layoutFromPlan } from '../../private/endpoint-layout';
import { TIMEOUT_MAX_SECONDS, TIMEOUT_MIN_SECONDS } from '../../private/endpoint-sizing';

/** SageMaker endpoint names: letters, digits and hyphens, starting and ending with a letter or digit, <= 63. */
export const ENDPOINT_NAME = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/;

/** Auto scaling between the plan's minimum and peak, tracking invocations per instance per minute. */
export interface AutoScalingBounds {
  readonly min: number;
  readonly max: number;
  readonly targetInvocationsPerMinute: number;
  readonly scaleInCooldown: Duration;
  readonly scaleOutCooldown: Duration;
}

/** The layout from `plan` or from the explicit props; records problems and returns undefined when invalid. */
export function resolveLayout(scope: Construct, props: NeuronSageMakerEndpointProps, problems: string[]):
EndpointLayout | undefined {
  const explicit = (['instanceType', 'instanceCount', 'processesPerInstance', 'coresPerProcess'] as const)
    .filter((k) => props[k] !== undefined);
  const stackRegion = Stack.of(scope).region;
  if (props.plan) {
    const plan = props.plan;
    if (explicit.length > 0) {
      problems.push(`${explicit.join(', ')} ${explicit.length === 1 ? 'is' : 'are'} set together with plan; the plan `
        + 'already fixes the instance type and counts: remove them, or re-plan with the values you want');
    }
    if (plan.hosting !== 'sagemaker') {
      problems.push(`plan.hosting=${JSON.stringify(plan.hosting)}: the plan was made for EC2 (instance names without `
        + "'ml.', EC2 prices); re-plan with { hosting: 'sagemaker' }");
    }
    if (plan.serving !== undefined && plan.serving !== 'stock' && !props.image.modelServer) {
      // The stock toolkit of a Neuron DLC makes one device call per request: a plan that counts on requests
      // sharing calls would promise a capacity it cannot serve. Only the model server batches.
      problems.push(`plan.serving=${JSON.stringify(plan.serving)} but the image runs the stock SageMaker toolkit, one `
        + "device call per request, which cannot hold a batching plan's capacity; use the model server, "
        + 'image: ModelImage.fromServer({ tag, digest }), or re-plan with { serving: \'stock\' }');
    }
    if (plan.serving === 'stock' && (plan.server ?? 'model-server') === 'model-server' && !props.image.modelServer) {
      // The model server overlaps a request's host work with other requests' device calls; the stock toolkit runs
      // them one after the other, so it holds less than this plan counts on.
      problems.push(`plan.server=${JSON.stringify(plan.server ?? 'model-server')}${plan.server === undefined ? ' (the default)' : ''}: `
        + 'the stock plan was sized for the cdk-inferentia model server, which overlaps host work with the device call, '
        + 'but the image runs a Neuron DLC\'s stock SageMaker toolkit, which runs them one after the other and holds '
        + 'less than the plan counts on; use the model server, image: ModelImage.fromServer({ tag, digest }), or '
        + 're-plan for the DLC with { server: \'neuron-dlc\' } (--server neuron-dlc)');
    }
    if (!Token.isUnresolved(stackRegion) && plan.region !== stackRegion) {
      problems.push(`plan.region=${JSON.stringify(plan.region)} but the stack deploys to ${stackRegion}; prices and `
        + `availability differ by region: re-plan with { region: '${stackRegion}' }`);
    }
    if (!plan.instanceType.startsWith('ml.')) {
      problems.push(`plan.instanceType=${JSON.stringify(plan.instanceType)} is not a SageMaker instance type `
        + "(no 'ml.' prefix); re-plan with { hosting: 'sagemaker' }");
    }
    let type: NeuronInstanceType | undefined;
    if (!NEURON_FAMILIES.includes(ec2Name(plan.instanceType).split('.')[0])) {
      problems.push(`plan.instanceType=${JSON.stringify(plan.instanceType)} is not a Neuron instance type (families `
        + `${NEURON_FAMILIES.join(', ')}); re-plan: the planner only picks Neuron instances`);
    } else {
      try {
        type = NeuronInstanceType.of(plan.instanceType, plan.instance);
      } catch (e) {
        problems.push(`plan.instanceType: ${(e as Error).message}`);
      }
    }
    if (type) {
      problems.push(...validateLayout(type.spec, plan.coresPerProcess, plan.processesPerInstance)
        .map((p) => `plan: ${p}`));
    }
    return type ? layoutFromPlan(plan, type) : undefined;
  }

  const type = props.instanceType;
  if (type === undefined) {
    problems.push('neither plan nor instanceType is set; pass plan (from `cdk-inferentia plan` or plan()) or an '
      + 'instanceType such as NeuronInstanceType.INF2_XLARGE');
    return undefined;
  }
  const instanceCount = props.instanceCount ?? 1;
  const coresPerProcess = props.coresPerProcess ?? 1;
  const processesPerInstance = props.processesPerInstance
    ?? Math.max(1, Math.floor(type.neuronCores / Math.max(1, coresPerProcess)));
  if (!Number.isInteger(instanceCount) || instanceCount < 1) {
    problems.push(`instanceCount=${instanceCount} must be a whole number of at least 1`);
  }
  problems.push(...validateLayout(type.spec, coresPerProcess, processesPerInstance));
  return { instanceType: type, instanceCount, processesPerInstance, coresPerProcess, batchSize: 1 };
}

export function resolveAutoScaling(props: NeuronSageMakerEndpointProps, layout: EndpointLayout, problems: string[]):
AutoScalingBounds | undefined {
  const options = props.autoScaling;
  if (options?.enabled === false || (options === undefined && props.plan === undefined)) {
    return undefined;
  }
  const o = options ?? {};
  const min = layout.instanceCount;
  const max = o.maxInstanceCount ?? layout.maxInstanceCount ?? min;
  const utilization = o.targetUtilization ?? 0.7;
  const capacity = o.capacityPerInstanceRps ?? layout.capacityPerInstanceRps;
  if (!Number.isInteger(max) || max < min) {
    problems.push(`autoScaling.maxInstanceCount=${max} is below the minimum instance count ${min}; `
      + `pass a whole number of at least ${min}`);
  }
  if (!(utilization > 0 && utilization <= 1)) {
    problems.push(`autoScaling.targetUtilization=${utilization} must be in (0, 1], e.g. 0.7 for 70 % of capacity`);
  }
  if (capacity === undefined) {
    problems.push('autoScaling needs the capacity of one instance to set its target: pass '
      + 'autoScaling.capacityPerInstanceRps, deploy a plan, or set autoScaling.enabled=false');
  } else if (!(capacity > 0)) {
    problems.push(`autoScaling.capacityPerInstanceRps=${capacity} must be above 0`);
  }
  if (problems.length > 0 || capacity === undefined || max === min) {
    return undefined;
  }
  // SageMakerVariantInvocationsPerInstance counts invocations per instance per MINUTE; the plan's capacity is
  // already in requests (invocations) per second, queueing and padding to the compiled batch included.
  const invocationsPerSecond = capacity;
  return {
    min,
    max,
    targetInvocationsPerMinute: Math.floor(invocationsPerSecond * 60 * utilization),
    scaleInCooldown: o.scaleInCooldown ?? Duration.minutes(10),
    scaleOutCooldown: o.scaleOutCooldown ?? Duration.minutes(5),
  };
}

export function timeoutSeconds(name: string, value: Duration | undefined, dflt: number, problems: string[]): number {
  if (value === undefined) {
    return dflt;
  }
  const s = value.toSeconds();
  if (!Token.isUnresolved(s) && (!Number.isInteger(s) || s < TIMEOUT_MIN_SECONDS || s > TIMEOUT_MAX_SECONDS)) {
    problems.push(`${name}=${value.toHumanString()} is outside the ${TIMEOUT_MIN_SECONDS}-${TIMEOUT_MAX_SECONDS} `
      + `seconds SageMaker accepts; pass e.g. Duration.minutes(${dflt / 60})`);
  }
  return s;
}
