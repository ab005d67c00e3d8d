/** What a smoke benchmark measures: a SageMaker endpoint or a URL, and the network it reaches it through. */
import { Duration, Names } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct, type IConstruct } from 'constructs';
import type { TokenProofConfig } from '../../lib/bench/token-proof';
import { type SmokeConfig } from '../../lib/smoke/config';


/**
 * A SageMaker endpoint the smoke benchmark can measure: `NeuronSageMakerEndpoint` is one, and so is any object
 * with these members.
 */
export interface ISmokeBenchmarkEndpoint {
  /** Name of the endpoint. */
  readonly endpointName: string;
  /** ARN of the endpoint: the only resource the benchmark may invoke. */
  readonly endpointArn: string;
  /** Lets `grantee` call `sagemaker:InvokeEndpoint` on this endpoint only. */
  grantInvoke(grantee: iam.IGrantable): iam.Grant;
  /**
   * A synth-time hash of what the endpoint serves (image, model data, endpoint configuration); the benchmark runs
   * again whenever it changes.
   *
   * @default - the benchmark re-runs only when its own settings change
   */
  readonly deploymentFingerprint?: string;
}

/** Where the benchmark Lambda runs. */
export interface SmokeNetworkOptions {
  /**
   * Run the Lambda in this VPC, e.g. to reach an internal load balancer or a VPC-only SageMaker Runtime endpoint.
   * The subnets need a route to S3 (gateway endpoint or NAT) for the report.
   *
   * @default - not in a VPC
   */
  readonly vpc?: ec2.IVpc;
  /** @default - the VPC's private subnets */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** @default - one group with all outbound traffic allowed */
  readonly securityGroups?: ec2.ISecurityGroup[];
}

/** Options of {@link SmokeTarget.sageMakerEndpoint}. */
export interface SageMakerSmokeTargetOptions extends SmokeNetworkOptions {
  /** Send every request to this production variant. @default - SageMaker routes by variant weight */
  readonly targetVariant?: string;
  /**
   * For a generative plan served by inference components: the component every request is sent to
   * (`InferenceComponentName`). Only a proof in tokens uses it.
   *
   * @default - SageMaker routes to the endpoint's only inference component or variant
   */
  readonly inferenceComponentName?: string;
}

/** Options of {@link SmokeTarget.url}. */
export interface UrlSmokeTargetOptions extends SmokeNetworkOptions {
  /**
   * A synth-time hash of what the service behind the URL serves; the benchmark runs again whenever it changes.
   * It must be known at synth: a CloudFormation token's value changes at deploy time, after the Lambda version that
   * re-runs the benchmark was fixed.
   *
   * @default - the benchmark re-runs only when its own settings change
   */
  readonly fingerprint?: string;
  /**
   * The name reports and metrics are filed under (`EndpointName` dimension, S3 key segment): letters, digits, `.`,
   * `_` and `-`.
   *
   * @default - a name unique to the SmokeBenchmark construct
   */
  readonly name?: string;
  /** Headers sent with every request. @default - only content-type */
  readonly headers?: Readonly<Record<string, string>>;
  /** Constructs that must be deployed before the benchmark runs, e.g. the service behind the URL. @default - none */
  readonly dependsOn?: IConstruct[];
}

/** What {@link SmokeTarget} resolves to inside the construct. */
export interface BoundTarget {
  readonly kind: 'sagemaker' | 'http';
  /** Endpoint name or URL. */
  readonly target: string;
  readonly name: string;
  readonly config: SmokeConfig['target'];
  /** The target's literal options for a proof in tokens. */
  readonly tokenConfig: TokenProofConfig['target'];
  /** An inference component was named (only a proof in tokens sends to one). */
  readonly inferenceComponentName?: string;
  readonly fingerprint?: string;
  readonly network: SmokeNetworkOptions;
  readonly dependsOn: IConstruct[];
  readonly defaultLatencyAllowance: Duration;
  grant(grantee: iam.IGrantable): void;
  /** Lets `grantee` stream answers (`sagemaker:InvokeEndpointWithResponseStream` on the one endpoint). */
  grantStream(grantee: iam.IGrantable): void;
}

/**
 * What the smoke benchmark measures: a SageMaker endpoint, or a URL (e.g. an internal load balancer in front of
 * EC2 instances).
 */
export abstract class SmokeTarget {
  /**
   * A SageMaker real-time endpoint, through `InvokeEndpoint`.
   *
   * The benchmark may invoke this endpoint only (through `endpoint.grantInvoke`), runs after it when it is a
   * construct, and re-runs when its `deploymentFingerprint` changes.
   */
  static sageMakerEndpoint(endpoint: ISmokeBenchmarkEndpoint, options: SageMakerSmokeTargetOptions = {}): SmokeTarget {
    return new (class extends SmokeTarget {
      _bind(): BoundTarget {
        return {
          kind: 'sagemaker',
          target: endpoint.endpointName,
          name: endpoint.endpointName,
          config: { kind: 'sagemaker', targetVariant: options.targetVariant },
          tokenConfig: { kind: 'sagemaker', inferenceComponentName: options.inferenceComponentName },
          inferenceComponentName: options.inferenceComponentName,
          fingerprint: endpoint.deploymentFingerprint,
          network: options,
          dependsOn: Construct.isConstruct(endpoint) ? [endpoint] : [],
          // The SageMaker Runtime API round trip (TLS to the regional endpoint, SigV4, the router) on top of the
          // model's own latency, which is what the plan's p99 describes. An assumption: AWS publishes no figure, only
          // each endpoint's OverheadLatency metric. The model server's timing header lets the gate judge the
          // server-side p99 without it and report the overhead it measured (docs/smoke-benchmark.md).
          defaultLatencyAllowance: Duration.millis(20),
          grant: (grantee) => endpoint.grantInvoke(grantee),
          // ISmokeBenchmarkEndpoint.grantInvoke grants InvokeEndpoint only; streaming is its own action.
          // https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsagemaker.html
          grantStream: (grantee) => {
            iam.Grant.addToPrincipal({
              grantee,
              actions: ['sagemaker:InvokeEndpointWithResponseStream'],
              resourceArns: [endpoint.endpointArn],
            });
          },
        };
      }
    })();
  }

  /**
   * An HTTP(S) URL, POSTed the request body. For a generative plan, the engine's base URL (e.g.
   * `http://internal-alb.example:80`): the proof in tokens sends to `/v1/chat/completions` or `/v1/completions` under it.
   *
   * Give `vpc` for an internal load balancer. The benchmark runs after `dependsOn` and re-runs when `fingerprint`
   * changes.
   */
  static url(url: string, options: UrlSmokeTargetOptions = {}): SmokeTarget {
    return new (class extends SmokeTarget {
      _bind(scope: Construct): BoundTarget {
        return {
          kind: 'http',
          target: url,
          name: options.name ?? Names.uniqueResourceName(scope, { maxLength: 64, separator: '-' }),
          config: { kind: 'http', headers: options.headers },
          tokenConfig: { kind: 'http', headers: options.headers },
          fingerprint: options.fingerprint,
          network: options,
          dependsOn: options.dependsOn ?? [],
          // One hop from the Lambda to a load balancer in the same region.
          defaultLatencyAllowance: Duration.millis(5),
          grant: () => undefined,
          grantStream: () => undefined,
        };
      }
    })();
  }

  /** @internal */
  abstract _bind(scope: Construct): BoundTarget;
}
