import { ArnFormat, CustomResource, Duration, Stack, Token, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import type { CompileSpec } from '../../../lib/compile';
import type { NeuronFunction } from '../../private/neuron-function';
import { acknowledgeWildcards } from '../../private/wildcard-acknowledgement';

/**
 * Regions where SageMaker Neo compiles for each Neuron target (SageMaker API reference, `OutputConfig.TargetDevice`:
 * `ml_inf2` only in us-east-2, `ml_trn1` only in us-east-1). `undefined`: no documented restriction.
 */
const NEO_REGIONS: Readonly<Record<CompileSpec['chip'], readonly string[] | undefined>> = {
  inf1: undefined,
  inf2: ['us-east-2'],
  trn1: ['us-east-1'],
};

/** PyTorch versions Neo supports for `ml_inf1` (SageMaker developer guide, "Neo supported cloud"). */
const NEO_INF1_PYTORCH = ['1.7', '1.8', '1.9'];

/** Why the Neo backend cannot compile this spec in this region, one sentence each. */
export function neoProblems(where: string, spec: CompileSpec, neo: { modelS3Uri: string; frameworkVersion: string }, region: string): string[] {
  const problems: string[] = [];
  const regions = NEO_REGIONS[spec.chip];
  if (regions !== undefined && !Token.isUnresolved(region) && !regions.includes(region)) {
    problems.push(`${where}: SageMaker Neo compiles for ml_${spec.chip} only in ${regions.join(', ')}, the stack is in ${region}; `
      + 'deploy the compile to that region or use CompileBackend.instance()');
  }
  if (spec.chip === 'inf1' && !NEO_INF1_PYTORCH.includes(neo.frameworkVersion)) {
    problems.push(`${where}: frameworkVersion=${neo.frameworkVersion}: Neo compiles PyTorch ${NEO_INF1_PYTORCH.join(', ')} for `
      + 'ml_inf1; trace with one of them or use CompileBackend.instance()');
  }
  if (spec.batchSizes.length !== 1) {
    problems.push(`${where}: Neo compiles one input shape; batchSizes=[${spec.batchSizes.join(', ')}] needs one job per batch size `
      + 'or CompileBackend.instance()');
  }
  if (!('s3Uri' in spec.source) || spec.source.format !== 'torchscript') {
    problems.push(`${where}: Neo compiles a TorchScript model.tar.gz from S3; set source to { "s3Uri": ..., "format": "torchscript" } `
      + 'and pass it as modelS3Uri');
  }
  if (!neo.modelS3Uri.endsWith('.tar.gz')) {
    problems.push(`${where}: modelS3Uri=${neo.modelS3Uri} must name a .tar.gz, the only input Neo reads`);
  }
  return problems;
}

/**
 * Acknowledges the wildcard findings (cdk-nag AwsSolutions-IAM5) of the compile job's own roles, each with what it
 * covers: the compile host's writes under this artifact's prefix and the CDK asset grant of the script; the handlers'
 * EC2 calls on resources that do not exist yet (limited by tag conditions) and the reads of manifests under the prefix.
 */
export function acknowledgeCompileFindings(role: iam.Role, handlers: readonly NeuronFunction[], artifactPrefix: string): void {
  acknowledgeWildcards(role, `Object wildcards under this artifact's own prefix (${artifactPrefix}*: one object per compiled `
    + 'file, named by the compile) and the grants L2 methods make for them (bucket.grantPut, the CDK asset grantRead of the '
    + 'compile script, KMS data keys for the bucket key): CDK does not narrow their action wildcards.');
  for (const fn of handlers) {
    acknowledgeWildcards(fn.serviceRole, 'ec2:DescribeInstances and ec2:DescribeImages support no resource-level permission; '
      + 'RunInstances, CreateTags and TerminateInstances act on instances, volumes and interfaces that do not exist yet and are '
      + 'limited by tag conditions to this job; RunInstances reads the public DLAMI image and the job\'s subnets; the bucket '
      + 'grant (grantRead) reads manifests and failure records of every hash under the job\'s prefix, since a Delete after an '
      + 'Update names the old hash.');
  }
}

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

/**
 * The compile job's custom resource, whatever it compiles: a Provider that starts the job (`onEvent`) and polls it
 * every 30 s (`isComplete`) for the job's timeout plus 10 minutes, at most the hour the framework allows, and the
 * `Custom::NeuronCompileJob` resource carrying the job's config as JSON.
 */
export function compileJobResource(scope: Construct, onEvent: NeuronFunction, isComplete: NeuronFunction,
  timeout: Duration, config: Record<string, unknown>): CustomResource {
  const provider = new cr.Provider(scope, 'Provider', {
    onEventHandler: onEvent,
    isCompleteHandler: isComplete,
    queryInterval: Duration.seconds(30),
    totalTimeout: Duration.minutes(Math.min(60, Math.ceil(timeout.toMinutes({ integral: false })) + 10)),
  });
  const resource = new CustomResource(scope, 'Resource', {
    serviceToken: provider.serviceToken,
    resourceType: 'Custom::NeuronCompileJob',
    properties: { Config: Stack.of(scope).toJsonString(config) },
  });
  acknowledgeProviderFindings(provider);
  return resource;
}

/** Acknowledges the findings of the aws-cdk-lib Provider framework's own functions, roles and state machine. */
function acknowledgeProviderFindings(provider: cr.Provider): void {
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

/** Where and as whom the compile host launches: the first fields of the custom resource's `instance` config. */
export interface CompileHostLaunch {
  readonly instanceTypes: readonly string[];
  readonly subnetIds: string[];
  readonly securityGroupIds: string[];
  readonly instanceProfileArn: string;
}

/**
 * The compile host's identity and network, shared by NeuronCompileJob and NeuronGenerativeCompileJob: an instance
 * profile of `role`, a security group with no ingress (`description` says what its egress reaches), and the given
 * subnets or the VPC's private subnets with egress.
 */
export function compileHost(scope: Construct, role: iam.Role, network: { vpc: ec2.IVpc; vpcSubnets?: ec2.SubnetSelection },
  instanceTypes: readonly string[], description: string): { securityGroup: ec2.SecurityGroup; launch: CompileHostLaunch } {
  const profile = new iam.InstanceProfile(scope, 'InstanceProfile', { role });
  const securityGroup = new ec2.SecurityGroup(scope, 'SecurityGroup', { vpc: network.vpc, description, allowAllOutbound: true });
  const subnets = network.vpc.selectSubnets(network.vpcSubnets ?? { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS });
  return {
    securityGroup,
    launch: {
      instanceTypes,
      subnetIds: subnets.subnetIds,
      securityGroupIds: [securityGroup.securityGroupId],
      instanceProfileArn: profile.instanceProfileArn,
    },
  };
}
