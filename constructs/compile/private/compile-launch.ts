import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import type { NeuronFunction } from '../../private/neuron-function';
import { acknowledgeWildcards } from '../../private/wildcard-acknowledgement';

/**
 * The handlers' permissions to launch, describe and terminate the compile host of one job: launches only with the
 * job's tags, from the AMI parameter, into the job's security group; terminates only instances tagged with the job.
 * Shared by NeuronCompileJob and NeuronGenerativeCompileJob.
 */
export function grantCompileLaunch(scope: Construct, onEvent: NeuronFunction, isComplete: NeuronFunction, role: iam.Role,
securityGroup: ec2.SecurityGroup, amiParameter: string, jobTag: string, hash: string): void {
  const stack = Stack.of(scope);
  const ec2Arn = (resource: string, account = stack.account) =>
    stack.formatArn({ service: 'ec2', resource, resourceName: '*', account, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
  onEvent.addToRolePolicy(new iam.PolicyStatement({
    sid: 'ReadDlamiParameter',
    actions: ['ssm:GetParameter'],
    resources: [stack.formatArn({ service: 'ssm', account: '', resource: 'parameter', resourceName: amiParameter.replace(/^\//, '') })],
  }));
  onEvent.addToRolePolicy(new iam.PolicyStatement({
    sid: 'LaunchTaggedCompileHost',
    actions: ['ec2:RunInstances'],
    resources: [ec2Arn('instance'), ec2Arn('volume'), ec2Arn('network-interface')],
    conditions: { StringEquals: { 'aws:RequestTag/cdk-inferentia:compile-hash': hash, 'aws:RequestTag/cdk-inferentia:compile-job': jobTag } },
  }));
  onEvent.addToRolePolicy(new iam.PolicyStatement({
    sid: 'LaunchFromDlamiIntoSubnets',
    actions: ['ec2:RunInstances'],
    resources: [ec2Arn('image', ''), ec2Arn('subnet'), stack.formatArn({ service: 'ec2', resource: 'security-group', resourceName: securityGroup.securityGroupId, arnFormat: ArnFormat.SLASH_RESOURCE_NAME })],
  }));
  onEvent.addToRolePolicy(new iam.PolicyStatement({
    sid: 'TagAtLaunch',
    actions: ['ec2:CreateTags'],
    resources: [ec2Arn('instance'), ec2Arn('volume'), ec2Arn('network-interface')],
    conditions: { StringEquals: { 'ec2:CreateAction': 'RunInstances' } },
  }));
  role.grantPassRole(onEvent.grantPrincipal);
  for (const fn of [onEvent, isComplete]) {
    fn.addToRolePolicy(new iam.PolicyStatement({
      sid: 'DescribeCompileHosts',
      actions: ['ec2:DescribeInstances', 'ec2:DescribeImages'],
      resources: ['*'],
    }));
    fn.addToRolePolicy(new iam.PolicyStatement({
      sid: 'TerminateOwnCompileHosts',
      actions: ['ec2:TerminateInstances'],
      resources: [ec2Arn('instance')],
      conditions: { StringEquals: { 'aws:ResourceTag/cdk-inferentia:compile-job': jobTag } },
    }));
  }
}

/** Acknowledges the findings of the aws-cdk-lib Provider framework's own functions, roles and state machine. */
export function acknowledgeProviderFindings(provider: cr.Provider): void {
  const reason = 'aws-cdk-lib custom_resources.Provider framework (not ours): its generated functions, roles and Step '
    + 'Functions waiter are fixed by aws-cdk-lib; they invoke only this job\'s two handlers.';
  acknowledgeWildcards(provider, reason);
  Validations.of(provider).acknowledge(
    { id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]', reason },
    { id: 'AwsSolutions-L1', reason },
    { id: 'AwsSolutions-SF1', reason },
    { id: 'AwsSolutions-SF2', reason },
  );
}
