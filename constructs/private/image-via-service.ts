import { Stack, Token } from 'aws-cdk-lib';
import { RegionInfo } from 'aws-cdk-lib/region-info';
import { IConstruct } from 'constructs';

/**
 * The domain suffix of the stack's region (`amazonaws.com`, `amazonaws.com.cn`).
 *
 * A literal when the region is known, so templates and tests read plainly; else the `AWS::URLSuffix` pseudo
 * parameter.
 */
export function domainSuffix(scope: IConstruct): string {
  const stack = Stack.of(scope);
  if (!Token.isUnresolved(stack.region)) {
    const suffix = RegionInfo.get(stack.region).domainSuffix;
    if (suffix !== undefined) {
      return suffix;
    }
  }
  return stack.urlSuffix;
}

/** The `kms:ViaService` value of an AWS service in the stack's region, e.g. `ecr.us-east-1.amazonaws.com`. */
export function viaService(scope: IConstruct, service: string): string {
  return `${service}.${Stack.of(scope).region}.${domainSuffix(scope)}`;
}
