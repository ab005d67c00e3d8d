import { Lazy, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { InputError } from '../../lib/errors';

/**
 * CloudWatch namespaces SageMaker hosting publishes to with the execution role: instance metrics (CPU, memory,
 * disk) under `/aws/sagemaker/Endpoints`, endpoint metrics under `AWS/SageMaker`.
 *
 * @see https://docs.aws.amazon.com/sagemaker/latest/dg/monitoring-cloudwatch.html
 */
export const SAGEMAKER_METRIC_NAMESPACES: readonly string[] = ['/aws/sagemaker/Endpoints', 'AWS/SageMaker'];

/**
 * The statements every SageMaker execution role of this library starts with, whoever made the role: publishing metrics
 * in `metricNamespaces` only (`cloudwatch:PutMetricData` with a `cloudwatch:namespace` condition), and the ECR token.
 * Both actions support no resource-level permission, so IAM requires `Resource: *`. {@link NeuronSageMakerExecutionRole}
 * starts with them; the endpoints add them to a mutable role passed in, so that role gets what the default one has.
 *
 * @param metricNamespaces the namespaces the role may publish to: {@link SAGEMAKER_METRIC_NAMESPACES} and the
 *   container's own (the engine's, for a generative endpoint)
 * @param sid the metrics statement's id; none on a role of the user's, where two endpoints may add different ones
 * @see https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-roles.html#sagemaker-roles-createmodel-perms
 */
export function hostingStatements(metricNamespaces: string[], sid?: string): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      sid,
      actions: ['cloudwatch:PutMetricData'],
      resources: ['*'],
      conditions: { StringEquals: { 'cloudwatch:namespace': metricNamespaces } },
    }),
    new iam.PolicyStatement({
      actions: ['ecr:GetAuthorizationToken'],
      resources: ['*'],
    }),
  ];
}

/** Props of {@link NeuronSageMakerExecutionRole}. */
export interface NeuronSageMakerExecutionRoleProps {
  /**
   * Name of the role.
   *
   * @default - CloudFormation-generated
   */
  readonly roleName?: string;

  /**
   * Description of the role.
   *
   * @default 'Runs a SageMaker endpoint on AWS Neuron instances with least privilege'
   */
  readonly description?: string;
}

/**
 * The role a SageMaker endpoint on Neuron instances runs as: least privilege, no AWS managed policy.
 *
 * It is itself an `iam.Role` (and `role` returns it, for code that expects a wrapper). It starts with only what
 * hosting needs and nothing else grants: `cloudwatch:PutMetricData` limited to the SageMaker namespaces, and
 * `ecr:GetAuthorizationToken`. Everything else arrives through grants of the resources involved:
 * `ModelImage.bind` (pull on one repository), `ModelData.bind` (read on one S3 prefix, decrypt on its key),
 * and the endpoint's log group. Both starting statements need `Resource: *` because the actions support no
 * resource-level permission; they are acknowledged for cdk-nag with that reason.
 *
 * Hosting constructs must make the SageMaker Model depend on this role (`model.node.addDependency(role)`), so that
 * SageMaker sees the grants (they live in the child `DefaultPolicy`) when it validates the image at CreateModel.
 *
 * @see https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-roles.html#sagemaker-roles-createmodel-perms
 */
export class NeuronSageMakerExecutionRole extends iam.Role {
  private readonly metricNamespaces: string[] = [...SAGEMAKER_METRIC_NAMESPACES];

  constructor(scope: Construct, id: string, props: NeuronSageMakerExecutionRoleProps = {}) {
    // Checked before super(), so nothing is created: the path is the one the role would have.
    InputError.throwIfAny(validateProps(props), { constructPath: scope.node.path ? `${scope.node.path}/${id}` : id });
    super(scope, id, {
      roleName: props.roleName,
      description: props.description ?? 'Runs a SageMaker endpoint on AWS Neuron instances with least privilege',
      assumedBy: new iam.ServicePrincipal('sagemaker.amazonaws.com'),
    });

    for (const statement of hostingStatements(Lazy.list({ produce: () => this.metricNamespaces }), 'PublishEndpointMetrics')) {
      this.addToPrincipalPolicy(statement);
    }

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'cloudwatch:PutMetricData and ecr:GetAuthorizationToken support no resource-level permissions, so '
        + 'IAM requires Resource *; PutMetricData is limited to the SageMaker namespaces by a cloudwatch:namespace '
        + 'condition, and the token alone grants no image (pull is granted per repository).',
    });
  }

  /** This role; for code written against a construct that wraps one. */
  get role(): iam.Role {
    return this;
  }

  /**
   * Also lets the role publish metrics under `namespace`, e.g. the one neuron-monitor writes to when the Neuron DLC
   * runs it (`NEURON_MONITOR_CW_NAMESPACE`).
   */
  addMetricNamespace(namespace: string): void {
    if (!Token.isUnresolved(namespace) && namespace.trim() === '') {
      throw new InputError(`${this.node.path}.addMetricNamespace(namespace): namespace=${JSON.stringify(namespace)} is `
        + 'blank; pass the CloudWatch namespace the container publishes to');
    }
    if (!this.metricNamespaces.includes(namespace)) {
      this.metricNamespaces.push(namespace);
    }
  }

  /**
   * Lets `grantee` pass this role, to SageMaker only (condition `iam:PassedToService`).
   *
   * Whoever calls `CreateModel` with this role (a pipeline, a custom resource) needs it.
   */
  grantPassRole(grantee: iam.IPrincipal): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['iam:PassRole'],
      resourceArns: [this.roleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'sagemaker.amazonaws.com' } },
    });
  }
}

function validateProps(props: NeuronSageMakerExecutionRoleProps): string[] {
  const problems: string[] = [];
  const { roleName, description } = props;
  if (roleName !== undefined && !Token.isUnresolved(roleName) && !/^[\w+=,.@-]{1,64}$/.test(roleName)) {
    problems.push(`roleName=${JSON.stringify(roleName)} is not a valid IAM role name; use 1-64 letters, digits `
      + "and '+=,.@_-', or leave it unset for a generated name");
  }
  if (description !== undefined && !Token.isUnresolved(description) && description.length > 1000) {
    problems.push(`description has ${description.length} characters; IAM allows at most 1000`);
  }
  return problems;
}
