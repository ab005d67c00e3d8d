import { readFileSync } from 'fs';
import * as path from 'path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { InferenceStack, planSummary } from '../../../constructs/sagemaker/inference-stack';
import { ModelImage } from '../../../constructs/image/model-image';
import { applyPolicyChecks } from '../../../constructs/nag';
import { InputError } from '../../../lib/errors';
import { plan } from '../../../lib/planner';
import type { Plan } from '../../../lib/planner';
import { requireProfile } from '../../../lib/profiles';
import { nagFindings } from '../../support/nag';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const MODEL_DIR = path.join(__dirname, '..', '..', '..', 'examples', 'bert-base-uncased', 'model');
const ENV = { account: '123456789012', region: 'us-east-1' };

/** The example app's plan: bert-base-uncased for 2,000 rps at p99 10 ms on SageMaker in us-east-1, stock or batching. */
function examplePlan(): Plan {
  return plan(
    requireProfile('bert-base-uncased'),
    { throughputRps: 2000, p99Ms: 10, peakThroughputRps: 4000 },
    { region: 'us-east-1', hosting: 'sagemaker', minInstances: 2, serving: 'any' },
  );
}

/** The template as JSON with every 64-hex asset hash masked, so the snapshot survives unrelated file changes. */
function masked(template: Template): unknown {
  return JSON.parse(JSON.stringify(template.toJSON()).replace(/[0-9a-f]{64}/g, '<asset-hash>'));
}

describe('The example inference stack for bert-base-uncased on the model server', () => {
  // GIVEN the example's plan and the model server built on a DLC pinned by digest
  // CloudFormation validation (6 s per synth of this stack) runs on the same stack in test/bin/app.test.ts
  const app = new App({ builtinCloudFormationValidation: false });
  const examplePlanned = examplePlan();
  // WHEN
  const stack = new InferenceStack(app, 'Inference', {
    env: ENV,
    plan: examplePlanned,
    image: ModelImage.fromServer({ tag: '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04', digest: DIGEST }),
    modelDataPath: MODEL_DIR,
  });
  const template = Template.fromStack(stack);

  test('runs one model server worker per planned process, with the plan\'s batch, and a dashboard', () => {
    // THEN
    template.hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: Match.objectLike({
        Environment: Match.objectLike({
          MODEL_SERVER_VISIBLE_CORES: examplePlanned.visibleCores.join(';'),
          MODEL_SERVER_MAX_BATCH_SIZE: `${examplePlanned.batching?.maxBatchSize ?? examplePlanned.batchSize}`,
          MODEL_SERVER_MAX_DELAY_MS: `${examplePlanned.batching?.maxDelayMs ?? 0}`,
        }),
      }),
    });
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  test('matches the snapshot, asset hashes masked', () => {
    // THEN
    expect(masked(template)).toMatchSnapshot();
  });

  test('outputs the endpoint name, the repository URI and the plan summary', () => {
    // THEN
    template.hasOutput('EndpointName', { Value: stack.resolve(stack.endpoint.endpointName) });
    template.hasOutput('RepositoryUri', { Value: stack.resolve(stack.repository.repositoryUri) });
    template.hasOutput('PlanSummary', { Value: planSummary(examplePlanned) });
  });

  test('tells the handler the compiled batch and sequence length', () => {
    // THEN
    template.hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: Match.objectLike({
        Environment: Match.objectLike({
          MODEL_BATCH_SIZE: `${examplePlanned.batchSize}`,
          MODEL_SEQUENCE_LENGTH: '128',
        }),
      }),
    });
  });

  test('serves the model data as an uncompressed S3 prefix uploaded before the model is created', () => {
    // THEN
    template.hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: Match.objectLike({
        ModelDataSource: { S3DataSource: Match.objectLike({ S3DataType: 'S3Prefix', CompressionType: 'None' }) },
      }),
    });
    template.hasResource('AWS::SageMaker::Model', {
      DependsOn: Match.arrayWith([Match.stringLikeRegexp('^EndpointModelDataUploadCustomResource')]),
    });
  });
});

describe('An inference stack serving its own repository image', () => {
  test('pulls the image by digest from the repository it defines', () => {
    // GIVEN
    const stack = new InferenceStack(new App(), 'Inference', {
      env: ENV,
      plan: examplePlan(),
      imageDigest: DIGEST,
      modelDataPath: MODEL_DIR,
    });
    // THEN
    expect(stack.resolve(stack.endpoint.cfnModel.primaryContainer)).toMatchObject({
      image: { 'Fn::Join': ['', expect.arrayContaining([{ Ref: stack.getLogicalId(stack.repository.repository.node.defaultChild as never) }, `@${DIGEST}`])] },
    });
  });
});

describe('The props of an inference stack', () => {
  test('need exactly one of image and imageDigest', () => {
    // GIVEN
    const props = { env: ENV, plan: examplePlan(), modelDataPath: MODEL_DIR };
    // WHEN / THEN
    expect(() => new InferenceStack(new App(), 'A', props)).toThrow(new InputError(
      'InferenceStack: neither image nor imageDigest is set; pass image (e.g. ModelImage.fromServer({ tag, '
        + "digest })) or the imageDigest of an image pushed to the stack's repository", { constructPath: 'A' }));
    expect(() => new InferenceStack(new App(), 'B', {
      ...props, imageDigest: DIGEST, image: ModelImage.fromNeuronDlc({ tag: '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04', digest: DIGEST }),
    })).toThrow('InferenceStack: both image and imageDigest are set; pass only one');
  });
});

describe('The plan summary', () => {
  test('states layout, capacity, latency and cost against the targets, flagging an UNVERIFIED price', () => {
    // GIVEN
    const p = examplePlan();
    const written: Plan = {
      ...p,
      instanceType: 'ml.inf2.xlarge',
      instanceCount: 1,
      maxInstanceCount: 2,
      processesPerInstance: 2,
      coresPerProcess: 1,
      batchSize: 8,
      serving: 'stock',
      capacityRps: 2736.21,
      predictedP99Ms: 9.123,
      hourlyCostUsd: 0.99,
      monthlyCostUsd: 722.7,
      targets: { throughputRps: 2000, p99Ms: 10 },
      price: { ...p.price, unverified: true },
    };
    // THEN
    expect(planSummary(written)).toBe('bert-base-uncased: 1 x ml.inf2.xlarge (max 2), 2 processes x 1 NeuronCore(s), '
      + 'batch 8, stock serving on the model server; capacity 2736.2 requests/s for 2000 requests/s; predicted p99 9.1 ms '
      + 'for <= 10 ms; $0.99/h, $722.70/month in us-east-1 '
      + '(price UNVERIFIED)');
    expect(planSummary({ ...written, server: 'neuron-dlc' })).toContain("batch 8, stock serving on a Neuron DLC's toolkit; capacity");
  });
});

describe('The inference stack can compile its model in the deploy', () => {
  // GIVEN the example's plan, its compile spec, and the server image carrying the example's handler
  const app = new App({ builtinCloudFormationValidation: false });
  const examplePlanned = examplePlan();
  const spec = JSON.parse(readFileSync(path.join(MODEL_DIR, '..', 'compile-spec.json'), 'utf8'));
  applyPolicyChecks(app);
  // WHEN
  const stack = new InferenceStack(app, 'Compiled', {
    env: ENV,
    plan: examplePlanned,
    image: ModelImage.fromServer({ tag: '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04', digest: DIGEST, handler: path.join(MODEL_DIR, 'code') }),
    compile: { spec },
  });
  const template = Template.fromStack(stack);

  test('THEN the compile job runs in the deploy and the endpoint serves its artifact prefix', () => {
    expect(Object.keys(template.findResources('Custom::NeuronCompileJob'))).toHaveLength(1);
    const model = Object.values(template.findResources('AWS::SageMaker::Model'))[0];
    expect(JSON.stringify(model.Properties.PrimaryContainer.ModelDataSource)).toContain(`compiled/${stack.compileJob!.hash}/`);
  });

  test('THEN the stack, its compile VPC included, has no unacknowledged policy finding', () => {
    expect(nagFindings(stack)).toEqual([]);
  });

  test('GIVEN both a model directory and a compile spec THEN the stack refuses with the choice to make', () => {
    expect(() => new InferenceStack(new App(), 'Both', {
      env: ENV, plan: examplePlanned, imageDigest: DIGEST, modelDataPath: MODEL_DIR, compile: { spec },
    })).toThrow('InferenceStack: modelDataPath and compile are set; pass only one');
  });
});
