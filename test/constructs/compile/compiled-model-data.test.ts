import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { ModelData } from '../../../constructs/model/model-data';
import { ModelImage } from '../../../constructs/image/model-image';
import { NeuronCompileJob } from '../../../constructs/compile/neuron-compile-job';
import { NeuronSageMakerEndpoint } from '../../../constructs/sagemaker/neuron-sagemaker-endpoint';
import type { CompileSpecInput } from '../../../lib/compile';
import { plan } from '../../../lib/planner';
import { requireProfile } from '../../../lib/profiles';
import { inputError } from '../../support/input-error';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const TAG = '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04';

// The example's targets: 4 x ml.inf2.xlarge, two 1-core processes, batch 1.
const chosen = plan(requireProfile('bert-base-uncased'), { throughputRps: 2000, p99Ms: 10 }, { region: 'us-east-1', hosting: 'sagemaker', server: 'neuron-dlc' });

const spec = (overrides: Partial<CompileSpecInput>): CompileSpecInput => ({
  model: 'bert-base-uncased',
  source: { hubModelId: 'bert-base-uncased' },
  task: 'feature-extraction',
  sequenceLength: 128,
  batchSizes: [chosen.batchSize],
  chip: 'inf2',
  coresPerProcess: chosen.coresPerProcess,
  neuronSdkVersion: '2.26.1',
  ...overrides,
});

function endpointWith(compileSpec: CompileSpecInput) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Serve', { env: { account: '111111111111', region: 'us-east-1' } });
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  const job = new NeuronCompileJob(stack, 'Compile', { spec: compileSpec, vpc });
  const build = () => new NeuronSageMakerEndpoint(stack, 'Endpoint', {
    plan: chosen,
    image: ModelImage.fromNeuronDlc({ tag: TAG, digest: DIGEST }),
    modelData: ModelData.fromCompileJob(job),
  });
  return { stack, build };
}

describe("a SageMaker endpoint serves a compile job's artifact only when it was compiled for the plan", () => {
  test('GIVEN an artifact compiled for the plan\'s chip, core group and batch THEN the model reads it from the job\'s prefix', () => {
    const { stack, build } = endpointWith(spec({}));
    build();
    const models = Template.fromStack(stack).findResources('AWS::SageMaker::Model');
    expect(JSON.stringify(models)).toContain('compiled/');
  });

  test('GIVEN an artifact compiled for batch 8 only WHEN the plan serves batch 1 THEN synth fails naming modelData and the fix', () => {
    const { stack, build } = endpointWith(spec({ batchSizes: [8] }));
    expect(inputError(build).message).toMatch(/Endpoint: modelData.*batch size 1/);
    // AND nothing of the endpoint was created
    expect(Template.fromStack(stack).findResources('AWS::SageMaker::Endpoint')).toEqual({});
  });

  test('GIVEN an artifact compiled for Inf1 WHEN the plan runs on inf2 THEN synth fails naming the chip', () => {
    const { build } = endpointWith(spec({ chip: 'inf1', neuronSdkVersion: '2.20.2' }));
    expect(build).toThrow(/chip=inf1, but the plan runs ml\.inf2\.xlarge/);
  });
});
