import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { EcsInferenceStack } from '../../../constructs/ecs/ecs-inference-stack';
import { applyPolicyChecks } from '../../../constructs/nag';
import { InputError } from '../../../lib/errors';
import { plan } from '../../../lib/planner';
import { requireProfile } from '../../../lib/profiles';
import { nagFindings } from '../../support/nag';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

/** The example's plan, made for EC2: 2000 requests/s, p99 10 ms, peak 4000, at least 2 instances. */
const EC2_PLAN = plan(requireProfile('bert-base-uncased'), { throughputRps: 2000, p99Ms: 10, peakThroughputRps: 4000 },
  { region: 'us-east-1', hosting: 'ec2', minInstances: 2 });

function exampleApp(): { app: App; stack: EcsInferenceStack } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new EcsInferenceStack(app, 'BertEcs', {
    env: { account: '111111111111', region: 'us-east-1' },
    plan: EC2_PLAN,
    imageDigest: DIGEST,
    smokeBenchmark: { request: { body: '{"inputs":["x"]}', contentType: 'application/json' } },
  });
  applyPolicyChecks(app);
  return { app, stack };
}

describe('The EC2 example stack, with an explicit account and region and a smoke benchmark', () => {
  const { app, stack } = exampleApp();

  test('WHEN synthesized THEN AwsSolutions and the Neuron pack find nothing unacknowledged', () => {
    expect(nagFindings(app, { plugins: ['AwsSolutions', 'Neuron'] })).toEqual([]);
  });

  test('WHEN synthesized THEN no context lookup is needed: zones come from Fn::GetAZs and the AMI from SSM at deploy time', () => {
    const assembly = app.synth();
    expect(assembly.manifest.missing ?? []).toEqual([]);
    const subnets = Template.fromStack(stack).findResources('AWS::EC2::Subnet');
    for (const subnet of Object.values(subnets)) {
      expect(JSON.stringify(subnet.Properties.AvailabilityZone)).toContain('Fn::GetAZs');
    }
  });

  test('WHEN synthesized THEN the stack outputs the URL, the repository and the plan, and runs the planned instances', () => {
    const template = Template.fromStack(stack);
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual(['PlanSummary', 'RepositoryUri', 'Url']);
    template.hasResourceProperties('AWS::ECS::Service', { DesiredCount: EC2_PLAN.instanceCount });
    template.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: { InstanceType: EC2_PLAN.instanceType },
    });
  });

  test('WHEN synthesized THEN the logical ids of what must not be replaced stay pinned', () => {
    // Renaming a construct would replace these: the load balancer (its DNS name, which clients use), the service (a
    // new one starts from zero tasks), the repository and the logs (kept data).
    const template = Template.fromStack(stack).toJSON() as { Resources: Record<string, { Type: string }> };
    const pinned: Record<string, string> = {
      Repository3A24F169: 'AWS::ECR::Repository',
      ServiceService480762AE: 'AWS::ECS::Service',
      ServiceLoadBalancer31A7DB79: 'AWS::ElasticLoadBalancingV2::LoadBalancer',
      ServiceAccessLogsC4D1116F: 'AWS::S3::Bucket',
      ServiceLogGroupB910EE76: 'AWS::Logs::LogGroup',
    };
    for (const [logicalId, type] of Object.entries(pinned)) {
      expect(template.Resources[logicalId]?.Type).toBe(type);
    }
  });
});

describe('The policy checks over the EC2 stack', () => {
  test('GIVEN a deliberately open security group WHEN synthesized THEN the check is live and reports it', () => {
    const { app, stack } = exampleApp();
    const open = new ec2.SecurityGroup(stack, 'Open', { vpc: stack.service.vpc });
    open.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(22));
    expect(nagFindings(app, { plugins: ['AwsSolutions'] }).map((f) => `${f.ruleId} ${f.resourcePath}`))
      .toContain('AwsSolutions-EC23 BertEcs/Open/Resource');
  });
});

describe('EcsInferenceStack image props', () => {
  test('GIVEN neither image nor imageDigest WHEN the stack is defined THEN it says which to pass', () => {
    expect(() => new EcsInferenceStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'S', { plan: EC2_PLAN })).toThrow(InputError);
    expect(() => new EcsInferenceStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'S', { plan: EC2_PLAN })).toThrow(/neither image nor imageDigest/);
  });
});
