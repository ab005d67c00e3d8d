import { Duration, RemovalPolicy, Token, Validations } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct, IConstruct } from 'constructs';
import { logAccessTo } from '../../private/access-logs';
import { SmokeBenchmark } from '../../proof/smoke-benchmark';
import type { SmokeBenchmarkProps } from '../../proof/smoke-benchmark-props';
import { SmokeTarget } from '../../proof/smoke-target';
import { VPC_CIDR_INGRESS } from './ecs-network';
import type { ServiceNetwork } from './ecs-network';

/** Inputs of {@link modelLoadBalancer}. */
export interface ModelLoadBalancerOptions {
  readonly vpc: ec2.IVpc;
  readonly vpcSubnets: ec2.SubnetSelection;
  readonly internetFacing: boolean;
  readonly certificate?: acm.ICertificate;
  /** The host name clients use; undefined takes the load balancer's DNS name. */
  readonly domainName?: string;
  readonly listenerPort: number;
  readonly containerPort: number;
  /** How long a deregistering task keeps serving its in-flight requests. */
  readonly deregistrationDelay: Duration;
  /** Where access logs go; undefined defines a bucket. */
  readonly accessLogBucket?: s3.IBucket;
  /** Path of the health check; undefined checks `/ping` (the model server's). */
  readonly healthCheckPath?: string;
  /** Longest silence on a connection before the load balancer closes it; undefined keeps 60 s. */
  readonly idleTimeout?: Duration;
  /** How the target group picks a target; undefined keeps the ALB default (round robin). */
  readonly loadBalancingAlgorithm?: elbv2.TargetGroupLoadBalancingAlgorithmType;
}

/** What {@link modelLoadBalancer} defines. */
export interface ModelLoadBalancer {
  readonly loadBalancer: elbv2.ApplicationLoadBalancer;
  readonly listener: elbv2.ApplicationListener;
  readonly targetGroup: elbv2.ApplicationTargetGroup;
  readonly accessLogBucket: s3.IBucket;
}

/** What clients reach: the load balancer's security group on the listener port, and the URL. */
export interface ServiceEntrance {
  readonly connections: ec2.Connections;
  /** `http(s)://host[:port]`, the port only when it is not the scheme's. */
  readonly url: string;
}

/**
 * Registers the services' tasks with the target group and opens the door clients use: the listener port from the VPC
 * on an internal load balancer (others are admitted through `connections`), nothing on an internet-facing one.
 */
export function serviceEntrance(
  lb: ModelLoadBalancer,
  services: readonly ecs.BaseService[],
  options: Pick<ModelLoadBalancerOptions, 'vpc' | 'internetFacing' | 'certificate' | 'domainName' | 'listenerPort'>,
): ServiceEntrance {
  for (const service of services) {
    service.attachToApplicationTargetGroup(lb.targetGroup);
  }
  const connections = new ec2.Connections({
    securityGroups: lb.loadBalancer.connections.securityGroups,
    defaultPort: ec2.Port.tcp(options.listenerPort),
  });
  if (!options.internetFacing) {
    connections.allowDefaultPortFrom(ec2.Peer.ipv4(options.vpc.vpcCidrBlock), 'Clients in the VPC');
    if (Token.isUnresolved(options.vpc.vpcCidrBlock)) {
      Validations.of(lb.loadBalancer.connections.securityGroups[0]).acknowledge(VPC_CIDR_INGRESS);
    }
  }
  const scheme = options.certificate ? 'https' : 'http';
  const host = options.domainName ?? lb.loadBalancer.loadBalancerDnsName;
  const defaultPort = options.certificate ? 443 : 80;
  return { connections, url: `${scheme}://${host}${options.listenerPort === defaultPort ? '' : `:${options.listenerPort}`}` };
}

/**
 * The load balancer in front of the model servers: an Application Load Balancer (internal unless asked), dropping
 * invalid header fields, with access logs to S3; HTTPS with the given certificate and TLS 1.2+ (plus a redirect from
 * HTTP 80), or plain HTTP on an internal one; a target group of task IPs checked on `/ping`, which the model server
 * answers 200 only when every worker has loaded its model.
 *
 * Ingress is not opened here: the caller admits clients through `connections`.
 */
export function modelLoadBalancer(scope: Construct, options: ModelLoadBalancerOptions): ModelLoadBalancer {
  const securityGroup = new ec2.SecurityGroup(scope, 'LoadBalancerSecurityGroup', {
    vpc: options.vpc,
    description: `Load balancer of ${scope.node.path}`,
    // Outbound only to the tasks, added when the target group registers them.
    allowAllOutbound: false,
  });
  const loadBalancer = new elbv2.ApplicationLoadBalancer(scope, 'LoadBalancer', {
    vpc: options.vpc,
    vpcSubnets: options.vpcSubnets,
    internetFacing: options.internetFacing,
    securityGroup,
    dropInvalidHeaderFields: true,
    // Above the model server's 55 s request deadline, so the client reads the server's 504 and its cause.
    idleTimeout: options.idleTimeout ?? Duration.seconds(60),
  });
  const accessLogBucket = options.accessLogBucket ?? accessLogsBucket(scope);
  loadBalancer.logAccessLogs(accessLogBucket, 'alb');

  const targetGroup = new elbv2.ApplicationTargetGroup(scope, 'TargetGroup', {
    vpc: options.vpc,
    targetType: elbv2.TargetType.IP,
    protocol: elbv2.ApplicationProtocol.HTTP,
    port: options.containerPort,
    deregistrationDelay: options.deregistrationDelay,
    loadBalancingAlgorithmType: options.loadBalancingAlgorithm,
    healthCheck: {
      path: options.healthCheckPath ?? '/ping',
      healthyHttpCodes: '200',
      interval: Duration.seconds(10),
      timeout: Duration.seconds(5),
      healthyThresholdCount: 2,
      unhealthyThresholdCount: 3,
    },
  });

  let listener: elbv2.ApplicationListener;
  if (options.certificate) {
    listener = loadBalancer.addListener('HttpsListener', {
      protocol: elbv2.ApplicationProtocol.HTTPS,
      port: options.listenerPort,
      certificates: [elbv2.ListenerCertificate.fromCertificateManager(options.certificate)],
      sslPolicy: elbv2.SslPolicy.RECOMMENDED_TLS,
      defaultTargetGroups: [targetGroup],
      open: false,
    });
    loadBalancer.addRedirect({
      sourceProtocol: elbv2.ApplicationProtocol.HTTP,
      sourcePort: 80,
      targetProtocol: elbv2.ApplicationProtocol.HTTPS,
      targetPort: options.listenerPort,
      open: false,
    });
  } else {
    listener = loadBalancer.addListener('HttpListener', {
      protocol: elbv2.ApplicationProtocol.HTTP,
      port: options.listenerPort,
      defaultTargetGroups: [targetGroup],
      open: false,
    });
  }
  return { loadBalancer, listener, targetGroup, accessLogBucket };
}

/**
 * A bucket for the load balancer's access logs: SSE-S3 (the only encryption ELB log delivery supports), TLS only,
 * public access blocked, logs expire after a year, and its own server access logs go to a second bucket.
 */
function accessLogsBucket(scope: Construct): s3.Bucket {
  const common: s3.BucketProps = {
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    lifecycleRules: [{ expiration: Duration.days(365) }],
    // Logs are evidence: they outlive the stack.
    removalPolicy: RemovalPolicy.RETAIN,
  };
  const bucket = new s3.Bucket(scope, 'AccessLogs', common);
  const serverLogs = new s3.Bucket(scope, 'AccessLogsServerLogs', common);
  logAccessTo(bucket, serverLogs, 'access-logs/', 'AccessLogsServerLogs');
  return bucket;
}

/** What {@link serviceProof} needs of the service besides the proof's own props. */
export interface ServiceProofOptions {
  /** What the proof is called in descriptions, e.g. `Smoke benchmark`, `Proof in tokens`. */
  readonly what: string;
  readonly network: ServiceNetwork;
  /** The load balancer's door: the proof's security group is admitted through it. */
  readonly connections: ec2.Connections;
  /** The URL the proof calls: the model server's `/invocations`, or the engine's base URL. */
  readonly url: string;
  readonly fingerprint: string;
  /** What must be in place before the proof runs: the services, the listener, the scaling. */
  readonly dependsOn: readonly IConstruct[];
}

/**
 * The deploy's proof of an ECS hosting, whatever it serves, through the load balancer's door: a Lambda in the service's private subnets, in its own
 * security group admitted to the load balancer, calling it after the services are stable.
 */
export function serviceProof(
  scope: Construct,
  props: Omit<SmokeBenchmarkProps, 'target'>,
  options: ServiceProofOptions,
): SmokeBenchmark {
  const securityGroup = new ec2.SecurityGroup(scope, 'SmokeSecurityGroup', {
    vpc: options.network.vpc,
    description: `${options.what} of ${scope.node.path}: calls the load balancer, S3 and CloudFormation`,
    allowAllOutbound: true,
  });
  options.connections.allowDefaultPortFrom(securityGroup, `The ${options.what.charAt(0).toLowerCase()}${options.what.slice(1)}`);
  return new SmokeBenchmark(scope, 'SmokeBenchmark', {
    ...props,
    target: SmokeTarget.url(options.url, {
      vpc: options.network.vpc,
      vpcSubnets: options.network.privateSubnets,
      securityGroups: [securityGroup],
      fingerprint: options.fingerprint,
      dependsOn: [...options.dependsOn],
    }),
  });
}
