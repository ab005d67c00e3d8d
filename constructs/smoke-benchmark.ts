import * as path from 'node:path';
import { Annotations, CfnResource, Duration, Names, RemovalPolicy, Size, Stack, Token, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as triggers from 'aws-cdk-lib/triggers';
import { Construct, type IConstruct } from 'constructs';
import { logAccessTo } from './private/access-logs';
import { compileAnswerCheck } from '../lib/bench/answer';
import { defaultMaxInFlight } from '../lib/bench/engine';
import type { AnswerCheck, LoadMode, StopCondition, Thresholds } from '../lib/bench/types';
import { InputError } from '../lib/errors';
import type { Plan } from '../lib/planner/types';
import { requiredFunctionTimeoutMs, type RunShape } from '../lib/smoke/budget';
import {
  capacityStageMs,
  DEFAULT_ACCOUNT_CONCURRENCY,
  MAX_FAN_OUT,
  PER_WORKER_RPS,
  WORKER_RETURN_RESERVE_MS,
  workerRunMs,
  type CapacityConfig,
} from '../lib/smoke/capacity';
import { MAX_IN_FLIGHT, SMOKE_ENV, smokeConfigSchema, type SmokeConfig } from '../lib/smoke/config';
import { SMOKE_DIMENSION, SMOKE_METRIC } from '../lib/smoke/metrics';
import { NeuronFunction } from './private/neuron-function';

/**
 * The longest function timeout a smoke run may have.
 *
 * The Trigger provider Lambda (aws-cdk-lib `TriggerProvider`, a CustomResourceProvider) has a fixed 15-minute
 * timeout, retries the invoke on AccessDeniedException for up to 60 s while IAM propagates (12 x 5 s), and must
 * answer CloudFormation after our function returns. If the provider itself times out, CloudFormation waits an hour
 * for an answer (aws-cdk#2126). 13 minutes for our function plus a 30 s invoke margin leaves it that time.
 */
export const MAX_SMOKE_TIMEOUT = Duration.minutes(13);

/** How much longer the Trigger waits on the invoke than the function may run, so the function's own answer wins. */
const INVOKE_MARGIN = Duration.seconds(30);

/**
 * What the Trigger provider adds to the invoke: up to 60 s of AccessDeniedException retries while IAM propagates,
 * then answering CloudFormation.
 */
const PROVIDER_OVERHEAD = Duration.seconds(90);

/** How much longer a load worker may run than its run and return need: a cold start of the bundled handler. */
const WORKER_TIMEOUT_MARGIN = Duration.seconds(30);

const DEFAULT_CAPACITY_DURATION = Duration.seconds(60);
const DEFAULT_CAPACITY_WARMUP = Duration.seconds(10);
const DEFAULT_CAPACITY_RATE_SHARE = 0.95;

/** Lambda's limit on the total size of a function's environment variables (keys and values). */
const LAMBDA_ENVIRONMENT_BYTES = 4096;

/** What a value known only at deploy time (endpoint name, bucket, stack ARN, URL) may add to the environment. */
const TOKEN_VALUE_BYTES = 256;

const DEFAULT_METRIC_NAMESPACE = 'CdkInferentia/SmokeBenchmark';
const DEFAULT_REPORT_PREFIX = 'smoke-benchmarks';
const DEFAULT_ERROR_RATE = 0.01;
const DEFAULT_THROUGHPUT_SHARE = 0.5;
const DEFAULT_DURATION = Duration.seconds(30);
const DEFAULT_WARMUP = Duration.seconds(5);
const DEFAULT_REQUEST_TIMEOUT = Duration.seconds(10);
const DEFAULT_CONCURRENCY_WITHOUT_PLAN = 4;
const MAX_DEFAULT_CONCURRENCY = 32;
const REPORT_PREFIX = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;
const TARGET_NAME = /^[A-Za-z0-9._-]{1,128}$/;

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
interface BoundTarget {
  readonly kind: 'sagemaker' | 'http';
  /** Endpoint name or URL. */
  readonly target: string;
  readonly name: string;
  readonly config: SmokeConfig['target'];
  readonly fingerprint?: string;
  readonly network: SmokeNetworkOptions;
  readonly dependsOn: IConstruct[];
  readonly defaultLatencyAllowance: Duration;
  grant(grantee: iam.IGrantable): void;
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
          fingerprint: endpoint.deploymentFingerprint,
          network: options,
          dependsOn: Construct.isConstruct(endpoint) ? [endpoint] : [],
          // The SageMaker Runtime API round trip (TLS to the regional endpoint, SigV4, the router) on top of the
          // model's own latency, which is what the plan's p99 describes. An assumption: AWS publishes no figure, only
          // each endpoint's OverheadLatency metric. The model server's timing header lets the gate judge the
          // server-side p99 without it and report the overhead it measured (docs/smoke-benchmark.md).
          defaultLatencyAllowance: Duration.millis(20),
          grant: (grantee) => endpoint.grantInvoke(grantee),
        };
      }
    })();
  }

  /**
   * An HTTP(S) URL, POSTed the request body.
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
          fingerprint: options.fingerprint,
          network: options,
          dependsOn: options.dependsOn ?? [],
          // One hop from the Lambda to a load balancer in the same region.
          defaultLatencyAllowance: Duration.millis(5),
          grant: () => undefined,
        };
      }
    })();
  }

  /** @internal */
  abstract _bind(scope: Construct): BoundTarget;
}

/** The request every benchmark call sends. */
export interface SmokeRequest {
  /** The body, sent as is: a golden input whose answer `expect` knows. */
  readonly body: string;
  /** @default 'application/json' */
  readonly contentType?: string;
}

/** How much load the smoke run applies, and for how long. */
export interface SmokeLoad {
  /**
   * Requests kept in flight (closed loop). Give this or `rateRps`, not both.
   *
   * @default - one per planned model process (instances x processes per instance, at most 32); 4 without a plan
   */
  readonly concurrency?: number;
  /**
   * A fixed arrival rate in requests per second (open loop: latency counts from each request's intended send time,
   * so a stalling endpoint cannot hide). Give this or `concurrency`, not both.
   *
   * @default - closed loop at `concurrency`
   */
  readonly rateRps?: number;
  /** How long to measure. Give this or `requests`, not both. @default Duration.seconds(30) */
  readonly duration?: Duration;
  /**
   * Stop after this many measured requests instead of after a duration. Its length depends on the endpoint's
   * latency, so it cannot be checked at synth; the run is cut (and fails) at the Lambda's time budget.
   *
   * @default - stop after `duration`
   */
  readonly requests?: number;
  /** Requests sent before measuring, to warm connections and the model; not in the report. @default Duration.seconds(5) */
  readonly warmup?: Duration;
  /** Longest wait for one answer; a later answer counts as a `timeout` error. @default Duration.seconds(10) */
  readonly requestTimeout?: Duration;
}

/**
 * The capacity proof: after the smoke run passes, drive the target open-loop at the planned rate for a while, fanned
 * out over load-worker Lambda invocations, and fail the deployment when the achieved rate or the p99 misses the plan.
 *
 * It costs Lambda time (workers x (warm-up + duration) at 1769 MB) and the endpoint's invocations at the full rate:
 * turn it on where a deployment is promoted from (staging), not on every deploy. See docs/smoke-benchmark.md.
 */
export interface CapacityProofOptions {
  /**
   * Total requests per second to drive.
   *
   * @default - `fraction` x the plan's `capacityRps` (a plan is then required)
   */
  readonly rateRps?: number;
  /** Share of the plan's capacity to drive when `rateRps` is not given, above 0 and at most 2. @default 1 */
  readonly fraction?: number;
  /** How long to measure. @default Duration.seconds(60) */
  readonly duration?: Duration;
  /** Load before measuring (the workers' connections, the endpoint's queues settling). @default Duration.seconds(10) */
  readonly warmup?: Duration;
  /** Share (0-1] of `rateRps` the successful requests per second must reach. @default 0.95 */
  readonly rateShare?: number;
  /**
   * Highest client-side p99.
   *
   * @default - the plan's p99 at this rate (its `predictedP99Ms` up to the target rate, the target p99 above it) plus
   *   `latencyAllowance`
   */
  readonly p99Max?: Duration;
  /**
   * Highest p99 of the model server's own timing (its `X-Amzn-SageMaker-Custom-Attributes` header).
   *
   * @default - the plan's p99 at this rate for a `batching` plan (served by this project's model server, which sends
   *   the header); not judged for a `stock` plan, whose server does not send it
   */
  readonly serverP99Max?: Duration;
  /** Highest error rate, 0-1. @default 0.01 */
  readonly maxErrorRate?: number;
  /**
   * Requests per second one worker invocation drives; the fan-out is `ceil(rateRps / perWorkerRps)` workers.
   *
   * @default PER_WORKER_RPS (400, half of what `npm run bench:smoke-fanout` measured one invocation to hold)
   */
  readonly perWorkerRps?: number;
}

/** Everything a {@link SmokeBenchmark} takes besides its target and plan (e.g. an endpoint's `smokeBenchmark` prop). */
export interface SmokeBenchmarkOptions {
  /** The golden request. */
  readonly request: SmokeRequest;

  /**
   * What a correct answer looks like: exact JSON, a JSON path with a value, or a regex. A wrong answer counts as an
   * error of kind `wrong-answer`: an endpoint that answers 200 after its model failed to load
   * (deep-learning-containers#2917) does not pass.
   *
   * @default - any body is accepted; only the status is checked
   */
  readonly expect?: AnswerCheck;

  /** The status a correct answer has. @default 200 */
  readonly expectStatus?: number;

  /** Load shape and length. @default - see {@link SmokeLoad} */
  readonly load?: SmokeLoad;

  /**
   * Limits the run must meet, over the defaults derived from the plan (a key set to `undefined` drops that default).
   *
   * @default - from the plan: p99 <= plan.targets.p99Ms + latencyAllowance; throughput >= throughputShare x what
   *   the run's load can drive at the plan's p50 (concurrency x 1000 / (plan.p50Ms + latencyAllowance), or
   *   rateRps), capped by the plan's capacity; error rate <= 1 %. Without a plan only the error rate.
   */
  readonly thresholds?: Thresholds;

  /**
   * What the client side adds to the model latency the plan describes: the SageMaker Runtime API round trip, or the
   * hop to a load balancer. Added to the plan's p99 target and p50 for the default thresholds.
   *
   * @default - 20 ms for a SageMaker endpoint, 5 ms for a URL
   */
  readonly latencyAllowance?: Duration;

  /**
   * Share (0-1] of what the run's load can drive that the measured throughput must reach. Below 1 so client-side
   * jitter and a short run do not fail a healthy endpoint, yet a model that fell back to CPU (aws-neuron-sdk#361),
   * many times slower, fails.
   *
   * @default 0.5
   */
  readonly throughputShare?: number;

  /**
   * Timeout of the benchmark Lambda, at most {@link MAX_SMOKE_TIMEOUT} (13 minutes). The Trigger waits 30 s longer.
   *
   * @default - startup (15 s) + warm-up + duration + one request timeout + the report (7 s), plus one minute,
   *   at least 2 minutes; 5 minutes for a run that stops after `load.requests`
   */
  readonly timeout?: Duration;

  /**
   * Where the JSON reports go, under `<reportPrefix>/<name>/`. The function may only put objects there.
   *
   * @default - a bucket this construct defines: SSE-S3 encrypted, SSL only, public access blocked, access logs to
   *   a second bucket, retained on delete
   */
  readonly reportBucket?: s3.IBucket;

  /** Key prefix of the reports, without leading or trailing `/`. @default 'smoke-benchmarks' */
  readonly reportPrefix?: string;

  /**
   * Fail the deployment when the report cannot be written to S3, even though the endpoint passed.
   *
   * @default false - a healthy endpoint is kept; the failed write is logged naming its bucket and key
   */
  readonly failOnReportError?: boolean;

  /** CloudWatch namespace of the metrics. @default 'CdkInferentia/SmokeBenchmark' */
  readonly metricNamespace?: string;

  /** The `Environment` dimension of the metrics and the report, e.g. `prod`. @default - the stack name */
  readonly environmentName?: string;

  /** Retention of the function's log group (which also carries the EMF metrics). @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;

  /** More constructs the benchmark must run after. @default - only the target's */
  readonly executeAfter?: IConstruct[];

  /**
   * Prove the planned capacity after the smoke run: see {@link CapacityProofOptions}.
   *
   * @default - no capacity proof
   */
  readonly capacityProof?: CapacityProofOptions;
}

/** Props of {@link SmokeBenchmark}. */
export interface SmokeBenchmarkProps extends SmokeBenchmarkOptions {
  /** What to measure. */
  readonly target: SmokeTarget;

  /**
   * The plan the target was deployed from; the default thresholds and concurrency come from it.
   *
   * @default - no plan: give `thresholds`, or only the error rate and the answers are checked
   */
  readonly plan?: Plan;
}

/**
 * Proves each deployment: a Lambda that measures the endpoint right after it is deployed, and fails the
 * deployment, so CloudFormation rolls it back, when answers, latency, throughput or errors miss their limits.
 *
 * - Runs through an `aws-cdk-lib/triggers` Trigger, synchronously (`RequestResponse`: with `Event` the deployment
 *   would succeed even when the benchmark fails, aws-cdk#26341), after the target.
 * - Runs again whenever the deployment changes: a Trigger re-runs only when its handler's version changes
 *   (cdk-triggers#221), so the target's fingerprint and every setting are in the function's environment, which is
 *   part of the version hash; an unchanged deployment does not re-run.
 * - Survives rollback: on a failed update CloudFormation invokes the previous version again (aws-cdk#17040); the
 *   handler reads its stack's status (`cloudformation:DescribeStacks` on this stack only) and does not measure.
 * - Never outlives its Lambda: the run is sized from the time left and timeouts above 13 minutes are rejected.
 * - Writes the report as CloudWatch metrics (EMF in its own log group, so no `cloudwatch:PutMetricData`) and as
 *   JSON at `<reportPrefix>/<name>/<timestamp>-<fingerprint>.json` and `.../latest.json` for CI.
 * - Least privilege: `sagemaker:InvokeEndpoint` on the one endpoint, `s3:PutObject` under its own report prefix,
 *   logs to its own group.
 *
 * @example
 * new SmokeBenchmark(this, 'Smoke', {
 *   target: SmokeTarget.sageMakerEndpoint(endpoint),
 *   plan,
 *   request: { body: '{"inputs":"The movie was great"}' },
 *   expect: { kind: 'json-path', path: '$[0].label', value: 'POSITIVE' },
 * });
 *
 * @see https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.triggers-readme.html
 */
export class SmokeBenchmark extends Construct {
  /** The benchmark Lambda. */
  readonly function: lambda.Function;
  /** The Trigger that invokes it during deployment. */
  readonly trigger: triggers.Trigger;
  /** Where the reports go. */
  readonly reportBucket: s3.IBucket;
  /** Key prefix of this target's reports: `<reportPrefix>/<name>`, without a trailing `/`. */
  readonly reportPrefix: string;
  /** Name the reports and metrics are filed under (the `EndpointName` dimension). */
  readonly targetName: string;
  /** The `Environment` dimension. */
  readonly environmentName: string;
  /** CloudWatch namespace of the metrics. */
  readonly metricNamespace: string;
  /** The limits the run must meet, defaults and overrides merged. */
  readonly thresholds: Thresholds;
  /** Timeout of the Lambda. */
  readonly timeout: Duration;
  /** The capacity proof's load-worker function, when a capacity proof is configured. */
  readonly loadWorker?: lambda.Function;
  /** The capacity proof's settings (rate, fan-out, limits), when one is configured. */
  readonly capacity?: CapacityConfig;

  constructor(scope: Construct, id: string, props: SmokeBenchmarkProps) {
    super(scope, id);
    const target = props.target._bind(this);
    const problems: string[] = [];

    const shape = resolveLoad(props, target, problems);
    const allowance = props.latencyAllowance ?? target.defaultLatencyAllowance;
    const share = props.throughputShare ?? DEFAULT_THROUGHPUT_SHARE;
    if (!(share > 0 && share <= 1)) {
      problems.push(`throughputShare=${share} must be above 0 and at most 1, e.g. 0.5 for half of what the load can drive`);
    }
    this.thresholds = { ...smokeThresholdDefaults(props.plan, shape, allowance, share), ...props.thresholds };
    this.capacity = resolveCapacity(props, shape, allowance, problems);
    this.timeout = resolveTimeout(props.timeout, shape, problems, this.capacity);
    validateRequest(props, target, problems);

    const prefix = props.reportPrefix ?? DEFAULT_REPORT_PREFIX;
    if (!REPORT_PREFIX.test(prefix)) {
      problems.push(
        `reportPrefix=${JSON.stringify(prefix)} must be key segments of letters, digits, '.', '_' and '-' joined ` +
          "by '/', without a leading or trailing '/', e.g. 'smoke-benchmarks'",
      );
    }
    if (target.kind === 'http' && !Token.isUnresolved(target.name) && !TARGET_NAME.test(target.name)) {
      problems.push(
        `target name=${JSON.stringify(target.name)} (SmokeTarget.url options.name) must be 1-128 letters, digits, ` +
          "'.', '_' or '-': it is an S3 key segment and a metric dimension",
      );
    }
    if (target.fingerprint !== undefined && Token.isUnresolved(target.fingerprint)) {
      problems.push(
        'target fingerprint is a CloudFormation token; it must be a synth-time value (a hash of what the deployment ' +
          'is made of): a token changes at deploy time, after the Lambda version that re-runs the benchmark was fixed',
      );
    }
    this.metricNamespace = props.metricNamespace ?? DEFAULT_METRIC_NAMESPACE;
    if (Token.isUnresolved(this.metricNamespace) || !/^[^:]{1,255}$/.test(this.metricNamespace) || this.metricNamespace.startsWith('AWS/')) {
      problems.push(
        `metricNamespace=${JSON.stringify(this.metricNamespace)} must be a literal of 1-255 characters without ':' ` +
          "that does not start with 'AWS/', e.g. 'CdkInferentia/SmokeBenchmark'",
      );
    }
    this.environmentName = props.environmentName ?? Stack.of(this).stackName;
    if (!Token.isUnresolved(this.environmentName) && this.environmentName.trim() === '') {
      problems.push('environmentName is blank; name the environment, e.g. prod, or leave it unset for the stack name');
    }

    const config: SmokeConfig = {
      schemaVersion: 1,
      target: target.config,
      fingerprint: target.fingerprint,
      request: { body: props.request.body, contentType: props.request.contentType ?? 'application/json' },
      expectStatus: props.expectStatus,
      expect: props.expect,
      mode: shape.mode,
      stop: shape.stop,
      warmupMs: shape.warmupMs,
      timeoutMs: shape.timeoutMs,
      thresholds: this.thresholds,
      metricNamespace: this.metricNamespace,
      reportPrefix: prefix,
      ...(props.failOnReportError === true ? { failOnReportError: true } : {}),
      ...(this.capacity !== undefined ? { capacity: this.capacity } : {}),
    };
    const environment = (reportBucketName: string, workerFunctionName?: string): Record<string, string> => ({
      [SMOKE_ENV.config]: JSON.stringify(config),
      [SMOKE_ENV.target]: target.target,
      [SMOKE_ENV.name]: target.name,
      [SMOKE_ENV.environment]: this.environmentName,
      [SMOKE_ENV.reportBucket]: reportBucketName,
      [SMOKE_ENV.stackId]: Stack.of(this).stackId,
      ...(workerFunctionName !== undefined ? { [SMOKE_ENV.workerFunction]: workerFunctionName } : {}),
    });
    // A bucket this construct defines has a generated name, known only at deploy time: count it as a token, and
    // the worker's name too.
    const someToken = Stack.of(this).stackId;
    problems.push(
      ...environmentSizeProblems(
        environment(props.reportBucket?.bucketName ?? someToken, this.capacity !== undefined ? someToken : undefined),
      ),
    );
    InputError.throwIfAny(problems);
    // The handler parses the same schema: a mismatch here is a bug in this construct, not bad input.
    smokeConfigSchema.parse(config);

    this.reportBucket = props.reportBucket ?? this.defineReportBucket();
    this.targetName = target.name;
    this.reportPrefix = `${prefix}/${target.name}`;

    if (this.capacity !== undefined) {
      const worker = new NeuronFunction(this, 'LoadWorker', {
        entry: path.join(__dirname, '..', 'lambdas', 'smoke-load-worker', 'index.ts'),
        description: 'Capacity proof load worker: drives its share of the planned rate and returns its histograms',
        timeout: Duration.millis(workerRunMs(this.capacity) + WORKER_RETURN_RESERVE_MS).plus(WORKER_TIMEOUT_MARGIN),
        // One vCPU: what bench:smoke-fanout measured PER_WORKER_RPS at.
        memorySize: Size.mebibytes(1769),
        environment: { [SMOKE_ENV.config]: JSON.stringify(config), [SMOKE_ENV.target]: target.target },
        logRetention: props.logRetention,
        vpc: target.network.vpc,
        vpcSubnets: target.network.vpcSubnets,
        securityGroups: target.network.securityGroups,
      });
      target.grant(worker);
      this.loadWorker = worker;
    }

    const fn = new NeuronFunction(this, 'Function', {
      entry: path.join(__dirname, '..', 'lambdas', 'smoke-benchmark', 'index.ts'),
      description: 'Post-deploy smoke benchmark: fails the deployment when the endpoint misses its targets',
      timeout: this.timeout,
      // One full vCPU, so the load generator's own scheduling stays out of the measured latency.
      memorySize: Size.mebibytes(1769),
      environment: environment(this.reportBucket.bucketName, this.loadWorker?.functionName),
      logRetention: props.logRetention,
      vpc: target.network.vpc,
      vpcSubnets: target.network.vpcSubnets,
      securityGroups: target.network.securityGroups,
    });
    this.function = fn;

    target.grant(fn);
    if (this.loadWorker !== undefined) {
      // The unqualified ARN only (the hook invokes $LATEST by name): Function.grantInvoke would add `<arn>:*`.
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          sid: 'InvokeOwnLoadWorker',
          actions: ['lambda:InvokeFunction'],
          resources: [this.loadWorker.functionArn],
        }),
      );
    }
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'WriteReports',
        actions: ['s3:PutObject'],
        resources: [this.reportBucket.arnForObjects(`${this.reportPrefix}/*`)],
      }),
    );
    this.reportBucket.encryptionKey?.grant(fn, 'kms:GenerateDataKey');
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'ReadOwnStackStatus',
        actions: ['cloudformation:DescribeStacks'],
        resources: [Stack.of(this).stackId],
      }),
    );
    Validations.of(fn.serviceRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagResourceId(this, this.reportBucket.arnForObjects(`${this.reportPrefix}/*`))}]`,
      reason:
        'Each run writes a new report named after its time and deployment fingerprint, so the keys cannot be ' +
        'listed in advance; the wildcard is limited to this target\'s own report prefix and the only action is ' +
        's3:PutObject.',
    });

    // The stack's shared Trigger provider (CDK's) needs no acknowledgement in cdk-nag 3.0.2: its role and function
    // are plain CfnResources, which the AwsSolutions rules (`instanceof CfnRole`, `CfnFunction`) do not inspect.
    this.trigger = new triggers.Trigger(this, 'Trigger', {
      handler: fn,
      invocationType: triggers.InvocationType.REQUEST_RESPONSE,
      timeout: this.timeout.plus(INVOKE_MARGIN),
      executeOnHandlerChange: true,
    });
    this.trigger.executeAfter(...dependencyTargets([...target.dependsOn, ...(props.executeAfter ?? [])], this));
    // If the provider dies without answering, CloudFormation waits ServiceTimeout (default an hour, aws-cdk#2126)
    // before failing the deployment. Trigger exposes no serviceTimeout, so it is set on the resource: the invoke,
    // the provider's IAM-propagation retries and its answer, and no more.
    const triggerResource = this.trigger.node.defaultChild?.node.defaultChild;
    if (!(triggerResource instanceof CfnResource)) {
      throw new Error('aws-cdk-lib Trigger no longer has a CustomResource child named Default; update SmokeBenchmark');
    }
    triggerResource.addPropertyOverride(
      'ServiceTimeout',
      String(this.timeout.plus(INVOKE_MARGIN).plus(PROVIDER_OVERHEAD).toSeconds()),
    );

    if (target.fingerprint === undefined) {
      Annotations.of(this).addWarningV2(
        '@cdk-inferentia/smoke-benchmark:noFingerprint',
        `The smoke benchmark of ${target.name} has no deployment fingerprint: it runs again only when its own ` +
          'settings change, not when the service behind the target is redeployed. Give the target a fingerprint.',
      );
    }
  }

  /**
   * A metric of the benchmark, with the `EndpointName` and `Environment` dimensions it publishes.
   *
   * @param metricName one of `LatencyP50`, `LatencyP90`, `LatencyP99`, `LatencyMax` (ms), `Throughput` (req/s),
   *   `ErrorRate` (percent), `Requests`, `Errors`, `Passed` (1 or 0).
   */
  metric(metricName: string, props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.metricNamespace,
      metricName,
      dimensionsMap: {
        [SMOKE_DIMENSION.endpoint]: this.targetName,
        [SMOKE_DIMENSION.environment]: this.environmentName,
      },
      ...props,
    });
  }

  /** 1 when a run passed, 0 when it failed (minimum: any failure in the period shows). */
  metricPassed(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(SMOKE_METRIC.passed, { statistic: cloudwatch.Stats.MINIMUM, ...props });
  }

  /** The runs' p99 latency in milliseconds (maximum over the period). */
  metricP99(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(SMOKE_METRIC.p99, { statistic: cloudwatch.Stats.MAXIMUM, unit: cloudwatch.Unit.MILLISECONDS, ...props });
  }

  /** The runs' p50 latency in milliseconds (maximum over the period). */
  metricP50(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(SMOKE_METRIC.p50, { statistic: cloudwatch.Stats.MAXIMUM, unit: cloudwatch.Unit.MILLISECONDS, ...props });
  }

  /** The runs' throughput in successful requests per second (minimum over the period). */
  metricThroughput(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(SMOKE_METRIC.throughput, { statistic: cloudwatch.Stats.MINIMUM, ...props });
  }

  /** The runs' error rate in percent (maximum over the period). */
  metricErrorRate(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(SMOKE_METRIC.errorRate, { statistic: cloudwatch.Stats.MAXIMUM, unit: cloudwatch.Unit.PERCENT, ...props });
  }

  private defineReportBucket(): s3.Bucket {
    const accessLogs = new s3.Bucket(this, 'ReportAccessLogs', {
      // S3 server access logging delivers only to SSE-S3 buckets.
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'ExpireAccessLogs', expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'This bucket receives the server access logs of the report bucket; logging it too would need yet another ' +
        'bucket, or log into itself in a loop.',
    });
    const bucket = new s3.Bucket(this, 'ReportBucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'AbortIncompleteUploads', abortIncompleteMultipartUploadAfter: Duration.days(7) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    logAccessTo(bucket, accessLogs, 'report-bucket/', 'S3ServerAccessLogsFromReportBucket');
    return bucket;
  }
}

/**
 * The thresholds a smoke run gets from a plan when none are given.
 *
 * - p99 <= `plan.targets.p99Ms` + `latencyAllowance`: the plan's promise, plus the client side of the measurement.
 * - throughput >= `share` x min(what the load drives, `plan.capacityRps`). A closed loop of C requests drives
 *   C x 1000 / (`plan.p50Ms` + allowance) req/s (Little's law at the plan's median latency); an open loop drives
 *   its rate.
 * - error rate <= 1 %, with or without a plan.
 * - for a `batching` plan, served by this project's model server: the server's own p99 (its timing header) <= the
 *   plan's p99 at the rate the load drives ({@link predictedP99At}).
 */
export function smokeThresholdDefaults(
  plan: Plan | undefined,
  shape: { readonly mode: LoadMode },
  latencyAllowance: Duration,
  share: number,
): Thresholds {
  if (plan === undefined) {
    return { maxErrorRate: DEFAULT_ERROR_RATE };
  }
  const allowanceMs = latencyAllowance.toMilliseconds();
  const drive = shape.mode.kind === 'closed' ? (shape.mode.concurrency * 1000) / (plan.p50Ms + allowanceMs) : shape.mode.rateRps;
  return {
    p99MaxMs: round2(plan.targets.p99Ms + allowanceMs),
    minThroughputRps: round2(share * Math.min(drive, plan.capacityRps)),
    maxErrorRate: DEFAULT_ERROR_RATE,
    // This project's model server (batching plans) reports each request's time in the server, so its p99 is judged
    // against the plan's own prediction, with no allowance for a network hop nobody measured.
    ...(plan.serving === 'batching' ? { serverP99MaxMs: round2(predictedP99At(plan, Math.min(drive, plan.capacityRps))) } : {}),
  };
}

function resolveLoad(props: SmokeBenchmarkProps, target: BoundTarget, problems: string[]): RunShape {
  const load = props.load ?? {};
  const timeoutMs = (load.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT).toMilliseconds();
  const warmupMs = (load.warmup ?? DEFAULT_WARMUP).toMilliseconds();
  if (load.concurrency !== undefined && load.rateRps !== undefined) {
    problems.push(
      `load.concurrency=${load.concurrency} and load.rateRps=${load.rateRps} are both set; give concurrency for a ` +
        'closed loop or rateRps for a fixed arrival rate, not both',
    );
  }
  if (load.duration !== undefined && load.requests !== undefined) {
    problems.push(
      `load.duration=${load.duration.toSeconds()} s and load.requests=${load.requests} are both set; give one`,
    );
  }
  if (timeoutMs <= 0) {
    problems.push(`load.requestTimeout=${timeoutMs} ms must be positive, e.g. Duration.seconds(10)`);
  }
  if (target.kind === 'sagemaker' && timeoutMs > 60_000) {
    problems.push(
      `load.requestTimeout=${timeoutMs / 1000} s is above the 60 s SageMaker InvokeEndpoint allows a response; ` +
        'use at most Duration.seconds(60)',
    );
  }

  let mode: LoadMode;
  if (load.rateRps !== undefined) {
    if (!(load.rateRps > 0) || !Number.isFinite(load.rateRps)) {
      problems.push(`load.rateRps=${load.rateRps} must be a positive number of requests per second, e.g. 20`);
    }
    mode = {
      kind: 'open',
      rateRps: load.rateRps,
      maxInFlight: Math.min(MAX_IN_FLIGHT, defaultMaxInFlight(Math.max(load.rateRps, 1), Math.max(timeoutMs, 1))),
    };
  } else {
    const concurrency = load.concurrency ?? defaultConcurrency(props.plan);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_IN_FLIGHT) {
      problems.push(
        `load.concurrency=${concurrency} must be a whole number from 1 to ${MAX_IN_FLIGHT}; a smoke run proves the ` +
          'deployment, it does not load-test it',
      );
    }
    mode = { kind: 'closed', concurrency };
  }

  let stop: StopCondition;
  if (load.requests !== undefined) {
    if (!Number.isInteger(load.requests) || load.requests < 1) {
      problems.push(`load.requests=${load.requests} must be a whole number >= 1, e.g. 200`);
    }
    stop = { requests: load.requests };
  } else {
    const durationMs = (load.duration ?? DEFAULT_DURATION).toMilliseconds();
    if (durationMs <= 0) {
      problems.push(`load.duration=${durationMs} ms must be positive, e.g. Duration.seconds(30)`);
    }
    stop = { durationMs };
  }
  return { mode, stop, warmupMs, timeoutMs };
}

/**
 * The p99 the plan predicts at `rateRps`: its `predictedP99Ms` (at the target rate) up to the target rate, and the
 * target p99 above it, up to `capacityRps`, which is by definition the rate whose predicted p99 meets the target.
 */
export function predictedP99At(plan: Plan, rateRps: number): number {
  return rateRps <= plan.targets.throughputRps ? plan.predictedP99Ms : plan.targets.p99Ms;
}

function resolveCapacity(
  props: SmokeBenchmarkProps,
  shape: RunShape,
  allowance: Duration,
  problems: string[],
): CapacityConfig | undefined {
  const options = props.capacityProof;
  if (options === undefined) {
    return undefined;
  }
  const count = problems.length;
  const plan = props.plan;
  const fraction = options.fraction ?? 1;
  if (options.fraction !== undefined && !(fraction > 0 && fraction <= 2)) {
    problems.push(`capacityProof.fraction=${fraction} must be above 0 and at most 2, e.g. 1 for the planned capacity`);
  }
  if (options.rateRps !== undefined && options.fraction !== undefined) {
    problems.push(`capacityProof.rateRps=${options.rateRps} and capacityProof.fraction=${fraction} are both set; give one`);
  }
  const rateRps = options.rateRps ?? (plan !== undefined ? round2(plan.capacityRps * fraction) : NaN);
  if (options.rateRps === undefined && plan === undefined) {
    problems.push('capacityProof needs a plan to take its rate from, or capacityProof.rateRps, e.g. 500');
  } else if (!(rateRps > 0) || !Number.isFinite(rateRps)) {
    problems.push(`capacityProof.rateRps=${rateRps} must be a positive number of requests per second, e.g. 500`);
  }
  const p99MaxMs =
    options.p99Max?.toMilliseconds() ??
    (plan !== undefined ? round2(predictedP99At(plan, rateRps) + allowance.toMilliseconds()) : undefined);
  if (p99MaxMs === undefined) {
    problems.push('capacityProof.p99Max is needed without a plan, e.g. Duration.millis(50)');
  } else if (!(p99MaxMs > 0)) {
    problems.push(`capacityProof.p99Max=${p99MaxMs} ms must be positive`);
  }
  const serverP99MaxMs =
    options.serverP99Max?.toMilliseconds() ??
    (plan !== undefined && plan.serving === 'batching' ? predictedP99At(plan, rateRps) : undefined);
  const perWorkerRps = options.perWorkerRps ?? PER_WORKER_RPS;
  if (!(perWorkerRps > 0) || !Number.isFinite(perWorkerRps)) {
    problems.push(`capacityProof.perWorkerRps=${perWorkerRps} must be a positive number, e.g. ${PER_WORKER_RPS}`);
  }
  const workers = Math.max(1, Math.ceil(rateRps / perWorkerRps));
  const fanOutLimit = Math.min(MAX_FAN_OUT, DEFAULT_ACCOUNT_CONCURRENCY);
  if (Number.isFinite(workers) && workers > fanOutLimit) {
    problems.push(
      `capacityProof.rateRps=${rateRps} needs ${workers} load workers at ${perWorkerRps} requests/s each, above the ` +
        `${fanOutLimit} a proof may fan out to (Lambda's default account concurrency is ${DEFAULT_ACCOUNT_CONCURRENCY}, ` +
        'shared with every other function); lower capacityProof.fraction or rateRps, or prove one instance\'s ' +
        'capacity on a smaller staging fleet',
    );
  }
  const rateShare = options.rateShare ?? DEFAULT_CAPACITY_RATE_SHARE;
  if (!(rateShare > 0 && rateShare <= 1)) {
    problems.push(`capacityProof.rateShare=${rateShare} must be above 0 and at most 1, e.g. 0.95`);
  }
  const maxErrorRate = options.maxErrorRate ?? DEFAULT_ERROR_RATE;
  if (!(maxErrorRate >= 0 && maxErrorRate <= 1)) {
    problems.push(`capacityProof.maxErrorRate=${maxErrorRate} must be between 0 and 1, e.g. 0.01 for 1 %`);
  }
  const durationMs = (options.duration ?? DEFAULT_CAPACITY_DURATION).toMilliseconds();
  const warmupMs = (options.warmup ?? DEFAULT_CAPACITY_WARMUP).toMilliseconds();
  if (!(durationMs > 0)) {
    problems.push(`capacityProof.duration=${durationMs} ms must be positive, e.g. Duration.seconds(60)`);
  }
  if (problems.length > count || p99MaxMs === undefined) {
    return undefined;
  }
  const perWorker = rateRps / workers;
  return {
    rateRps,
    workers,
    durationMs,
    warmupMs,
    timeoutMs: shape.timeoutMs,
    maxInFlightPerWorker: Math.min(MAX_IN_FLIGHT, defaultMaxInFlight(perWorker, shape.timeoutMs)),
    predicted: { rateRps: plan?.capacityRps ?? rateRps, p99Ms: plan !== undefined ? predictedP99At(plan, rateRps) : p99MaxMs },
    thresholds: {
      minRateRps: round2(rateShare * rateRps),
      p99MaxMs,
      ...(serverP99MaxMs !== undefined ? { serverP99MaxMs } : {}),
      maxErrorRate,
    },
  };
}

function defaultConcurrency(plan: Plan | undefined): number {
  if (plan === undefined) {
    return DEFAULT_CONCURRENCY_WITHOUT_PLAN;
  }
  return Math.max(1, Math.min(MAX_DEFAULT_CONCURRENCY, plan.instanceCount * plan.processesPerInstance));
}

function resolveTimeout(
  timeout: Duration | undefined,
  shape: RunShape,
  problems: string[],
  capacity?: CapacityConfig,
): Duration {
  const smokeMs = requiredFunctionTimeoutMs(shape);
  const capacityMs = capacity !== undefined ? capacityStageMs(capacity) : 0;
  const requiredMs = smokeMs === undefined ? undefined : smokeMs + capacityMs;
  const maxMs = MAX_SMOKE_TIMEOUT.toMilliseconds();
  const needs = (ms: number): string =>
    `${describe(ms)} (startup 15 s + load.warmup ${describe(shape.warmupMs)} + load.duration ` +
    `${describe('durationMs' in shape.stop ? shape.stop.durationMs : 0)} + one load.requestTimeout ` +
    `${describe(shape.timeoutMs)} + 7 s to stop and write the report` +
    (capacity !== undefined
      ? ` + the capacity proof ${describe(capacityMs)}: 15 s to start the workers + capacityProof.warmup ` +
        `${describe(capacity.warmupMs)} + capacityProof.duration ${describe(capacity.durationMs)} + one request ` +
        `timeout + 5 s to return)`
      : ')');
  const tooLong =
    'the Trigger provider Lambda stops at 15 minutes and may spend 1 minute on IAM propagation retries, and a ' +
    'provider that dies leaves CloudFormation waiting an hour; runs longer than this need the custom-resource ' +
    'Provider framework, not supported yet';

  if (timeout === undefined) {
    if (requiredMs === undefined) {
      return Duration.minutes(5).plus(Duration.millis(capacityMs));
    }
    if (requiredMs > maxMs) {
      problems.push(
        `${capacity !== undefined ? 'capacityProof.duration' : 'load.duration'}: the run needs ${needs(requiredMs)}, ` +
          `above the ${describe(maxMs)} a smoke benchmark may run (${tooLong}); shorten ` +
          `${capacity !== undefined ? 'capacityProof.duration, capacityProof.warmup, ' : ''}load.duration or load.warmup`,
      );
      return MAX_SMOKE_TIMEOUT;
    }
    return Duration.seconds(Math.min(maxMs / 1000, Math.max(120, Math.ceil(requiredMs / 1000) + 60)));
  }

  const chosenMs = timeout.toMilliseconds();
  if (chosenMs > maxMs) {
    problems.push(
      `timeout=${describe(chosenMs)} is above ${describe(maxMs)}, the longest a smoke benchmark may run (${tooLong}); ` +
        'use at most Duration.minutes(13) and shorten load.duration or load.warmup to fit',
    );
  } else if (requiredMs !== undefined && chosenMs < requiredMs) {
    problems.push(
      `timeout=${describe(chosenMs)} is shorter than the run needs: ${needs(requiredMs)}; raise timeout to at least ` +
        `Duration.seconds(${Math.ceil(requiredMs / 1000)}) or shorten load.duration`,
    );
  }
  return timeout;
}

function validateRequest(props: SmokeBenchmarkProps, target: BoundTarget, problems: string[]): void {
  if (Token.isUnresolved(props.request.body)) {
    problems.push('request.body is a CloudFormation token; give the golden request as a literal string');
  } else if (target.kind === 'sagemaker' && props.request.body === '') {
    problems.push('request.body is empty; InvokeEndpoint needs the payload the model expects, e.g. {"inputs":"hello"}');
  }
  if (props.expectStatus !== undefined) {
    if (!Number.isInteger(props.expectStatus) || props.expectStatus < 100 || props.expectStatus > 599) {
      problems.push(`expectStatus=${props.expectStatus} must be an HTTP status between 100 and 599`);
    } else if (target.kind === 'sagemaker' && props.expectStatus !== 200) {
      problems.push(
        `expectStatus=${props.expectStatus}: SageMaker answers 200 on success and wraps any other model status in ` +
          'a ModelError (424); leave it unset',
      );
    }
  }
  if (props.expect !== undefined) {
    try {
      compileAnswerCheck(props.expect);
    } catch (err) {
      problems.push(`expect: ${(err as Error).message}`);
    }
  }
}

function environmentSizeProblems(environment: Record<string, string>): string[] {
  const bytes = Object.entries(environment).reduce(
    (sum, [key, value]) =>
      sum + Buffer.byteLength(key) + (Token.isUnresolved(value) ? TOKEN_VALUE_BYTES : Buffer.byteLength(value)),
    // NODE_OPTIONS, set by the house function.
    Buffer.byteLength('NODE_OPTIONS--enable-source-maps'),
  );
  if (bytes <= LAMBDA_ENVIRONMENT_BYTES) {
    return [];
  }
  return [
    `request.body and expect take ${bytes} bytes of the Lambda environment with the other settings, above Lambda's ` +
      `${LAMBDA_ENVIRONMENT_BYTES}-byte limit; use a smaller golden request (a short input exercises the model as well ` +
      'as a long one) or a json-path check instead of the whole expected answer',
  ];
}

/**
 * The constructs the Trigger should run after, without the branch that contains the benchmark itself: an endpoint
 * that creates its own smoke benchmark is a target and an ancestor at once, and depending on an ancestor would make
 * the Trigger depend on itself.
 */
function dependencyTargets(targets: readonly IConstruct[], self: IConstruct): IConstruct[] {
  const result: IConstruct[] = [];
  for (const target of targets) {
    if (!self.node.scopes.includes(target)) {
      result.push(target);
      continue;
    }
    const expand = (scope: IConstruct): void => {
      for (const child of scope.node.children) {
        if (child === self) {
          continue;
        }
        if (self.node.scopes.includes(child)) {
          expand(child);
        } else {
          result.push(child);
        }
      }
    };
    expand(target);
  }
  return result;
}

/**
 * The text cdk-nag shows for a resource in its finding ids (`<Logical.Arn>/prefix/*`), to acknowledge exactly that
 * finding. Mirrors `flattenCfnReference` of cdk-nag 3.0.2 (`lib/utils/flatten-cfn-reference.js`), which the package
 * does not export.
 */
function nagResourceId(scope: Construct, value: string): string {
  const visit = (node: unknown): string => {
    if (node === undefined) {
      return '';
    }
    if (typeof node === 'string') {
      return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
    }
    const record = node as Record<string, unknown>;
    if (record['Fn::Join']) {
      const [delimiter, items] = record['Fn::Join'] as [string, unknown[]];
      return items.map(visit).join(delimiter);
    }
    if (record['Fn::Sub']) {
      return visit(record['Fn::Sub']);
    }
    if (record['Fn::GetAtt']) {
      const [resource, attribute] = record['Fn::GetAtt'] as [unknown, unknown];
      return `<${visit(resource)}.${visit(attribute)}>`;
    }
    if (record['Fn::ImportValue']) {
      return visit(record['Fn::ImportValue']);
    }
    if (record.Ref) {
      return `<${visit(record.Ref)}>`;
    }
    return JSON.stringify(node);
  };
  return visit(Stack.of(scope).resolve(value));
}

function describe(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) {
    const minutes = ms / 60_000;
    return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  }
  return `${Math.round(ms / 100) / 10} s`;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
