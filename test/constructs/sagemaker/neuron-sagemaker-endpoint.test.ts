import { App, Duration, Size, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EndpointDeployment } from '../../../constructs/sagemaker/endpoint-deployment';
import { ModelData } from '../../../constructs/model/model-data';
import { ModelImage } from '../../../constructs/image/model-image';
import { applyPolicyChecks } from '../../../constructs/nag';
import { NeuronSageMakerEndpoint, NeuronSageMakerEndpointProps } from '../../../constructs/sagemaker';
import { Catalog, NeuronInstanceType, type InstanceSpec } from '../../../lib/catalog';
import { InputError } from '../../../lib/errors';
import { visibleCoresValue, type Plan } from '../../../lib/planner';
import { nagFindings } from '../../support/nag';
import { inputError } from '../../support/input-error';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const NEURONX_TAG = '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04';
const NEURON_TAG = '1.13.1-neuron-py310-sdk2.20.2-ubuntu20.04';

/**
 * A plan written out by hand, so every expected value below can be computed from the numbers on this page rather
 * than from whatever the planner and the profiles say today.
 */
function testPlan(overrides: Partial<Plan> & { instanceName?: string } = {}): Plan {
  const { instanceName = 'inf2.xlarge', ...rest } = overrides;
  const instance = Catalog.builtIn().instance(instanceName);
  if (!instance) {
    throw new Error(`no ${instanceName} in the catalog`);
  }
  const base: Plan = {
    profileId: 'bert-base-uncased',
    region: 'us-east-1',
    hosting: 'sagemaker',
    targets: { throughputRps: 3000, p99Ms: 10, peakThroughputRps: 6000 },
    headroom: 0.2,
    instanceType: `ml.${instanceName}`,
    instance,
    instanceCount: 2,
    maxInstanceCount: 4,
    processesPerInstance: 2,
    frontEndsPerInstance: 1,
    coresPerProcess: 1,
    idleCoresPerInstance: 0,
    batchSize: 1,
    processes: [],
    visibleCores: [],
    p50Ms: 1,
    p99Ms: 1.04,
    inputsPerRequest: 1,
    serving: 'stock',
    batching: null,
    predictedP99Ms: 6.4,
    capacityPerInstanceRps: 1998.21,
    capacityRps: 3996.42,
    utilization: 0.75,
    hostCpuMsPerRequest: 1,
    price: {
      instanceType: instanceName, region: 'us-east-1', hosting: 'sagemaker', usdPerHour: 0.99, kind: 'on-demand',
      source: 'test', asOf: '2026-01-01', unverified: true,
    },
    hourlyCostUsd: 1.98,
    monthlyCostUsd: 1445.4,
    costPer1MRequestsUsd: 0.18,
    costPer1MInferencesUsd: 0.18,
    naive: { instanceCount: 4, hourlyCostUsd: 3.96, monthlyCostUsd: 2890.8, savingsPercent: 50 },
    measurement: {
      coreVersion: instance.coreVersion, coresPerProcess: 1, batchSize: 1, throughputRps: 999.105, p50Ms: 1,
      p99Ms: 1.04, source: 'test',
    },
    deviceMemoryGiB: 1.65,
    hostMemoryGiB: 1.66,
    vcpuPerProcess: 1,
    warnings: [],
  };
  // Most tests serve it with a Neuron DLC: a stock plan is made for one unless the test says otherwise.
  const plan: Plan = { ...base, server: rest.serving === 'batching' ? 'model-server' : 'neuron-dlc', ...rest };
  // One process entry per planned process, contiguous from core 0, unless the test gives its own.
  const processes = rest.processes ?? Array.from({ length: plan.processesPerInstance }, (_, index) => {
    const cores = Array.from({ length: plan.coresPerProcess }, (__, i) => index * plan.coresPerProcess + i);
    return { index, cores, visibleCores: visibleCoresValue(cores[0], cores.length), devices: [] };
  });
  return { ...plan, processes, visibleCores: rest.visibleCores ?? processes.map((p) => p.visibleCores) };
}

/** A stack in its own app; CloudFormation validation runs on the first fixture only, to keep synths fast. */
function newStack(region = 'us-east-1'): Stack {
  return new Stack(new App({ builtinCloudFormationValidation: false }), 'Stack', { env: { account: '111111111111', region } });
}

function dlc(tag = NEURONX_TAG): ModelImage {
  return ModelImage.fromNeuronDlc({ tag, digest: DIGEST });
}

function bucketData(stack: Stack): ModelData {
  return ModelData.fromBucket(s3.Bucket.fromBucketName(stack, 'Models', 'models-bucket'), 'bert/v1/');
}

/** The InputError a construct call throws, or fails the test. */
function statements(template: Template): Record<string, unknown>[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Record<string, unknown>[]);
}

describe('An endpoint deployed from a two-instance ml.inf2.xlarge plan with a peak target', () => {
  // GIVEN a plan: 2 x ml.inf2.xlarge, 2 processes x 1 core, batch 1, 1998.21 rps per instance, p99 target 10 ms,
  // up to 4 instances for the peak; 1.65 GiB device / 1.66 GiB host memory per process
  // CloudFormation schema findings fail synth here, as in the example app
  const app = new App({ context: { '@aws-cdk/core:validateAgainstDefaultRules': true } });
  const stack = new Stack(app, 'Stack', { env: { account: '111111111111', region: 'us-east-1' } });
  const client = new iam.Role(stack, 'Client', { assumedBy: new iam.AccountRootPrincipal() });
  // WHEN
  const endpoint = new NeuronSageMakerEndpoint(stack, 'Endpoint', {
    plan: testPlan(),
    image: dlc(),
    modelData: bucketData(stack),
    environment: { MODEL_BATCH_SIZE: '1', NEURON_RT_NUM_CORES: '1' },
  });
  endpoint.grantInvoke(client);
  applyPolicyChecks(app);
  const template = Template.fromStack(stack);
  const endpointLogicalId = stack.getLogicalId(endpoint.cfnEndpoint);

  test('runs the planned instance type and count, sized volume and default timeouts; SageMaker picks the host AMI '
    + 'for the SDK 2.31 image', () => {
    // THEN volume: ceil(1.66 GiB x 2 copies x 1.25) = 5 GiB, raised to the 30 GiB minimum; timeouts 600 s;
    // SDK 2.31 shipped driver 2.29, newer than al2-ami-sagemaker-inference-neuron-2's 2.19: no AMI is pinned
    template.hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      ProductionVariants: [{
        VariantName: 'AllTraffic',
        ModelName: { 'Fn::GetAtt': [stack.getLogicalId(endpoint.cfnModel), 'ModelName'] },
        InstanceType: 'ml.inf2.xlarge',
        InitialInstanceCount: 2,
        InitialVariantWeight: 1,
        VolumeSizeInGB: 30,
        ModelDataDownloadTimeoutInSeconds: 600,
        ContainerStartupHealthCheckTimeoutInSeconds: 600,
        InferenceAmiVersion: Match.absent(),
      }],
      KmsKeyId: { 'Fn::GetAtt': [stack.getLogicalId(endpoint.node.findChild('Key').node.defaultChild as kms.CfnKey), 'Arn'] },
    });
  });

  test('lets CloudFormation name the model and the endpoint configuration', () => {
    // THEN
    template.hasResourceProperties('AWS::SageMaker::Model', { ModelName: Match.absent() });
    template.hasResourceProperties('AWS::SageMaker::EndpointConfig', { EndpointConfigName: Match.absent() });
  });

  test('gives every TorchServe worker its own NeuronCore and merges the caller environment over the plan', () => {
    // THEN 2 workers x 1 core; 4 vCPUs / 2 workers = 2 threads each; no SAGEMAKER_TS_* variables
    template.hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: {
        Image: `763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference-neuronx@${DIGEST}`,
        Environment: {
          SAGEMAKER_MODEL_SERVER_WORKERS: '2',
          NEURON_RT_NUM_CORES: '1',
          OMP_NUM_THREADS: '2',
          MODEL_BATCH_SIZE: '1',
        },
        ModelDataSource: {
          S3DataSource: {
            S3Uri: 's3://models-bucket/bert/v1/',
            S3DataType: 'S3Prefix',
            CompressionType: 'None',
          },
        },
      },
      EnableNetworkIsolation: false,
      ExecutionRoleArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^EndpointRole'), 'Arn'] },
    });
    expect(Object.keys(endpoint.environment).filter((k) => k.startsWith('SAGEMAKER_TS_'))).toEqual([]);
  });

  test('deploys blue/green with a one-instance canary and rolls back on its own alarms', () => {
    // THEN canary = max(1, floor(2 x 10 %)) = 1 instance; wait 600 s; termination wait 600 s;
    // timeout = 600 download + 600 startup + 1800 instance and image + 600 wait + 600 termination = 4200 s
    template.hasResourceProperties('AWS::SageMaker::Endpoint', {
      EndpointName: stack.resolve(endpoint.endpointName),
      EndpointConfigName: { 'Fn::GetAtt': [stack.getLogicalId(endpoint.cfnEndpointConfig), 'EndpointConfigName'] },
      DeploymentConfig: {
        BlueGreenUpdatePolicy: {
          TrafficRoutingConfiguration: {
            Type: 'CANARY',
            CanarySize: { Type: 'INSTANCE_COUNT', Value: 1 },
            WaitIntervalInSeconds: 600,
          },
          TerminationWaitInSeconds: 600,
          MaximumExecutionTimeoutInSeconds: 4200,
        },
        AutoRollbackConfiguration: {
          Alarms: [
            { AlarmName: { Ref: stack.getLogicalId(endpoint.node.findChild('Errors5xxAlarm').node.defaultChild as cloudwatch.CfnAlarm) } },
            { AlarmName: { Ref: stack.getLogicalId(endpoint.node.findChild('ModelLatencyP99Alarm').node.defaultChild as cloudwatch.CfnAlarm) } },
          ],
        },
      },
    });
  });

  test('alarms on a 5XX rate above 1 % in 2 of 3 minutes and on p99 ModelLatency above 15,000 microseconds', () => {
    // THEN
    const dimensions = [
      { Name: 'EndpointName', Value: stack.resolve(endpoint.endpointName) },
      { Name: 'VariantName', Value: 'AllTraffic' },
    ];
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: [
        { Id: 'expr_1', Expression: '100 * FILL(errors, 0) / invocations', Label: '5XX error rate (%)' },
        {
          Id: 'errors',
          MetricStat: { Metric: { Namespace: 'AWS/SageMaker', MetricName: 'Invocation5XXErrors', Dimensions: dimensions }, Period: 60, Stat: 'Sum' },
          ReturnData: false,
        },
        {
          Id: 'invocations',
          MetricStat: { Metric: { Namespace: 'AWS/SageMaker', MetricName: 'Invocations', Dimensions: dimensions }, Period: 60, Stat: 'Sum' },
          ReturnData: false,
        },
      ],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
    });
    // 10 ms target x 1.5 = 15 ms = 15,000 microseconds
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SageMaker',
      MetricName: 'ModelLatency',
      Dimensions: dimensions,
      ExtendedStatistic: 'p99',
      Period: 60,
      Threshold: 15000,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
    });
  });

  test('does not roll back for a single 5XX in a busy minute, and does for a sustained 2 % failure', () => {
    // GIVEN the alarm's own expression and threshold, evaluated on per-minute sums
    const alarm = Object.values(template.findResources('AWS::CloudWatch::Alarm'))
      .map((a) => a.Properties).find((p) => p.Metrics !== undefined);
    const rate = (errors: number, invocations: number) => (100 * errors) / invocations;
    const breaching = (minutes: [number, number][]) => minutes.filter(([e, n]) => rate(e, n) > alarm.Threshold).length
      >= alarm.DatapointsToAlarm;
    // THEN at the plan's 3,000 rps = 180,000 requests a minute
    expect(breaching([[1, 180000], [0, 180000], [0, 180000]])).toBe(false);
    expect(breaching([[3600, 180000], [0, 180000], [3600, 180000]])).toBe(true);
    // one failing request in a quiet minute is one minute, not two
    expect(breaching([[1, 1], [0, 5], [0, 5]])).toBe(false);
  });

  test('scales between the planned and the peak instance count on invocations per instance per minute', () => {
    // THEN target = floor(1998.21 rps / batch 1 x 60 s x 0.7) = floor(83924.82) = 83924
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      ServiceNamespace: 'sagemaker',
      ResourceId: stack.resolve(`endpoint/${endpoint.endpointName}/variant/AllTraffic`),
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
      MinCapacity: 2,
      MaxCapacity: 4,
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        PredefinedMetricSpecification: { PredefinedMetricType: 'SageMakerVariantInvocationsPerInstance' },
        TargetValue: 83924,
        ScaleInCooldown: 600,
        ScaleOutCooldown: 300,
      },
    });
    template.hasResource('AWS::ApplicationAutoScaling::ScalableTarget', { DependsOn: [endpointLogicalId] });
    // an update keeps the count auto scaling reached instead of dropping to the minimum
    template.hasResourceProperties('AWS::SageMaker::Endpoint', { RetainAllVariantProperties: true });
  });

  test('defines the endpoint log group up front with retention, and lets the role write only to it', () => {
    // THEN
    const logGroupId = stack.getLogicalId(endpoint.logGroup.node.defaultChild as cloudwatch.CfnAlarm);
    template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: stack.resolve(`/aws/sagemaker/Endpoints/${endpoint.endpointName}`),
      RetentionInDays: 90,
    });
    template.hasResource('AWS::SageMaker::Endpoint', { DependsOn: Match.arrayWith([logGroupId]) });
    const arn = { 'Fn::GetAtt': [logGroupId, 'Arn'] };
    const arnWithoutStreams = {
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':logs:us-east-1:111111111111:log-group:', { Ref: logGroupId }]],
    };
    expect(statements(template).filter((st) => String(st.Action).startsWith('logs:'))).toEqual([
      { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: arn },
      { Effect: 'Allow', Action: ['logs:CreateLogGroup', 'logs:DescribeLogStreams'], Resource: [arnWithoutStreams, arn] },
    ]);
  });

  test('lets the role describe exactly its two rollback alarms', () => {
    // THEN SageMaker reads the alarms as the execution role during a deployment
    const alarmId = (id: string) => stack.getLogicalId(endpoint.node.findChild(id).node.defaultChild as cloudwatch.CfnAlarm);
    expect(statements(template)).toContainEqual({
      Effect: 'Allow',
      Action: 'cloudwatch:DescribeAlarms',
      Resource: [
        { 'Fn::GetAtt': [alarmId('Errors5xxAlarm'), 'Arn'] },
        { 'Fn::GetAtt': [alarmId('ModelLatencyP99Alarm'), 'Arn'] },
      ],
    });
  });

  test('creates the model only after the role policy exists', () => {
    // THEN
    template.hasResource('AWS::SageMaker::Model', {
      DependsOn: Match.arrayWith([Match.stringLikeRegexp('^EndpointRoleDefaultPolicy')]),
    });
  });

  test('grantInvoke allows sagemaker:InvokeEndpoint on exactly this endpoint', () => {
    // THEN
    expect(statements(template)).toContainEqual({
      Effect: 'Allow',
      Action: 'sagemaker:InvokeEndpoint',
      Resource: { Ref: endpointLogicalId },
    });
  });

  test('keeps the logical ids of its stateful resources', () => {
    // THEN renaming these replaces the endpoint, its key or its logs
    expect(endpointLogicalId).toBe('EndpointEEF1FD8F');
    expect(stack.getLogicalId(endpoint.node.findChild('Key').node.defaultChild as kms.CfnKey)).toBe('EndpointKeyF20E8C6D');
    expect(stack.getLogicalId(endpoint.logGroup.node.defaultChild as cloudwatch.CfnAlarm)).toBe('EndpointLogGroup15F89CA5');
  });

  test('names the endpoint after its path and the stack id, in lower case, within 63 characters', () => {
    // THEN the last group of the stack's UUID: new each time the stack is created, fixed for its life
    const name = stack.resolve(endpoint.endpointName);
    expect(name).toEqual({ 'Fn::Join': ['', [
      expect.stringMatching(/^stack-endpoint-[0-9a-f]{8}-$/),
      { 'Fn::Select': [4, { 'Fn::Split': ['-', { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] }] }] },
    ]] });
    // e.g. arn:aws:cloudformation:us-east-1:111111111111:stack/Stack/1c2fa620-982a-11e3-aff7-50e2416294e0
    const uuid = 'arn:aws:cloudformation:us-east-1:111111111111:stack/Stack/1c2fa620-982a-11e3-aff7-50e2416294e0'
      .split('/')[2].split('-')[4];
    const example = `${name['Fn::Join'][1][0]}${uuid}`;
    expect(example).toMatch(/^stack-endpoint-[0-9a-f]{8}-50e2416294e0$/);
    expect(example.length).toBeLessThanOrEqual(63);
  });

  test('passes cdk-nag AwsSolutions, the Neuron pack and CloudFormation validation without findings', () => {
    // THEN
    expect(nagFindings(app)).toEqual([]);
  });
});

describe('The metrics of an endpoint', () => {
  // GIVEN
  const stack = newStack();
  const endpoint = NeuronSageMakerEndpoint.fromEndpointName(stack, 'Imported', 'My-Endpoint');

  test('are the AWS/SageMaker metrics of its variant, with the caller options applied last', () => {
    // WHEN
    const invocations = endpoint.metricInvocations({ period: Duration.minutes(1) });
    const latency = endpoint.metricModelLatency({ statistic: 'p50' });
    const errors = endpoint.metric5xxErrors();
    // THEN
    const dimensions = { EndpointName: 'My-Endpoint', VariantName: 'AllTraffic' };
    expect([invocations.namespace, invocations.metricName, invocations.statistic, invocations.period.toSeconds()])
      .toEqual(['AWS/SageMaker', 'Invocations', 'Sum', 60]);
    expect(invocations.dimensions).toEqual(dimensions);
    expect([latency.metricName, latency.statistic, latency.unit]).toEqual(['ModelLatency', 'p50', 'Microseconds']);
    expect(latency.dimensions).toEqual(dimensions);
    expect([errors.metricName, errors.statistic, errors.period.toSeconds()]).toEqual(['Invocation5XXErrors', 'Sum', 300]);
  });

  test('of an imported endpoint are granted on its lower-case ARN', () => {
    // WHEN
    const role = new iam.Role(stack, 'Caller', { assumedBy: new iam.AccountRootPrincipal() });
    endpoint.grantInvoke(role);
    // THEN SageMaker reports endpoint ARNs in lower case
    expect(stack.resolve(endpoint.endpointArn)).toEqual({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sagemaker:us-east-1:111111111111:endpoint/my-endpoint']],
    });
    expect(statements(Template.fromStack(stack))).toContainEqual({
      Effect: 'Allow', Action: 'sagemaker:InvokeEndpoint', Resource: stack.resolve(endpoint.endpointArn),
    });
  });
});

describe('An endpoint on one instance with a batch-8 plan and a peak', () => {
  // GIVEN 1 x ml.inf2.xlarge at batch 8, 334.3 requests/s per instance (one padded batch-8 call each), up to 3 instances
  const stack = newStack();
  // WHEN
  const endpoint = new NeuronSageMakerEndpoint(stack, 'Endpoint', {
    plan: testPlan({ instanceCount: 1, maxInstanceCount: 3, batchSize: 8, capacityPerInstanceRps: 334.3 }),
    image: dlc(),
    modelData: bucketData(stack),
    autoScaling: { targetUtilization: 0.5, scaleInCooldown: Duration.minutes(20), scaleOutCooldown: Duration.minutes(3) },
  });
  const template = Template.fromStack(stack);

  test('shifts all traffic at once and keeps the old instance 10 minutes under the alarms', () => {
    // THEN a canary may be at most half the fleet, which one instance cannot give;
    // timeout = 600 + 600 + 1800 + 0 + 600 = 3600 s
    template.hasResourceProperties('AWS::SageMaker::Endpoint', {
      DeploymentConfig: {
        BlueGreenUpdatePolicy: {
          TrafficRoutingConfiguration: { Type: 'ALL_AT_ONCE', WaitIntervalInSeconds: 0 },
          TerminationWaitInSeconds: 600,
          MaximumExecutionTimeoutInSeconds: 3600,
        },
        AutoRollbackConfiguration: {
          Alarms: [
            { AlarmName: { Ref: Match.stringLikeRegexp('^EndpointErrors5xxAlarm') } },
            { AlarmName: { Ref: Match.stringLikeRegexp('^EndpointModelLatencyP99Alarm') } },
          ],
        },
      },
    });
  });

  test('sets the scaling target from the plan requests per second: each request is one invocation', () => {
    // THEN target = floor(334.3 x 60 x 0.5) = floor(10029) = 10029
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 1, MaxCapacity: 3 });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      TargetTrackingScalingPolicyConfiguration: { TargetValue: 10029, ScaleInCooldown: 1200, ScaleOutCooldown: 180 },
    });
  });

  test('tells the user each request is one padded batch-8 call, already counted in the plan', () => {
    // THEN
    Annotations.fromStack(stack).hasInfo('/Stack/Endpoint', Match.stringLikeRegexp('one padded batch-8 call per request.*334.3 requests/s per instance'));
    expect(endpoint.plan?.batchSize).toBe(8);
  });
});

describe('An endpoint from a plan without a peak target', () => {
  test('registers no auto scaling, which would only block instance-type changes', () => {
    // GIVEN max = min = 2
    const stack = newStack();
    // WHEN
    new NeuronSageMakerEndpoint(stack, 'Endpoint', { plan: testPlan({ maxInstanceCount: 2 }), image: dlc() });
    // THEN
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::ApplicationAutoScaling::ScalableTarget', 0);
    template.hasResourceProperties('AWS::SageMaker::Endpoint', { RetainAllVariantProperties: Match.absent() });
  });
});

describe('An endpoint on ml.trn1.2xlarge', () => {
  // GIVEN
  const stack = newStack();
  // WHEN
  const endpoint = new NeuronSageMakerEndpoint(stack, 'Endpoint', {
    plan: testPlan({ instanceName: 'trn1.2xlarge', maxInstanceCount: 2 }),
    image: dlc(),
  });
  const template = Template.fromStack(stack);

  test('sets neither a KMS key nor a volume size, which SageMaker rejects on local NVMe', () => {
    // THEN
    template.hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      KmsKeyId: Match.absent(),
      ProductionVariants: [Match.objectLike({
        InstanceType: 'ml.trn1.2xlarge',
        VolumeSizeInGB: Match.absent(),
      })],
    });
    template.resourceCountIs('AWS::KMS::Key', 0);
    expect(endpoint.encryptionKey).toBeUndefined();
  });
});

describe('An endpoint on ml.inf1.xlarge', () => {
  // GIVEN
  const stack = newStack();
  // WHEN
  new NeuronSageMakerEndpoint(stack, 'Endpoint', {
    plan: testPlan({ instanceName: 'inf1.xlarge', processesPerInstance: 4, maxInstanceCount: 2 }),
    image: dlc(NEURON_TAG),
  });
  const template = Template.fromStack(stack);

  test('warns at synth that SageMaker ignores deployment guardrails there, and writes none', () => {
    // THEN
    Annotations.fromStack(stack).hasWarning('/Stack/Endpoint',
      Match.stringLikeRegexp('does not apply deployment guardrails to Inf1'));
    template.hasResourceProperties('AWS::SageMaker::Endpoint', { DeploymentConfig: Match.absent() });
  });

  test('leaves the host AMI to SageMaker and still encrypts the volume', () => {
    // THEN the Neuron inference AMI lists Inferentia2 and Trainium only
    template.hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      KmsKeyId: Match.anyValue(),
      ProductionVariants: [Match.objectLike({ InferenceAmiVersion: Match.absent() })],
    });
    template.hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: Match.objectLike({ Environment: Match.objectLike({ SAGEMAKER_MODEL_SERVER_WORKERS: '4' }) }),
    });
  });
});

describe('An endpoint with an explicit instance type in a VPC with network isolation', () => {
  // GIVEN
  const stack = newStack();
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [
    { name: 'isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
  ] });
  const role = iam.Role.fromRoleArn(stack, 'Existing', 'arn:aws:iam::111111111111:role/existing', { mutable: false });
  const key = new kms.Key(stack, 'MyKey', { enableKeyRotation: true });
  // WHEN 2 processes of 4 cores on ml.inf2.24xlarge (12 cores) would leave 4 idle: 3 processes fit
  const endpoint = new NeuronSageMakerEndpoint(stack, 'Endpoint', {
    instanceType: NeuronInstanceType.INF2_24XLARGE,
    instanceCount: 2,
    coresPerProcess: 4,
    image: dlc(),
    modelData: bucketData(stack),
    role,
    encryptionKey: key,
    vpc,
    networkIsolation: true,
    volumeSize: Size.gibibytes(100),
    containerStartupHealthCheckTimeout: Duration.minutes(30),
    modelDataDownloadTimeout: Duration.minutes(20),
    deployment: EndpointDeployment.rolling({ waitInterval: Duration.minutes(2) }),
    endpointName: 'bert-prod',
  });
  const template = Template.fromStack(stack);

  test('runs the containers in the private subnets under a security group it defines, isolated', () => {
    // THEN
    const sg = stack.getLogicalId(endpoint.node.findChild('SecurityGroup').node.defaultChild as ec2.CfnSecurityGroup);
    template.hasResourceProperties('AWS::SageMaker::Model', {
      EnableNetworkIsolation: true,
      ExecutionRoleArn: 'arn:aws:iam::111111111111:role/existing',
      VpcConfig: {
        SecurityGroupIds: [{ 'Fn::GetAtt': [sg, 'GroupId'] }],
        Subnets: vpc.isolatedSubnets.map((s) => stack.resolve(s.subnetId)),
      },
    });
    template.hasResourceProperties('AWS::EC2::SecurityGroup', { SecurityGroupIngress: Match.absent() });
    expect(endpoint.connections.securityGroups).toHaveLength(1);
  });

  test('derives the layout from the instance and uses the given key, volume and timeouts', () => {
    // THEN 12 cores / 4 per process = 3 workers; 96 vCPUs / 3 = 32 threads each
    template.hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: Match.objectLike({
        Environment: { SAGEMAKER_MODEL_SERVER_WORKERS: '3', NEURON_RT_NUM_CORES: '4', OMP_NUM_THREADS: '32' },
      }),
    });
    template.hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      KmsKeyId: { 'Fn::GetAtt': [stack.getLogicalId(key.node.defaultChild as kms.CfnKey), 'Arn'] },
      ProductionVariants: [Match.objectLike({
        InstanceType: 'ml.inf2.24xlarge',
        InitialInstanceCount: 2,
        VolumeSizeInGB: 100,
        ContainerStartupHealthCheckTimeoutInSeconds: 1800,
        ModelDataDownloadTimeoutInSeconds: 1200,
      })],
    });
    template.resourceCountIs('AWS::KMS::Key', 1);
  });

  test('rolls one instance at a time, alarming on 5XX only since no latency target is known', () => {
    // THEN batch = max(ceil(2 x 20 %), ceil(2 x 5 %)) = 1 of 2; timeout = 2 steps x (1200 + 1800 + 1800 + 120) = 9840 s
    template.hasResourceProperties('AWS::SageMaker::Endpoint', {
      EndpointName: 'bert-prod',
      DeploymentConfig: {
        RollingUpdatePolicy: {
          MaximumBatchSize: { Type: 'INSTANCE_COUNT', Value: 1 },
          WaitIntervalInSeconds: 120,
          MaximumExecutionTimeoutInSeconds: 9840,
        },
        AutoRollbackConfiguration: { Alarms: [Match.objectLike({ AlarmName: Match.anyValue() })] },
      },
    });
    template.resourceCountIs('AWS::CloudWatch::Alarm', 1);
    template.resourceCountIs('AWS::ApplicationAutoScaling::ScalableTarget', 0);
    template.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: '/aws/sagemaker/Endpoints/bert-prod' });
  });
});

describe('The deployment fingerprint', () => {
  function fingerprint(digest: string, plan: Plan = testPlan()): string {
    const stack = newStack();
    return new NeuronSageMakerEndpoint(stack, 'Endpoint', {
      plan, image: ModelImage.fromNeuronDlc({ tag: NEURONX_TAG, digest }), modelData: bucketData(stack),
    }).deploymentFingerprint;
  }

  test('is the same for the same deployment and changes with the image or the plan', () => {
    // GIVEN / WHEN
    const base = fingerprint(DIGEST);
    // THEN
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint(DIGEST)).toBe(base);
    expect(fingerprint(`sha256:${'f'.repeat(64)}`)).not.toBe(base);
    expect(fingerprint(DIGEST, testPlan({ instanceCount: 3 }))).not.toBe(base);
  });
});

describe('Validation of the endpoint props', () => {
  function build(props: Partial<NeuronSageMakerEndpointProps>, region = 'us-east-1'): InputError {
    const stack = newStack(region);
    return inputError(() => new NeuronSageMakerEndpoint(stack, 'Endpoint', { image: dlc(), ...props }));
  }

  test('rejects a plan made for EC2, for another region, or with an EC2 instance name, all at once', () => {
    // WHEN
    const error = build({ plan: testPlan({ hosting: 'ec2', region: 'us-west-2', instanceType: 'inf2.xlarge' }) });
    // THEN
    expect(error.problems).toEqual([
      'plan.hosting="ec2": the plan was made for EC2 (instance names without \'ml.\', EC2 prices); re-plan with '
        + "{ hosting: 'sagemaker' }",
      'plan.region="us-west-2" but the stack deploys to us-east-1; prices and availability differ by region: '
        + "re-plan with { region: 'us-east-1' }",
      'plan.instanceType="inf2.xlarge" is not a SageMaker instance type (no \'ml.\' prefix); re-plan with '
        + "{ hosting: 'sagemaker' }",
    ]);
  });

  test('rejects a plan for a non-Neuron instance type', () => {
    // WHEN
    const g5 = { ...(Catalog.builtIn().instance('inf2.xlarge') as InstanceSpec), name: 'g5.xlarge', family: 'g5' };
    const error = build({ plan: testPlan({ instanceType: 'ml.g5.xlarge', instance: g5 }) });
    // THEN
    expect(error.problems).toEqual([
      'plan.instanceType="ml.g5.xlarge" is not a Neuron instance type (families inf1, inf2, trn1, trn1n, trn2, trn2u, '
        + 'trn3); re-plan: the planner only picks Neuron instances',
    ]);
  });

  test('skips the region check when the stack region is a token', () => {
    // GIVEN an environment-agnostic stack
    const stack = new Stack(new App(), 'Agnostic');
    // WHEN / THEN
    expect(() => new NeuronSageMakerEndpoint(stack, 'Endpoint', {
      plan: testPlan({ region: 'eu-west-1' }), image: dlc(),
    })).not.toThrow();
  });

  test('rejects a plan whose layout does not fit its instance, with the planner message', () => {
    // WHEN
    const error = build({ plan: testPlan({ processesPerInstance: 3 }) });
    // THEN
    expect(error.problems).toEqual([
      'plan: processesPerInstance=3 x coresPerProcess=1 needs 3 NeuronCores but inf2.xlarge has 2; valid values for 1-core processes: 1 to 2',
    ]);
  });

  test('refuses a plan of the wrong shape before reading it, naming the field, the value and the fix', () => {
    // WHEN a plan with no instances, and a whole `plan --json` document, are passed
    const error = build({ plan: testPlan({ instanceCount: 0 }) });
    const document = build({ plan: { request: {}, chosen: testPlan() } as unknown as Plan });
    // THEN
    expect(error.problems).toEqual([
      'plan.instanceCount: expected a positive integer, got 0',
      'plan: not a plan this version of cdk-inferentia writes (planVersion 1); plan again with it: `cdk-inferentia plan ... --json` '
        + '(pass its `chosen`), or plan()/planGenerative() in code',
    ]);
    expect(document.message).toBe('Stack/Endpoint: plan: this is a whole `cdk-inferentia plan --json` document ({ request, chosen, ... }), '
      + 'not a plan; pass its `chosen` (readPlan(document, origin) reads and checks it)');
  });

  test('rejects a batching plan on a stock DLC, which makes one device call per request, naming fromServer', () => {
    // WHEN
    const error = build({ plan: testPlan({ serving: 'batching', batchSize: 8, batching: { maxBatchSize: 8, maxDelayMs: 2 } }) });
    // THEN
    expect(error.problems).toEqual([
      'plan.serving="batching" but the image runs the stock SageMaker toolkit, one device call per request, which '
        + "cannot hold a batching plan's capacity; use the model server, image: ModelImage.fromServer({ tag, digest }), "
        + "or re-plan with { serving: 'stock' }",
    ]);
  });

  test.each<[string, Partial<Plan>]>([
    ["made for the model server", { server: 'model-server' }],
    ['without a server (an older or hand-written plan: the model server)', { server: undefined }],
  ])('rejects a stock plan %s on a stock DLC, which does not overlap host work with the call, naming both fixes', (_, overrides) => {
    // WHEN
    const error = build({ plan: testPlan(overrides) });
    // THEN
    expect(error.problems).toEqual([
      `plan.server="model-server"${overrides.server === undefined ? ' (the default)' : ''}: the stock plan was sized for the `
        + 'cdk-inferentia model server, which overlaps host work with the device call, but the image runs a Neuron DLC\'s '
        + 'stock SageMaker toolkit, which runs them one after the other and holds less than the plan counts on; use the '
        + "model server, image: ModelImage.fromServer({ tag, digest }), or re-plan for the DLC with { server: 'neuron-dlc' } "
        + '(--server neuron-dlc)',
    ]);
  });

  test('accepts a stock plan made for a Neuron DLC on a stock DLC, with no note about the server', () => {
    const stack = newStack();
    new NeuronSageMakerEndpoint(stack, 'Endpoint', { plan: testPlan({ server: 'neuron-dlc' }), image: dlc(), modelData: bucketData(stack) });
    expect(Annotations.fromStack(stack).findInfo('/Stack/Endpoint', Match.stringLikeRegexp('server \'neuron-dlc\''))).toHaveLength(0);
  });

  test('rejects explicit counts next to a plan, and neither plan nor instance type', () => {
    // THEN
    expect(build({ plan: testPlan(), instanceCount: 3, coresPerProcess: 2 }).problems).toEqual([
      'instanceCount, coresPerProcess are set together with plan; the plan already fixes the instance type and counts: '
        + 'remove them, or re-plan with the values you want',
    ]);
    expect(build({}).problems).toEqual([
      'neither plan nor instanceType is set; pass plan (from `cdk-inferentia plan` or plan()) or an instanceType such '
        + 'as NeuronInstanceType.INF2_XLARGE',
    ]);
  });

  test('validates explicit counts the way the planner does', () => {
    // WHEN
    const error = build({ instanceType: NeuronInstanceType.INF2_XLARGE, instanceCount: 0, coresPerProcess: 1, processesPerInstance: 3 });
    // THEN
    expect(error.problems).toEqual([
      'instanceCount=0 must be a whole number of at least 1',
      'processesPerInstance=3 x coresPerProcess=1 needs 3 NeuronCores but inf2.xlarge has 2; valid values for 1-core processes: 1 to 2',
    ]);
  });

  test('rejects timeouts outside 60-3600 seconds', () => {
    // WHEN
    const error = build({
      plan: testPlan(),
      containerStartupHealthCheckTimeout: Duration.seconds(30),
      modelDataDownloadTimeout: Duration.hours(2),
    });
    // THEN
    expect(error.problems).toEqual([
      'modelDataDownloadTimeout=2 hours is outside the 60-3600 seconds SageMaker accepts; pass e.g. Duration.minutes(10)',
      'containerStartupHealthCheckTimeout=30 seconds is outside the 60-3600 seconds SageMaker accepts; pass e.g. '
        + 'Duration.minutes(10)',
    ]);
  });

  test('rejects a KMS key and a volume size on trn1', () => {
    // WHEN
    const stack = newStack();
    const error = inputError(() => new NeuronSageMakerEndpoint(stack, 'Endpoint', {
      plan: testPlan({ instanceName: 'trn1.2xlarge' }),
      image: dlc(),
      encryptionKey: new kms.Key(stack, 'Key'),
      volumeSize: Size.gibibytes(64),
    }));
    // THEN
    expect(error.problems).toEqual([
      'encryptionKey is set but ml.trn1.2xlarge has only local NVMe instance storage, where SageMaker rejects KmsKeyId and the '
        + "instance's hardware encrypts the storage with keys you cannot manage; plan on an instance type with EBS storage (inf2 or "
        + 'inf1: instanceTypes in the plan options, --instance-types on the CLI), or set acceptInstanceStoreEncryption: true to '
        + 'deploy there without your key',
      'volumeSize=64 GiB is set but ml.trn1.2xlarge has only local NVMe storage and SageMaker rejects VolumeSizeInGB '
        + 'there; remove volumeSize',
    ]);
  });

  test('rejects a volume outside 1-512 GiB', () => {
    // THEN
    expect(build({ plan: testPlan(), volumeSize: Size.gibibytes(600) }).problems).toEqual([
      'volumeSize=600 GiB is outside the 1-512 whole GiB SageMaker accepts; pass e.g. Size.gibibytes(64)',
    ]);
  });

  test('rejects network isolation without model data in S3', () => {
    // THEN
    expect(build({ plan: testPlan(), networkIsolation: true }).problems).toEqual([
      'networkIsolation=true but no modelData is given: an isolated container cannot download the model from S3 or a '
        + 'model hub at runtime; pass modelData (ModelData.fromAsset(dir) or ModelData.fromBucket(bucket, prefix)) '
        + 'holding the compiled model, or set networkIsolation=false',
    ]);
  });

  test('rejects an autoscaling maximum below the minimum and a utilization outside (0, 1]', () => {
    // THEN
    expect(build({ plan: testPlan(), autoScaling: { maxInstanceCount: 1, targetUtilization: 1.5 } }).problems).toEqual([
      'autoScaling.maxInstanceCount=1 is below the minimum instance count 2; pass a whole number of at least 2',
      'autoScaling.targetUtilization=1.5 must be in (0, 1], e.g. 0.7 for 70 % of capacity',
    ]);
  });

  test('rejects autoscaling without a plan or a capacity to derive the target from', () => {
    // THEN
    expect(build({ instanceType: NeuronInstanceType.INF2_XLARGE, autoScaling: { maxInstanceCount: 3 } }).problems).toEqual([
      'autoScaling needs the capacity of one instance to set its target: pass autoScaling.capacityPerInstanceRps, '
        + 'deploy a plan, or set autoScaling.enabled=false',
    ]);
  });

  test('rejects an invalid endpoint name and subnets without a VPC', () => {
    // THEN
    expect(build({ plan: testPlan(), endpointName: 'bert_prod', vpcSubnets: {} }).problems).toEqual([
      'endpointName="bert_prod" is not a valid SageMaker endpoint name; use up to 63 letters, digits and hyphens, '
        + 'starting and ending with a letter or digit, or leave it unset',
      'vpcSubnets or securityGroups is set without vpc; pass the vpc the containers run in, or remove them',
    ]);
  });

  test('rejects a canary on a single instance, and a canary larger than half the fleet', () => {
    // THEN
    expect(build({ plan: testPlan({ instanceCount: 1 }), deployment: EndpointDeployment.canary() }).problems).toEqual([
      'deployment=CANARY needs at least 2 instances (SageMaker allows at most 50 % of the fleet per step) but the '
        + 'endpoint has instanceCount=1; use EndpointDeployment.allAtOnce(), or plan with minInstances >= 2',
    ]);
    expect(build({ plan: testPlan(), deployment: EndpointDeployment.canary({ canaryInstances: 2 }) }).problems).toEqual([
      'deployment CANARY canaryInstances=2 is outside at most 50 % of the 2-instance fleet; pass a whole number from 1 to 1',
    ]);
  });

  test('rejects deployment waits and timeouts outside what SageMaker accepts', () => {
    // WHEN
    const error = build({
      plan: testPlan(),
      deployment: EndpointDeployment.linear({
        waitInterval: Duration.hours(2), terminationWait: Duration.hours(2), maximumExecutionTimeout: Duration.minutes(5),
      }),
    });
    // THEN
    expect(error.problems).toEqual([
      'deployment LINEAR terminationWait=2 hours is outside 0-3600 seconds SageMaker accepts; pass a whole number of '
        + 'seconds in that range',
      'deployment LINEAR waitInterval=2 hours is outside 0-3600 seconds SageMaker accepts; pass a whole number of '
        + 'seconds in that range',
      'deployment LINEAR maximumExecutionTimeout=5 minutes is outside 600-28800 seconds SageMaker accepts; pass a '
        + 'whole number of seconds in that range',
      'deployment LINEAR maximumExecutionTimeout=5 minutes does not exceed the waits (21600 s); SageMaker would time '
        + 'out every deployment. Raise it or shorten the waits',
    ]);
  });

  test('reports every problem of one construct in a single error', () => {
    // WHEN
    const error = build({ plan: testPlan({ region: 'eu-west-1' }), networkIsolation: true, endpointName: '-x' });
    // THEN the message names the construct once, then every problem
    expect(error.problems.map((p) => p.split(/[= ]/)[0])).toEqual(['endpointName', 'networkIsolation', 'plan.region']);
    expect(error.message).toMatch(/^Stack\/Endpoint: 3 problems:\n- endpointName="-x"/);
    expect(error.constructPath).toBe('Stack/Endpoint');
  });
});

describe('An endpoint running the model server (ModelImage.fromServer)', () => {
  const server = () => ModelImage.fromServer({ tag: NEURONX_TAG, digest: DIGEST });

  function serverEndpoint(plan: Plan): { stack: Stack; endpoint: NeuronSageMakerEndpoint } {
    const stack = newStack();
    const endpoint = new NeuronSageMakerEndpoint(stack, 'Endpoint', {
      plan, image: server(), modelData: bucketData(stack), endpointName: 'bert',
    });
    return { stack, endpoint };
  }

  function containerEnvironment(stack: Stack): Record<string, string> {
    const models = Template.fromStack(stack).findResources('AWS::SageMaker::Model');
    return Object.values(models)[0].Properties.PrimaryContainer.Environment;
  }

  test('GIVEN a batching plan on inf2.xlarge THEN each 1-core worker is pinned and the plan\'s batch and delay are set', () => {
    // GIVEN 2 workers x 1 core, batch 8 closing after 2.5 ms
    const plan = testPlan({
      serving: 'batching', batchSize: 8, batching: { maxBatchSize: 8, maxDelayMs: 2.5 }, visibleCores: ['0', '1'],
    });
    // WHEN
    const { stack, endpoint } = serverEndpoint(plan);
    // THEN
    expect(containerEnvironment(stack)).toEqual({
      MODEL_SERVER_MAX_BATCH_SIZE: '8',
      MODEL_SERVER_MAX_DELAY_MS: '2.5',
      MODEL_BATCH_SIZE: '8',
      MODEL_SERVER_VISIBLE_CORES: '0;1',
      // 16 full batches per worker
      MODEL_SERVER_MAX_QUEUED_REQUESTS: '256',
      MODEL_SERVER_REQUEST_TIMEOUT_MS: '55000',
      MODEL_SERVER_METRICS_NAMESPACE: 'CdkInferentia/ModelServer',
      MODEL_SERVER_METRICS_SERVICE: 'bert',
      MODEL_SERVER_METRICS_INTERVAL_MS: '10000',
      // 10 device-call p99s, at least 10 s
      MODEL_SERVER_WATCHDOG_MS: `${Math.max(10_000, Math.ceil(10 * plan.p99Ms))}`,
      // SageMaker's own payload cap (InvokeEndpoint's Body, 6 MiB), and 8 such bodies
      MODEL_SERVER_MAX_BODY_BYTES: '6291456',
      MODEL_SERVER_MAX_QUEUED_BYTES: '50331648',
      MODEL_SERVER_READ_TIMEOUT_MS: '10000',
      MODEL_SERVER_IDLE_TIMEOUT_MS: '75000',
      MODEL_SERVER_MAX_CONNECTIONS: '2048',
      // one front-end process per 4 vCPUs
      MODEL_SERVER_FRONT_ENDS: '1',
      // a batching plan: host work overlaps the device calls
      MODEL_SERVER_OVERLAP: '1',
      // 4 vCPUs / 2 workers
      OMP_NUM_THREADS: '2',
    });
    expect(endpoint.environment).not.toHaveProperty('SAGEMAKER_MODEL_SERVER_WORKERS');
    expect(endpoint.environment).not.toHaveProperty('NEURON_RT_NUM_CORES');
  });

  test('GIVEN a stock plan on inf2.24xlarge with 4-core workers THEN the server runs the compiled batch with no delay', () => {
    // GIVEN 3 workers x 4 cores (of 12), batch 4, no batching
    const plan = testPlan({
      instanceName: 'inf2.24xlarge', processesPerInstance: 3, coresPerProcess: 4, batchSize: 4,
      visibleCores: ['0-3', '4-7', '8-11'],
      measurement: {
        coreVersion: 'v2', coresPerProcess: 4, batchSize: 4, throughputRps: 500, p50Ms: 6, p99Ms: 8, source: 'test',
      },
    });
    // WHEN
    const { stack } = serverEndpoint(plan);
    // THEN
    expect(containerEnvironment(stack)).toMatchObject({
      MODEL_SERVER_MAX_BATCH_SIZE: '4',
      MODEL_SERVER_MAX_DELAY_MS: '0',
      MODEL_BATCH_SIZE: '4',
      MODEL_SERVER_VISIBLE_CORES: '0-3;4-7;8-11',
      MODEL_SERVER_MAX_QUEUED_REQUESTS: `${16 * 4 * 3}`,
      // 96 vCPUs / 3 workers
      OMP_NUM_THREADS: '32',
    });
  });

  test('GIVEN a stock plan made for the model server THEN its workers overlap host work with device calls, as it was planned', () => {
    const { stack } = serverEndpoint(testPlan({ server: 'model-server', visibleCores: ['0', '1'] }));
    expect(containerEnvironment(stack)).toMatchObject({ MODEL_SERVER_MAX_DELAY_MS: '0', MODEL_SERVER_OVERLAP: '1' });
    expect(Annotations.fromStack(stack).findInfo('/Stack/Endpoint', Match.stringLikeRegexp('made for a Neuron DLC'))).toHaveLength(0);
  });

  test("GIVEN a stock plan made for a Neuron DLC's toolkit THEN the server runs it as planned, without overlap, and says a re-plan may need fewer instances", () => {
    const { stack } = serverEndpoint(testPlan({ server: 'neuron-dlc', visibleCores: ['0', '1'] }));
    expect(containerEnvironment(stack)).toMatchObject({ MODEL_SERVER_OVERLAP: '0' });
    Annotations.fromStack(stack).hasInfo('/Stack/Endpoint', Match.stringLikeRegexp(
      "The plan was made for a Neuron DLC's stock toolkit \\(server 'neuron-dlc'\\): the model server runs it as planned.*"
        + 'MODEL_SERVER_OVERLAP=0.*may need fewer than its 2 instance\\(s\\)'));
  });

  test('GIVEN no plan THEN the workers get contiguous core groups from the explicit layout', () => {
    const stack = newStack();
    new NeuronSageMakerEndpoint(stack, 'Endpoint', {
      instanceType: NeuronInstanceType.of('ml.inf2.24xlarge'), coresPerProcess: 2, image: server(),
      modelData: bucketData(stack),
    });
    expect(containerEnvironment(stack)).toMatchObject({
      MODEL_SERVER_VISIBLE_CORES: '0-1;2-3;4-5;6-7;8-9;10-11',
      MODEL_SERVER_MAX_BATCH_SIZE: '1',
    });
  });

  test('GIVEN the server image THEN the dashboard graphs the server beside SageMaker, per worker', () => {
    // WHEN
    const { stack, endpoint } = serverEndpoint(testPlan({ visibleCores: ['0', '1'] }));
    // THEN
    expect(endpoint.serverMetrics).toMatchObject({ namespace: 'CdkInferentia/ModelServer', service: 'bert', workers: 2 });
    const body = JSON.stringify(Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'));
    for (const name of ['Invocations', 'ModelLatency', 'OverheadLatency', 'Invocation5XXErrors', 'CPUUtilization',
      'MemoryUtilization', 'QueueWait', 'DeviceTime', 'QueueFull']) {
      expect(body).toContain(`\\"${name}\\"`);
    }
    expect(body).toContain('\\"Worker\\",\\"1\\"');
  });

  test('GIVEN a stock DLC THEN its dashboard has SageMaker metrics only, and dashboard: false opts out', () => {
    const stack = newStack();
    const modelData = bucketData(stack);
    const stock = new NeuronSageMakerEndpoint(stack, 'Stock', { plan: testPlan(), image: dlc(), modelData });
    new NeuronSageMakerEndpoint(stack, 'Quiet', { plan: testPlan(), image: dlc(), modelData, dashboard: false });
    expect(stock.serverMetrics).toBeUndefined();
    const dashboards = Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard');
    expect(Object.keys(dashboards)).toHaveLength(1);
    expect(JSON.stringify(dashboards)).not.toContain('QueueWait');
  });

  test('GIVEN the server image THEN the role may pull the built image and nothing from the DLC registry', () => {
    const { stack } = serverEndpoint(testPlan({ visibleCores: ['0', '1'] }));
    const pulls = statements(Template.fromStack(stack)).filter((s) => JSON.stringify(s.Action).includes('ecr:BatchGetImage'));
    expect(JSON.stringify(pulls)).toContain('cdk-hnb659fds-container-assets');
    expect(JSON.stringify(pulls)).not.toContain('pytorch-inference-neuronx');
  });
});

describe('Rollback alarms users extend', () => {
  test('GIVEN an endpoint WHEN the user adds an SNS action to every rollback alarm and an alarm of their own THEN both '
    + 'alarms page the topic, all three roll a deployment back and the role may read the new one', () => {
    // GIVEN
    const stack = newStack();
    const endpoint = new NeuronSageMakerEndpoint(stack, 'Endpoint', { plan: testPlan(), image: dlc(), modelData: bucketData(stack) });
    const topic = new sns.Topic(stack, 'Pager');
    // WHEN: no cast, the alarms are AlarmBase
    for (const alarm of endpoint.rollbackAlarms) {
      alarm.addAlarmAction(new actions.SnsAction(topic));
    }
    const own = new cloudwatch.Alarm(stack, 'QueueDepth', {
      metric: new cloudwatch.Metric({ namespace: 'App', metricName: 'QueueDepth' }), threshold: 100, evaluationPeriods: 1,
    });
    endpoint.addRollbackAlarm(own);
    // THEN
    const template = Template.fromStack(stack);
    const ownId = stack.getLogicalId(own.node.defaultChild as cloudwatch.CfnAlarm);
    expect(endpoint.rollbackAlarms).toHaveLength(3);
    template.hasResourceProperties('AWS::SageMaker::Endpoint', {
      DeploymentConfig: Match.objectLike({
        AutoRollbackConfiguration: {
          Alarms: [
            { AlarmName: { Ref: Match.stringLikeRegexp('Errors5xxAlarm') } },
            { AlarmName: { Ref: Match.stringLikeRegexp('ModelLatencyP99Alarm') } },
            { AlarmName: { Ref: ownId } },
          ],
        },
      }),
    });
    expect(statements(template)).toContainEqual({
      Effect: 'Allow', Action: 'cloudwatch:DescribeAlarms', Resource: { 'Fn::GetAtt': [ownId, 'Arn'] },
    });
    const paged = Object.values(template.findResources('AWS::CloudWatch::Alarm'))
      .filter((alarm) => JSON.stringify(alarm.Properties.AlarmActions ?? []).includes('Pager'));
    expect(paged).toHaveLength(2);
  });
});
