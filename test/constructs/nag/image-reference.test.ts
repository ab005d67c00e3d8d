import { App, Fn, Stack } from 'aws-cdk-lib';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import fc from 'fast-check';
import {
  classifyImageReference,
  imageUriParts,
  isDigestReference,
} from '../../../constructs/nag/private/image-reference';
import { DIGEST } from './fixtures';

const REGISTRY = '123456789012.dkr.ecr.us-east-1.amazonaws.com';
const OPAQUE = { Ref: 'ImageParameter' };

describe('An image reference given as literal and opaque parts', () => {
  test.each([
    ['a literal repository with a digest', [`${REGISTRY}/model@${DIGEST}`], 'digest'],
    ['a tag followed by a digest', [`${REGISTRY}/model:v1@${DIGEST}`], 'digest'],
    ['an opaque repository URI followed by a literal digest', [OPAQUE, `@${DIGEST}`], 'digest'],
    ['an opaque digest after a literal @sha256:', [`${REGISTRY}/model@sha256:`, OPAQUE], 'digest'],
    ['an opaque digest after a literal @', [OPAQUE, '@', OPAQUE], 'digest'],
    ['a literal :latest', [`${REGISTRY}/model:latest`], 'tag'],
    ['a literal version tag', [`${REGISTRY}/model:2.1.2-neuronx-py310`], 'tag'],
    ['a bare repository, which Docker reads as :latest', [`${REGISTRY}/model`], 'tag'],
    ['an opaque repository URI followed by a literal tag', [OPAQUE, ':v1'], 'tag'],
    ['an opaque tag after a literal colon', [`${REGISTRY}/model:`, OPAQUE], 'tag'],
    ['a digest one hex digit short', [`${REGISTRY}/model@${DIGEST.slice(0, -1)}`], 'tag'],
    ['a digest in upper case', [`${REGISTRY}/model@${DIGEST.toUpperCase().replace('SHA256', 'sha256')}`], 'tag'],
    ['a digest with nothing in front of it', [`@${DIGEST}`], 'tag'],
    ['a fully opaque reference', [OPAQUE], 'unknown'],
    ['a literal registry and an opaque rest', [`${REGISTRY}/`, OPAQUE], 'unknown'],
    ['nothing at all', [], 'unknown'],
  ])('GIVEN %s WHEN classified THEN it is a %s', (_name, parts, expected) => {
    expect(classifyImageReference(parts)).toBe(expected);
    expect(isDigestReference(parts)).toBe(expected === 'digest');
  });

  test('GIVEN any repository and any 64-hex digest WHEN joined with @ THEN it is a digest reference', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9]+([._-][a-z0-9]+)*(\/[a-z0-9]+)*$/),
        fc.stringMatching(/^[0-9a-f]{64}$/),
        (repository, hex) => isDigestReference([`${REGISTRY}/${repository}@sha256:${hex}`]),
      ),
    );
  });

  test('GIVEN any repository and any tag WHEN joined with : THEN it is not a digest reference', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9]+([._-][a-z0-9]+)*$/),
        fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/),
        (repository, tag) => classifyImageReference([`${REGISTRY}/${repository}:${tag}`]) === 'tag',
      ),
    );
  });
});

describe('Splitting a resolved CloudFormation value into image reference parts', () => {
  test('GIVEN repositoryUriForDigest on a repository WHEN resolved and split THEN it is a digest reference', () => {
    const stack = new Stack(new App(), 'Stack');
    const repository = new ecr.Repository(stack, 'Repository');
    const parts = imageUriParts(stack.resolve(repository.repositoryUriForDigest(DIGEST)));
    expect(parts[parts.length - 1]).toBe(`@${DIGEST}`);
    expect(classifyImageReference(parts)).toBe('digest');
  });

  test('GIVEN repositoryUriForTag on an imported repository WHEN resolved and split THEN it is a tag reference', () => {
    const stack = new Stack(new App(), 'Stack');
    const repository = ecr.Repository.fromRepositoryName(stack, 'Repository', 'model');
    expect(classifyImageReference(imageUriParts(stack.resolve(repository.repositoryUriForTag('v1'))))).toBe('tag');
  });

  test('GIVEN a bare repositoryUri WHEN resolved and split THEN it is unknown, as its end is an opaque Ref', () => {
    const stack = new Stack(new App(), 'Stack');
    const repository = new ecr.Repository(stack, 'Repository');
    expect(classifyImageReference(imageUriParts(stack.resolve(repository.repositoryUri)))).toBe('unknown');
    expect(classifyImageReference(imageUriParts(stack.resolve(`${repository.repositoryUri}`)))).toBe('unknown');
  });

  test('GIVEN a nested Fn::Join with a delimiter WHEN split THEN the delimiter joins the elements as literal text', () => {
    const value = { 'Fn::Join': [':', [{ 'Fn::Join': ['', [OPAQUE, '/model']] }, 'v1']] };
    expect(imageUriParts(value)).toEqual([OPAQUE, '/model:v1']);
    expect(classifyImageReference(imageUriParts(value))).toBe('tag');
  });

  test('GIVEN Fn::Sub with pseudo parameters and a digest WHEN split THEN placeholders are opaque and the digest counts', () => {
    const stack = new Stack(new App(), 'Stack');
    const value = stack.resolve(Fn.sub(`\${AWS::AccountId}.dkr.ecr.\${AWS::Region}.amazonaws.com/model@${DIGEST}`));
    expect(imageUriParts(value)).toEqual([
      { Ref: 'AWS::AccountId' },
      '.dkr.ecr.',
      { Ref: 'AWS::Region' },
      `.amazonaws.com/model@${DIGEST}`,
    ]);
    expect(classifyImageReference(imageUriParts(value))).toBe('digest');
  });

  test('GIVEN Fn::Sub with a variable map WHEN split THEN literal variables are inlined and escaped ${!x} stays text', () => {
    const value = { 'Fn::Sub': ['${Registry}/model:${Tag}${!x}', { Registry: REGISTRY, Tag: OPAQUE }] };
    expect(imageUriParts(value)).toEqual([`${REGISTRY}/model:`, OPAQUE, '${x}']);
    expect(classifyImageReference(imageUriParts(value))).toBe('tag');
  });

  test('GIVEN a single intrinsic such as a parameter reference WHEN split THEN it is one opaque part', () => {
    expect(imageUriParts(OPAQUE)).toEqual([OPAQUE]);
    expect(classifyImageReference(imageUriParts(OPAQUE))).toBe('unknown');
  });
});
