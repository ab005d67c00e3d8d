import { Aws, Fn, Names } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';

/**
 * `<the construct's path, lower case, <= 50 chars>-<last 12 hex digits of AWS::StackId>`: unique per path like
 * any generated name, and new each time the stack is created (the stack id's UUID) while fixed for its life, so a
 * log group SageMaker recreated during a rolled-back first deploy never blocks the next one. CloudFormation
 * resolves it from a pseudo parameter, before any resource exists, so the log group can be created first.
 * At most 63 characters, the limit of endpoint and inference component names.
 */
export function generatedEndpointName(scope: IConstruct): string {
  const prefix = Names.uniqueResourceName(scope, { maxLength: 50, separator: '-' }).toLowerCase();
  const stackUuid = Fn.select(2, Fn.split('/', Aws.STACK_ID));
  return `${prefix}-${Fn.select(4, Fn.split('-', stackUuid))}`;
}
