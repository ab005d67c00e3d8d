import { Duration } from 'aws-cdk-lib';
import type * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { Construct } from 'constructs';
import { RollbackAlarms } from '../../private/rollback-alarms';
import type { EcsHostingOptions } from '../ecs-service-props';
import { neuronCapacity, type NeuronCapacityOptions } from './ecs-capacity';
import { modelLoadBalancer, serviceEntrance, type ModelLoadBalancerOptions } from './ecs-load-balancer';
import type { ServiceMetrics } from './ecs-monitoring';
import { serviceNetwork, type ServiceNetwork } from './ecs-network';

/** What the fleet and the entrance are built from: the hosting options, and whether a proof runs (its VPC endpoints). */
type FleetProps = EcsHostingOptions & { readonly smokeBenchmark?: { readonly capacityProof?: unknown } };

/**
 * What every ECS hosting is, whatever serves behind it: Neuron instances in a cluster, an Application Load Balancer in
 * front of the tasks, its metrics and the rollback alarm set. The single-call and generative services differ in their
 * tasks, not in these (as aws-cdk's `BaseService` holds what every ECS service shares); a third engine's service
 * builds its tasks between {@link buildFleet} and {@link buildEntrance} and reuses the rest.
 */
export abstract class LoadBalancedEcsService extends Construct implements ServiceMetrics {
  // Set once by buildFleet and buildEntrance, at the points of the constructor where the subclass builds them, so each
  // resource keeps its place in the template; readonly to everyone else.
  /** The VPC, given or defined here. */
  declare readonly vpc: ec2.IVpc;
  /** The cluster. */
  declare readonly cluster: ecs.Cluster;
  /** The container instances. */
  declare readonly autoScalingGroup: autoscaling.AutoScalingGroup;
  /** The capacity provider that scales the instances for the tasks. */
  declare readonly capacityProvider: ecs.AsgCapacityProvider;
  /** The launch template of the instances. */
  declare readonly launchTemplate: ec2.LaunchTemplate;
  /** The Application Load Balancer in front of the tasks. */
  declare readonly loadBalancer: elbv2.ApplicationLoadBalancer;
  /** The listener clients call. */
  declare readonly listener: elbv2.ApplicationListener;
  /** The target group of the tasks. */
  declare readonly targetGroup: elbv2.ApplicationTargetGroup;
  /** The load balancer's security group: admit clients with `connections.allowDefaultPortFrom(...)`. */
  declare readonly connections: ec2.Connections;
  /** @internal */
  protected readonly alarms = new RollbackAlarms();

  /**
   * The network, the cluster and its Neuron instances (first in the template of either service), kept in
   * {@link vpc}, {@link cluster}, {@link autoScalingGroup}, {@link capacityProvider} and {@link launchTemplate}.
   *
   * @internal
   */
  protected buildFleet(props: FleetProps, capacity: Pick<NeuronCapacityOptions, 'layout' | 'rootVolumeGiB' | 'maxInstances'>): ServiceNetwork {
    const network = serviceNetwork(this, props);
    const cluster = new ecs.Cluster(this, 'Cluster', { vpc: network.vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    const instances = neuronCapacity(this, { cluster, vpc: network.vpc, vpcSubnets: network.privateSubnets, ...capacity });
    const { autoScalingGroup, capacityProvider, launchTemplate } = instances;
    Object.assign(this, { vpc: network.vpc, cluster, autoScalingGroup, capacityProvider, launchTemplate });
    return network;
  }

  /**
   * The load balancer in front of `services` and the clients' way in, kept in {@link loadBalancer}, {@link listener},
   * {@link targetGroup} and {@link connections}; returns the URL clients call.
   *
   * @internal
   */
  protected buildEntrance(
    props: FleetProps,
    network: ServiceNetwork,
    services: readonly ecs.BaseService[],
    target: Omit<ModelLoadBalancerOptions, 'vpc' | 'vpcSubnets' | 'internetFacing' | 'certificate' | 'domainName' | 'accessLogBucket'>,
  ): string {
    const lbOptions = {
      vpc: network.vpc,
      internetFacing: props.internetFacing ?? false,
      certificate: props.certificate,
      domainName: props.domainName,
      listenerPort: target.listenerPort,
    };
    const lb = modelLoadBalancer(this, {
      ...lbOptions,
      ...target,
      vpcSubnets: network.loadBalancerSubnets,
      accessLogBucket: props.accessLogBucket,
    });
    const { connections, url } = serviceEntrance(lb, services, lbOptions);
    Object.assign(this, { loadBalancer: lb.loadBalancer, listener: lb.listener, targetGroup: lb.targetGroup, connections });
    return url;
  }

  /** Requests the load balancer received (`RequestCount`, sum per 5 minutes unless overridden). */
  metricRequestCount(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.loadBalancer.metrics.requestCount(options);
  }

  /** Seconds from the load balancer sending a request to a task until the answer (`TargetResponseTime`, p99 unless overridden). */
  metricTargetResponseTime(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.targetGroup.metrics.targetResponseTime({ statistic: cloudwatch.Stats.p(99), ...options });
  }

  /** 5XX answers of the tasks' servers (`HTTPCode_Target_5XX_Count`, sum unless overridden). */
  metricTarget5xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.targetGroup.metrics.httpCodeTarget(elbv2.HttpCodeTarget.TARGET_5XX_COUNT, options);
  }

  /** 5XX answers of the load balancer itself, e.g. no healthy task (`HTTPCode_ELB_5XX_Count`, sum unless overridden). */
  metricLoadBalancer5xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.loadBalancer.metrics.httpCodeElb(elbv2.HttpCodeElb.ELB_5XX_COUNT, options);
  }

  /**
   * Tasks passing the health check (`HealthyHostCount`, average unless overridden): the model server's `/ping`, the
   * engine's `/health`.
   */
  metricHealthyTaskCount(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.targetGroup.metrics.healthyHostCount(options);
  }

  /** Requests per task per minute: what target tracking follows (`RequestCountPerTarget`, sum per minute unless overridden). */
  metricRequestCountPerTask(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.targetGroup.metrics.requestCountPerTarget({ period: Duration.minutes(1), ...options });
  }

  /**
   * Adds an alarm of yours (e.g. your own latency or business metric, or the engine's TTFT or TPOT) to the set that
   * rolls a deployment back.
   *
   * ECS watches the service's deployment alarms during a deployment's bake time and rolls back when one fires, on
   * top of the circuit breaker.
   *
   * @param alarm an alarm on any metric
   */
  addRollbackAlarm(alarm: cloudwatch.AlarmBase): void {
    this.alarms.add(alarm);
  }
}

