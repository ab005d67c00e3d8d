import { Duration, Size, Validations } from 'aws-cdk-lib';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { EcsLayout } from './ecs-layout';

/** Container image allowance on the root volume, in GiB: a Neuron DLC unpacks to about 20 GiB; pulls need room for both. */
const IMAGE_ALLOWANCE_GIB = 50;

/** Copies of a model baked into the image the root volume holds during a pull: the compressed layer and the unpacked files. */
const MODEL_COPIES = 2;

/** Smallest default root volume: the ECS-optimized AMI's 30 GiB plus room for two image versions during a deploy. */
export const ROOT_VOLUME_MIN_GIB = 100;

/** The largest gp3 volume (EBS User Guide, "Amazon EBS volume types": gp3 1 GiB - 16 TiB). */
export const ROOT_VOLUME_MAX_GIB = 16_384;

/** Default root volume: the image allowance plus two copies of the model plus 25 %, at least 100 GiB. */
export function defaultRootVolumeGiB(layout: Pick<EcsLayout, 'modelGiB'>): number {
  return Math.max(ROOT_VOLUME_MIN_GIB, Math.ceil((IMAGE_ALLOWANCE_GIB + layout.modelGiB * MODEL_COPIES) * 1.25));
}

/** Inputs of {@link neuronCapacity}. */
export interface NeuronCapacityOptions {
  readonly cluster: ecs.Cluster;
  readonly vpc: ec2.IVpc;
  readonly vpcSubnets: ec2.SubnetSelection;
  readonly layout: Pick<EcsLayout, 'instanceType' | 'instanceCount'>;
  readonly rootVolumeGiB: number;
  /** Most instances the group may run: the service's peak plus a rolling deployment's surge. */
  readonly maxInstances: number;
}

/** What {@link neuronCapacity} defines. */
export interface NeuronCapacity {
  readonly autoScalingGroup: autoscaling.AutoScalingGroup;
  readonly capacityProvider: ecs.AsgCapacityProvider;
  readonly launchTemplate: ec2.LaunchTemplate;
  readonly instanceRole: iam.Role;
  readonly securityGroup: ec2.SecurityGroup;
}

/**
 * Neuron container instances for `cluster`: a launch template on the ECS-optimized Amazon Linux 2023 Neuron AMI
 * (resolved from its SSM public parameter at deploy time, so synth stays offline), IMDSv2 only with one hop (so
 * containers cannot reach the instance's credentials), an encrypted gp3 root volume, no public address, no SSH key
 * (Session Manager instead); an Auto Scaling group in the private subnets; and a capacity provider with managed
 * scaling and managed termination protection, so ECS adds instances for tasks it cannot place and never terminates
 * an instance that still runs one.
 */
export function neuronCapacity(scope: Construct, options: NeuronCapacityOptions): NeuronCapacity {
  const { layout } = options;
  const instanceRole = new iam.Role(scope, 'InstanceRole', {
    assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
    description: `Neuron ECS container instances of ${scope.node.path}`,
  });
  // Session Manager, written out instead of the AWS managed AmazonSSMManagedInstanceCore: only the session actions
  // (AWS Systems Manager User Guide, "Step 2: Verify or add instance permissions for Session Manager"), none of that
  // policy's parameter and document reads.
  instanceRole.addToPrincipalPolicy(new iam.PolicyStatement({
    actions: [
      'ssm:UpdateInstanceInformation',
      'ssmmessages:CreateControlChannel', 'ssmmessages:CreateDataChannel',
      'ssmmessages:OpenControlChannel', 'ssmmessages:OpenDataChannel',
    ],
    resources: ['*'],
  }));
  const securityGroup = new ec2.SecurityGroup(scope, 'InstanceSecurityGroup', {
    vpc: options.vpc,
    description: `Neuron ECS container instances of ${scope.node.path}: no ingress (tasks have their own group)`,
    // The agent, the image pull and the logs go to VPC endpoints or AWS service endpoints over HTTPS.
    allowAllOutbound: true,
  });
  const launchTemplate = new ec2.LaunchTemplate(scope, 'LaunchTemplate', {
    instanceType: new ec2.InstanceType(layout.instanceType.name),
    machineImage: ecs.EcsOptimizedImage.amazonLinux2023(ecs.AmiHardwareType.NEURON),
    userData: ec2.UserData.forLinux(),
    role: instanceRole,
    securityGroup,
    requireImdsv2: true,
    // One hop: the host's processes reach IMDS, containers (one hop further) do not.
    httpPutResponseHopLimit: 1,
    associatePublicIpAddress: false,
    detailedMonitoring: true,
    blockDevices: [{
      // The root device of the ECS-optimized Amazon Linux 2023 AMIs.
      deviceName: '/dev/xvda',
      volume: ec2.BlockDeviceVolume.ebs(options.rootVolumeGiB, {
        volumeType: ec2.EbsDeviceVolumeType.GP3,
        encrypted: true,
        deleteOnTermination: true,
      }),
    }],
  });
  const autoScalingGroup = new autoscaling.AutoScalingGroup(scope, 'AutoScalingGroup', {
    vpc: options.vpc,
    vpcSubnets: options.vpcSubnets,
    launchTemplate,
    // The planned instances are always there; managed scaling adds the rest for tasks it cannot place.
    minCapacity: layout.instanceCount,
    maxCapacity: options.maxInstances,
    // Neuron hosts take minutes to pull the image and load the model: count them only once they can serve.
    defaultInstanceWarmup: Duration.minutes(5),
    // Replace an instance EC2 reports impaired; ECS replaces a failed task through the load balancer check.
    healthChecks: autoscaling.HealthChecks.ec2({ gracePeriod: Duration.minutes(5) }),
  });
  const capacityProvider = new ecs.AsgCapacityProvider(scope, 'CapacityProvider', {
    autoScalingGroup,
    machineImageType: ecs.MachineImageType.AMAZON_LINUX_2,
    enableManagedScaling: true,
    enableManagedTerminationProtection: true,
    targetCapacityPercent: 100,
    instanceWarmupPeriod: 300,
  });
  options.cluster.addAsgCapacityProvider(capacityProvider);
  // Tasks (awsvpc) must not reach IMDS and the instance role's credentials; they get their own task role
  // (Amazon ECS Developer Guide, "Amazon ECS container agent configuration", ECS_AWSVPC_BLOCK_IMDS).
  autoScalingGroup.addUserData('echo ECS_AWSVPC_BLOCK_IMDS=true >> /etc/ecs/ecs.config');

  Validations.of(instanceRole).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'Session Manager\'s ssm:UpdateInstanceInformation and ssmmessages:* act on the calling instance and '
      + 'support no resource-level permission; ecs:DiscoverPollEndpoint, added by the capacity provider, neither.',
  }, {
    id: 'AwsSolutions-IAM5[Action::ecs:Submit*]',
    reason: 'aws-cdk-lib\'s ECS cluster grants the container agent ecs:Submit* (task, container and attachment '
      + 'state changes) on this cluster\'s ARN only.',
  });
  Validations.of(autoScalingGroup).acknowledge({
    id: 'AwsSolutions-AS3',
    reason: 'ECS managed scaling launches and terminates these instances; every launch, termination and their '
      + 'failures are EventBridge events (aws.autoscaling) and in the group\'s activity history without a '
      + 'notification configuration, and the service\'s events and circuit breaker report what reaches the tasks.',
  });
  return { autoScalingGroup, capacityProvider, launchTemplate, instanceRole, securityGroup };
}

/** The root volume size in GiB from an optional `Size`. */
export function rootVolumeGiB(size: Size | undefined, layout: Pick<EcsLayout, 'modelGiB'>): number {
  return size === undefined ? defaultRootVolumeGiB(layout) : size.toGibibytes();
}
