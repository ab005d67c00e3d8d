import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { EcsHostingOptions } from '../ecs-service-props';

/** Options of {@link privateServiceVpc}. */
export interface PrivateVpcOptions {
  /** Availability Zones, at least two; undefined takes the stack's first two. */
  readonly availabilityZones?: string[];
  /** Add public subnets for an internet-facing load balancer. */
  readonly publicSubnets: boolean;
  /** Add the CloudFormation endpoint (a Lambda in the VPC that reads its stack's status). */
  readonly cloudFormationEndpoint: boolean;
  /** Add the Lambda endpoint (a Lambda in the VPC that invokes others: the capacity proof's load workers). */
  readonly lambdaEndpoint: boolean;
  /** Retention of the flow log. */
  readonly flowLogRetention: logs.RetentionDays;
}

/**
 * Interface endpoints private container instances need without a NAT gateway, each with the reason:
 * - ECS, ECS agent, ECS telemetry: the agent registers the instance, polls for tasks and reports metrics
 *   (Amazon ECS Developer Guide, "Amazon ECS interface VPC endpoints (AWS PrivateLink)");
 * - ECR API and ECR Docker: the image manifest and the pull (layers come from S3, the gateway endpoint below);
 * - CloudWatch Logs: the `awslogs` driver, and the server's embedded-metric-format lines with it;
 * - CloudWatch monitoring: neuron-monitor's NeuronCore metrics (`PutMetricData`);
 * - SSM, SSM messages, EC2 messages: Session Manager, which replaces SSH (AWS Systems Manager User Guide,
 *   "Use VPC endpoints for Systems Manager").
 *
 * A function, not a module-level table: reading `InterfaceVpcEndpointAwsService` loads aws-ec2's implementation
 * (a dozen modules), which importing the package should not cost an app that builds no VPC.
 */
function instanceEndpoints(): Array<[string, ec2.InterfaceVpcEndpointAwsService]> {
  return [
    ['Ecs', ec2.InterfaceVpcEndpointAwsService.ECS],
    ['EcsAgent', ec2.InterfaceVpcEndpointAwsService.ECS_AGENT],
    ['EcsTelemetry', ec2.InterfaceVpcEndpointAwsService.ECS_TELEMETRY],
    ['EcrApi', ec2.InterfaceVpcEndpointAwsService.ECR],
    ['EcrDocker', ec2.InterfaceVpcEndpointAwsService.ECR_DOCKER],
    ['Logs', ec2.InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS],
    ['Monitoring', ec2.InterfaceVpcEndpointAwsService.CLOUDWATCH_MONITORING],
    ['Ssm', ec2.InterfaceVpcEndpointAwsService.SSM],
    ['SsmMessages', ec2.InterfaceVpcEndpointAwsService.SSM_MESSAGES],
    ['Ec2Messages', ec2.InterfaceVpcEndpointAwsService.EC2_MESSAGES],
  ];
}

/**
 * cdk-nag reads an ingress source it cannot resolve (the VPC's `Fn::GetAtt CidrBlock`) as open to the world.
 */
export const VPC_CIDR_INGRESS = {
  id: 'AwsSolutions-EC23',
  reason: 'The only ingress source is this VPC\'s own CIDR block (Fn::GetAtt Vpc.CidrBlock), which cdk-nag cannot '
    + 'resolve at synth and so reads as 0.0.0.0/0; nothing outside the VPC is admitted.',
};

/**
 * A VPC whose private subnets reach every AWS service the service needs through VPC endpoints, with no NAT gateway
 * and no route to the internet: isolated subnets in two Availability Zones, an S3 gateway endpoint (ECR layers, the
 * smoke reports), the interface endpoints of {@link instanceEndpoints} with private DNS, and a flow log of rejected traffic.
 */
export function privateServiceVpc(scope: Construct, id: string, options: PrivateVpcOptions): ec2.Vpc {
  const subnetConfiguration: ec2.SubnetConfiguration[] = [
    { name: 'Private', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 20 },
  ];
  if (options.publicSubnets) {
    // Only the load balancer lives here; instances never get a public address.
    subnetConfiguration.push({ name: 'Public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24, mapPublicIpOnLaunch: false });
  }
  const vpc = new ec2.Vpc(scope, id, {
    ...(options.availabilityZones ? { availabilityZones: options.availabilityZones } : { maxAzs: 2 }),
    natGateways: 0,
    subnetConfiguration,
    restrictDefaultSecurityGroup: false,
    gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
  });
  vpc.addFlowLog('FlowLog', {
    trafficType: ec2.FlowLogTrafficType.REJECT,
    destination: ec2.FlowLogDestination.toCloudWatchLogs(new logs.LogGroup(vpc, 'FlowLogGroup', {
      retention: options.flowLogRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    })),
  });
  const endpoints = instanceEndpoints();
  if (options.cloudFormationEndpoint) {
    endpoints.push(['CloudFormation', ec2.InterfaceVpcEndpointAwsService.CLOUDFORMATION]);
  }
  if (options.lambdaEndpoint) {
    endpoints.push(['Lambda', ec2.InterfaceVpcEndpointAwsService.LAMBDA]);
  }
  const subnets = { subnetType: ec2.SubnetType.PRIVATE_ISOLATED };
  for (const [name, service] of endpoints) {
    // Each endpoint gets a security group that admits HTTPS from the VPC only (CDK's default for `open: true`).
    const endpoint = vpc.addInterfaceEndpoint(name, { service, subnets, privateDnsEnabled: true, open: true });
    Validations.of(endpoint).acknowledge(VPC_CIDR_INGRESS);
  }
  return vpc;
}

/** Where a service's parts run: its VPC (given, or a {@link privateServiceVpc}), and the subnets of its tasks and load balancer. */
export interface ServiceNetwork {
  readonly vpc: ec2.IVpc;
  /** Instances, tasks, an internal load balancer and the proof's Lambda. */
  readonly privateSubnets: ec2.SubnetSelection;
  readonly loadBalancerSubnets: ec2.SubnetSelection;
}

/**
 * The network of an ECS hosting: the given VPC's private subnets with egress, or a new VPC's isolated ones with the
 * endpoints the deploy's proof needs (CloudFormation for the proof, Lambda for the capacity proof's load workers).
 */
export function serviceNetwork(
  scope: Construct,
  props: EcsHostingOptions & { readonly smokeBenchmark?: { readonly capacityProof?: unknown } },
): ServiceNetwork {
  const ownVpc = props.vpc === undefined;
  const vpc = props.vpc ?? privateServiceVpc(scope, 'Vpc', {
    availabilityZones: props.availabilityZones,
    publicSubnets: props.internetFacing ?? false,
    cloudFormationEndpoint: props.smokeBenchmark !== undefined,
    lambdaEndpoint: props.smokeBenchmark?.capacityProof !== undefined,
    flowLogRetention: props.logRetention ?? logs.RetentionDays.THREE_MONTHS,
  });
  const privateSubnets = props.vpcSubnets
    ?? (ownVpc ? { subnetType: ec2.SubnetType.PRIVATE_ISOLATED } : { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS });
  const loadBalancerSubnets = props.internetFacing ? { subnetType: ec2.SubnetType.PUBLIC } : privateSubnets;
  return { vpc, privateSubnets, loadBalancerSubnets };
}
