import { App, CfnWaitConditionHandle, Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { ICompiledGenerativeArtifacts } from '../../../constructs/compile/neuron-generative-compile-job';
import { ModelImage } from '../../../constructs/image/model-image';
import { ModelData } from '../../../constructs/model/model-data';
import { applyPolicyChecks } from '../../../constructs/nag';
import { NeuronGenerativeEndpoint, NeuronSageMakerEndpoint } from '../../../constructs/sagemaker';
import { Catalog } from '../../../lib/catalog/catalog';
import { parsePriceFile } from '../../../lib/catalog/price-file';
import { generativeSpecForPlan } from '../../../lib/compile/generative-spec';
import { generativeFactsOfSpec } from '../../../lib/compile/generative-check';
import { findGenerativeProfile, planGenerative } from '../../../lib/generative';
import type { GenerativePlan } from '../../../lib/generative/types';
import { VLLM_DLC_PINS } from '../../../lib/generative/engine-image';
import { planReport } from '../../../lib/planner';
import type { Plan } from '../../../lib/planner/types';
import type { ModelProfile } from '../../../lib/profiles/types';
import { POOL_ENV } from '../../../lib/serving/pool';
import type { SmokeConfig } from '../../../lib/smoke/config';
import { problemsOf } from '../../support/input-error';
import { nagFindings } from '../../support/nag';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const NEURONX_TAG = '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04';

// One model measured on inf2 and on trn1, priced so each count and cost is computed by hand: the planner picks
// 3 x inf2.xlarge, then pools inf2.8xlarge (the same chip and shape) and trn1.2xlarge (another chip, half the rate).
const catalog = Catalog.builtIn().withPriceFile(parsePriceFile({
  prices: Object.entries({ 'inf2.xlarge': 1, 'inf2.8xlarge': 2, 'trn1.2xlarge': 1.5 })
    .map(([instanceType, usdPerHour]) => ({ instanceType, region: 'us-east-1', hosting: 'sagemaker', usdPerHour })),
}, 'pools test'));
const row = (instanceType: string, throughputRps: number, p99Ms: number) =>
  ({ coreVersion: 'v2', instanceType, coresPerProcess: 1, batchSize: 1, throughputRps, p50Ms: p99Ms / 2, p99Ms, source: instanceType }) as const;
const toy: ModelProfile = { id: 'toy', deviceMemoryGiB: 2, hostMemoryGiB: 2, hostCpuMsPerRequest: 0.1, measurements: [row('inf2.xlarge', 1000, 2), row('trn1.2xlarge', 500, 4)] };
const plan: Plan = planReport(toy, { throughputRps: 3000, p99Ms: 20, peakThroughputRps: 6000 }, {
  region: 'us-east-1', hosting: 'sagemaker', server: 'neuron-dlc', fallbacks: 2,
  instanceTypes: ['inf2.xlarge', 'inf2.8xlarge', 'trn1.2xlarge'],
}, catalog).chosen;

const facts = (chip: 'inf2' | 'trn1') => ({ chip, coresPerProcess: 1, batchSizes: [1] });
function newStack(): Stack {
  return new Stack(new App({ builtinCloudFormationValidation: false }), 'Stack', { env: { account: '111111111111', region: 'us-east-1' } });
}
function compiled(stack: Stack, chip: 'inf2' | 'trn1'): ModelData {
  const bucket = (stack.node.tryFindChild('Models') as s3.IBucket | undefined) ?? s3.Bucket.fromBucketName(stack, 'Models', 'models-bucket');
  return ModelData.fromBucket(bucket, `toy/${chip}/`, { compiledArtifact: facts(chip) });
}
const dlc = () => ModelImage.fromNeuronDlc({ tag: NEURONX_TAG, digest: DIGEST });

describe('A single-call endpoint of a plan with two fallback pools, one on another chip family', () => {
  // GIVEN the plan: inf2.xlarge, then inf2.8xlarge (shares its compiled model), then trn1.2xlarge (its own)
  // The proof's handlers are not bundled here: their configuration is what is checked.
  const app = new App({ builtinCloudFormationValidation: false, context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Stack', { env: { account: '111111111111', region: 'us-east-1' } });
  const endpoint = new NeuronSageMakerEndpoint(stack, 'Endpoint', {
    plan,
    image: dlc(),
    modelData: compiled(stack, 'inf2'),
    poolModelData: [compiled(stack, 'trn1')],
    environment: { MODEL_BATCH_SIZE: '1' },
    smokeBenchmark: { request: { body: '{"inputs":["hello"]}' } },
  });
  applyPolicyChecks(app);
  const template = Template.fromStack(stack);
  const config = Object.values(template.findResources('AWS::SageMaker::EndpointConfig'))
    .find((r) => !JSON.stringify(r.Properties).includes('InstancePoolCheck'))!;
  const variant = config.Properties.ProductionVariants[0];
  const models = template.findResources('AWS::SageMaker::Model');
  const modelOf = (logicalId: string) => models[logicalId].Properties.PrimaryContainer;
  const id = (path: string) => stack.getLogicalId(stack.node.findChild('Endpoint').node.findChild(path) as never);

  test('THEN the plan is as the test assumes: two pools, the trn1 pool needing its own compile', () => {
    expect(plan.instanceType).toBe('ml.inf2.xlarge');
    expect(plan.fallbacks?.map((p) => [p.instanceType, p.sharesCompiledModelWith])).toEqual([['ml.inf2.8xlarge', 1], ['ml.trn1.2xlarge', undefined]]);
    expect(endpoint.instancePools.map((t) => t.sageMakerName)).toEqual(['ml.inf2.xlarge', 'ml.inf2.8xlarge', 'ml.trn1.2xlarge']);
  });

  test('THEN the variant names its types only in InstancePools, priorities 1 to 3, each fallback with its own model', () => {
    expect(variant.InstanceType).toBeUndefined();
    expect(variant.InstancePools).toEqual([
      { InstanceType: 'ml.inf2.xlarge', Priority: 1 },
      { InstanceType: 'ml.inf2.8xlarge', Priority: 2, ModelNameOverride: { 'Fn::GetAtt': [id('Pool2Model'), 'ModelName'] } },
      { InstanceType: 'ml.trn1.2xlarge', Priority: 3, ModelNameOverride: { 'Fn::GetAtt': [id('Pool3Model'), 'ModelName'] } },
    ]);
    expect(variant.ModelName).toEqual({ 'Fn::GetAtt': [id('Model'), 'ModelName'] });
    expect(variant.VariantInstanceProvisionTimeoutInSeconds).toBe(900);
  });

  test('THEN each pool\'s model knows its pool and serves the artifact compiled for its chip', () => {
    const uri = (m: { ModelDataSource: { S3DataSource: { S3Uri: unknown } } }) => JSON.stringify(m.ModelDataSource.S3DataSource.S3Uri);
    expect(modelOf(id('Model')).Environment[POOL_ENV]).toBe('1');
    expect(modelOf(id('Pool2Model')).Environment[POOL_ENV]).toBe('2');
    expect(modelOf(id('Pool3Model')).Environment[POOL_ENV]).toBe('3');
    expect(uri(modelOf(id('Pool2Model')))).toBe(uri(modelOf(id('Model'))));
    expect(uri(modelOf(id('Pool2Model')))).toContain('toy/inf2/');
    expect(uri(modelOf(id('Pool3Model')))).toContain('toy/trn1/');
    // Each pool's layout comes from its own plan.
    const trn1 = plan.fallbacks![1].plan;
    expect(modelOf(id('Pool3Model')).Environment).toMatchObject({
      SAGEMAKER_MODEL_SERVER_WORKERS: `${trn1.processesPerInstance}`, NEURON_RT_NUM_CORES: '1', MODEL_BATCH_SIZE: '1',
    });
  });

  test('THEN a Trainium pool rules out the KMS key and volume size for the whole variant, as SageMaker requires', () => {
    expect(config.Properties.KmsKeyId).toBeUndefined();
    expect(variant.VolumeSizeInGB).toBeUndefined();
    template.resourceCountIs('AWS::KMS::Key', 0);
  });

  test('THEN autoscaling holds the targets on any mix: the mixed fleet\'s counts, each instance held to the least any pool holds', () => {
    const fleet = plan.mixedFleet!;
    expect(fleet.boundByPriority).toBe(3);
    expect(variant.InitialInstanceCount).toBe(fleet.instanceCount);
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      MinCapacity: fleet.instanceCount, MaxCapacity: fleet.maxInstanceCount,
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({ TargetValue: Math.floor(fleet.capacityPerInstanceRps * 60 * 0.7) }),
    });
  });

  test('THEN a configuration with the same pools on a model that needs no artifact comes first, and the model data waits for it', () => {
    const checkId = stack.getLogicalId(endpoint.node.findChild('InstancePoolCheck').node.defaultChild as never);
    const check = template.toJSON().Resources[checkId];
    expect(check.Properties.ProductionVariants[0].InstancePools).toEqual(variant.InstancePools.map(
      ({ InstanceType, Priority }: { InstanceType: string; Priority: number }) => ({ InstanceType, Priority })));
    expect(check.Properties.ProductionVariants[0].InitialInstanceCount).toBe(variant.InitialInstanceCount);
    const checkModel = Object.entries(models).find(([logicalId]) => logicalId.includes('InstancePoolCheck'))![1];
    expect(checkModel.Properties.PrimaryContainer.ModelDataSource).toBeUndefined();
  });

  test('THEN the deploy proof holds every pool\'s answers to the limits of the pool\'s own plan', () => {
    const fn = Object.values(template.findResources('AWS::Lambda::Function')).find((f) => f.Properties.Environment?.Variables?.SMOKE_CONFIG);
    const config = JSON.parse(fn!.Properties.Environment.Variables.SMOKE_CONFIG) as SmokeConfig;
    expect(config.pools?.map((p) => [p.pool, p.instanceType])).toEqual([[1, 'ml.inf2.xlarge'], [2, 'ml.inf2.8xlarge'], [3, 'ml.trn1.2xlarge']]);
    expect(config.pools?.every((p) => p.p99MaxMs === config.thresholds.p99MaxMs)).toBe(true);
  });

  test('THEN synth says which pools share a compiled model, the dashboard lists the pools, and cdk-nag finds nothing', () => {
    Annotations.fromStack(stack).hasInfo('/Stack/Endpoint', Match.stringLikeRegexp(
      "Instance pools, by priority: 1 ml.inf2.xlarge \\(its own compile\\), 2 ml.inf2.8xlarge \\(priority 1's compiled model\\), 3 ml.trn1.2xlarge \\(its own compile\\)"));
    expect(JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'))).toContain('Instance pools');
    expect(nagFindings(app)).toEqual([]);
  });
});

describe('A single-call endpoint refuses pools it cannot deploy', () => {
  test.each<[string, () => Partial<ConstructorParameters<typeof NeuronSageMakerEndpoint>[2]>, RegExp]>([
    ['a pool on another chip with no model compiled for it', () => ({}),
      /instance pool 3 \(ml\.trn1\.2xlarge\) needs a model compiled for chip trn1, 1 NeuronCore\(s\) per process, batch 1/],
    ['pool model data that fits no pool', () => ({ poolModelData: [compiled(newStack(), 'trn1'), ModelData.fromBucket(
      s3.Bucket.fromBucketName(newStack(), 'B', 'other-bucket'), 'x/', { compiledArtifact: { chip: 'inf2', coresPerProcess: 2, batchSizes: [4] } })] }),
    /poolModelData\[1\] \(chip inf2, 2 core\(s\) per process, batch 4\) fits none of the plan's fallback pools/],
    ['a provisioning timeout SageMaker does not accept', () => ({ instanceProvisionTimeout: Duration.seconds(100) }),
      /instanceProvisionTimeout=100 seconds is outside the 300-3600 whole seconds/],
  ])('GIVEN %s THEN synth names the pool and the fix', (_, extra, message) => {
    const stack = newStack();
    const problems = problemsOf(() => new NeuronSageMakerEndpoint(stack, 'Endpoint', { plan, image: dlc(), modelData: compiled(stack, 'inf2'), ...extra() }));
    expect(problems.join('\n')).toMatch(message);
  });

  test('GIVEN an encryption key with a Trainium pool THEN it is refused, naming the pool', () => {
    const stack = newStack();
    const problems = problemsOf(() => new NeuronSageMakerEndpoint(stack, 'Endpoint', {
      plan, image: dlc(), modelData: compiled(stack, 'inf2'), poolModelData: [compiled(stack, 'trn1')], encryptionKey: new kms.Key(stack, 'Key'),
    }));
    expect(problems.join('\n')).toMatch(/^instance pool 3 \(ml\.trn1\.2xlarge\) is on local NVMe storage, and KmsKeyId is one per endpoint configuration: encryptionKey is set but ml\.trn1\.2xlarge has only local NVMe instance storage/m);
  });
});

describe('An inference component endpoint of a generative plan with two fallback pools', () => {
  // Fixed lengths, measured rows: inf2.48xlarge, then inf2.24xlarge (the same engine settings), then trn1.32xlarge.
  const gplan: GenerativePlan = planGenerative(findGenerativeProfile('llama-3.1-8b-instruct')!, {
    requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60, fixedLengths: true,
  }, { region: 'us-east-1', hosting: 'sagemaker', estimates: false, fallbacks: 2 });
  const stack = newStack();
  const image = ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.inf2Trn1.tag, digest: DIGEST });
  const artifacts = (p: GenerativePlan, name: string): ICompiledGenerativeArtifacts => {
    const bucket = s3.Bucket.fromBucketName(stack, `${name}Bucket`, 'compiled-bucket');
    const spec = generativeSpecForPlan(p, { model: 'llama', weights: { source: 's3', s3Uri: 's3://weights-bucket/llama/' }, neuronSdkVersion: image.neuronSdkVersion! });
    return {
      hash: name, bucket, artifactPrefix: `compiled/${name}/`, s3Uri: `s3://compiled-bucket/compiled/${name}/compiled/`,
      modelS3Uri: `s3://compiled-bucket/compiled/${name}/model/`, manifest: generativeFactsOfSpec(spec),
      resource: new CfnWaitConditionHandle(stack, `${name}Compile`), grantRead: () => undefined,
    };
  };
  const primary = artifacts(gplan, 'inf2');
  const trn1 = artifacts(gplan.fallbacks![1].plan, 'trn1');
  const endpoint = new NeuronGenerativeEndpoint(stack, 'Llama', {
    plan: gplan, image, compiledArtifacts: primary, poolCompiledArtifacts: [trn1], servedModelName: 'llama',
  });
  const template = Template.fromStack(stack);
  const component = Object.values(template.findResources('AWS::SageMaker::InferenceComponent'))[0].Properties;
  const variant = Object.values(template.findResources('AWS::SageMaker::EndpointConfig'))[0].Properties.ProductionVariants[0];

  test('THEN the plan is as the test assumes: the trn1 pool needs its own compile', () => {
    expect(gplan.fallbacks?.map((p) => [p.plan.instance.family, p.sharesCompiledModelWith])).toEqual([['inf2', 1], ['trn1', undefined]]);
  });

  test('THEN the component carries one specification per pool type, each with its model and its own devices per copy', () => {
    expect(component.Specification).toBeUndefined();
    const specs = component.Specifications as Array<{ InstanceType: string; ModelName: unknown; ComputeResourceRequirements: { NumberOfAcceleratorDevicesRequired: number } }>;
    expect(specs.map((s) => s.InstanceType)).toEqual(['ml.inf2.48xlarge', 'ml.inf2.24xlarge', 'ml.trn1.32xlarge']);
    for (const [i, pool] of [gplan, ...gplan.fallbacks!.map((p) => p.plan)].entries()) {
      expect(specs[i].ComputeResourceRequirements.NumberOfAcceleratorDevicesRequired).toBe(pool.generative.replicas[0].devices.length);
    }
    expect(new Set(specs.map((s) => JSON.stringify(s.ModelName))).size).toBe(3);
  });

  test('THEN the copies and instances are the mixed fleet\'s, on a variant of instance pools', () => {
    const fleet = gplan.mixedFleet!;
    expect(component.RuntimeConfig.CopyCount).toBe(fleet.copies);
    expect(variant.InstancePools.map((p: { Priority: number }) => p.Priority)).toEqual([1, 2, 3]);
    expect(variant.ManagedInstanceScaling).toMatchObject({ MinInstanceCount: fleet.instanceCount, MaxInstanceCount: fleet.maxInstanceCount });
    expect(endpoint.sizing.targetConcurrentRequestsPerCopy).toBeLessThanOrEqual(Math.min(...Object.values(template.findResources(
      'AWS::ApplicationAutoScaling::ScalingPolicy')).map((p) => p.Properties.TargetTrackingScalingPolicyConfiguration.TargetValue)));
  });

  test('THEN the trn1 pool\'s model reads its own artifacts, and every compile waits for the endpoint configuration', () => {
    const models = template.findResources('AWS::SageMaker::Model');
    const pool3 = Object.entries(models).find(([logicalId]) => logicalId.includes('Pool3Model'))![1];
    expect(JSON.stringify(pool3.Properties.PrimaryContainer.ModelDataSource)).toContain('compiled/trn1/');
    expect(pool3.Properties.PrimaryContainer.Environment[POOL_ENV]).toBe('3');
    const configId = Object.keys(template.findResources('AWS::SageMaker::EndpointConfig'))[0];
    for (const handle of Object.values(template.findResources('AWS::CloudFormation::WaitConditionHandle'))) {
      expect(handle.DependsOn).toContain(configId);
    }
  });
});
