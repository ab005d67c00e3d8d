import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { DeployRefusal } from '../../../constructs/proof/deploy-refusal';
import { InputError } from '../../../lib/errors';
import { failedRuleAssertions } from '../../support/cfn-rules';

const REAL = { accountId: '210987654321', region: 'us-east-1' };

function warnings(stack: Stack): string[] {
  return stack.node.metadata.filter((m) => m.type === 'aws:cdk:warning').map((m) => String(m.data));
}

describe('A deploy refusal for a problem in the template', () => {
  // GIVEN a stack with a resource and a refusal
  const app = new App();
  const stack = new Stack(app, 'S', { env: { account: '123456789012', region: 'us-east-1' } });
  new sns.Topic(stack, 'Topic');
  new DeployRefusal(stack, 'PlaceholderDigest', { message: 'imageDigest is the placeholder; set it' });
  // WHEN
  const template = Template.fromStack(stack).toJSON();

  test('still synthesizes every resource, and warns with the message', () => {
    // THEN
    expect(Object.keys(template.Resources)).toHaveLength(1);
    expect(warnings(stack)).toEqual([expect.stringContaining('imageDigest is the placeholder; set it (synth works; '
      + '`cdk deploy` is refused by CloudFormation before any resource is created)')]);
  });

  test('writes a rule whose assertion references AWS::AccountId and is false in every account', () => {
    // THEN
    const rules = Object.values(template.Rules as Record<string, { Assertions: unknown[] }>)
      .filter((r) => JSON.stringify(r).includes('placeholder'));
    expect(rules).toEqual([{
      Assertions: [{
        Assert: { 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AWS::AccountId' }, { Ref: 'AWS::AccountId' }] }] },
        AssertDescription: 'imageDigest is the placeholder; set it',
      }],
    }]);
    expect(failedRuleAssertions(template, REAL)).toEqual(['imageDigest is the placeholder; set it']);
    expect(failedRuleAssertions(template, { accountId: '123456789012', region: 'eu-west-1' }))
      .toEqual(['imageDigest is the placeholder; set it']);
  });
});

describe('A deploy refusal for a placeholder account', () => {
  test('refuses that account only', () => {
    // GIVEN
    const stack = new Stack(new App(), 'S');
    new sns.Topic(stack, 'Topic');
    // WHEN
    new DeployRefusal(stack, 'PlaceholderAccount', { message: 'account is the placeholder', account: '123456789012' });
    const template = Template.fromStack(stack).toJSON();
    // THEN
    expect(failedRuleAssertions(template, { accountId: '123456789012', region: 'us-east-1' }))
      .toEqual(['account is the placeholder']);
    expect(failedRuleAssertions(template, REAL)).toEqual([]);
  });
});

describe('The props of a deploy refusal', () => {
  test('need a message and a 12-digit account, all problems at once', () => {
    // GIVEN
    const stack = new Stack(new App(), 'S');
    // WHEN / THEN
    expect(() => new DeployRefusal(stack, 'R', { message: ' ', account: 'prod' })).toThrow(new InputError([
      'message is blank; say why the deploy cannot work and how to fix it',
      'account="prod" is not a 12-digit AWS account id',
    ], { constructPath: 'S/R' }));
  });
});
