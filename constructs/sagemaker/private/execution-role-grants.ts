/**
 * What an endpoint gives the execution role it runs as, whoever made the role: the starting statements of
 * {@link NeuronSageMakerExecutionRole} (metrics in the SageMaker namespaces and the container's own, the ECR token),
 * on top of the grants of what it binds (image, model data, log groups, rollback alarms).
 */
import { Annotations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { isOwned } from '../../private/ownership';
import { hostingStatements, NeuronSageMakerExecutionRole, SAGEMAKER_METRIC_NAMESPACES } from '../sagemaker-execution-role';

/**
 * How the role took the statements: `own` (the construct's role), `granted` (a mutable role of the user's, which now
 * has them in its default policy), or `immutable` (a role imported with `mutable: false`, which takes nothing: CDK
 * reports success for it and drops the statement, so it must already allow everything).
 */
export type RoleGrantOutcome = 'own' | 'granted' | 'immutable';

/**
 * Gives `role` the statements the construct's own role starts with, the container's metric namespaces included.
 *
 * A role is immutable when adding a statement leaves no policy behind: CDK's immutable role answers
 * `statementAdded: true` and keeps nothing, while a mutable one (an `iam.Role`, or one imported mutable) puts the
 * statement in a policy it owns (`DefaultPolicy`, or the `Policy` attached to an imported role).
 *
 * @param metricNamespaces namespaces beyond the SageMaker ones the container publishes to
 */
export function grantHostingStatements(scope: Construct, role: iam.IRole, metricNamespaces: readonly string[]): RoleGrantOutcome {
  if (role instanceof NeuronSageMakerExecutionRole) {
    metricNamespaces.forEach((namespace) => role.addMetricNamespace(namespace));
    return 'own';
  }
  const added = hostingStatements([...SAGEMAKER_METRIC_NAMESPACES, ...metricNamespaces])
    .map((statement) => role.addToPrincipalPolicy(statement).statementAdded);
  if (!added.every(Boolean) || !holdsStatements(role)) {
    return 'immutable';
  }
  const principal = role.grantPrincipal;
  if (Construct.isConstruct(principal) && !isOwned(principal)) {
    // The user's own role: its findings are the user's to acknowledge, or a wildcard of theirs would hide behind ours.
    Annotations.of(scope).addWarningV2('@cdk-inferentia/sagemaker:userRoleHostingStatements',
      `${principal.node.path} gets what the default execution role starts with: cloudwatch:PutMetricData in namespaces `
      + `${[...SAGEMAKER_METRIC_NAMESPACES, ...metricNamespaces].join(', ')} only (a cloudwatch:namespace condition) and `
      + 'ecr:GetAuthorizationToken; neither action has a resource-level permission, so cdk-nag reports them as '
      + 'AwsSolutions-IAM5[Resource::*] on your role: acknowledge them there.');
  }
  return 'granted';
}

/** Whether a statement added to `role` landed in a policy of its own; a role that is not a construct is taken at its word. */
function holdsStatements(role: iam.IRole): boolean {
  return !Construct.isConstruct(role) || role.node.findAll().some((c) => c instanceof iam.Policy && !c.document.isEmpty);
}

/** What synth says of an immutable role it cannot grant anything: each grant it must already have (docs/security.md). */
export function immutableRoleNote(role: iam.IRole): string {
  const name = Construct.isConstruct(role) ? role.node.path : 'the role';
  return `${name} is immutable (imported with mutable: false), so the endpoint grants it nothing; it must already allow `
    + 'ECR pull on the image\'s repository and ecr:GetAuthorizationToken, s3:GetObject on the model data prefix (kms:Decrypt '
    + 'on its key), logs:CreateLogStream, logs:PutLogEvents, logs:CreateLogGroup and logs:DescribeLogStreams on the '
    + 'endpoint\'s log groups, cloudwatch:DescribeAlarms on the rollback alarms, cloudwatch:PutMetricData in '
    + `${SAGEMAKER_METRIC_NAMESPACES.join(' and ')}, and with vpc the EC2 network-interface actions (docs/security.md lists each and why).`;
}

/**
 * Why a generative endpoint refuses an immutable role while the engine's metrics are on: their data reaches CloudWatch
 * only through grants the endpoint cannot add, and the TTFT/TPOT rollback alarms would never see any.
 */
export function engineMetricsRoleProblem(role: iam.IRole, namespace: string): string {
  const name = Construct.isConstruct(role) ? role.node.path : 'the role';
  return `role ${name} is immutable (imported with mutable: false), so this endpoint cannot grant it what the engine's metrics `
    + 'need: logs:CreateLogStream and logs:PutLogEvents on the inference component\'s log group '
    + `(/aws/sagemaker/InferenceComponents/<name>, where the engine writes TTFT, TPOT and its queue as embedded metrics) and `
    + `cloudwatch:PutMetricData in namespace ${namespace}; without them the TTFT and TPOT alarms that roll an update back never `
    + 'see data. Pass a mutable role (iam.Role.fromRoleArn(scope, id, arn) lets the stack attach a policy to it), or let the '
    + 'endpoint define its role (with iam.Role.customizeRoles a role created from CDK\'s policy report stands in for it), or set '
    + 'engineMetrics: false to run without the engine\'s metrics and the alarms on them';
}
