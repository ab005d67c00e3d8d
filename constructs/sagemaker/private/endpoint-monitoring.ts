/**
 * What watches an endpoint: the alarms that roll a deployment back, its dashboard, and the grants SageMaker needs to
 * attach the containers to a VPC.
 */
import { Annotations, Duration, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import { Construct } from 'constructs';
import type { GenerativePlan } from '../../../lib/generative/types';
import type { SmokeBenchmarkProps, GenerativeSmokeBenchmarkOptions } from '../../proof/smoke-benchmark-props';
import { SmokeTarget } from '../../proof/smoke-target';
import type { ModelServerMetrics } from '../../monitoring/model-server-metrics';
import { isOwned } from '../../private/ownership';
import { RollbackAlarms } from '../../private/rollback-alarms';
import { nagResource } from '../../private/data-nag';
import type { EndpointLayout } from '../../private/endpoint-layout';
import { ERROR_RATE_ALARM_PERCENT, INeuronSageMakerEndpoint, P99_ALARM_FACTOR } from '../endpoint-props';
import type { EndpointNetworkOptions } from '../endpoint-props';

/** An endpoint construct whose metrics the alarms and the dashboard read; they are created in its scope. */
export type MonitoredEndpoint = Construct & INeuronSageMakerEndpoint;

/** What the 5XX alarm of a SageMaker hosting reads, and what its description says. */
export interface ErrorRateAlarmOptions {
  /** The name the description gives, e.g. the endpoint's or the inference component's. */
  readonly subject: string;
  /** 5XX answers (sum); the alarm reads it per minute. */
  readonly errors: cloudwatch.IMetric;
  /** Invocations (sum); the alarm reads it per minute. */
  readonly invocations: cloudwatch.IMetric;
  /** What the alarm firing does, ending the description, e.g. `rolls a deployment back`. */
  readonly onAlarm: string;
}

/**
 * The 5XX alarm every SageMaker hosting rolls back on (id `Errors5xxAlarm`): 5XX above 1 % of the invocations in 2 of
 * 3 minutes, on the endpoint variant's metrics or the inference component's.
 */
export function errorRateAlarm(scope: Construct, options: ErrorRateAlarmOptions): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, 'Errors5xxAlarm', {
    alarmDescription: `More than ${ERROR_RATE_ALARM_PERCENT} % of the requests to ${options.subject} answered `
      + `with 5XX in 2 of 3 minutes; ${options.onAlarm}.`,
    // A rate, not a count: one 5XX among thousands of requests a minute is noise, not a bad deployment. The
    // 1 % matches the smoke benchmark's default error-rate threshold. No traffic leaves the rate missing.
    metric: new cloudwatch.MathExpression({
      expression: '100 * FILL(errors, 0) / invocations',
      usingMetrics: { errors: options.errors, invocations: options.invocations },
      label: '5XX error rate (%)',
      period: Duration.minutes(1),
    }),
    threshold: ERROR_RATE_ALARM_PERCENT,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    // Two bad minutes out of three: a single bad minute (a worker restarting) does not undo a deployment, a
    // sustained failure does within the canary's baking time.
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
    // No traffic is not an error: stay OK, so a quiet deployment is not rolled back.
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}

/** The rollback set of a SageMaker hosting: SageMaker reads each alarm in it as the execution role during a deployment. */
export function rollbackAlarmsReadBy(role: iam.IRole): RollbackAlarms {
  return new RollbackAlarms((added) => {
    iam.Grant.addToPrincipal({
      grantee: role,
      actions: ['cloudwatch:DescribeAlarms'],
      resourceArns: added.map((a) => a.alarmArn),
    });
  });
}

export function endpointRollbackAlarms(endpoint: MonitoredEndpoint, layout: EndpointLayout,
  latencyThreshold: Duration | undefined): cloudwatch.Alarm[] {
  const alarms: cloudwatch.Alarm[] = [
    errorRateAlarm(endpoint, {
      subject: endpoint.endpointName,
      errors: endpoint.metric5xxErrors({ period: Duration.minutes(1) }),
      invocations: endpoint.metricInvocations({ period: Duration.minutes(1) }),
      onAlarm: 'rolls a deployment back',
    }),
  ];
  if (layout.p99TargetMs !== undefined || latencyThreshold !== undefined) {
    const thresholdMs = latencyThreshold?.toMilliseconds() ?? (layout.p99TargetMs as number) * P99_ALARM_FACTOR;
    alarms.push(new cloudwatch.Alarm(endpoint, 'ModelLatencyP99Alarm', {
      alarmDescription: `p99 ModelLatency of ${endpoint.endpointName} above ${thresholdMs} ms in 2 of 3 minutes`
        + (layout.p99TargetMs === undefined ? '' : ` (the plan's p99 target ${layout.p99TargetMs} ms plus `
          + `${Math.round((P99_ALARM_FACTOR - 1) * 100)} % for the container's own overhead)`)
        + '; rolls a deployment back.',
      metric: endpoint.metricModelLatency({ period: Duration.minutes(1), statistic: cloudwatch.Stats.p(99) }),
      // ModelLatency is in MICROseconds.
      threshold: Math.round(thresholdMs * 1000),
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      // Two slow minutes out of three: one cold-start minute on fresh workers should not undo a deployment.
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }));
  }
  return alarms;
}

/** SageMaker's view of the endpoint, then the model server's own, when the image runs it. */
export function endpointDashboard(endpoint: MonitoredEndpoint, serverMetrics: ModelServerMetrics | undefined,
  pools?: cloudwatch.IWidget): cloudwatch.Dashboard {
  const minute = Duration.minutes(1);
  // Instance metrics are per variant in the `/aws/sagemaker/Endpoints` namespace, in percent of one vCPU (CPU)
  // or of the instance (memory, disk) (SageMaker Developer Guide, "SageMaker endpoint invocation metrics").
  const instance = (metricName: string) => new cloudwatch.Metric({
    namespace: '/aws/sagemaker/Endpoints',
    metricName,
    dimensionsMap: { EndpointName: endpoint.endpointName, VariantName: endpoint.variantName },
    statistic: cloudwatch.Stats.AVERAGE,
    period: minute,
    label: metricName,
  });
  const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = []) =>
    new cloudwatch.GraphWidget({ title, left, right, width: 6, height: 6, leftYAxis: { min: 0 } });
  const dashboard = new cloudwatch.Dashboard(endpoint, 'Dashboard', { defaultInterval: Duration.hours(3) });
  dashboard.addWidgets(
    graph('SageMaker: invocations per minute', [
      endpoint.metricInvocations({ period: minute, label: 'Invocations' }),
      endpoint.metricInvocationsPerInstance({ period: minute, label: 'Per instance' }),
    ]),
    graph('SageMaker: latency p50/p99 (microseconds)', [
      endpoint.metricModelLatency({ period: minute, statistic: cloudwatch.Stats.p(50), label: 'ModelLatency p50' }),
      endpoint.metricModelLatency({ period: minute, label: 'ModelLatency p99' }),
      endpoint.metricOverheadLatency({ period: minute, label: 'OverheadLatency p99' }),
    ]),
    graph('SageMaker: errors', [
      endpoint.metric5xxErrors({ period: minute, label: '5XX' }),
      endpoint.metricInvocation4xxErrors({ period: minute, label: '4XX' }),
    ]),
    graph('SageMaker: instance CPU, memory, disk (%)', [
      instance('CPUUtilization'), instance('MemoryUtilization'), instance('DiskUtilization'),
    ]),
  );
  if (serverMetrics) {
    dashboard.addWidgets(...serverMetrics.widgets());
  }
  if (pools) {
    dashboard.addWidgets(pools);
  }
  return dashboard;
}

/**
 * Lets the role manage the network interfaces SageMaker attaches to the containers in `vpc`: the EC2 actions the
 * SageMaker developer guide lists for a model with `VpcConfig` ("CreateModel API: Execution Role Permissions",
 * https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-roles.html#sagemaker-roles-createmodel-perms),
 * scoped as far as IAM allows (Service Authorization Reference, Amazon EC2,
 * https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html): interfaces may be
 * created, shared and deleted only in the chosen subnets of this VPC (`ec2:Subnet`, `ec2:Vpc` on the
 * network-interface resource), with only these subnets and security groups; the `Describe*` actions and
 * `DeleteNetworkInterfacePermission` support no resource-level permission, hence `*`.
 */
export function grantVpcAccess(scope: Construct, role: iam.IRole, vpc: ec2.IVpc, subnetIds: string[],
  securityGroups: ec2.ISecurityGroup[]): void {
  const stack = Stack.of(scope);
  const ec2Arn = (resource: string, name: string) => stack.formatArn({ service: 'ec2', resource, resourceName: name });
  const interfaces = ec2Arn('network-interface', '*');
  // Both keys must match; a list of subnets matches any one of them.
  const inThisNetwork = {
    ArnEquals: { 'ec2:Vpc': ec2Arn('vpc', vpc.vpcId), 'ec2:Subnet': subnetIds.map((id) => ec2Arn('subnet', id)) },
  };
  iam.Grant.addToPrincipal({
    grantee: role,
    actions: ['ec2:CreateNetworkInterface', 'ec2:CreateNetworkInterfacePermission', 'ec2:DeleteNetworkInterface'],
    resourceArns: [interfaces],
    conditions: inThisNetwork,
  });
  iam.Grant.addToPrincipal({
    grantee: role,
    // CreateNetworkInterface is also authorized against the subnet and the security groups it uses.
    actions: ['ec2:CreateNetworkInterface'],
    resourceArns: [
      ...subnetIds.map((id) => ec2Arn('subnet', id)),
      ...securityGroups.map((sg) => ec2Arn('security-group', sg.securityGroupId)),
    ],
  });
  iam.Grant.addToPrincipal({
    grantee: role,
    actions: [
      'ec2:DeleteNetworkInterfacePermission', 'ec2:DescribeDhcpOptions', 'ec2:DescribeNetworkInterfaces',
      'ec2:DescribeSecurityGroups', 'ec2:DescribeSubnets', 'ec2:DescribeVpcs',
    ],
    resourceArns: ['*'],
  });
  const principal = role.grantPrincipal;
  if (Construct.isConstruct(principal) && !isOwned(principal)) {
    // The user's own role: its findings are the user's to acknowledge, or a wildcard of theirs would hide behind ours.
    Annotations.of(scope).addWarningV2('@cdk-inferentia/sagemaker:userRoleWildcards',
      `${principal.node.path} gets the VPC permissions SageMaker needs, two with Resource * (EC2 Describe* and `
      + 'DeleteNetworkInterfacePermission have no resource-level permission) and one on network-interface/* scoped '
      + 'by ec2:Vpc and ec2:Subnet; cdk-nag reports them as AwsSolutions-IAM5 on your role: acknowledge them there.');
  } else if (Construct.isConstruct(principal)) {
    Validations.of(principal).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagResource(principal, interfaces)}]`,
      reason: 'SageMaker creates the network interfaces of the model containers at deploy time, so their ids are '
        + 'unknown; the statement allows only interfaces in the chosen subnets of this VPC (ec2:Subnet, ec2:Vpc).',
    }, {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Actions with no resource-level permission (IAM requires Resource *): cloudwatch:PutMetricData '
        + '(limited by a cloudwatch:namespace condition), ecr:GetAuthorizationToken (grants no image), and for a VPC '
        + 'the ec2:Describe* calls and ec2:DeleteNetworkInterfacePermission SageMaker makes for the containers\' '
        + 'network interfaces.',
    });
  }
}

/** Problems of the network props, to report with the endpoint's others before any resource exists. */
export function networkProblems(props: EndpointNetworkOptions): string[] {
  return props.vpc === undefined && (props.vpcSubnets !== undefined || props.securityGroups !== undefined)
    ? ['vpcSubnets or securityGroups is set without vpc; pass the vpc the containers run in, or remove them']
    : [];
}

/**
 * The model's VPC config and the containers' connections: in `vpc`, with the given security groups or one of this
 * endpoint's (no ingress), and the role granted what SageMaker needs to attach them ({@link grantVpcAccess}); without
 * `vpc`, SageMaker's managed network and no security group.
 */
export function endpointNetwork(scope: Construct, role: iam.IRole, props: EndpointNetworkOptions):
{ readonly vpcConfig?: sagemaker.CfnModel.VpcConfigProperty; readonly connections: ec2.Connections } {
  if (!props.vpc) {
    return { connections: new ec2.Connections({ securityGroups: [] }) };
  }
  const securityGroups = props.securityGroups ?? [new ec2.SecurityGroup(scope, 'SecurityGroup', {
    vpc: props.vpc,
    description: `SageMaker endpoint ${scope.node.path} model containers`,
    allowAllOutbound: true,
  })];
  const subnets = props.vpc.selectSubnets(props.vpcSubnets).subnetIds;
  grantVpcAccess(scope, role, props.vpc, subnets, securityGroups);
  return {
    vpcConfig: { subnets, securityGroupIds: securityGroups.map((sg) => sg.securityGroupId) },
    connections: new ec2.Connections({ securityGroups }),
  };
}

/**
 * The proof in tokens of a generative model behind an inference component: the golden prompt and a streamed run,
 * judged against the plan, through the SageMaker runtime with the component named. The endpoint's `smokeBenchmark`
 * and `GenerativeInferenceStack` both build it here.
 */
export function inferenceComponentProof(
  endpoint: INeuronSageMakerEndpoint & { readonly inferenceComponentName: string; readonly deploymentFingerprint: string },
  plan: GenerativePlan,
  servedModelName: string,
  options: GenerativeSmokeBenchmarkOptions,
): SmokeBenchmarkProps {
  const { tokens, ...rest } = options;
  return {
    ...rest,
    plan,
    target: SmokeTarget.sageMakerEndpoint(endpoint, { inferenceComponentName: endpoint.inferenceComponentName }),
    tokens: { ...tokens, servedModelName },
  };
}
