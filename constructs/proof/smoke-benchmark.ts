import * as path from 'node:path';
import { Annotations, CfnResource, Duration, RemovalPolicy, Size, Stack, Token, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as triggers from 'aws-cdk-lib/triggers';
import { Construct } from 'constructs';
import { logAccessTo } from '../private/access-logs';
import type { Thresholds } from '../../lib/bench/types';
import { WORKER_RETURN_RESERVE_MS, workerRunMs, type CapacityConfig } from '../../lib/smoke/capacity';
import { SMOKE_ENV, smokeConfigSchema, type SmokeConfig } from '../../lib/smoke/config';
import { tokenProofConfigSchema, tokenWorkerRunMs, type TokenProofConfig } from '../../lib/bench/token-proof';
import type { RunShape } from '../../lib/smoke/budget';
import type { Plan } from '../../lib/planner/types';
import { isGenerativePlan, resolveTokenProof, type ResolvedTokenProof } from './private/token-resolve';
import { SMOKE_DIMENSION, SMOKE_METRIC } from '../../lib/smoke/metrics';
import { NeuronFunction } from '../private/neuron-function';
import { INVOKE_MARGIN, PROVIDER_OVERHEAD, WORKER_TIMEOUT_MARGIN, DEFAULT_ERROR_RATE, MAX_SMOKE_TIMEOUT, DEFAULT_METRIC_NAMESPACE, DEFAULT_REPORT_PREFIX, DEFAULT_THROUGHPUT_SHARE, REPORT_PREFIX, TARGET_NAME } from './private/smoke-defaults';
import { resolveLoad, resolveCapacity, resolveTimeout, validateRequest, environmentSizeProblems, dependencyTargets, nagResourceId } from './private/smoke-resolve';
import { SmokeBenchmarkProps } from './smoke-benchmark-props';
import { poolLimits, smokeThresholdDefaults } from './smoke-thresholds';
import type { PoolLimits } from '../../lib/bench/pools';
import { anyPlanOf, throwIfProblems, within } from '../private/construct-errors';
import { markOwned } from '../private/ownership';

export { MAX_SMOKE_TIMEOUT } from './private/smoke-defaults';

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
  /** The capacity proof's settings (rate, fan-out, limits), when one is configured for a single-call plan. */
  readonly capacity?: CapacityConfig;
  /**
   * For a generative plan: the proof in tokens (golden prompt, short streamed run, capacity proof) with its limits
   * and the plan's predictions.
   */
  readonly tokenProof?: TokenProofConfig;

  constructor(scope: Construct, id: string, props: SmokeBenchmarkProps) {
    super(scope, id);
    markOwned(this);
    if (props.plan !== undefined) {
      anyPlanOf(this, props.plan);
    }
    const target = within(this, () => props.target._bind(this));
    const problems: string[] = [];

    const allowance = props.latencyAllowance ?? target.defaultLatencyAllowance;
    const share = props.throughputShare ?? DEFAULT_THROUGHPUT_SHARE;
    const shareProblem = !(share > 0 && share <= 1)
      ? `throughputShare=${share} must be above 0 and at most 1, e.g. 0.5 for half of what the load can drive`
      : undefined;
    const generativePlan = isGenerativePlan(props.plan) ? props.plan : undefined;
    let tokens: ResolvedTokenProof | undefined;
    let single: { shape: RunShape; request: NonNullable<SmokeBenchmarkProps['request']> } | undefined;
    let pools: PoolLimits[] | undefined;
    if (generativePlan !== undefined) {
      if (shareProblem !== undefined) {
        problems.push(shareProblem);
      }
      tokens = resolveTokenProof(props, generativePlan, allowance, MAX_SMOKE_TIMEOUT.toMilliseconds(), problems);
      this.thresholds = { maxErrorRate: tokens?.smoke.thresholds.maxErrorRate ?? DEFAULT_ERROR_RATE };
      this.timeout = tokens?.timeout ?? MAX_SMOKE_TIMEOUT;
    } else {
      const singleProps = { ...props, plan: props.plan as Plan | undefined };
      if (props.tokens !== undefined) {
        problems.push('tokens is set but the plan is not generative: a proof in tokens needs a GenerativePlan; remove tokens or pass the generative plan');
      }
      if (target.inferenceComponentName !== undefined) {
        problems.push('the target names an inference component, which only a proof in tokens (a GenerativePlan) sends to; remove inferenceComponentName');
      }
      const shape = resolveLoad(singleProps, target, problems);
      if (shareProblem !== undefined) {
        problems.push(shareProblem);
      }
      this.thresholds = { ...smokeThresholdDefaults(singleProps.plan, shape, allowance, share), ...props.thresholds };
      pools = poolLimits(singleProps.plan, shape, allowance, share, props.thresholds);
      this.capacity = props.capacityProof && resolveCapacity(props.capacityProof, singleProps.plan, shape, allowance, problems);
      this.timeout = resolveTimeout(props.timeout, shape, problems, this.capacity);
      if (props.request === undefined) {
        problems.push('request is not set: give the golden request the endpoint answers, e.g. { body: \'{"inputs":"hello"}\' }');
      } else {
        validateRequest({ ...singleProps, request: props.request }, target, problems);
        single = { shape, request: props.request };
      }
    }

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

    const common = {
      schemaVersion: 1 as const,
      fingerprint: target.fingerprint,
      metricNamespace: this.metricNamespace,
      reportPrefix: prefix,
      ...(props.failOnReportError === true ? { failOnReportError: true } : {}),
    };
    const config: SmokeConfig | TokenProofConfig | undefined =
      tokens !== undefined
        ? {
            ...common,
            kind: 'tokens',
            target: target.tokenConfig,
            api: tokens.api,
            model: tokens.model,
            golden: tokens.golden,
            smoke: tokens.smoke,
            ...(tokens.capacity !== undefined ? { capacity: tokens.capacity } : {}),
            plan: tokens.plan,
            ...(tokens.pools !== undefined ? { pools: tokens.pools } : {}),
          }
        : single !== undefined
          ? {
              ...common,
              target: target.config,
              request: { body: single.request.body, contentType: single.request.contentType ?? 'application/json' },
              expectStatus: props.expectStatus,
              expect: props.expect,
              mode: single.shape.mode,
              stop: single.shape.stop,
              warmupMs: single.shape.warmupMs,
              timeoutMs: single.shape.timeoutMs,
              thresholds: this.thresholds,
              ...(this.capacity !== undefined ? { capacity: this.capacity } : {}),
              ...(pools !== undefined ? { pools } : {}),
            }
          : undefined;
    const hasWorkers = this.capacity !== undefined || tokens?.capacity !== undefined;
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
    if (config !== undefined) {
      problems.push(
        ...environmentSizeProblems(
          environment(props.reportBucket?.bucketName ?? someToken, hasWorkers ? someToken : undefined),
        ),
      );
    }
    throwIfProblems(this, problems);
    if (config === undefined) {
      throw new Error('SmokeBenchmark resolved no configuration although no problem was found; this is a bug');
    }
    // The handler parses the same schema: a mismatch here is a bug in this construct, not bad input.
    if ('kind' in config) {
      tokenProofConfigSchema().parse(config);
      this.tokenProof = config;
    } else {
      smokeConfigSchema().parse(config);
    }

    this.reportBucket = props.reportBucket ?? this.defineReportBucket();
    this.targetName = target.name;
    this.reportPrefix = `${prefix}/${target.name}`;

    if (hasWorkers) {
      const workerMs = tokens?.capacity !== undefined ? tokenWorkerRunMs(tokens.capacity) : workerRunMs(this.capacity!);
      const worker = new NeuronFunction(this, 'LoadWorker', {
        entry: path.join(__dirname, '..', '..', 'lambdas', 'smoke-load-worker', 'index.ts'),
        description: 'Capacity proof load worker: drives its share of the planned rate and returns its histograms',
        // Lambda takes whole seconds.
        timeout: Duration.seconds(Math.ceil((workerMs + WORKER_RETURN_RESERVE_MS) / 1000)).plus(WORKER_TIMEOUT_MARGIN),
        // One vCPU: what bench:smoke-fanout measured PER_WORKER_RPS at.
        memorySize: Size.mebibytes(1769),
        environment: { [SMOKE_ENV.config]: JSON.stringify(config), [SMOKE_ENV.target]: target.target },
        logRetention: props.logRetention,
        vpc: target.network.vpc,
        vpcSubnets: target.network.vpcSubnets,
        securityGroups: target.network.securityGroups,
      });
      target.grant(worker);
      if (tokens !== undefined) {
        target.grantStream(worker);
      }
      this.loadWorker = worker;
    }

    const fn = new NeuronFunction(this, 'Function', {
      entry: path.join(__dirname, '..', '..', 'lambdas', 'smoke-benchmark', 'index.ts'),
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
    if (tokens !== undefined) {
      target.grantStream(fn);
    }
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
