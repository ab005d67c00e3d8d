/**
 * Issue 37: a customer-managed key is applied or refused with the fix on every instance family a plan can choose,
 * never dropped; a role passed in gets what the default one has, and an immutable one that cannot is refused unless the
 * feature that needs it is turned off by name; errors name the construct that raised them.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { ModelData } from '../../../constructs/model/model-data';
import { ModelImage } from '../../../constructs/image/model-image';
import { NeuronGenerativeEndpoint, NeuronSageMakerEndpoint, type NeuronGenerativeEndpointProps } from '../../../constructs/sagemaker';
import { storageKeyChoice } from '../../../constructs/sagemaker/private/endpoint-storage';
import { BUILT_IN_INSTANCES, INSTANCE_STORAGE, NEURON_FAMILIES, NeuronInstanceType, type InstanceSpec } from '../../../lib/catalog';
import { DEFAULT_ENGINE_METRICS_NAMESPACE, VLLM_DLC_PINS, VLLM_IMAGE_ENV } from '../../../lib/generative/engine-image';
import type { GenerativePlan } from '../../../lib/generative/types';
import { handWrittenGenerativePlan, replica } from '../../support/generative-plan';
import { inputError } from '../../support/input-error';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

function newStack(): Stack {
  return new Stack(new App({ builtinCloudFormationValidation: false }), 'Stack', { env: { account: '111111111111', region: 'us-east-1' } });
}

/** One instance type of every Neuron family: the built-in one, or for a family the catalog lacks (trn2u, trn3) a spec. */
function typeOf(family: string): NeuronInstanceType {
  const builtIn = BUILT_IN_INSTANCES.find((spec) => spec.family === family);
  if (builtIn !== undefined) return NeuronInstanceType.of(builtIn.name);
  const trn2 = BUILT_IN_INSTANCES.find((spec) => spec.family === 'trn2') as InstanceSpec;
  return NeuronInstanceType.of(`${family}.48xlarge`, { ...trn2, name: `${family}.48xlarge`, family, coreVersion: family === 'trn3' ? 'v4' : 'v3' });
}

/** The hand-written Llama plan moved onto trn1.32xlarge: 4 replicas of TP 8 (4 chips each) on its 16 chips. */
function trn1Plan(): GenerativePlan {
  const instance = BUILT_IN_INSTANCES.find((spec) => spec.name === 'trn1.32xlarge') as InstanceSpec;
  return handWrittenGenerativePlan({ instanceType: 'ml.trn1.32xlarge', instance }, {
    replicasPerInstance: 4, replicas: [0, 1, 2, 3].map((i) => replica(i, i * 4, 4)),
  });
}

function generative(stack: Stack, extra: Partial<NeuronGenerativeEndpointProps> = {}): NeuronGenerativeEndpointProps {
  return {
    plan: handWrittenGenerativePlan(),
    image: ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.inf2Trn1.tag, digest: DIGEST }),
    weights: ModelData.fromBucket((stack.node.tryFindChild('Weights') as s3.IBucket | undefined)
      ?? s3.Bucket.fromBucketName(stack, 'Weights', 'weights-bucket'), 'llama/v1/'),
    compiledArtifactsPath: 'neuron-compiled/',
    servedModelName: 'llama',
    ...extra,
  };
}

describe('The storage key on every Neuron instance family', () => {
  const key = {} as kms.IKey;

  test.each(NEURON_FAMILIES.map((family) => [family]))('%s: applied on EBS, refused with the fix on local NVMe, dropped only by name',
    (family) => {
      // GIVEN
      const type = typeOf(family);
      const ebs = INSTANCE_STORAGE[family].storage === 'ebs-only';
      // WHEN a key is given, given with the opt-out, or not given
      const given = storageKeyChoice(type, { encryptionKey: key });
      const optedOut = storageKeyChoice(type, { encryptionKey: key, acceptInstanceStoreEncryption: true });
      const none = storageKeyChoice(type, {});
      // THEN
      if (ebs) {
        expect([given, optedOut, none]).toEqual([{ use: 'given' }, { use: 'given' }, { use: 'own' }]);
      } else {
        expect(given).toEqual({ use: 'refused', problem: expect.stringMatching(
          new RegExp(`^encryptionKey is set but ${type.sageMakerName.replace(/\./g, '\\.')} has only local NVMe instance storage.*`
            + 'plan on an instance type with EBS storage.*or set acceptInstanceStoreEncryption: true')) });
        expect(optedOut).toEqual({ use: 'none', warning: expect.stringMatching(/^encryptionKey is not applied/) });
        expect(none).toEqual({ use: 'none' });
      }
    });

  test('every family the planner may choose has its storage stated, and the unconfirmed ones say so in the refusal', () => {
    expect(Object.keys(INSTANCE_STORAGE).sort()).toEqual([...NEURON_FAMILIES].sort());
    expect(storageKeyChoice(typeOf('trn3'), { encryptionKey: key })).toMatchObject({ problem: expect.stringContaining('UNVERIFIED for trn3') });
    expect(storageKeyChoice(typeOf('trn1'), { encryptionKey: key })).toMatchObject({ problem: expect.not.stringContaining('UNVERIFIED') });
  });

  test.each([['inf1.xlarge', '1.13.1-neuron-py310-sdk2.20.2-ubuntu20.04'], ['inf2.xlarge', '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04']])(
    'GIVEN a key on %s THEN the endpoint configuration is encrypted with it', (name, tag) => {
      const stack = newStack();
      const encryptionKey = new kms.Key(stack, 'MyKey', { enableKeyRotation: true });
      new NeuronSageMakerEndpoint(stack, 'Endpoint', {
        instanceType: NeuronInstanceType.of(name), image: ModelImage.fromNeuronDlc({ tag, digest: DIGEST }), encryptionKey,
      });
      Template.fromStack(stack).hasResourceProperties('AWS::SageMaker::EndpointConfig', {
        KmsKeyId: { 'Fn::GetAtt': [stack.getLogicalId(encryptionKey.node.defaultChild as kms.CfnKey), 'Arn'] },
      });
    });
});

describe('A generative endpoint with a key, planned onto ml.trn1.32xlarge (the README Llama default)', () => {
  test('GIVEN the key THEN synth is refused before anything exists, naming the endpoint, the instance and both fixes', () => {
    const stack = newStack();
    const error = inputError(() => new NeuronGenerativeEndpoint(stack, 'Llama',
      generative(stack, { plan: trn1Plan(), encryptionKey: new kms.Key(stack, 'MyKey', { enableKeyRotation: true }) })));
    expect(error.message).toMatch(/^Stack\/Llama: encryptionKey is set but ml\.trn1\.32xlarge has only local NVMe instance storage.*acceptInstanceStoreEncryption: true/);
    expect(stack.node.tryFindChild('Llama')?.node.findAll().filter((c) => c.node.id === 'Resource')).toEqual([]);
  });

  test('GIVEN acceptInstanceStoreEncryption THEN it deploys without KmsKeyId and synth says the key is not applied', () => {
    const stack = newStack();
    new NeuronGenerativeEndpoint(stack, 'Llama', generative(stack, {
      plan: trn1Plan(), encryptionKey: new kms.Key(stack, 'MyKey', { enableKeyRotation: true }), acceptInstanceStoreEncryption: true,
    }));
    Template.fromStack(stack).hasResourceProperties('AWS::SageMaker::EndpointConfig', { KmsKeyId: Match.absent() });
    Annotations.fromStack(stack).hasWarning('/Stack/Llama', Match.stringLikeRegexp('encryptionKey is not applied: ml.trn1.32xlarge'));
  });

  test('GIVEN the same key on the Inf2 plan THEN it is applied', () => {
    const stack = newStack();
    const encryptionKey = new kms.Key(stack, 'MyKey', { enableKeyRotation: true });
    new NeuronGenerativeEndpoint(stack, 'Llama', generative(stack, { encryptionKey }));
    Template.fromStack(stack).hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      KmsKeyId: { 'Fn::GetAtt': [stack.getLogicalId(encryptionKey.node.defaultChild as kms.CfnKey), 'Arn'] },
    });
  });
});

describe('The execution role a generative endpoint is given', () => {
  test('GIVEN a mutable role of the user THEN it gets PutMetricData in the engine namespace under the condition, and a warning', () => {
    // GIVEN
    const stack = newStack();
    const role = new iam.Role(stack, 'MyRole', { assumedBy: new iam.ServicePrincipal('sagemaker.amazonaws.com') });
    // WHEN
    new NeuronGenerativeEndpoint(stack, 'Llama', generative(stack, { role }));
    // THEN
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: stack.getLogicalId(role.node.defaultChild as iam.CfnRole) }],
      PolicyDocument: { Statement: Match.arrayWith([{
        Effect: 'Allow', Action: 'cloudwatch:PutMetricData', Resource: '*',
        Condition: { StringEquals: { 'cloudwatch:namespace': ['/aws/sagemaker/Endpoints', 'AWS/SageMaker', DEFAULT_ENGINE_METRICS_NAMESPACE] } },
      }]) },
    });
    Annotations.fromStack(stack).hasWarning('/Stack/Llama', Match.stringLikeRegexp('Stack/MyRole gets what the default execution role starts with'));
  });

  test('GIVEN an immutable role THEN synth is refused naming the grants the engine alarms need and engineMetrics: false', () => {
    const stack = newStack();
    const role = iam.Role.fromRoleArn(stack, 'Existing', 'arn:aws:iam::111111111111:role/existing', { mutable: false });
    const error = inputError(() => new NeuronGenerativeEndpoint(stack, 'Llama', generative(stack, { role })));
    expect(error.constructPath).toBe('Stack/Llama');
    expect(error.problems).toEqual([expect.stringMatching(new RegExp('^role Stack/Existing is immutable .*logs:PutLogEvents .*'
      + `cloudwatch:PutMetricData in namespace ${DEFAULT_ENGINE_METRICS_NAMESPACE}.*never see data.*engineMetrics: false`))]);
  });

  test('GIVEN an immutable role and engineMetrics: false THEN no exporter, no engine alarm, and a warning of what the role must allow', () => {
    // GIVEN
    const stack = newStack();
    const role = iam.Role.fromRoleArn(stack, 'Existing', 'arn:aws:iam::111111111111:role/existing', { mutable: false });
    // WHEN
    const endpoint = new NeuronGenerativeEndpoint(stack, 'Llama', generative(stack, { role, engineMetrics: false }));
    // THEN
    expect(endpoint.engineMetrics).toBeUndefined();
    expect(endpoint.rollbackAlarms).toHaveLength(1);
    expect(endpoint.environment[VLLM_IMAGE_ENV.metrics]).toBe('off');
    Annotations.fromStack(stack).hasWarning('/Stack/Llama', Match.stringLikeRegexp('is immutable .* it must already allow'));
  });
});

describe('Errors name the construct that raised them', () => {
  test('GIVEN two endpoints in a stack WHEN the second is given a wrong plan THEN the message says which', () => {
    // GIVEN
    const stack = newStack();
    new NeuronGenerativeEndpoint(stack, 'Chat', generative(stack));
    const broken = { ...handWrittenGenerativePlan(), generative: undefined } as unknown as GenerativePlan;
    // WHEN
    const error = inputError(() => new NeuronGenerativeEndpoint(stack, 'Summaries', generative(stack, { plan: broken })));
    // THEN
    expect(error.message).toMatch(/^Stack\/Summaries: 2 problems:\n- plan\.generative: expected an object, got nothing/);
    expect(error.message).not.toMatch(/TypeError|Cannot read/);
  });
});
