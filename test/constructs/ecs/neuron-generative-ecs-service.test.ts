import { App, Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { NeuronGenerativeEcsService, NeuronGenerativeEcsServiceProps } from '../../../constructs/ecs';
import type { ICompiledGenerativeArtifacts } from '../../../constructs/compile/neuron-generative-compile-job';
import { ModelImage } from '../../../constructs/image/model-image';
import type { GenerativeArtifactFacts } from '../../../lib/compile/generative-check';
import type { GenerativePlan, GenerativeTargets } from '../../../lib/generative';
import { Catalog } from '../../../lib/catalog/catalog';
import { findGenerativeProfile, planGenerative } from '../../../lib/generative';
import { VLLM_DLC_PINS, VLLM_IMAGE_ENV } from '../../../lib/generative/engine-image';
import type { Plan } from '../../../lib/planner';
import { plan as planSingleCall } from '../../../lib/planner';
import { requireProfile } from '../../../lib/profiles';
import { problemsOf } from '../../support/input-error';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

/**
 * 2 requests/s of 1024 prompt and 256 output tokens, TTFT p99 2 s, TPOT p99 60 ms, peak 6 requests/s. Fixed lengths and
 * measured rows only: these tests are about how the hosting lays out a measured plan's replicas, not about the spread.
 */
const TARGETS: GenerativeTargets = {
  requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60,
  peakRequestsPerSecond: 6, fixedLengths: true,
};

function llamaPlan(instanceType: string, hosting: 'ec2' | 'sagemaker' = 'ec2'): GenerativePlan {
  const profile = findGenerativeProfile('llama-3.1-8b-instruct');
  if (!profile) {
    throw new Error('no llama-3.1-8b-instruct profile');
  }
  return planGenerative(profile, TARGETS, { region: 'us-east-1', hosting, instanceTypes: [instanceType], estimates: false });
}

/** Llama 3.1 8B with TP 8 on inf2.48xlarge: three replicas per instance, one instance at 2 requests/s, two at the peak. */
const PLAN = llamaPlan('inf2.48xlarge');

function newStack(app = new App({ builtinCloudFormationValidation: false })): Stack {
  const stack = new Stack(app, 'Stack', { env: { account: '111111111111', region: 'us-east-1' } });
  Object.defineProperty(stack, 'availabilityZones', { get: () => ['us-east-1a', 'us-east-1b'] });
  return stack;
}

function props(stack: Stack, overrides: Partial<NeuronGenerativeEcsServiceProps> = {}): NeuronGenerativeEcsServiceProps {
  return {
    plan: PLAN,
    image: ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.inf2Trn1.tag, digest: DIGEST }),
    model: {
      bucket: s3.Bucket.fromBucketName(stack, 'Models', 'models-bucket'),
      weightsPrefix: 'models/llama-3.1-8b-instruct',
      compiledArtifactsPrefix: 'compiled/tp8-seqs32-len1280',
    },
    servedModelName: 'llama-3.1-8b-instruct',
    ...overrides,
  };
}

interface ContainerJson {
  readonly Name: string;
  readonly Command?: string[];
  readonly EntryPoint?: string[];
  readonly Essential: boolean;
  readonly Cpu?: number;
  readonly MemoryReservation?: number;
  readonly DependsOn?: Array<{ ContainerName: string; Condition: string }>;
  readonly LinuxParameters?: { Devices: Array<{ HostPath: string; ContainerPath: string }>; SharedMemorySize?: number };
  readonly Environment: Array<{ Name: string; Value: unknown }>;
}

/** The containers of each task definition, in replica order (logical ids sort by the Replica<i> path). */
function tasks(template: Template): Array<Record<string, ContainerJson>> {
  return Object.entries(template.findResources('AWS::ECS::TaskDefinition'))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, task]) => Object.fromEntries((task.Properties.ContainerDefinitions as ContainerJson[]).map((c) => [c.Name, c])));
}

function env(c: ContainerJson): Record<string, unknown> {
  return Object.fromEntries(c.Environment.map((e) => [e.Name, e.Value]));
}

describe('Llama 3.1 8B with TP 8 on inf2.48xlarge: three replicas per instance', () => {
  const stack = newStack();
  const service = new NeuronGenerativeEcsService(stack, 'Llama', props(stack));
  const template = Template.fromStack(stack);

  test('GIVEN the plan WHEN read THEN it is the layout these tests expect (3 replicas of 8 cores, 32 sequences, 1 to 3 instances)', () => {
    expect(PLAN.generative.replicas.map((r) => r.visibleCores)).toEqual(['0-7', '8-15', '16-23']);
    expect([PLAN.instanceCount, PLAN.maxInstanceCount]).toEqual([1, 3]);
    expect(PLAN.generative.maxConcurrentSequences).toBe(32);
  });

  test('WHEN synthesized THEN each replica\'s task maps exactly its TP group\'s devices (0-3, 4-7, 8-11) and pins its cores', () => {
    const engines = tasks(template).map((t) => t.Engine);
    expect(engines.map((e) => e.LinuxParameters?.Devices.map((d) => d.HostPath))).toEqual([
      ['/dev/neuron0', '/dev/neuron1', '/dev/neuron2', '/dev/neuron3'],
      ['/dev/neuron4', '/dev/neuron5', '/dev/neuron6', '/dev/neuron7'],
      ['/dev/neuron8', '/dev/neuron9', '/dev/neuron10', '/dev/neuron11'],
    ]);
    for (const e of engines) {
      for (const d of e.LinuxParameters?.Devices ?? []) {
        expect(d.ContainerPath).toBe(d.HostPath);
      }
    }
    expect(engines.map((e) => env(e).NEURON_RT_VISIBLE_CORES)).toEqual(['0-7', '8-15', '16-23']);
  });

  test('WHEN synthesized THEN one service per replica slot, each with the planned count, one task per instance, scaling 1 to 3', () => {
    template.resourceCountIs('AWS::ECS::Service', 3);
    expect(service.services).toHaveLength(3);
    for (const s of Object.values(template.findResources('AWS::ECS::Service'))) {
      expect(s.Properties.DesiredCount).toBe(1);
      expect(s.Properties.PlacementConstraints).toEqual([{ Type: 'distinctInstance' }]);
      expect(s.Properties.LoadBalancers).toHaveLength(1);
    }
    template.resourceCountIs('AWS::ApplicationAutoScaling::ScalableTarget', 3);
    template.allResourcesProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 1, MaxCapacity: 3 });
  });

  test('WHEN synthesized THEN each task reserves a third of the instance: 192 x 1024 / 3 CPU units, 768 GiB x 0.9 / 3 memory', () => {
    for (const t of tasks(template)) {
      expect((t.Engine.Cpu ?? 0) + (t.Download.Cpu ?? 0)).toBe(Math.floor((192 * 1024) / 3));
      expect((t.Engine.MemoryReservation ?? 0) + (t.Download.MemoryReservation ?? 0)).toBe(Math.floor((768 * 1024 * 0.9) / 3));
    }
  });

  test('WHEN synthesized THEN the vLLM image gets the rendered arguments, its replica and metrics, after the download succeeded', () => {
    const [first, second] = tasks(template);
    expect(first.Engine.Command).toEqual(['serve']);
    expect(JSON.parse(env(first.Engine)[VLLM_IMAGE_ENV.serveArgs] as string)).toEqual(expect.arrayContaining([
      '/models/weights', '--served-model-name=llama-3.1-8b-instruct',
      '--tensor-parallel-size=8', '--max-num-seqs=32', '--max-model-len=1280', '--port=8080',
    ]));
    expect(env(first.Engine)).toMatchObject({
      NEURON_COMPILED_ARTIFACTS: '/models/compiled', HF_HUB_OFFLINE: '1',
      [VLLM_IMAGE_ENV.metricsService]: service.metricsService, [VLLM_IMAGE_ENV.metricsReplica]: '0',
    });
    expect(env(second.Engine)[VLLM_IMAGE_ENV.metricsReplica]).toBe('1');
    expect(first.Engine.DependsOn).toEqual([{ ContainerName: 'Download', Condition: 'SUCCESS' }]);
    expect(first.Download.Essential).toBe(false);
    expect(first.Download.EntryPoint).toEqual(['/bin/sh', '-c']);
    expect(first.Download.Command?.[0]).toContain('aws s3 sync');
    expect(env(first.Download)).toMatchObject({
      WEIGHTS_URI: 's3://models-bucket/models/llama-3.1-8b-instruct/',
      ARTIFACTS_URI: 's3://models-bucket/compiled/tp8-seqs32-len1280/',
    });
  });

  test('WHEN synthesized THEN the target group routes by least outstanding requests and checks vLLM\'s /health', () => {
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      HealthCheckPath: '/health',
      TargetGroupAttributes: Match.arrayWith([
        { Key: 'load_balancing.algorithm.type', Value: 'least_outstanding_requests' },
      ]),
    });
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      TargetGroupAttributes: Match.arrayWith([
        { Key: 'deregistration_delay.timeout_seconds', Value: String(service.requestTimeout.toSeconds()) },
      ]),
    });
  });

  test('GIVEN a predicted p99 end-to-end latency WHEN synthesized THEN idle timeout and deregistration delay are 2 x p99 + 30 s', () => {
    const expected = Math.ceil((2 * PLAN.generative.predictedE2eP99Ms) / 1000) + 30;
    expect(service.requestTimeout.toSeconds()).toBe(Math.max(60, expected));
    template.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', {
      LoadBalancerAttributes: Match.arrayWith([{ Key: 'idle_timeout.timeout_seconds', Value: String(service.requestTimeout.toSeconds()) }]),
      Scheme: 'internal',
    });
  });

  test('GIVEN 14.96 GiB of weights and artifacts as large (ESTIMATE) WHEN synthesized THEN the grace period is twice the predicted start, at least 600 s', () => {
    const weights = PLAN.generative.memoryGiB.weights;
    // 2 x 14.96 GiB at 200 MiB/s, 14.96 GiB onto the cores at 0.58 GiB/s (vLLM Neuron docs), 120 s of engine start
    const predicted = Math.ceil((2 * weights * 1024) / 200) + Math.ceil(weights / (750e9 / 2 ** 30 / 1200)) + 120;
    expect(predicted).toBe(300);
    const expected = Math.max(600, 2 * predicted);
    expect(service.healthCheckGracePeriod.toSeconds()).toBe(expected);
    template.allResourcesProperties('AWS::ECS::Service', { HealthCheckGracePeriodSeconds: expected });
  });

  test('WHEN synthesized THEN every slot tracks ALBRequestCountPerTarget at 60 x the planned rate per replica', () => {
    const perMinute = Math.floor(60 * (TARGETS.requestsPerSecond / (PLAN.instanceCount * 3)));
    template.resourcePropertiesCountIs('AWS::ApplicationAutoScaling::ScalingPolicy', {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({
        PredefinedMetricSpecification: Match.objectLike({ PredefinedMetricType: 'ALBRequestCountPerTarget' }),
        TargetValue: perMinute,
      }),
    }, 3);
  });

  test('WHEN synthesized THEN the task role reads the two prefixes only', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p).includes('s3:GetObject'));
    expect(policies).toHaveLength(3);
    const text = JSON.stringify(policies[0]);
    expect(text).toContain('models-bucket/models/llama-3.1-8b-instruct/*');
    expect(text).toContain('models-bucket/compiled/tp8-seqs32-len1280/*');
    expect(text).not.toMatch(/s3:(Put|Delete)/);
  });

  test('WHEN synthesized THEN the tasks admit only the load balancer', () => {
    const ingress = Object.values(template.findResources('AWS::EC2::SecurityGroupIngress'))
      .filter((r) => JSON.stringify(r.Properties.GroupId).includes('TaskSecurityGroup'));
    expect(ingress.length).toBeGreaterThan(0);
    for (const rule of ingress) {
      expect(JSON.stringify(rule.Properties.SourceSecurityGroupId)).toContain('LoadBalancerSecurityGroup');
    }
  });
});

describe('A generative ECS service without compiled artifacts', () => {
  test('WHEN synthesized THEN it warns that vLLM compiles at every start and adds 1800 s to the predicted start', () => {
    const stack = newStack();
    const service = new NeuronGenerativeEcsService(stack, 'Llama', props(stack, {
      model: { bucket: s3.Bucket.fromBucketName(stack, 'Weights', 'weights-bucket'), weightsPrefix: 'models/llama' },
    }));
    Annotations.fromStack(stack).hasWarning('/Stack/Llama', Match.stringLikeRegexp('vLLM compiles the model at every task start'));
    const weights = PLAN.generative.memoryGiB.weights;
    // 2 x (weights only at 200 MiB/s: 77 s + load 26 s + 120 s + 1800 s of compile)
    expect(weights).toBe(14.96);
    expect(service.healthCheckGracePeriod.toSeconds()).toBe(2 * (77 + 26 + 120 + 1800));
    expect(service.engines[0].environment).not.toHaveProperty('NEURON_COMPILED_ARTIFACTS');
  });
});

describe('A generative ECS service on an image other than the cdk-inferentia vLLM image', () => {
  test('WHEN synthesized THEN the tasks run vllm serve as their command and it warns that no engine metrics are exported', () => {
    const stack = newStack();
    new NeuronGenerativeEcsService(stack, 'Llama', props(stack, {
      image: ModelImage.fromRepository(ecr.Repository.fromRepositoryName(stack, 'Images', 'vllm'), DIGEST),
    }));
    const [first] = tasks(Template.fromStack(stack));
    expect(first.Engine.Command?.slice(0, 3)).toEqual(['vllm', 'serve', '/models/weights']);
    expect(env(first.Engine)).not.toHaveProperty(VLLM_IMAGE_ENV.serveArgs);
    Annotations.fromStack(stack).hasWarning('/Stack/Llama', Match.stringLikeRegexp('is not ModelImage.fromNeuronVllm'));
  });
});

/** What NeuronGenerativeCompileJob hands a hosting, compiled for `facts` (the plan's unless overridden). */
function compiled(stack: Stack, facts: Partial<GenerativeArtifactFacts> = {}): ICompiledGenerativeArtifacts {
  const bucket = s3.Bucket.fromBucketName(stack, 'Artifacts', 'artifacts-bucket');
  return {
    hash: 'abc123',
    bucket,
    artifactPrefix: 'generative/abc123/',
    s3Uri: 's3://artifacts-bucket/generative/abc123/compiled/',
    modelS3Uri: 's3://models-bucket/models/llama-3.1-8b-instruct/',
    manifest: {
      tensorParallelSize: 8, maxNumSeqs: 32, maxModelLen: 1280, neuronSdkVersion: VLLM_DLC_PINS.inf2Trn1.neuronSdkVersion,
      chip: 'inf2', logicalNeuronCoreConfig: 1, dtype: 'auto',
      weights: { source: 's3', s3Uri: 's3://models-bucket/models/llama-3.1-8b-instruct/' }, ...facts,
    },
    resource: new Construct(stack, 'CompileDone'),
    grantRead: (grantee) => { bucket.grantRead(grantee, 'generative/abc123/*'); },
  };
}

describe('A generative ECS service on the artifacts a compile job made for its plan', () => {
  test('WHEN synthesized THEN tasks download the compiled artifacts and weights the job names, with its read grant', () => {
    const stack = newStack();
    new NeuronGenerativeEcsService(stack, 'Llama', props(stack, { model: undefined, compiledArtifacts: compiled(stack) }));
    const template = Template.fromStack(stack);
    const [first] = tasks(template);
    expect(env(first.Download)).toMatchObject({
      WEIGHTS_URI: 's3://models-bucket/models/llama-3.1-8b-instruct/',
      ARTIFACTS_URI: 's3://artifacts-bucket/generative/abc123/compiled/',
    });
    expect(env(first.Engine)).toMatchObject({ NEURON_COMPILED_ARTIFACTS: '/models/compiled' });
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).toContain('artifacts-bucket/generative/abc123/*');
  });

  test('GIVEN artifacts compiled for TP 2 and 8 sequences on another SDK THEN it refuses each before creating anything', () => {
    const stack = newStack();
    const problems = problemsOf(() => new NeuronGenerativeEcsService(stack, 'Llama', props(stack, {
      model: undefined, compiledArtifacts: compiled(stack, { tensorParallelSize: 2, maxNumSeqs: 8, neuronSdkVersion: '2.29.1' }),
    }))).join('\n');
    expect(problems).toMatch(/tensorParallelSize=2, but the plan runs each replica with tensor parallel size 8/);
    expect(problems).toMatch(/maxNumSeqs=8/);
    expect(problems).toMatch(/neuronSdkVersion=2.29.1/);
    expect(stack.node.findAll().filter((c) => c.node.path.startsWith('Stack/Llama/'))).toEqual([]);
  });

  test('GIVEN both model and compiledArtifacts THEN it asks for one', () => {
    const stack = newStack();
    expect(problemsOf(() => new NeuronGenerativeEcsService(stack, 'Llama', props(stack, { compiledArtifacts: compiled(stack) })))
      .join('\n')).toMatch(/both model and compiledArtifacts are set/);
  });
});

describe('Plans and props the generative ECS service refuses at synth, before anything is created', () => {
  function refusal(overrides: (stack: Stack) => Partial<NeuronGenerativeEcsServiceProps>): string {
    const stack = newStack();
    const problems = problemsOf(() => new NeuronGenerativeEcsService(stack, 'Llama', props(stack, overrides(stack))));
    expect(stack.node.findAll().filter((c) => c.node.path.startsWith('Stack/Llama/'))).toEqual([]);
    return problems.join('\n');
  }

  test('GIVEN a single-call plan THEN it names NeuronEcsService', () => {
    const single: Plan = planSingleCall(requireProfile('bert-base-uncased'), { throughputRps: 100, p99Ms: 20 },
      { region: 'us-east-1', hosting: 'ec2' });
    expect(refusal(() => ({ plan: single as unknown as GenerativePlan }))).toMatch(/plan: a single-call plan .*where a generative plan is expected.*NeuronEcsService/);
  });

  test('GIVEN a SageMaker plan THEN it asks for an ec2 plan', () => {
    expect(refusal(() => ({ plan: llamaPlan('inf2.48xlarge', 'sagemaker') }))).toMatch(/plan\.hosting="sagemaker".*hosting: 'ec2'/);
  });

  test('GIVEN an encoder-decoder plan THEN it says vLLM on Neuron serves decoder-only models', () => {
    const plan = { ...PLAN, generative: { ...PLAN.generative, architecture: 'encoder-decoder' as const } };
    expect(refusal(() => ({ plan }))).toMatch(/architecture="encoder-decoder": vLLM on Neuron serves decoder-only/);
  });

  test('GIVEN replicas that need more devices than the instance has THEN it names the device', () => {
    const small = llamaPlan('inf2.24xlarge');
    const replicas = [0, 1].map((index) => ({
      index,
      cores: Array.from({ length: 8 }, (_, i) => index * 8 + i),
      visibleCores: `${index * 8}-${index * 8 + 7}`,
      devices: [0, 1, 2, 3].map((d) => `/dev/neuron${index * 4 + d}`),
    }));
    const plan = { ...small, generative: { ...small.generative, replicasPerInstance: 2, replicas } };
    expect(refusal(() => ({ plan }))).toMatch(/needs \/dev\/neuron6 but inf2\.24xlarge has \/dev\/neuron0 to \/dev\/neuron5/);
  });

  test('GIVEN a TP-8 replica on trn2.48xlarge (2 of its chips) THEN it names the topology rule and the degree that fits', () => {
    const profile = findGenerativeProfile('llama-3.1-8b-instruct');
    if (!profile) throw new Error('no llama-3.1-8b-instruct profile');
    const trn2 = planGenerative(profile, TARGETS, { region: 'us-east-1', hosting: 'ec2', instanceTypes: ['trn2.48xlarge'] },
      Catalog.builtIn().withPriceFile({ instances: [], prices: [{ instanceType: 'trn2.48xlarge', region: 'us-east-1', hosting: 'ec2',
        usdPerHour: 40, kind: 'on-demand', source: 'test price file', asOf: '2026-11-25', unverified: true }] }));
    const replicas = [0, 1].map((index) => ({
      index,
      cores: Array.from({ length: 8 }, (_, i) => index * 8 + i),
      visibleCores: `${index * 8}-${index * 8 + 7}`,
      devices: [0, 1].map((d) => `/dev/neuron${index * 2 + d}`),
    }));
    const plan = { ...trn2, generative: { ...trn2.generative, tensorParallelDegree: 8, replicasPerInstance: 2, replicas,
      engine: { ...trn2.generative.engine, tensorParallelSize: 8 } } };
    expect(refusal(() => ({ plan, image: ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.trn2.tag, digest: DIGEST }) })))
      .toMatch(/plan\.generative\.tensorParallelDegree=8: 8 NeuronCores span 2 Neuron devices of trn2\.48xlarge, but .*1, 4, 8 or 16 .*Neuron scheduler extension.*use 16 NeuronCores \(4 devices\); re-plan/);
  });

  test('GIVEN the model server image THEN it asks for the vLLM container', () => {
    expect(refusal((stack) => ({
      image: ModelImage.fromRepository(ecr.Repository.fromRepositoryName(stack, 'Server', 'server'), DIGEST, { modelServer: true }),
    }))).toMatch(/Neuron vLLM container/);
  });

  test('GIVEN a prefix with a trailing slash and a timeout over an hour THEN both are named', () => {
    const text = refusal((stack) => ({
      model: { bucket: s3.Bucket.fromBucketName(stack, 'B', 'bucket-b'), weightsPrefix: 'models/llama/' },
      requestTimeout: Duration.hours(2),
    }));
    expect(text).toMatch(/model\.weightsPrefix="models\/llama\/"/);
    expect(text).toMatch(/requestTimeout=2 hours/);
  });

  test('GIVEN a certificate and a proof but no domainName THEN it asks for the host the certificate covers', () => {
    // The proof in tokens verifies TLS against the URL, and the certificate does not cover the load balancer's name.
    expect(refusal((stack) => ({
      certificate: acm.Certificate.fromCertificateArn(stack, 'Cert', 'arn:aws:acm:us-east-1:111111111111:certificate/abc'),
      smokeBenchmark: {},
    }))).toMatch(/certificate and smokeBenchmark are set without domainName/);
  });
});

describe('Rollback, dashboard and proof of a generative ECS service, as on SageMaker', () => {
  const stack = newStack();
  const service = new NeuronGenerativeEcsService(stack, 'Llama', props(stack, { smokeBenchmark: {} }));
  const template = Template.fromStack(stack);

  test('WHEN synthesized THEN TTFT and TPOT p99 alarms at the plan\'s targets x 1.5 roll every slot\'s deployment back', () => {
    const ttft = template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'TimeToFirstTokenP99', Threshold: TARGETS.ttftP99Ms * 1.5, Statistic: 'Maximum' },
    });
    const tpot = template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'TimePerOutputTokenP99', Threshold: TARGETS.tpotP99Ms * 1.5, Statistic: 'Maximum' },
    });
    expect([Object.keys(ttft).length, Object.keys(tpot).length]).toEqual([1, 1]);
    expect(service.rollbackAlarms).toHaveLength(3);
    const services = Object.values(template.findResources('AWS::ECS::Service'));
    expect(services).toHaveLength(3);
    for (const s of services) {
      const names = JSON.stringify(s.Properties.DeploymentConfiguration.Alarms.AlarmNames);
      for (const id of [...Object.keys(ttft), ...Object.keys(tpot)]) expect(names).toContain(id);
      expect(s.Properties.DeploymentConfiguration.Alarms.Rollback).toBe(true);
    }
  });

  test('WHEN synthesized THEN a dashboard shows the load balancer\'s metrics and the engine\'s beside the plan', () => {
    const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0].Properties.DashboardBody);
    for (const metric of ['RequestCountPerTarget', 'HTTPCode_Target_5XX_Count', 'TimeToFirstTokenP99', 'TimePerOutputTokenP99', 'KvCacheUsage']) {
      expect(body).toContain(metric);
    }
    expect(body).toContain('Plan: predicted p99');
  });

  test('WHEN the image changes THEN the deployment fingerprint the proof in tokens runs on changes too', () => {
    expect(service.deploymentFingerprint).toMatch(/^[0-9a-f]{16,}$/);
    expect(JSON.stringify(template.toJSON())).toContain(service.deploymentFingerprint);
    Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('has no deployment fingerprint'));
    const other = newStack();
    const redeployed = new NeuronGenerativeEcsService(other, 'Llama', props(other, {
      smokeBenchmark: {}, image: ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.inf2Trn1.tag, digest: `sha256:${'f'.repeat(64)}` }),
    }));
    expect(redeployed.deploymentFingerprint).not.toBe(service.deploymentFingerprint);
  });

  test('GIVEN dashboard false THEN no dashboard', () => {
    const other = newStack();
    new NeuronGenerativeEcsService(other, 'Llama', props(other, { dashboard: false }));
    Template.fromStack(other).resourceCountIs('AWS::CloudWatch::Dashboard', 0);
  });

  test('GIVEN the placeholder image digest THEN synth works and the deploy is refused before any resource is created', () => {
    const other = newStack();
    new NeuronGenerativeEcsService(other, 'Llama', props(other, {
      image: ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.inf2Trn1.tag, digest: `sha256:${'0'.repeat(64)}` }),
    }));
    const rules = Template.fromStack(other).toJSON().Rules as Record<string, { Assertions: Array<{ AssertDescription: string }> }>;
    expect(Object.values(rules).flatMap((r) => r.Assertions.map((a) => a.AssertDescription)))
      .toEqual(expect.arrayContaining([expect.stringMatching(/Llama: the image is pinned to the placeholder digest/)]));
  });
});
