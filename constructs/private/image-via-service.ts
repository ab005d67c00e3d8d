import { Stack, Token } from 'aws-cdk-lib';
import { RegionInfo } from 'aws-cdk-lib/region-info';
import { IConstruct } from 'constructs';

/**
 * The `kms:ViaService` value of an AWS service in the stack's region, e.g. `ecr.us-east-1.amazonaws.com`.
 *
 * A literal when the region is known (readable templates and tests), else built from pseudo parameters.
 */
export function viaService(scope: IConstruct, service: string): string {
  const stack = Stack.of(scope);
  if (!Token.isUnresolved(stack.region)) {
    const suffix = RegionInfo.get(stack.region).domainSuffix;
    if (suffix !== undefined) {
      return `${service}.${stack.region}.${suffix}`;
    }
  }
  return `${service}.${stack.region}.${stack.urlSuffix}`;
}
