import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { GenerativeWeights } from '../../../constructs/compile/neuron-generative-compile-job';
import { GenerativeEcsInferenceStack, type GenerativeEcsInferenceStackProps } from '../../../constructs/ecs/generative-ecs-inference-stack';
import { ModelImage } from '../../../constructs/image/model-image';
import { applyPolicyChecks } from '../../../constructs/nag';
import { findGenerativeProfile, planGenerative, type GenerativePlan } from '../../../lib/generative';
import { InputError } from '../../../lib/errors';
import { VLLM_DLC_PINS } from '../../../lib/generative/engine-image';
import { inputError, problemsOf } from '../../support/input-error';
import { nagFindings } from '../../support/nag';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const COMMIT = '0e9e39f249a16976918f6564b8830bc894c89659';

/** Llama 3.1 8B on inf2.48xlarge for ECS: 3 replicas per instance at TP 8 (the measured rows' layout: fixed lengths, no estimates). */
function ecsPlan(): GenerativePlan {
  const profile = findGenerativeProfile('llama-3.1-8b-instruct');
  if (!profile) {
    throw new Error('no llama-3.1-8b-instruct profile');
  }
  return planGenerative(profile, {
    requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60,
    peakRequestsPerSecond: 6, fixedLengths: true,
  }, { region: 'us-east-1', hosting: 'ec2', instanceTypes: ['inf2.48xlarge'], minInstances: 2, estimates: false });
}

/** Hub weights with a token secret referenced in the stack, as the example gives them. */
function hubWeights(stack: Stack): GenerativeWeights {
  return GenerativeWeights.fromHuggingFace({
    repository: 'meta-llama/Llama-3.1-8B-Instruct', revision: COMMIT,
    token: secretsmanager.Secret.fromSecretNameV2(stack, 'HuggingFaceToken', 'hf-token'),
  });
}

describe('The generative ECS stack for Llama 3.1 8B on inf2.48xlarge given S3 prefixes, with an explicit account and region', () => {
  const plan = ecsPlan();
  const app = new App();
  const env = { account: '111111111111', region: 'us-east-1' };
  const stack = new GenerativeEcsInferenceStack(app, 'LlamaEcs', {
    env,
    plan,
    image: ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.inf2Trn1.tag, digest: DIGEST }),
    modelBucketName: 'models-111111111111-us-east-1',
    weightsPrefix: 'models/llama-3.1-8b-instruct',
    compiledArtifactsPrefix: 'compiled/llama-tp8',
  });
  applyPolicyChecks(app);

  test('WHEN synthesized THEN AwsSolutions and the Neuron pack find nothing unacknowledged', () => {
    expect(nagFindings(app, { plugins: ['AwsSolutions', 'Neuron'] })).toEqual([]);
  });

  test('WHEN synthesized THEN no context lookup is needed and the stack outputs the URL and the plan', () => {
    expect(app.synth().manifest.missing ?? []).toEqual([]);
    const template = Template.fromStack(stack);
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual(['PlanSummary', 'Url']);
    expect(JSON.stringify(template.findOutputs('PlanSummary'))).toContain('3 replica(s) per instance at TP 8');
    template.resourceCountIs('AWS::ECS::Service', 3);
    template.allResourcesProperties('AWS::ECS::Service', { DesiredCount: plan.instanceCount });
  });
});

describe('The generative ECS stack refuses half a model location', () => {
  test('GIVEN modelBucketName without weightsPrefix THEN it asks for both, or weights or compiledArtifacts', () => {
    const profile = findGenerativeProfile('llama-3.1-8b-instruct');
    const plan = planGenerative(profile as NonNullable<typeof profile>, {
      requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60,
    }, { region: 'us-east-1', hosting: 'ec2', instanceTypes: ['inf2.48xlarge'] });
    expect(inputError(() => new GenerativeEcsInferenceStack(new App(), 'LlamaEcs', {
      env: { account: '111111111111', region: 'us-east-1' },
      plan,
      image: ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.inf2Trn1.tag, digest: DIGEST }),
      modelBucketName: 'models-111111111111-us-east-1',
    })).message).toMatch(/modelBucketName and weightsPrefix go together/);
  });
});

describe('The generative ECS stack given weights compiles them in the deploy for its own plan', () => {
  // GIVEN an ec2 plan and Hub weights, no S3 prefixes
  const plan = ecsPlan();
  const app = new App();
  const stack = new GenerativeEcsInferenceStack(app, 'LlamaEcs', {
    env: { account: '111111111111', region: 'us-east-1' },
    plan,
    image: ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.inf2Trn1.tag, digest: DIGEST }),
    weights: hubWeights,
  });
  applyPolicyChecks(app);
  const template = Template.fromStack(stack);

  test('WHEN synthesized THEN one compile job runs on the plan\'s instance type for its TP, sequences and length', () => {
    const job = stack.compileJob!;
    const engine = plan.generative.engine;
    expect(job.spec).toMatchObject({
      tensorParallelSize: engine.tensorParallelSize, maxNumSeqs: engine.maxNumSeqs, maxModelLen: engine.maxModelLen, chip: 'inf2',
    });
    expect(engine.maxNumSeqs).toBe(plan.generative.maxConcurrentSequences);
    const jobs = template.findResources('Custom::NeuronCompileJob');
    expect(Object.keys(jobs)).toEqual([stack.getLogicalId(job.resource.node.defaultChild as never)]);
    const config = JSON.stringify(Object.values(jobs)[0].Properties.Config);
    expect(config).toContain(`\\"tensorParallelSize\\":${engine.tensorParallelSize}`);
    expect(config).toContain(`\\"maxModelLen\\":${engine.maxModelLen}`);
    expect(config).toContain('\\"instanceTypes\\":[\\"inf2.48xlarge\\"]');
    // The compile host's own VPC, zones resolved at deploy: synth looks nothing up.
    template.resourceCountIs('AWS::EC2::NatGateway', 1);
    expect(app.synth().manifest.missing ?? []).toEqual([]);
  });

  test('WHEN synthesized THEN every replica\'s tasks read the job\'s artifacts and staged weights, after the job', () => {
    const job = stack.compileJob!;
    const services = template.findResources('AWS::ECS::Service');
    expect(Object.keys(services)).toHaveLength(3);
    for (const service of Object.values(services)) {
      expect(service.DependsOn).toContain(stack.getLogicalId(job.resource.node.defaultChild as never));
    }
    const bucket = JSON.stringify(stack.resolve(job.bucket.bucketName));
    const taskDefinitions = Object.values(template.findResources('AWS::ECS::TaskDefinition')).map((t) => JSON.stringify(t));
    expect(taskDefinitions).toHaveLength(3);
    for (const taskDefinition of taskDefinitions) {
      expect(taskDefinition).toContain(bucket);
      expect(taskDefinition).toContain(`/${job.artifactPrefix}compiled/`);
      expect(taskDefinition).toContain(`/${job.artifactPrefix}model/`);
    }
  });

  test('WHEN synthesized THEN it outputs the compiled artifacts beside the URL and the plan, with no compile-at-start warning', () => {
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual(['CompiledArtifacts', 'PlanSummary', 'Url']);
    const warnings = stack.service.node.metadata.filter((m) => m.type === 'aws:cdk:warning').map((m) => String(m.data));
    expect(warnings.join('\n')).not.toContain('compilesAtStart');
  });

  test('WHEN synthesized THEN the token secret is read by the compile host only, never by a task', () => {
    const readers = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p).includes('secretsmanager:GetSecretValue'))
      .map((p) => JSON.stringify(p.Properties.Roles));
    expect(readers).toHaveLength(1);
    expect(readers[0]).toContain('CompileInstanceRole');
  });

  test('WHEN synthesized THEN AwsSolutions and the Neuron pack find nothing unacknowledged', () => {
    expect(nagFindings(app, { plugins: ['AwsSolutions', 'Neuron'] })).toEqual([]);
  });
});

describe('The generative ECS stack takes its model exactly one way', () => {
  const plan = ecsPlan();
  const image = ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.inf2Trn1.tag, digest: DIGEST });
  const build = (props: Partial<GenerativeEcsInferenceStackProps>) => () => new GenerativeEcsInferenceStack(new App(), 'LlamaEcs', {
    env: { account: '111111111111', region: 'us-east-1' }, plan, image, ...props,
  });

  test('GIVEN weights and S3 prefixes THEN it refuses, naming both ways', () => {
    // The stack's path leads the message once; each problem starts with the field.
    expect(build({ weights: hubWeights, modelBucketName: 'models-1', weightsPrefix: 'llama' })).toThrow(new InputError(
      'weights, modelBucketName/weightsPrefix are given; pass only one: weights compiles in the deploy, compiledArtifacts serves '
        + 'artifacts compiled elsewhere, modelBucketName/weightsPrefix serves S3 prefixes', { constructPath: 'LlamaEcs' }));
  });

  test('GIVEN neither weights, compiledArtifacts nor S3 prefixes THEN it asks for one of them', () => {
    expect(problemsOf(build({}))).toEqual([expect.stringMatching(
      /^no model given; pass weights .*compiledArtifacts .*or modelBucketName with weightsPrefix$/)]);
  });

  test('GIVEN compileVpc without weights, and compiledArtifactsPrefix with weights THEN both are refused at once', () => {
    const vpcStack = new Stack(new App(), 'Net');
    const compileVpc = new ec2.Vpc(vpcStack, 'Vpc');
    expect(problemsOf(build({ compileVpc, modelBucketName: 'models-1', weightsPrefix: 'llama' }))).toEqual([
      expect.stringMatching(/compileVpc is given without weights/)]);
    expect(problemsOf(build({ weights: hubWeights, compiledArtifactsPrefix: 'compiled/x' }))).toEqual([
      expect.stringMatching(/compiledArtifactsPrefix="compiled\/x" goes with modelBucketName and weightsPrefix/)]);
  });
});
