import { Aspects, CfnResource, Validations } from 'aws-cdk-lib';
import type { IAspect } from 'aws-cdk-lib';
import IAMNoWildcardPermissions from 'cdk-nag/lib/rules/iam/IAMNoWildcardPermissions';
import type { IConstruct } from 'constructs';

/**
 * Acknowledges, with one reason, each wildcard finding (`AwsSolutions-IAM5[Action::...]`, `[Resource::...]`) of the
 * IAM policies under `scope`.
 *
 * cdk-nag reports IAM5 per wildcard, with ids naming resolved tokens, so policies that another library generates
 * (CDK Pipelines) or that reference resources by token cannot be acknowledged by a fixed id. This asks the rule
 * itself for the ids at synth, after the policies are complete, and acknowledges exactly those: a new wildcard still
 * gets the same reason, so keep `scope` as narrow as the reason is true.
 */
export function acknowledgeWildcards(scope: IConstruct, reason: string): void {
  Aspects.of(scope).add(new WildcardAcknowledgement(reason));
}

class WildcardAcknowledgement implements IAspect {
  constructor(private readonly reason: string) {}

  visit(node: IConstruct): void {
    if (!CfnResource.isCfnResource(node) || !['AWS::IAM::Policy', 'AWS::IAM::Role', 'AWS::IAM::ManagedPolicy'].includes(node.cfnResourceType)) {
      return;
    }
    const findings = IAMNoWildcardPermissions(node);
    if (!Array.isArray(findings)) {
      return;
    }
    for (const finding of findings) {
      Validations.of(node).acknowledge({ id: `AwsSolutions-IAM5[${finding}]`, reason: this.reason });
    }
  }
}
