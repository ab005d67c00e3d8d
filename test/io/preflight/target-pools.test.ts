import { targetFromPlan, targetsFromTemplate } from '../../../io/preflight/index';
import { findGenerativeProfile, planGenerative } from '../../../lib/generative';
import { planReport } from '../../../lib/planner';
import { requireProfile } from '../../../lib/profiles';

describe('preflight reads the fallback instance pools of a plan and of a template', () => {
  test('GIVEN a single-call plan with pools THEN the target runs the mixed fleet and every pool may have to hold it whole', () => {
    const plan = planReport(requireProfile('bert-base-uncased'), { throughputRps: 2000, p99Ms: 10, peakThroughputRps: 4000 },
      { region: 'us-east-1', hosting: 'sagemaker', minInstances: 2, fallbacks: 2 }).chosen;
    const fleet = plan.mixedFleet!;
    const target = targetFromPlan({ chosen: plan }, 'plan.json');
    expect(target).toMatchObject({ instanceType: plan.instanceType, instanceCount: fleet.instanceCount, maxInstanceCount: fleet.maxInstanceCount });
    expect(target.pools).toEqual(plan.fallbacks!.map((pool) => ({
      priority: pool.priority, instanceType: pool.instanceType, vcpus: pool.plan.instance.vcpus,
      instanceCount: fleet.instanceCount, maxInstanceCount: fleet.maxInstanceCount,
    })));
  });

  test('GIVEN a generative plan with pools THEN each pool needs the instances that hold the fleet\'s copies at its replicas per instance', () => {
    const plan = planGenerative(findGenerativeProfile('llama-3.1-8b-instruct')!, {
      requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60, fixedLengths: true,
    }, { region: 'us-east-1', hosting: 'sagemaker', estimates: false, fallbacks: 2 });
    const fleet = plan.mixedFleet!;
    expect(targetFromPlan(plan, 'plan.json').pools).toEqual(plan.fallbacks!.map((pool) => ({
      priority: pool.priority, instanceType: pool.instanceType, vcpus: pool.plan.instance.vcpus,
      instanceCount: Math.ceil(fleet.copies / pool.layout.replicasPerInstance),
      maxInstanceCount: Math.max(Math.ceil(fleet.copies / pool.layout.replicasPerInstance), Math.ceil(fleet.maxCopies / pool.layout.replicasPerInstance)),
    })));
  });

  test('GIVEN a template whose variant has InstancePools THEN priority 1 is the target\'s type and the others its pools', () => {
    const template = {
      Resources: {
        Endpoint: { Type: 'AWS::SageMaker::Endpoint', Properties: { EndpointConfigName: { 'Fn::GetAtt': ['Config', 'EndpointConfigName'] } } },
        Config: {
          Type: 'AWS::SageMaker::EndpointConfig',
          Properties: {
            ProductionVariants: [{
              VariantName: 'AllTraffic', InitialInstanceCount: 2, ModelName: { 'Fn::GetAtt': ['Model', 'ModelName'] },
              InstancePools: [{ InstanceType: 'ml.inf2.8xlarge', Priority: 2 }, { InstanceType: 'ml.inf2.xlarge', Priority: 1 }],
            }],
          },
        },
        Model: { Type: 'AWS::SageMaker::Model', Properties: { PrimaryContainer: { Image: 'image' } } },
        Scaling: { Type: 'AWS::ApplicationAutoScaling::ScalableTarget', Properties: { ServiceNamespace: 'sagemaker', ScalableDimension: 'sagemaker:variant:DesiredInstanceCount', MaxCapacity: 4 } },
      },
    };
    const [target] = targetsFromTemplate(template, 'Stack.template.json', 'us-east-1');
    expect(target).toMatchObject({ instanceType: 'ml.inf2.xlarge', instanceCount: 2, maxInstanceCount: 4 });
    expect(target.pools).toEqual([{ priority: 2, instanceType: 'ml.inf2.8xlarge', vcpus: 32, instanceCount: 2, maxInstanceCount: 4 }]);
  });
});
