import type { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';

/**
 * THEN `stack` holds an IAM policy, attached to the role whose logical ID starts with `roleIdPrefix`, whose statements
 * are exactly `statements` in that order.
 */
export function expectRolePolicy(stack: Stack, roleIdPrefix: string, statements: readonly object[]): void {
  Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
    PolicyDocument: { Statement: statements },
    Roles: [{ Ref: Match.stringLikeRegexp(`^${roleIdPrefix}`) }],
  });
}

/** The ECR actions that pull an image's layers and manifest. */
export const ECR_PULL_ACTIONS = ['ecr:BatchCheckLayerAvailability', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchGetImage'];

/**
 * The statements that let a role in us-east-1 pull from the repository with logical ID `repositoryId`, encrypted with
 * the KMS key `keyId`: the pull actions on the repository, the registry token, and decrypt only through ECR.
 */
export function ecrPullStatements(repositoryId: string, keyId: string): object[] {
  return [
    { Effect: 'Allow', Action: ECR_PULL_ACTIONS, Resource: { 'Fn::GetAtt': [repositoryId, 'Arn'] } },
    { Effect: 'Allow', Action: 'ecr:GetAuthorizationToken', Resource: '*' },
    {
      Effect: 'Allow',
      Action: 'kms:Decrypt',
      Resource: { 'Fn::GetAtt': [keyId, 'Arn'] },
      Condition: { StringEquals: { 'kms:ViaService': 'ecr.us-east-1.amazonaws.com' } },
    },
  ];
}
