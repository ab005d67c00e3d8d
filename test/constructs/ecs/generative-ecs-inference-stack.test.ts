import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { GenerativeEcsInferenceStack } from '../../../constructs/ecs/generative-ecs-inference-stack';
import { ModelImage } from '../../../constructs/image/model-image';
import { applyPolicyChecks } from '../../../constructs/nag';
import { findGenerativeProfile, planGenerative } from '../../../lib/generative';
import { VLLM_DLC_PINS } from '../../../lib/generative/engine-image';
import { inputError } from '../../support/input-error';
import { nagFindings } from '../../support/nag';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

describe('The generative ECS stack for Llama 3.1 8B on inf2.48xlarge, with an explicit account and region', () => {
  const profile = findGenerativeProfile('llama-3.1-8b-instruct');
  if (!profile) {
    throw new Error('no llama-3.1-8b-instruct profile');
  }
  const plan = planGenerative(profile, {
    requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60,
    peakRequestsPerSecond: 6,
  }, { region: 'us-east-1', hosting: 'ec2', instanceTypes: ['inf2.48xlarge'], minInstances: 2 });
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
  test('GIVEN modelBucketName without weightsPrefix THEN it asks for both, or compiledArtifacts', () => {
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
