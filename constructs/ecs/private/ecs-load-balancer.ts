import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { logAccessTo } from '../../private/access-logs';

/** Inputs of {@link modelLoadBalancer}. */
export interface ModelLoadBalancerOptions {
  readonly vpc: ec2.IVpc;
  readonly vpcSubnets: ec2.SubnetSelection;
  readonly internetFacing: boolean;
  readonly certificate?: acm.ICertificate;
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
