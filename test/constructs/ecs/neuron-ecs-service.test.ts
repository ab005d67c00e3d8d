import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import * as sns from 'aws-cdk-lib/aws-sns';
import { ModelImage } from '../../../constructs/image/model-image';
import { NeuronEcsService, NeuronEcsServiceProps } from '../../../constructs/ecs';
import { Catalog } from '../../../lib/catalog';
import type { Plan } from '../../../lib/planner';
import { coreLayout } from '../../../lib/planner';
import { inputError } from '../../support/input-error';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

/**
 * An EC2 plan written out by hand, so every expected value below follows from the numbers on this page: the layout
 * comes from `coreLayout` for the instance, cores per process and processes given.
 */
function ec2Plan(instanceName = 'inf2.xlarge', coresPerProcess = 1, processes?: number, overrides: Partial<Plan> = {}): Plan {
  const instance = Catalog.builtIn().instance(instanceName);
  if (!instance) {
    throw new Error(`no ${instanceName} in the catalog`);
  }
  const processesPerInstance = processes ?? Math.floor((instance.chips * instance.coresPerChip) / coresPerProcess);
  const layout = coreLayout(instance, coresPerProcess, processesPerInstance);
  return {
    profileId: 'bert-base-uncased',
    region: 'us-east-1',
    hosting: 'ec2',
    targets: { throughputRps: 2000, p99Ms: 10, peakThroughputRps: 4000 },
    headroom: 0.2,
    instanceType: instanceName,
    instance,
    instanceCount: 4,
    maxInstanceCount: 8,
    processesPerInstance,
    frontEndsPerInstance: 1,
    coresPerProcess,
    idleCoresPerInstance: 0,
    batchSize: 1,
    processes: layout,
    visibleCores: layout.map((p) => p.visibleCores),
    inputsPerRequest: 1,
    serving: 'stock',
    batching: null,
    p50Ms: 1,
    p99Ms: 1.04,
    predictedP99Ms: 7.3,
    capacityPerInstanceRps: 638.3,
    capacityRps: 2553.2,
    utilization: 0.5,
    hostCpuMsPerRequest: 1,
    price: {
      instanceType: instanceName, region: 'us-east-1', hosting: 'ec2', usdPerHour: 0.7582, kind: 'on-demand',
      source: 'test', asOf: '2026-01-01', unverified: true,
    },
    hourlyCostUsd: 3.03,
    monthlyCostUsd: 2214,
    costPer1MRequestsUsd: 0.421,
    costPer1MInferencesUsd: 0.421,
    naive: { instanceCount: 15, hourlyCostUsd: 11.37, monthlyCostUsd: 8300, savingsPercent: 73 },
    measurement: {
      coreVersion: instance.coreVersion, coresPerProcess, batchSize: 1, throughputRps: 999.105, p50Ms: 1,
      p99Ms: 1.04, source: 'test',
    },
    deviceMemoryGiB: 1.65,
    hostMemoryGiB: 1.66,
    vcpuPerProcess: 1,
    warnings: [],
    ...overrides,
  };
}

function newStack(): Stack {
  const stack = new Stack(new App({ builtinCloudFormationValidation: false }), 'Stack', {
    env: { account: '111111111111', region: 'us-east-1' },
  });
  // Literal zones, so the new VPC needs no availability-zone lookup.
  Object.defineProperty(stack, 'availabilityZones', { get: () => ['us-east-1a', 'us-east-1b'] });
  return stack;
}

function image(stack: Stack): ModelImage {
  return ModelImage.fromRepository(ecr.Repository.fromRepositoryName(stack, 'Images', 'bert'), DIGEST, { modelServer: true });
}

function service(plan: Plan, props: Partial<NeuronEcsServiceProps> = {}): { stack: Stack; template: Template; construct: NeuronEcsService } {
  const stack = newStack();
  const construct = new NeuronEcsService(stack, 'Service', { plan, image: image(stack), ...props });
  return { stack, template: Template.fromStack(stack), construct };
}

/** The fields of the rendered container definition these tests read. */
interface ContainerJson {
  readonly LinuxParameters: { readonly Devices: Array<{ HostPath: string; ContainerPath: string; Permissions: string[] }> };
  readonly Environment: Array<{ Name: string; Value: string }>;
  readonly MemoryReservation?: number;
  readonly Memory?: number;
  readonly Cpu?: number;
  readonly LogConfiguration: { readonly LogDriver: string; readonly Options: Record<string, unknown> };
}

/** The task definition's own CPU units (a string in CloudFormation). */
function taskCpu(template: Template): string | undefined {
  const [task] = Object.values(template.findResources('AWS::ECS::TaskDefinition'));
  return task.Properties.Cpu;
}

/** The model server container of the task definition. */
function container(template: Template): ContainerJson {
  const [task] = Object.values(template.findResources('AWS::ECS::TaskDefinition'));
  return task.Properties.ContainerDefinitions[0];
}

function devices(template: Template): string[] {
  return container(template).LinuxParameters.Devices.map((d) => {
      expect(d.ContainerPath).toBe(d.HostPath);
      return d.HostPath;
    });
}

function env(template: Template): Record<string, string> {
  return Object.fromEntries(container(template).Environment.map((e) => [e.Name, e.Value]));
}

describe('A service deployed from a four-instance inf2.xlarge plan with 1-core workers and a peak of eight', () => {
  const { template, construct } = service(ec2Plan());

  test('GIVEN 2 one-core workers WHEN synthesized THEN the task maps /dev/neuron0 and gives worker 0 core 0, worker 1 core 1', () => {
    expect(devices(template)).toEqual(['/dev/neuron0']);
    expect(container(template).LinuxParameters.Devices[0].Permissions).toEqual(['read', 'write']);
    expect(env(template)).toMatchObject({
      MODEL_SERVER_VISIBLE_CORES: '0;1',
      MODEL_SERVER_MAX_BATCH_SIZE: '1',
      MODEL_BATCH_SIZE: '1',
      MODEL_SERVER_MAX_DELAY_MS: '0',
      MODEL_SERVER_METRICS_SERVICE: construct.metricsService,
      NEURON_MONITOR_CW_REGION: 'us-east-1',
      // off SageMaker (the ALB limits no body): 25 MiB, not SageMaker's 6 MiB cap
      MODEL_SERVER_MAX_BODY_BYTES: `${25 * 1024 * 1024}`,
    });
    expect(env(template)).not.toHaveProperty('SAGEMAKER_BIND_TO_PORT');
  });

  test('GIVEN 1.66 GiB per worker WHEN synthesized THEN the task reserves 2 x 1.66 GiB + 1 GiB for the front end, with no hard limit', () => {
    expect(container(template).MemoryReservation).toBe(Math.ceil(2 * 1.66 * 1024) + 1024);
    // and 2 workers' vCPUs + 1 for the one front end, of inf2.xlarge's 4
    expect(taskCpu(template)).toBe('3072');
    expect(container(template).Cpu).toBe(3072);
    expect(container(template).Memory).toBeUndefined();
    expect(container(template).LogConfiguration.LogDriver).toBe('awslogs');
    // A log driver that blocks would block the server's writes: non-blocking, with a bounded buffer.
    expect(container(template).LogConfiguration.Options).toMatchObject({ 'mode': 'non-blocking', 'max-buffer-size': '26214400b' });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
  });

  test('WHEN synthesized THEN the launch template runs the AL2023 Neuron AMI with IMDSv2, encrypted gp3 and no public IP', () => {
    template.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({
        InstanceType: 'inf2.xlarge',
        ImageId: { Ref: Match.stringLikeRegexp('ecsoptimizedamiamazonlinux2023neuronrecommendedimageid') },
        MetadataOptions: { HttpTokens: 'required', HttpPutResponseHopLimit: 1 },
        BlockDeviceMappings: [{
          DeviceName: '/dev/xvda',
          Ebs: { Encrypted: true, VolumeType: 'gp3', VolumeSize: 100, DeleteOnTermination: true },
        }],
        NetworkInterfaces: [Match.objectLike({ AssociatePublicIpAddress: false, DeviceIndex: 0 })],
        Monitoring: { Enabled: true },
      }),
    });
    const [lt] = Object.values(template.findResources('AWS::EC2::LaunchTemplate'));
    expect(lt.Properties.LaunchTemplateData.KeyName).toBeUndefined();
    expect(JSON.stringify(lt.Properties.LaunchTemplateData.UserData)).toContain('ECS_AWSVPC_BLOCK_IMDS=true');
    const parameters = template.toJSON().Parameters as Record<string, { Default: string }>;
    expect(Object.values(parameters).map((p) => p.Default))
      .toContain('/aws/service/ecs/optimized-ami/amazon-linux-2023/neuron/recommended/image_id');
  });

  test('WHEN synthesized THEN a capacity provider with managed scaling and termination protection owns an ASG of 4 to 16 instances', () => {
    template.hasResourceProperties('AWS::ECS::CapacityProvider', {
      AutoScalingGroupProvider: Match.objectLike({
        ManagedScaling: Match.objectLike({ Status: 'ENABLED', TargetCapacity: 100 }),
        ManagedTerminationProtection: 'ENABLED',
      }),
    });
    template.hasResourceProperties('AWS::AutoScaling::AutoScalingGroup', {
      MinSize: '4',
      MaxSize: '16',
      NewInstancesProtectedFromScaleIn: true,
    });
  });

  test('WHEN synthesized THEN the service runs 4 tasks, one per instance, spread over zones, with the circuit breaker rolling back', () => {
    template.hasResourceProperties('AWS::ECS::Service', {
      DesiredCount: 4,
      PlacementConstraints: [{ Type: 'distinctInstance' }],
      PlacementStrategies: [{ Type: 'spread', Field: 'attribute:ecs.availability-zone' }],
      CapacityProviderStrategy: [Match.objectLike({ Weight: 1 })],
      DeploymentConfiguration: {
        MinimumHealthyPercent: 100,
        MaximumPercent: 200,
        DeploymentCircuitBreaker: { Enable: true, Rollback: true },
      },
      HealthCheckGracePeriodSeconds: 600,
      NetworkConfiguration: { AwsvpcConfiguration: Match.objectLike({ AssignPublicIp: 'DISABLED' }) },
    });
  });

  test('WHEN synthesized THEN a 5XX rate above 1 % or a p99 above 15 ms rolls a deployment back', () => {
    template.hasResourceProperties('AWS::ECS::Service', {
      DeploymentConfiguration: Match.objectLike({
        Alarms: { Enable: true, Rollback: true, AlarmNames: [{ Ref: Match.stringLikeRegexp('Errors5xxAlarm') }, { Ref: Match.stringLikeRegexp('LatencyP99Alarm') }] },
      }),
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 1, EvaluationPeriods: 3, DatapointsToAlarm: 2, TreatMissingData: 'notBreaching',
      Metrics: Match.arrayWith([Match.objectLike({ Expression: '100 * FILL(errors, 0) / requests' })]),
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'TargetResponseTime', ExtendedStatistic: 'p99', Threshold: 0.015, EvaluationPeriods: 3, DatapointsToAlarm: 2,
    });
  });

  test('WHEN synthesized THEN an internal ALB drops invalid headers, logs access, and checks /ping on 8080 with a 60 s deregistration delay', () => {
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', {
      Scheme: 'internal',
      LoadBalancerAttributes: Match.arrayWith([
        { Key: 'routing.http.drop_invalid_header_fields.enabled', Value: 'true' },
        { Key: 'access_logs.s3.enabled', Value: 'true' },
      ]),
    });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      TargetType: 'ip',
      Port: 8080,
      HealthCheckPath: '/ping',
      Matcher: { HttpCode: '200' },
      TargetGroupAttributes: Match.arrayWith([{ Key: 'deregistration_delay.timeout_seconds', Value: '60' }]),
    });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', { Protocol: 'HTTP', Port: 80 });
    expect(construct.url).toMatch(/^http:\/\/\$\{Token/);
  });

  test('WHEN synthesized THEN only the load balancer security group reaches the tasks, on the container port', () => {
    const taskGroup = template.findResources('AWS::EC2::SecurityGroup', {
      Properties: { GroupDescription: Match.stringLikeRegexp('Model server tasks') },
    });
    const [taskGroupId] = Object.keys(taskGroup);
    expect(taskGroup[taskGroupId].Properties.SecurityGroupIngress).toBeUndefined();
    const ingress = Object.values(template.findResources('AWS::EC2::SecurityGroupIngress'))
      .filter((r) => r.Properties.GroupId['Fn::GetAtt']?.[0] === taskGroupId);
    expect(ingress).toHaveLength(1);
    expect(ingress[0].Properties).toMatchObject({ FromPort: 8080, ToPort: 8080, IpProtocol: 'tcp' });
    expect(ingress[0].Properties.SourceSecurityGroupId['Fn::GetAtt'][0]).toMatch(/LoadBalancerSecurityGroup/);
  });

  test('GIVEN 2000 requests/s on 4 instances WHEN synthesized THEN target tracking keeps 500 requests/s (30000 a minute) per task, 4 to 8 tasks', () => {
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      MinCapacity: 4,
      MaxCapacity: 8,
      ScalableDimension: 'ecs:service:DesiredCount',
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({
        TargetValue: 30000,
        PredefinedMetricSpecification: Match.objectLike({ PredefinedMetricType: 'ALBRequestCountPerTarget' }),
        ScaleInCooldown: 600,
        ScaleOutCooldown: 300,
      }),
    });
  });

  test('WHEN synthesized THEN the new VPC has no NAT and endpoints for ECS, ECR, S3, Logs and Session Manager', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.resourceCountIs('AWS::EC2::InternetGateway', 0);
    const services = Object.values(template.findResources('AWS::EC2::VPCEndpoint'))
      .map((r) => JSON.stringify(r.Properties.ServiceName));
    for (const name of ['.ecs"', '.ecs-agent"', '.ecs-telemetry"', '.ecr.api"', '.ecr.dkr"', '.logs"', '.s3"', '.ssm"', '.ssmmessages"']) {
      expect(services.some((s) => s.includes(name))).toBe(true);
    }
    expect(services.some((s) => s.includes('.cloudformation"'))).toBe(false);
    template.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'REJECT' });
  });

  test('WHEN synthesized THEN the dashboard shows the load balancer and the model server metrics', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    expect(body).toContain('TargetResponseTime');
    expect(body).toContain('HTTPCode_Target_5XX_Count');
    expect(body).toContain('CdkInferentia/ModelServer');
  });
});

describe('Worker layouts on larger instances', () => {
  test('GIVEN inf2.24xlarge with 3 workers of 4 cores WHEN synthesized THEN all 6 devices are mapped and the groups are 0-3, 4-7, 8-11', () => {
    const { template } = service(ec2Plan('inf2.24xlarge', 4, 3));
    expect(devices(template)).toEqual(['/dev/neuron0', '/dev/neuron1', '/dev/neuron2', '/dev/neuron3', '/dev/neuron4', '/dev/neuron5']);
    expect(env(template).MODEL_SERVER_VISIBLE_CORES).toBe('0-3;4-7;8-11');
    template.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({ InstanceType: 'inf2.24xlarge' }),
    });
  });

  test('GIVEN inf2.48xlarge with 24 one-core workers WHEN synthesized THEN its 12 devices are mapped and each worker owns one core', () => {
    const { template } = service(ec2Plan('inf2.48xlarge', 1));
    expect(devices(template)).toEqual(Array.from({ length: 12 }, (_, i) => `/dev/neuron${i}`));
    expect(env(template).MODEL_SERVER_VISIBLE_CORES).toBe(Array.from({ length: 24 }, (_, i) => `${i}`).join(';'));
  });

  test('GIVEN inf2.48xlarge with 24 workers and 12 front ends WHEN synthesized THEN the task and its container reserve 24 + 12 vCPUs', () => {
    const { template } = service(ec2Plan('inf2.48xlarge', 1, undefined, { frontEndsPerInstance: 12 }));
    expect(env(template).MODEL_SERVER_FRONT_ENDS).toBe('12');
    // Every worker's vCPU and one per front end (the planner charges each front end a vCPU beside the workers').
    expect(taskCpu(template)).toBe(`${(24 + 12) * 1024}`);
    expect(container(template).Cpu).toBe((24 + 12) * 1024);
  });

  test('GIVEN workers of 2 vCPUs and 2 front ends on inf2.24xlarge WHEN synthesized THEN the task reserves 6 x 2 + 2 vCPUs', () => {
    const { template } = service(ec2Plan('inf2.24xlarge', 2, 6, { frontEndsPerInstance: 2, vcpuPerProcess: 2 }));
    expect(taskCpu(template)).toBe(`${(6 * 2 + 2) * 1024}`);
    expect(container(template).Cpu).toBe((6 * 2 + 2) * 1024);
  });

  test('GIVEN a batching plan WHEN synthesized THEN the server gets the batch limit and delay', () => {
    const { template } = service(ec2Plan('inf2.xlarge', 1, 2, {
      serving: 'batching', batchSize: 8, batching: { maxBatchSize: 8, maxDelayMs: 2 },
    }));
    expect(env(template)).toMatchObject({ MODEL_SERVER_MAX_BATCH_SIZE: '8', MODEL_BATCH_SIZE: '8', MODEL_SERVER_MAX_DELAY_MS: '2' });
  });

  test('GIVEN a stock plan made for the model server (or without a server) WHEN synthesized THEN the workers overlap host work with device calls', () => {
    for (const server of ['model-server', undefined] as const) {
      const { stack, template } = service(ec2Plan('inf2.xlarge', 1, 2, { server }));
      expect(env(template)).toMatchObject({ MODEL_SERVER_MAX_DELAY_MS: '0', MODEL_SERVER_OVERLAP: '1' });
      expect(Annotations.fromStack(stack).findInfo('/Stack/Service', Match.stringLikeRegexp('made for a Neuron DLC'))).toHaveLength(0);
    }
  });

  test("GIVEN a stock plan made for a Neuron DLC's toolkit WHEN synthesized THEN the server runs it as planned, without overlap, and says a re-plan may need fewer instances", () => {
    const { stack, template } = service(ec2Plan('inf2.xlarge', 1, 2, { server: 'neuron-dlc' }));
    expect(env(template)).toMatchObject({ MODEL_SERVER_OVERLAP: '0' });
    Annotations.fromStack(stack).hasInfo('/Stack/Service', Match.stringLikeRegexp(
      "The plan was made for a Neuron DLC's stock toolkit.*MODEL_SERVER_OVERLAP=0.*may need fewer than its 4 instance"));
  });

  test('GIVEN a plan without a peak WHEN synthesized THEN nothing scales the task count', () => {
    const { template } = service(ec2Plan('inf2.xlarge', 1, 2, { maxInstanceCount: 4 }));
    template.resourceCountIs('AWS::ApplicationAutoScaling::ScalableTarget', 0);
  });
});

describe('HTTPS and the smoke gate', () => {
  test('GIVEN a certificate WHEN synthesized THEN HTTPS on 443 with TLS 1.2+ and HTTP 80 redirects to it', () => {
    const stack = newStack();
    const certificate = acm.Certificate.fromCertificateArn(stack, 'Cert', 'arn:aws:acm:us-east-1:111111111111:certificate/abc');
    const construct = new NeuronEcsService(stack, 'Service', {
      plan: ec2Plan(), image: image(stack), certificate, domainName: 'bert.example.com',
    });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', {
      Protocol: 'HTTPS', Port: 443, SslPolicy: 'ELBSecurityPolicy-TLS13-1-2-2021-06',
    });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', {
      Protocol: 'HTTP', Port: 80,
      DefaultActions: [Match.objectLike({ Type: 'redirect', RedirectConfig: Match.objectLike({ Protocol: 'HTTPS', Port: '443' }) })],
    });
    expect(construct.url).toBe('https://bert.example.com');
  });

  test('GIVEN a smoke benchmark WHEN synthesized THEN its Lambda runs in the VPC against /invocations and the VPC gains a CloudFormation endpoint', () => {
    const { template, construct } = service(ec2Plan(), {
      smokeBenchmark: { request: { body: '{"inputs":["x"]}', contentType: 'application/json' } },
    });
    expect(construct.smokeBenchmark).toBeDefined();
    const services = Object.values(template.findResources('AWS::EC2::VPCEndpoint'))
      .map((r) => JSON.stringify(r.Properties.ServiceName));
    expect(services.some((s) => s.includes('.cloudformation"'))).toBe(true);
    expect(services.some((s) => s.includes('.lambda"'))).toBe(false);
    const functions = Object.values(template.findResources('AWS::Lambda::Function'))
      .filter((f) => f.Properties.VpcConfig !== undefined);
    expect(functions).toHaveLength(1);
    expect(JSON.stringify(functions[0].Properties.Environment)).toContain('/invocations');
    // The smoke Lambda's group is admitted to the listener.
    const lbIngress = Object.values(template.findResources('AWS::EC2::SecurityGroupIngress'))
      .filter((r) => JSON.stringify(r.Properties.GroupId).includes('LoadBalancerSecurityGroup'));
    expect(lbIngress.some((r) => JSON.stringify(r.Properties.SourceSecurityGroupId).includes('SmokeSecurityGroup'))).toBe(true);
  });
});

describe('The capacity proof in the VPC', () => {
  test('GIVEN a smoke benchmark with a capacity proof WHEN synthesized THEN the VPC gains a Lambda endpoint for the load workers', () => {
    const { template } = service(ec2Plan(), {
      smokeBenchmark: { request: { body: '{"inputs":["x"]}', contentType: 'application/json' }, capacityProof: {} },
    });
    const services = Object.values(template.findResources('AWS::EC2::VPCEndpoint'))
      .map((r) => JSON.stringify(r.Properties.ServiceName));
    expect(services.some((s) => s.includes('.lambda"'))).toBe(true);
    expect(Object.values(template.findResources('AWS::Lambda::Function'))
      .filter((f) => f.Properties.VpcConfig !== undefined)).toHaveLength(2);
  });
});

describe('Refusals at synth', () => {
  test('GIVEN an Inf1 plan WHEN the service is defined THEN it is refused with the reason and the alternatives', () => {
    const stack = newStack();
    const error = inputError(() => new NeuronEcsService(stack, 'Service', { plan: ec2Plan('inf1.xlarge', 1), image: image(stack) }));
    expect(error.message).toContain('plan.instanceType="inf1.xlarge": Inf1 cannot run on ECS here');
    expect(error.message).toContain('driver newer than 2.24');
    expect(error.message).toContain('--instance-types inf2.xlarge');
    expect(error.message).toContain('NeuronSageMakerEndpoint');
  });

  test('GIVEN a SageMaker plan and bad listener settings WHEN the service is defined THEN every problem is reported at once', () => {
    const stack = newStack();
    const certificate = acm.Certificate.fromCertificateArn(stack, 'Cert', 'arn:aws:acm:us-east-1:111111111111:certificate/abc');
    const error = inputError(() => new NeuronEcsService(stack, 'Service', {
      plan: ec2Plan('inf2.xlarge', 1, 2, { hosting: 'sagemaker', instanceType: 'ml.inf2.xlarge' }),
      image: image(stack),
      certificate,
      listenerPort: 80,
      containerPort: 70000,
      autoScaling: { targetUtilization: 1.5 },
    }));
    expect(error.problems).toEqual(expect.arrayContaining([
      expect.stringContaining('plan.hosting="sagemaker"'),
      expect.stringContaining('plan.instanceType="ml.inf2.xlarge" is a SageMaker instance type'),
      expect.stringContaining('listenerPort=80 with certificate'),
      expect.stringContaining('containerPort=70000 is not a TCP port'),
      expect.stringContaining('autoScaling.targetUtilization=1.5'),
    ]));
  });

  test('GIVEN an internet-facing load balancer without a certificate WHEN the service is defined THEN it is refused', () => {
    const stack = newStack();
    const error = inputError(() => new NeuronEcsService(stack, 'Service', { plan: ec2Plan(), image: image(stack), internetFacing: true }));
    expect(error.message).toContain('internetFacing=true without certificate');
  });

  test('GIVEN a layout that needs more cores than the instance has WHEN the service is defined THEN the plan is refused', () => {
    const stack = newStack();
    const bad = ec2Plan('inf2.xlarge', 1, 2, {
      processesPerInstance: 3,
      processes: coreLayout(Catalog.builtIn().instance('inf2.24xlarge')!, 1, 3).map((p, i) => ({ ...p, cores: [i * 2], visibleCores: `${i * 2}` })),
      visibleCores: ['0', '2', '4'],
    });
    const error = inputError(() => new NeuronEcsService(stack, 'Service', { plan: bad, image: image(stack) }));
    expect(error.message).toContain('needs 3 NeuronCores but inf2.xlarge has 2');
    expect(error.message).toContain('uses NeuronCore(s) 2 but inf2.xlarge has cores 0-1');
  });

  test('GIVEN workers whose memory exceeds what a task can reserve WHEN the service is defined THEN the plan is refused', () => {
    const stack = newStack();
    const error = inputError(() => new NeuronEcsService(stack, 'Service', {
      plan: ec2Plan('inf2.xlarge', 1, 2, { hostMemoryGiB: 8 }), image: image(stack),
    }));
    expect(error.message).toContain('need 17408 MiB, more than the 14745 MiB a task can reserve on inf2.xlarge');
  });

  test('GIVEN more front ends than the vCPUs beside the workers WHEN the service is defined THEN the plan is refused', () => {
    const stack = newStack();
    const error = inputError(() => new NeuronEcsService(stack, 'Service', {
      plan: ec2Plan('inf2.xlarge', 1, 2, { vcpuPerProcess: 2, frontEndsPerInstance: 1 }), image: image(stack),
    }));
    expect(error.message).toContain('2 workers x 2 vCPU plus 1 front end(s) x 1 vCPU need 5 vCPUs, more than inf2.xlarge has (4)');
  });

  test('GIVEN the model server image without a model WHEN the service is defined THEN it is refused with the build to do', () => {
    const stack = newStack();
    const error = inputError(() => new NeuronEcsService(stack, 'Service', {
      plan: ec2Plan(),
      image: ModelImage.fromServer({ tag: '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04', digest: DIGEST }),
    }));
    expect(error.message).toContain('image is ModelImage.fromServer(...), the model server without a model');
  });

  test('GIVEN an image that does not run the model server WHEN the service is defined THEN it is refused with the flag to set', () => {
    const stack = newStack();
    const error = inputError(() => new NeuronEcsService(stack, 'Service', {
      plan: ec2Plan(),
      image: ModelImage.fromNeuronDlc({ tag: '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04', digest: DIGEST }),
    }));
    expect(error.message).toContain('image does not run the cdk-inferentia model server');
    expect(error.message).toContain('{ modelServer: true }');
  });
});

describe('Rollback alarms users extend', () => {
  test('GIVEN a service WHEN the user adds an SNS action to every rollback alarm and an alarm of their own THEN both '
    + 'alarms page the topic and all three roll a deployment back', () => {
    // GIVEN
    const stack = newStack();
    const construct = new NeuronEcsService(stack, 'Service', { plan: ec2Plan(), image: image(stack) });
    const topic = new sns.Topic(stack, 'Pager');
    // WHEN: no cast, the alarms are AlarmBase
    for (const alarm of construct.rollbackAlarms) {
      alarm.addAlarmAction(new actions.SnsAction(topic));
    }
    const own = new cloudwatch.Alarm(stack, 'QueueDepth', {
      metric: new cloudwatch.Metric({ namespace: 'App', metricName: 'QueueDepth' }), threshold: 100, evaluationPeriods: 1,
    });
    construct.addRollbackAlarm(own);
    // THEN
    const template = Template.fromStack(stack);
    expect(construct.rollbackAlarms).toHaveLength(3);
    template.hasResourceProperties('AWS::ECS::Service', {
      DeploymentConfiguration: Match.objectLike({
        Alarms: {
          Enable: true,
          Rollback: true,
          AlarmNames: [
            { Ref: Match.stringLikeRegexp('Errors5xxAlarm') },
            { Ref: Match.stringLikeRegexp('LatencyP99Alarm') },
            { Ref: stack.getLogicalId(own.node.defaultChild as cloudwatch.CfnAlarm) },
          ],
        },
      }),
    });
    const paged = Object.values(template.findResources('AWS::CloudWatch::Alarm'))
      .filter((alarm) => JSON.stringify(alarm.Properties.AlarmActions ?? []).includes('Pager'));
    expect(paged).toHaveLength(2);
  });
});
