import { targetFromPlan, targetsFromTemplate } from '../../../io/preflight/index';

const instance = (vcpus: number) => ({ vcpus });

describe('preflight reads the fallback instance pools of a plan and of a template', () => {
  test('GIVEN a single-call plan with pools THEN the target runs the mixed fleet and every pool may have to hold it whole', () => {
    const plan = {
      region: 'us-east-1', hosting: 'sagemaker', instanceType: 'ml.inf2.xlarge', instance: instance(4), instanceCount: 2, maxInstanceCount: 4,
      fallbacks: [
        { priority: 2, instanceType: 'ml.trn1.2xlarge', plan: { instance: instance(8) } },
        { priority: 3, instanceType: 'ml.inf2.8xlarge', plan: { instance: instance(32) } },
      ],
      mixedFleet: { instanceCount: 3, maxInstanceCount: 6 },
    };
    const target = targetFromPlan({ chosen: plan }, 'plan.json');
    expect(target).toMatchObject({ instanceType: 'ml.inf2.xlarge', instanceCount: 3, maxInstanceCount: 6 });
    expect(target.pools).toEqual([
      { priority: 2, instanceType: 'ml.trn1.2xlarge', vcpus: 8, instanceCount: 3, maxInstanceCount: 6 },
      { priority: 3, instanceType: 'ml.inf2.8xlarge', vcpus: 32, instanceCount: 3, maxInstanceCount: 6 },
    ]);
  });

  test('GIVEN a generative plan with pools THEN each pool needs the instances that hold the fleet\'s copies at its replicas per instance', () => {
    const plan = {
      region: 'us-east-1', hosting: 'sagemaker', instanceType: 'ml.trn1.32xlarge', instance: instance(128), instanceCount: 1, maxInstanceCount: 2,
      fallbacks: [{ priority: 2, instanceType: 'ml.inf2.24xlarge', layout: { replicasPerInstance: 1 }, plan: { instance: instance(96) } }],
      mixedFleet: { instanceCount: 2, maxInstanceCount: 8, copies: 5, maxCopies: 8 },
    };
    expect(targetFromPlan(plan, 'plan.json').pools).toEqual([{ priority: 2, instanceType: 'ml.inf2.24xlarge', vcpus: 96, instanceCount: 5, maxInstanceCount: 8 }]);
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
