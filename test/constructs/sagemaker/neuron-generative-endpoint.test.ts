import { App, CfnResource, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { ModelImage } from '../../../constructs/image/model-image';
import { ModelData } from '../../../constructs/model/model-data';
import { applyPolicyChecks } from '../../../constructs/nag';
import { NeuronGenerativeEndpoint, NeuronGenerativeEndpointProps } from '../../../constructs/sagemaker';
import { Catalog } from '../../../lib/catalog';
import { VLLM_DLC_PINS, VLLM_IMAGE_ENV } from '../../../lib/generative/engine-image';
import { findGenerativeProfile, planGenerative } from '../../../lib/generative';
import type { GenerativePlan } from '../../../lib/generative/types';
import { problemsOf } from '../../support/input-error';
import { handWrittenGenerativePlan, replica } from '../../support/generative-plan';
import { nagFindings } from '../../support/nag';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

/** The hand-written plan of test/support (1 x ml.inf2.48xlarge, 3 replicas of TP 8), with overrides. */
const testPlan = handWrittenGenerativePlan;

/** The test plan moved onto ml.trn2.48xlarge (4 logical cores a chip at LNC=2), with copies of `tp` cores. */
function trn2Plan(tp: number): GenerativePlan {
  const instance = Catalog.builtIn().instance('trn2.48xlarge');
  if (!instance) throw new Error('no trn2.48xlarge in the catalog');
  const chips = Math.ceil(tp / 4);
  return testPlan({ instanceType: 'ml.trn2.48xlarge', instance }, {
    tensorParallelDegree: tp, replicasPerInstance: 1, replicas: [replica(0, 0, chips, 4)],
    engine: { tensorParallelSize: tp, maxNumSeqs: 32, maxModelLen: 1280, logicalNeuronCoreConfig: 2 },
  });
}

function newStack(): Stack {
  return new Stack(new App({ builtinCloudFormationValidation: false }), 'Stack', { env: { account: '111111111111', region: 'us-east-1' } });
}

function props(stack: Stack, extra: Partial<NeuronGenerativeEndpointProps> = {}): NeuronGenerativeEndpointProps {
  return {
    plan: testPlan(),
    image: ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.inf2Trn1.tag, digest: DIGEST }),
    weights: ModelData.fromBucket(s3.Bucket.fromBucketName(stack, 'Weights', 'weights-bucket'), 'llama/v1/'),
    compiledArtifactsPath: 'neuron-compiled/',
    servedModelName: 'llama-3.1-8b-instruct',
    ...extra,
  };
}

describe('A generative endpoint from a 1 x ml.inf2.48xlarge plan of 3 TP-8 replicas', () => {
  // GIVEN the plan above, with the policy checks registered
  const app = new App();
  const stack = new Stack(app, 'Stack', { env: { account: '111111111111', region: 'us-east-1' } });
  // WHEN
  const endpoint = new NeuronGenerativeEndpoint(stack, 'Llama', props(stack));
  applyPolicyChecks(app);
  const template = Template.fromStack(stack);

  test('one inference component; each copy asks for the 4 devices its TP group spans and a third of the host', () => {
    // THEN 768 GiB = 786432 MB less 10 % (78644 MB) for the platform, over 3 copies: 235929 MB; 192 vCPUs less 5 %
    // (10) over 3 copies: 60.67, rounded down to quarter cores: 60.5
    template.resourceCountIs('AWS::SageMaker::InferenceComponent', 1);
    template.hasResourceProperties('AWS::SageMaker::InferenceComponent', {
      VariantName: 'AllTraffic',
      Specification: Match.objectLike({
        ComputeResourceRequirements: {
          NumberOfAcceleratorDevicesRequired: 4,
          MinMemoryRequiredInMb: 235929,
          NumberOfCpuCoresRequired: 60.5,
        },
        // twice the predicted start, raised to the 600 s floor: download of 14.96 GiB of weights and as much of
        // artifacts at 200 MiB/s, 154 s (x 2 = 308); load at 0.58 GiB/s, 26 s, plus 120 s engine start (x 2 = 292)
        StartupParameters: { ModelDataDownloadTimeoutInSeconds: 600, ContainerStartupHealthCheckTimeoutInSeconds: 600 },
      }),
      RuntimeConfig: { CopyCount: 3 },
    });
  });

  test('the variant has no model, managed instance scaling from the plan, and least outstanding requests routing', () => {
    template.hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      ExecutionRoleArn: Match.anyValue(),
      ProductionVariants: [Match.objectLike({
        InstanceType: 'ml.inf2.48xlarge',
        InitialInstanceCount: 1,
        ManagedInstanceScaling: { Status: 'ENABLED', MinInstanceCount: 1, MaxInstanceCount: 2 },
        RoutingConfig: { RoutingStrategy: 'LEAST_OUTSTANDING_REQUESTS' },
        ModelName: Match.absent(),
      })],
    });
  });

  test('copies scale between 3 and 6 on concurrent requests per copy at the planned load (Little\'s law)', () => {
    // THEN 2 requests/s over 3 copies = 0.667/s; 5.2 decoding + 0.667 x 0.9996 s TTFT = 5.8664, up to 0.01: 5.87
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      ScalableDimension: 'sagemaker:inference-component:DesiredCopyCount',
      MinCapacity: 3,
      MaxCapacity: 6,
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({
        PredefinedMetricSpecification: { PredefinedMetricType: 'SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution' },
        TargetValue: 5.87,
      }),
    });
    expect(endpoint.sizing.targetConcurrentRequestsPerCopy).toBe(5.87);
  });

  test('without scale to zero there is no step policy and no NoCapacityInvocationFailures alarm', () => {
    template.resourcePropertiesCountIs('AWS::ApplicationAutoScaling::ScalingPolicy', { PolicyType: 'StepScaling' }, 0);
    template.resourcePropertiesCountIs('AWS::CloudWatch::Alarm', { MetricName: 'NoCapacityInvocationFailures' }, 0);
  });

  test('runs the engine the plan implies, loading the compiled artifacts from the weights', () => {
    const env = endpoint.environment;
    expect(JSON.parse(env[VLLM_IMAGE_ENV.serveArgs])).toEqual(expect.arrayContaining([
      '/opt/ml/model', '--served-model-name=llama-3.1-8b-instruct', '--tensor-parallel-size=8', '--max-num-seqs=32',
      '--max-model-len=1280', '--port=8080',
    ]));
    expect(env.NEURON_COMPILED_ARTIFACTS).toBe('/opt/ml/model/neuron-compiled');
    // SageMaker assigns the devices of each copy: no core pinning
    expect(env.NEURON_RT_VISIBLE_CORES).toBeUndefined();
    template.hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: Match.objectLike({
        ModelDataSource: { S3DataSource: { S3Uri: 's3://weights-bucket/llama/v1/', S3DataType: 'S3Prefix', CompressionType: 'None' } },
      }),
    });
  });

  test('a rolling update of the copies rolls back on the component\'s 5XX alarm', () => {
    template.hasResourceProperties('AWS::SageMaker::InferenceComponent', {
      DeploymentConfig: {
        RollingUpdatePolicy: Match.objectLike({ MaximumBatchSize: { Type: 'CAPACITY_PERCENT', Value: 20 }, WaitIntervalInSeconds: 300 }),
        AutoRollbackConfiguration: { Alarms: Match.arrayWith([{ AlarmName: Match.anyValue() }]) },
      },
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([Match.objectLike({
        MetricStat: Match.objectLike({ Metric: Match.objectLike({
          MetricName: 'Invocation5XXErrors', Dimensions: [{ Name: 'InferenceComponentName', Value: Match.anyValue() }],
        }) }),
      })]),
    });
  });

  test('the engine reports to its namespace under the endpoint\'s name; TTFT and TPOT p99 alarms roll back at target x 1.5', () => {
    // THEN TTFT target 2000 ms x 1.5 = 3000; TPOT target 60 ms x 1.5 = 90
    expect(endpoint.environment[VLLM_IMAGE_ENV.metricsNamespace]).toBe('CdkInferentia/GenerativeEngine');
    expect(stack.resolve(endpoint.environment[VLLM_IMAGE_ENV.metricsService])).toEqual(stack.resolve(endpoint.endpointName));
    for (const [metricName, threshold] of [['TimeToFirstTokenP99', 3000], ['TimePerOutputTokenP99', 90]] as const) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'CdkInferentia/GenerativeEngine', MetricName: metricName, Statistic: 'Maximum', Threshold: threshold,
        Dimensions: [{ Name: 'Service', Value: Match.anyValue() }],
      });
    }
    expect(endpoint.rollbackAlarms).toHaveLength(3);
    template.hasResourceProperties('AWS::SageMaker::InferenceComponent', {
      DeploymentConfig: Match.objectLike({ AutoRollbackConfiguration: { Alarms: [Match.anyValue(), Match.anyValue(), Match.anyValue()] } }),
    });
    // the role may publish there
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({
        Action: 'cloudwatch:PutMetricData',
        Condition: { StringEquals: { 'cloudwatch:namespace': Match.arrayWith(['CdkInferentia/GenerativeEngine']) } },
      })]) },
    });
  });

  test('a dashboard shows the component\'s metrics and the engine\'s beside the plan', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const body = JSON.stringify(stack.resolve(endpoint.dashboard?.node.defaultChild && (endpoint.dashboard.node.defaultChild as unknown as { dashboardBody: unknown }).dashboardBody));
    for (const name of ['ConcurrentRequestsPerCopy', 'Invocation5XXErrors', 'TimeToFirstTokenP99', 'TimePerOutputTokenP99']) {
      expect(body).toContain(name);
    }
  });

  test('passes cdk-nag AwsSolutions and the Neuron pack without findings', () => {
    expect(nagFindings(app)).toEqual([]);
  });
});

test('a 70B copy\'s startup timeouts are twice its predicted download and load, above the floor', () => {
  // GIVEN 131.5 GiB of weights (Llama 3.3 70B in BF16), with compiled artifacts estimated as large
  const plan = testPlan({}, { replicasPerInstance: 1, replicas: [replica(0, 0, 12)], tensorParallelDegree: 24,
    engine: { tensorParallelSize: 24, maxNumSeqs: 32, maxModelLen: 1280, logicalNeuronCoreConfig: 1 },
    memoryGiB: { weights: 131.5, kvCache: 5, reserve: 38.4, available: 384, kvHeadsPerRank: 1, kvSharding: 'replicate', maxConcurrencyThatFits: 20 } });
  const stack = newStack();
  // WHEN
  const endpoint = new NeuronGenerativeEndpoint(stack, 'Llama', props(stack, { plan }));
  // THEN download: 263 GiB at 200 MiB/s = 1347 s, x 2; startup: 131.5 GiB at 0.58 GiB/s (750 GB in 20 minutes,
  // vLLM Neuron docs) = 226 s, plus 120 s of engine start, x 2
  expect(endpoint.sizing.predictedStartup).toEqual({ downloadSeconds: 1347, loadSeconds: 226, engineStartSeconds: 120, compileSeconds: 0, totalSeconds: 1693 });
  Template.fromStack(stack).hasResourceProperties('AWS::SageMaker::InferenceComponent', {
    Specification: Match.objectLike({ StartupParameters: { ModelDataDownloadTimeoutInSeconds: 2694, ContainerStartupHealthCheckTimeoutInSeconds: 692 } }),
  });
});

describe('Scale to zero', () => {
  test('adds MinCapacity 0, instances from 0, and a step policy woken by NoCapacityInvocationFailures', () => {
    // GIVEN
    const stack = newStack();
    // WHEN
    const endpoint = new NeuronGenerativeEndpoint(stack, 'Llama', props(stack, { scaleToZero: { idleMinutes: 15 } }));
    // THEN
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 0, MaxCapacity: 6 });
    template.hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      ProductionVariants: [Match.objectLike({ ManagedInstanceScaling: { Status: 'ENABLED', MinInstanceCount: 0, MaxInstanceCount: 2 } })],
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: Match.objectLike({
        AdjustmentType: 'ChangeInCapacity',
        StepAdjustments: [{ MetricIntervalLowerBound: 0, ScalingAdjustment: 3 }],
      }),
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'NoCapacityInvocationFailures',
      Namespace: 'AWS/SageMaker',
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      AlarmActions: [Match.anyValue()],
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({ ScaleInCooldown: 900 }),
    });
    // 2 x 14.96 GiB (weights, artifacts) at 200 MiB/s = 154 s; load 26 s + 120 s; alarm 60 s; instance 300 s
    expect(endpoint.coldStart).toEqual({
      alarmSeconds: 60, instanceLaunchSeconds: 300, weightsDownloadSeconds: 154, loadSeconds: 146, totalSeconds: 660, compilesAtStart: false,
    });
    Annotations.fromStack(stack).hasInfo('/Stack/Llama', Match.stringLikeRegexp('predicted ~11 min \\(ESTIMATE'));
  });
});

test('a prefix holding the checkpoint and the compiled artifacts side by side serves both from their directories', () => {
  // GIVEN weights and artifacts under one prefix, as a compile job stages Hub weights
  const stack = newStack();
  // WHEN
  const endpoint = new NeuronGenerativeEndpoint(stack, 'Llama', props(stack, { weightsPath: 'model/', compiledArtifactsPath: 'compiled/' }));
  // THEN
  expect(JSON.parse(endpoint.environment[VLLM_IMAGE_ENV.serveArgs])[0]).toBe('/opt/ml/model/model');
  expect(endpoint.environment.NEURON_COMPILED_ARTIFACTS).toBe('/opt/ml/model/compiled');
});

test('takes the planner\'s own Llama 3.1 8B plan: one copy per replica, each on its replica\'s devices', () => {
  // GIVEN the plan the CLI prints for 2 requests/s of 1024 in / 256 out tokens on SageMaker
  const profile = findGenerativeProfile('llama-3.1-8b-instruct');
  if (!profile) throw new Error('no llama-3.1-8b-instruct profile');
  const plan = planGenerative(profile, {
    requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60,
  }, { region: 'us-east-1', hosting: 'sagemaker' });
  const stack = newStack();
  // WHEN
  const endpoint = new NeuronGenerativeEndpoint(stack, 'Llama', props(stack, { plan, image: ModelImage.fromNeuronVllm({
    tag: plan.instance.family === 'trn2' ? VLLM_DLC_PINS.trn2.tag : VLLM_DLC_PINS.inf2Trn1.tag, digest: DIGEST }) }));
  // THEN
  expect(endpoint.sizing.devicesPerCopy).toBe(plan.generative.replicas[0].devices.length);
  expect(endpoint.sizing.initialCopies).toBe(plan.generative.replicas.length * plan.instanceCount);
  expect(endpoint.sizing.memoryPerCopyMb * endpoint.sizing.copiesPerInstance).toBeLessThanOrEqual(plan.instance.memoryGiB * 1024 * 0.9);
});

describe('Refusals before anything is created', () => {
  const refusals: Array<[string, (stack: Stack) => Partial<NeuronGenerativeEndpointProps>, RegExp]> = [
    ['a single-call plan', () => ({ plan: { profileId: 'bert-base-uncased', processesPerInstance: 2 } as unknown as GenerativePlan }),
      /plan: a single-call plan .*where a generative plan is expected.*NeuronSageMakerEndpoint/],
    ['a plan hosted on ECS', () => ({ plan: testPlan({ hosting: 'ec2', instanceType: 'inf2.48xlarge' }) }), /plan.hosting="ec2".*NeuronEcsService/],
    ['an encoder-decoder plan', () => ({ plan: testPlan({}, { architecture: 'encoder-decoder' }) }), /encoder-decoder/],
    ['a replica spanning more devices than the instance has',
      () => ({ plan: testPlan({}, { replicasPerInstance: 1, replicas: [replica(0, 0, 16)] }) }), /spans 16 Neuron devices but inf2.48xlarge has 12/],
    ['replicas sharing a device (TP 1 on Inf2)',
      () => ({ plan: testPlan({}, { tensorParallelDegree: 1, replicasPerInstance: 2, replicas: [replica(0, 0, 1, 1), { ...replica(1, 0, 1, 1), cores: [1], visibleCores: '1' }],
        engine: { tensorParallelSize: 1, maxNumSeqs: 32, maxModelLen: 1280, logicalNeuronCoreConfig: 1 } }) }),
      /share Neuron devices/],
    ['a TP-8 copy spanning 2 of trn2.48xlarge\'s chips (the torus takes 1, 4, 8 or 16)',
      () => ({ plan: trn2Plan(8) }), /tensorParallelDegree=8: 8 NeuronCores span 2 Neuron devices of trn2\.48xlarge, but .*1, 4, 8 or 16.*use 16 NeuronCores/],
    ['an image that does not run vLLM',
      (stack) => ({ image: ModelImage.fromRepository(ecr.Repository.fromRepositoryName(stack, 'Repo', 'mine'), DIGEST) }), /fromNeuronVllm/],
    ['a compiled artifacts path outside the weights', () => ({ compiledArtifactsPath: '../other/' }), /compiledArtifactsPath="..\/other\/" must be a relative directory/],
    ['a bad scale-to-zero idle time', () => ({ scaleToZero: { idleMinutes: 0 } }), /idleMinutes=0/],
  ];
  test.each(refusals)('refuses %s', (_name, extra, message) => {
    const stack = newStack();
    const problems = problemsOf(() => new NeuronGenerativeEndpoint(stack, 'Llama', props(stack, extra(stack))));
    expect(problems.join('\n')).toMatch(message);
    expect(stack.node.findAll().filter(CfnResource.isCfnResource)).toEqual([]);
  });

  test('lets a placeholder image digest synthesize but refuses its deploy before any resource is created', () => {
    const stack = newStack();
    const image = ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.inf2Trn1.tag, digest: `sha256:${'0'.repeat(64)}` });
    new NeuronGenerativeEndpoint(stack, 'Llama', props(stack, { image }));
    const rules = Template.fromStack(stack).toJSON().Rules as Record<string, { Assertions: Array<{ AssertDescription: string }> }>;
    expect(Object.values(rules).flatMap((r) => r.Assertions.map((a) => a.AssertDescription)))
      .toEqual(expect.arrayContaining([expect.stringMatching(/placeholder digest/)]));
  });
});

describe('A user\'s alarm added to a generative endpoint\'s rollback set', () => {
  test('GIVEN an endpoint WHEN an alarm is added after construction THEN the inference component rolls back on it and '
    + 'the role may read it', () => {
    // GIVEN
    const stack = newStack();
    const endpoint = new NeuronGenerativeEndpoint(stack, 'Llama', props(stack));
    const own = new cloudwatch.Alarm(stack, 'QueueDepth', {
      metric: new cloudwatch.Metric({ namespace: 'App', metricName: 'QueueDepth' }), threshold: 100, evaluationPeriods: 1,
    });
    // WHEN
    endpoint.addRollbackAlarm(own);
    // THEN
    const template = Template.fromStack(stack);
    expect(endpoint.rollbackAlarms).toHaveLength(4);
    template.hasResourceProperties('AWS::SageMaker::InferenceComponent', {
      DeploymentConfig: Match.objectLike({
        AutoRollbackConfiguration: { Alarms: [Match.anyValue(), Match.anyValue(), Match.anyValue(), { AlarmName: { Ref: Match.stringLikeRegexp('^QueueDepth') } }] },
      }),
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({
        Action: 'cloudwatch:DescribeAlarms', Resource: { 'Fn::GetAtt': [Match.stringLikeRegexp('^QueueDepth'), 'Arn'] },
      })]) },
    });
  });
});

describe('A generative endpoint in a VPC, proven in tokens, as the single-call endpoint can be', () => {
  // GIVEN a VPC and the proof asked for
  const stack = newStack();
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0 });
  // WHEN
  const endpoint = new NeuronGenerativeEndpoint(stack, 'Llama', props(stack, { vpc, smokeBenchmark: {} }));
  const template = Template.fromStack(stack);

  test('THEN the model runs in the VPC\'s private subnets, in a security group of its own without ingress', () => {
    template.hasResourceProperties('AWS::SageMaker::Model', {
      VpcConfig: { Subnets: Match.anyValue(), SecurityGroupIds: [{ 'Fn::GetAtt': [Match.stringLikeRegexp('^LlamaSecurityGroup'), 'GroupId'] }] },
    });
    expect(endpoint.connections.securityGroups).toHaveLength(1);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'ec2:CreateNetworkInterface' })]) },
    });
  });

  test('THEN a proof in tokens names the inference component and the served model', () => {
    expect(endpoint.smokeBenchmark?.node.path).toBe('Stack/Llama/SmokeBenchmark');
    const functions = template.findResources('AWS::Lambda::Function');
    const proof = Object.entries(functions).filter(([id]) => id.startsWith('LlamaSmokeBenchmark'));
    expect(proof).toHaveLength(1);
    const text = JSON.stringify(proof[0][1]);
    expect(text).toContain('llama-3.1-8b-instruct');
    expect(text).toContain('inferenceComponentName');
    expect(text).toMatch(/kind[\\"]+:[\\"]+tokens/);
  });

  test('THEN subnets or security groups without a VPC are refused, naming the fix', () => {
    const other = newStack();
    const sg = ec2.SecurityGroup.fromSecurityGroupId(other, 'Sg', 'sg-12345678');
    expect(problemsOf(() => new NeuronGenerativeEndpoint(other, 'Llama', props(other, { securityGroups: [sg] }))))
      .toContainEqual(expect.stringMatching(/vpcSubnets or securityGroups is set without vpc/));
  });
});
