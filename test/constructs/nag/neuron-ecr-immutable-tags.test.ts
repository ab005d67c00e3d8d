import { CfnRepository } from 'aws-cdk-lib/aws-ecr';
import { NagRuleCompliance } from 'cdk-nag';
import { NeuronEcrImmutableTags } from '../../../constructs/nag';
import { expectSynthFailsOn, neuronCheckedStack, testVerdicts } from './fixtures';

const EXCLUSION = { ImageTagMutabilityExclusionFilterType: 'WILDCARD', ImageTagMutabilityExclusionFilterValue: 'dev-*' };

describe('NeuronEcrImmutableTags: an ECR repository never moves a tag to another image', () => {
  testVerdicts(NeuronEcrImmutableTags, 'AWS::ECR::Repository', 'GIVEN a repository with %s WHEN checked THEN it is %s', [
    ['IMMUTABLE', { ImageTagMutability: 'IMMUTABLE' }, NagRuleCompliance.COMPLIANT],
    ['IMMUTABLE_WITH_EXCLUSION and no exclusions', { ImageTagMutability: 'IMMUTABLE_WITH_EXCLUSION' }, NagRuleCompliance.COMPLIANT],
    [
      'IMMUTABLE_WITH_EXCLUSION and an exclusion',
      { ImageTagMutability: 'IMMUTABLE_WITH_EXCLUSION', ImageTagMutabilityExclusionFilters: [EXCLUSION] },
      NagRuleCompliance.NON_COMPLIANT,
    ],
    ['MUTABLE', { ImageTagMutability: 'MUTABLE' }, NagRuleCompliance.NON_COMPLIANT],
    [
      'MUTABLE_WITH_EXCLUSION',
      { ImageTagMutability: 'MUTABLE_WITH_EXCLUSION', ImageTagMutabilityExclusionFilters: [EXCLUSION] },
      NagRuleCompliance.NON_COMPLIANT,
    ],
    ['no mutability setting (MUTABLE by default)', {}, NagRuleCompliance.NON_COMPLIANT],
    ['a mutability from a parameter', { ImageTagMutability: { Ref: 'Mutability' } }, NagRuleCompliance.NOT_APPLICABLE],
    [
      'exclusions from a parameter',
      { ImageTagMutability: 'IMMUTABLE_WITH_EXCLUSION', ImageTagMutabilityExclusionFilters: { Ref: 'Filters' } },
      NagRuleCompliance.NOT_APPLICABLE,
    ],
  ], { type: 'AWS::SQS::Queue', noun: 'a repository' });

  test('GIVEN an immutable and a mutable repository WHEN the app synthesizes THEN synth fails on the second only', () => {
    const stack = neuronCheckedStack();
    new CfnRepository(stack, 'Immutable', { imageTagMutability: 'IMMUTABLE' });
    new CfnRepository(stack, 'Mutable', { imageTagMutability: 'MUTABLE' });

    expectSynthFailsOn(stack, 'Neuron-EcrImmutableTags', ['Fixture/Mutable']);
  });
});
