import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { addEcsExample, EXAMPLE_ECS_STACK_NAME, PLACEHOLDER_ECS_IMAGE_DIGEST } from '../../bin/ecs-example';
import { EcsInferenceStack } from '../../constructs/ecs/ecs-inference-stack';
import { Catalog } from '../../lib/catalog';
import { InputError } from '../../lib/errors';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const TARGETS = { throughputRps: 2000, p99Ms: 10, peakThroughputRps: 4000 };
const SMOKE = { request: { body: '{"inputs":["x"]}', contentType: 'application/json' } };

function add(context: Record<string, unknown>, region = 'us-east-1', targets = TARGETS):
{ app: App; warnOn: Stack; stack: EcsInferenceStack | undefined } {
  const app = new App({ context, builtinCloudFormationValidation: false });
  const warnOn = new Stack(app, 'Other');
  const stack = addEcsExample(app, {
    account: '123456789012', region, catalog: Catalog.builtIn(), targets, minInstances: 2, smokeBenchmark: SMOKE, warnOn,
  });
  return { app, warnOn, stack };
}

function warnings(scope: Stack): string[] {
  return scope.node.metadata.filter((m) => m.type === 'aws:cdk:warning').map((m) => String(m.data));
}

describe('The example EC2 stack', () => {
  test('GIVEN no ecsImageDigest WHEN added THEN it plans for EC2, maps the plan\'s devices and refuses the deploy with the placeholder', () => {
    const { stack } = add({});
    expect(stack?.stackName).toBe(EXAMPLE_ECS_STACK_NAME);
    const service = stack!.service;
    expect(service.plan.hosting).toBe('ec2');
    const template = Template.fromStack(stack!);
    const [task] = Object.values(template.findResources('AWS::ECS::TaskDefinition'));
    const devices = (task.Properties.ContainerDefinitions[0].LinuxParameters.Devices as Array<{ HostPath: string }>)
      .map((d) => d.HostPath);
    expect(devices).toEqual(Array.from({ length: service.plan.instance.chips }, (_, i) => `/dev/neuron${i}`));
    expect(service.environment.MODEL_SERVER_VISIBLE_CORES).toBe(service.plan.visibleCores.join(';'));
    expect(Object.keys(template.toJSON().Rules ?? {}).some((r) => r.includes('PlaceholderImageDigest'))).toBe(true);
    expect(warnings(stack!).join('\n')).toContain(`ecsImageDigest is the placeholder ${PLACEHOLDER_ECS_IMAGE_DIGEST}`);
  });

  test('GIVEN a real digest WHEN added THEN the image is pulled by digest from the named repository and nothing is refused', () => {
    const { stack } = add({ ecsImageDigest: DIGEST, ecsImageRepository: 'team/bert' });
    const template = Template.fromStack(stack!);
    expect(Object.keys(template.toJSON().Rules ?? {}).some((r) => r.includes('PlaceholderImageDigest'))).toBe(false);
    const [task] = Object.values(template.findResources('AWS::ECS::TaskDefinition'));
    expect(JSON.stringify(task.Properties.ContainerDefinitions[0].Image)).toContain(`team/bert@${DIGEST}`);
  });

  test('GIVEN a malformed digest and repository WHEN added THEN both are reported at once', () => {
    expect(() => add({ ecsImageDigest: 'latest', ecsImageRepository: 'Bad Name' })).toThrow(InputError);
    try {
      add({ ecsImageDigest: 'latest', ecsImageRepository: 'Bad Name' });
    } catch (e) {
      expect((e as InputError).problems).toEqual([
        expect.stringContaining('context ecsImageDigest'),
        expect.stringContaining('context ecsImageRepository="Bad Name" is not an ECR repository name'),
      ]);
    }
  });

  test('GIVEN a region without EC2 prices WHEN added THEN the stack is left out with a warning instead of failing the app', () => {
    const { app, warnOn, stack } = add({}, 'il-central-1');
    expect(stack).toBeUndefined();
    expect(app.node.tryFindChild(EXAMPLE_ECS_STACK_NAME)).toBeUndefined();
    expect(warnings(warnOn).join('\n')).toContain('No EC2 prices for il-central-1');
  });

  test('GIVEN targets no EC2 plan meets WHEN added THEN the stack is left out with the planner\'s reason', () => {
    const { stack, warnOn } = add({}, 'us-east-1', { ...TARGETS, p99Ms: 0.01 });
    expect(stack).toBeUndefined();
    expect(warnings(warnOn).join('\n')).toContain('No EC2 plan meets the targets');
  });
});
