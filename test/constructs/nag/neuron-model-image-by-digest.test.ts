import { CfnParameter, Stack } from 'aws-cdk-lib';
import { CfnRepository } from 'aws-cdk-lib/aws-ecr';
import { CfnModel } from 'aws-cdk-lib/aws-sagemaker';
import { NagRuleCompliance } from 'cdk-nag';
import { NeuronModelImageByDigest } from '../../../constructs/nag';
import { cfnResource, DIGEST, expectSynthFailsOn, neuronCheckedStack, ROLE_ARN } from './fixtures';

const TYPE = 'AWS::SageMaker::Model';
const IMAGE = '123456789012.dkr.ecr.us-east-1.amazonaws.com/model';

describe('NeuronModelImageByDigest: a SageMaker model names every container image by digest', () => {
  test.each([
    ['a primary container by digest', { PrimaryContainer: { Image: `${IMAGE}@${DIGEST}` } }, NagRuleCompliance.COMPLIANT],
    [
      'every container of an inference pipeline by digest',
      { Containers: [{ Image: `${IMAGE}@${DIGEST}` }, { Image: `${IMAGE}-post@${DIGEST}` }] },
      NagRuleCompliance.COMPLIANT,
    ],
    ['a primary container on :latest', { PrimaryContainer: { Image: `${IMAGE}:latest` } }, NagRuleCompliance.NON_COMPLIANT],
    ['a primary container on a version tag', { PrimaryContainer: { Image: `${IMAGE}:1.0.0` } }, NagRuleCompliance.NON_COMPLIANT],
    ['a primary container without tag or digest', { PrimaryContainer: { Image: IMAGE } }, NagRuleCompliance.NON_COMPLIANT],
    [
      'one pipeline container on a tag',
      { Containers: [{ Image: `${IMAGE}@${DIGEST}` }, { Image: `${IMAGE}-post:v2` }] },
      NagRuleCompliance.NON_COMPLIANT,
    ],
    [
      'a digest-pinned primary container and a tagged pipeline container',
      { PrimaryContainer: { Image: `${IMAGE}@${DIGEST}` }, Containers: [{ Image: `${IMAGE}:v2` }] },
      NagRuleCompliance.NON_COMPLIANT,
    ],
    ['an image from a parameter', { PrimaryContainer: { Image: { Ref: 'Image' } } }, NagRuleCompliance.NOT_APPLICABLE],
    [
      'a digest container and an image from a parameter',
      { Containers: [{ Image: `${IMAGE}@${DIGEST}` }, { Image: { Ref: 'Image' } }] },
      NagRuleCompliance.NOT_APPLICABLE,
    ],
    ['containers from a parameter', { Containers: { Ref: 'Containers' } }, NagRuleCompliance.NOT_APPLICABLE],
    ['a model package instead of an image', { PrimaryContainer: { ModelPackageName: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/p/1' } }, NagRuleCompliance.NOT_APPLICABLE],
  ])('GIVEN %s WHEN checked THEN it is %s', (_name, properties, expected) => {
    expect(NeuronModelImageByDigest(cfnResource(TYPE, { ExecutionRoleArn: ROLE_ARN, ...properties }))).toBe(expected);
  });

  test('GIVEN a resource that is not a model WHEN checked THEN the rule does not apply', () => {
    expect(NeuronModelImageByDigest(cfnResource('AWS::ECR::Repository', {}))).toBe(NagRuleCompliance.NOT_APPLICABLE);
  });

  describe('with an image built from a repository of the same stack', () => {
    function modelWithImage(image: (repository: CfnRepository, stack: Stack) => string): CfnModel {
      const stack = neuronCheckedStack();
      const repository = new CfnRepository(stack, 'Repository', {});
      return new CfnModel(stack, 'Model', { executionRoleArn: ROLE_ARN, primaryContainer: { image: image(repository, stack) } });
    }

    test('GIVEN RepositoryUri plus a literal digest WHEN checked THEN it is compliant', () => {
      expect(NeuronModelImageByDigest(modelWithImage((r) => `${r.attrRepositoryUri}@${DIGEST}`))).toBe(NagRuleCompliance.COMPLIANT);
    });

    test('GIVEN RepositoryUri plus a digest from a parameter WHEN checked THEN it is compliant, the digest form being literal', () => {
      const model = modelWithImage((r, stack) => `${r.attrRepositoryUri}@${new CfnParameter(stack, 'Digest').valueAsString}`);
      expect(NeuronModelImageByDigest(model)).toBe(NagRuleCompliance.COMPLIANT);
    });

    test('GIVEN RepositoryUri plus :latest WHEN checked THEN it is non-compliant', () => {
      expect(NeuronModelImageByDigest(modelWithImage((r) => `${r.attrRepositoryUri}:latest`))).toBe(NagRuleCompliance.NON_COMPLIANT);
    });

    test('GIVEN RepositoryUri alone WHEN checked THEN it is non-compliant, because Docker pulls :latest', () => {
      expect(NeuronModelImageByDigest(modelWithImage((r) => r.attrRepositoryUri))).toBe(NagRuleCompliance.NON_COMPLIANT);
    });

    test('GIVEN a URI assembled around the repository Ref and no tag WHEN checked THEN it is non-compliant', () => {
      const model = modelWithImage((r, stack) => `${stack.account}.dkr.ecr.${stack.region}.amazonaws.com/${r.ref}`);
      expect(NeuronModelImageByDigest(model)).toBe(NagRuleCompliance.NON_COMPLIANT);
    });

    test('GIVEN a URI ending in a Ref that is not a repository WHEN checked THEN the rule does not apply', () => {
      const model = modelWithImage((_r, stack) => `${IMAGE}/${new CfnParameter(stack, 'Rest').valueAsString}`);
      expect(NeuronModelImageByDigest(model)).toBe(NagRuleCompliance.NOT_APPLICABLE);
    });
  });

  test('GIVEN a digest-pinned and a :latest model WHEN the app synthesizes THEN synth fails on the second only', () => {
    const stack = neuronCheckedStack();
    new CfnModel(stack, 'Pinned', { executionRoleArn: ROLE_ARN, primaryContainer: { image: `${IMAGE}@${DIGEST}` } });
    new CfnModel(stack, 'Latest', { executionRoleArn: ROLE_ARN, primaryContainer: { image: `${IMAGE}:latest` } });

    expectSynthFailsOn(stack, 'Neuron-ModelImageByDigest', ['Fixture/Latest']);
  });
});
