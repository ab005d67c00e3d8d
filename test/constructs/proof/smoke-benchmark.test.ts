import { planBasis } from '../../../lib/smoke/capacity';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import { Construct } from 'constructs';
import { applyPolicyChecks } from '../../../constructs/nag';
import {
  MAX_SMOKE_TIMEOUT,
  SmokeBenchmark,
  type SmokeBenchmarkOptions,
  type ISmokeBenchmarkEndpoint,
  SmokeTarget,
  smokeThresholdDefaults,
} from '../../../constructs/proof';
import type { SmokeConfig } from '../../../lib/smoke/config';
import { workerRequests } from '../../../lib/smoke/capacity';
import { InputError } from '../../../lib/errors';
import { plan } from '../../../lib/planner';
import type { Plan } from '../../../lib/planner/types';
import { findProfile } from '../../../lib/profiles';
import { nagFindings } from '../../support/nag';

const ENV = { account: '123456789012', region: 'us-east-1' };
const BERT_PLAN = plan(findProfile('bert-base-uncased')!, { throughputRps: 500, p99Ms: 20 }, {
  region: 'us-east-1',
  hosting: 'sagemaker',
});
const REQUEST = { body: '{"inputs":"what a lovely day"}' };

/** A stand-in for NeuronSageMakerEndpoint: an L1 endpoint and an object literal with what the benchmark needs. */
function fakeEndpoint(stack: Stack, fingerprint?: string): { endpoint: ISmokeBenchmarkEndpoint; cfn: sagemaker.CfnEndpoint } {
  const cfn = new sagemaker.CfnEndpoint(stack, 'Endpoint', { endpointConfigName: 'config', endpointName: 'bert-prod' });
  const endpointArn = stack.formatArn({ service: 'sagemaker', resource: 'endpoint', resourceName: 'bert-prod' });
  return {
    cfn,
    endpoint: {
      endpointName: 'bert-prod',
      endpointArn,
      deploymentFingerprint: fingerprint,
      grantInvoke: (grantee) =>
        iam.Grant.addToPrincipal({ grantee, actions: ['sagemaker:InvokeEndpoint'], resourceArns: [endpointArn] }),
    },
  };
}

/** A stack with an endpoint and its smoke benchmark, with policy checks registered. */
function smokeStack(
  options: Partial<SmokeBenchmarkOptions> & { fingerprint?: string; plan?: Plan } = {},
): { app: App; stack: Stack; smoke: SmokeBenchmark; cfn: sagemaker.CfnEndpoint } {
  // Bundling skipped: esbuild building both handlers for each of these stacks cost the suite about 100 s; the tests
  // that read the handlers' bundles build their own stacks with bundling.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Serving', { env: ENV });
  const { fingerprint, ...rest } = options;
  const { endpoint, cfn } = fakeEndpoint(stack, 'fingerprint' in options ? fingerprint : 'image-abc');
  const smoke = new SmokeBenchmark(stack, 'Smoke', {
    target: SmokeTarget.sageMakerEndpoint(endpoint),
    request: REQUEST,
    executeAfter: [cfn],
    ...rest,
  });
  applyPolicyChecks(app);
  return { app, stack, smoke, cfn };
}

/**
 * A smoke benchmark of an internal load balancer's URL reached from an isolated VPC, with `options`; checked by both
 * cdk-nag packs when `checked`. Bundles the handlers, as a deploy would.
 */
function urlInVpcStack(options: Partial<SmokeBenchmarkOptions>, checked: boolean): { app: App; stack: Stack; smoke: SmokeBenchmark } {
  const app = new App();
  const stack = new Stack(app, 'Serving', { env: ENV });
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'private', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
  const smoke = new SmokeBenchmark(stack, 'Smoke', {
    target: SmokeTarget.url('http://internal-alb.example.internal/', { vpc, fingerprint: 'v1' }),
    request: REQUEST,
    ...options,
  });
  if (checked) {
    applyPolicyChecks(app);
  }
  return { app, stack, smoke };
}

// Synthesized CloudFormation is untyped JSON; the assertions below say what they expect of it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type CfnJson = Record<string, any>;

function functionOf(template: Template): { logicalId: string; properties: CfnJson } {
  const functions = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: { SMOKE_CONFIG: Match.anyValue() } } },
  });
  const [logicalId] = Object.keys(functions);
  return { logicalId, properties: functions[logicalId].Properties };
}

function configOf(template: Template): SmokeConfig {
  return JSON.parse(functionOf(template).properties.Environment.Variables.SMOKE_CONFIG) as SmokeConfig;
}

/** The Trigger's properties, with the logical id of the Lambda version it invokes. */
function triggerOf(template: Template): { handlerVersion: string; resource: CfnJson } {
  const triggers = template.findResources('Custom::Trigger');
  expect(Object.keys(triggers)).toHaveLength(1);
  const resource = Object.values(triggers)[0];
  return { handlerVersion: resource.Properties.HandlerArn.Ref, resource };
}

function synthError(build: () => void): InputError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error('expected an InputError');
}

describe('the Trigger that runs the benchmark', () => {
  test('invokes the current function version synchronously after the endpoint, waiting 30 s longer than the function may run', () => {
    // GIVEN a smoke benchmark of an endpoint
    const { stack, smoke } = smokeStack();

    // WHEN the stack is synthesized
    const template = Template.fromStack(stack);

    // THEN the Trigger is RequestResponse (an Event trigger cannot fail the deployment, aws-cdk#26341)
    const { handlerVersion, resource } = triggerOf(template);
    expect(resource.Properties).toMatchObject({
      InvocationType: 'RequestResponse',
      ExecuteOnHandlerChange: true,
      Timeout: String(smoke.timeout.toMilliseconds() + 30_000),
      // AND CloudFormation gives up soon after the provider could have answered, not after an hour (aws-cdk#2126)
      ServiceTimeout: String(smoke.timeout.toSeconds() + 30 + 90),
    });
    // AND it runs after the endpoint
    expect(resource.DependsOn).toEqual(['Endpoint']);
    // AND it invokes the function's current version
    template.hasResourceProperties('AWS::Lambda::Version', {
      FunctionName: { Ref: functionOf(template).logicalId },
    });
    expect(template.findResources('AWS::Lambda::Version')[handlerVersion]).toBeDefined();
    expect(functionOf(template).properties.Timeout).toBe(smoke.timeout.toSeconds());
  });

  test('runs after an endpoint construct without being told to', () => {
    // GIVEN an endpoint that is a construct, passed without executeAfter
    class Endpoint extends Construct implements ISmokeBenchmarkEndpoint {
      readonly cfn = new sagemaker.CfnEndpoint(this, 'Resource', { endpointConfigName: 'config' });
      readonly endpointName = this.cfn.attrEndpointName;
      readonly endpointArn = this.cfn.ref;
      readonly deploymentFingerprint = 'abc';
      grantInvoke(grantee: iam.IGrantable): iam.Grant {
        return iam.Grant.addToPrincipal({ grantee, actions: ['sagemaker:InvokeEndpoint'], resourceArns: [this.endpointArn] });
      }
    }
    const stack = new Stack(new App(), 'Serving', { env: ENV });
    const endpoint = new Endpoint(stack, 'Endpoint');

    // WHEN a smoke benchmark targets it
    new SmokeBenchmark(stack, 'Smoke', { target: SmokeTarget.sageMakerEndpoint(endpoint), request: REQUEST });

    // THEN the Trigger depends on the endpoint resource
    const template = Template.fromStack(stack);
    expect(triggerOf(template).resource.DependsOn).toEqual([stack.getLogicalId(endpoint.cfn)]);
  });

  test('an endpoint that defines its own smoke benchmark is waited for without a dependency cycle', () => {
    // GIVEN an endpoint construct that creates its smoke benchmark inside itself, targeting itself
    class Endpoint extends Construct implements ISmokeBenchmarkEndpoint {
      readonly cfn: sagemaker.CfnEndpoint;
      readonly endpointName = 'bert-prod';
      readonly endpointArn: string;
      readonly deploymentFingerprint = 'abc';
      readonly smoke: SmokeBenchmark;
      constructor(scope: Construct, id: string) {
        super(scope, id);
        this.cfn = new sagemaker.CfnEndpoint(this, 'Resource', { endpointConfigName: 'config', endpointName: 'bert-prod' });
        this.endpointArn = this.cfn.ref;
        this.smoke = new SmokeBenchmark(this, 'SmokeBenchmark', {
          target: SmokeTarget.sageMakerEndpoint(this),
          request: REQUEST,
        });
      }
      grantInvoke(grantee: iam.IGrantable): iam.Grant {
        return iam.Grant.addToPrincipal({ grantee, actions: ['sagemaker:InvokeEndpoint'], resourceArns: [this.endpointArn] });
      }
    }
    const stack = new Stack(new App(), 'Serving', { env: ENV });

    // WHEN it is synthesized
    const endpoint = new Endpoint(stack, 'Endpoint');
    const template = Template.fromStack(stack);

    // THEN the Trigger depends on the endpoint resource and on nothing of its own
    expect(triggerOf(template).resource.DependsOn).toEqual([stack.getLogicalId(endpoint.cfn)]);
  });
});

describe('the benchmark function', () => {
  test('runs Node.js 24 on arm64 with its own log group, source maps and one vCPU', () => {
    // GIVEN a smoke benchmark
    const { stack } = smokeStack({ logRetention: 14 });

    // WHEN the stack is synthesized
    const template = Template.fromStack(stack);

    // THEN the function uses the house defaults
    const { properties } = functionOf(template);
    expect(properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      MemorySize: 1769,
      Handler: 'index.handler',
      Environment: { Variables: { NODE_OPTIONS: '--enable-source-maps' } },
    });
    const logGroupId = properties.LoggingConfig.LogGroup.Ref;
    expect(template.findResources('AWS::Logs::LogGroup')[logGroupId].Properties).toEqual({ RetentionInDays: 14 });
    // AND its role carries no AWS-managed policy
    const roleId = properties.Role['Fn::GetAtt'][0];
    expect(template.findResources('AWS::IAM::Role')[roleId].Properties.ManagedPolicyArns).toBeUndefined();
  });

  test('may do exactly four things: write its logs, invoke the one endpoint, put reports under its prefix, read its stack', () => {
    // GIVEN a smoke benchmark of bert-prod
    const { stack, smoke } = smokeStack();

    // WHEN the stack is synthesized
    const template = Template.fromStack(stack);

    // THEN the role's only policy holds these statements and no others
    const roleId = functionOf(template).properties.Role['Fn::GetAtt'][0];
    const policies = template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: roleId }] },
    });
    expect(Object.keys(policies)).toHaveLength(1);
    const bucketId = stack.getLogicalId(smoke.reportBucket.node.defaultChild as s3.CfnBucket);
    const logGroupId = functionOf(template).properties.LoggingConfig.LogGroup.Ref;
    expect(Object.values(policies)[0].Properties.PolicyDocument.Statement).toEqual([
      {
        Sid: 'WriteOwnLogs',
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
      },
      {
        Effect: 'Allow',
        Action: 'sagemaker:InvokeEndpoint',
        Resource: {
          'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sagemaker:us-east-1:123456789012:endpoint/bert-prod']],
        },
      },
      {
        Sid: 'WriteReports',
        Effect: 'Allow',
        Action: 's3:PutObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/smoke-benchmarks/bert-prod/*']] },
      },
      {
        Sid: 'ReadOwnStackStatus',
        Effect: 'Allow',
        Action: 'cloudformation:DescribeStacks',
        Resource: { Ref: 'AWS::StackId' },
      },
    ]);
    // AND no cloudwatch:PutMetricData anywhere: the metrics go out as EMF through the log group
    expect(JSON.stringify(template.toJSON())).not.toContain('cloudwatch:PutMetricData');
    expect(smoke.reportPrefix).toBe('smoke-benchmarks/bert-prod');
  });

  test('gets its settings from the environment: target, report bucket, stack and the run configuration', () => {
    // GIVEN a smoke benchmark with a plan, a golden answer and an environment name
    const { stack, smoke } = smokeStack({
      plan: BERT_PLAN,
      environmentName: 'prod',
      expect: { kind: 'json-path', path: '$[0].label', value: 'POSITIVE' },
      load: { duration: Duration.seconds(20), warmup: Duration.seconds(3) },
    });

    // WHEN the stack is synthesized
    const template = Template.fromStack(stack);

    // THEN the environment names the endpoint, the bucket and the stack
    const variables = functionOf(template).properties.Environment.Variables;
    expect(variables).toMatchObject({
      SMOKE_TARGET: 'bert-prod',
      SMOKE_NAME: 'bert-prod',
      SMOKE_ENVIRONMENT: 'prod',
      SMOKE_REPORT_BUCKET: { Ref: stack.getLogicalId(smoke.reportBucket.node.defaultChild as s3.CfnBucket) },
      SMOKE_STACK_ID: { Ref: 'AWS::StackId' },
    });
    // AND the run configuration carries the fingerprint, the load, the answer check and the plan's thresholds
    const concurrency = Math.min(32, BERT_PLAN.instanceCount * BERT_PLAN.processesPerInstance);
    expect(configOf(template)).toEqual({
      schemaVersion: 1,
      target: { kind: 'sagemaker' },
      fingerprint: 'image-abc',
      request: { body: REQUEST.body, contentType: 'application/json' },
      expect: { kind: 'json-path', path: '$[0].label', value: 'POSITIVE' },
      mode: { kind: 'closed', concurrency },
      stop: { durationMs: 20_000 },
      warmupMs: 3_000,
      timeoutMs: 10_000,
      thresholds: {
        p99MaxMs: BERT_PLAN.targets.p99Ms + 20,
        minThroughputRps:
          Math.round(0.5 * Math.min((concurrency * 1000) / (BERT_PLAN.p50Ms + 20), BERT_PLAN.capacityRps) * 100) / 100,
        maxErrorRate: 0.01,
      },
      metricNamespace: 'CdkInferentia/SmokeBenchmark',
      reportPrefix: 'smoke-benchmarks',
    });
    expect(smoke.thresholds).toEqual(configOf(template).thresholds);
    // AND the default timeout covers startup 15 s + warm-up 3 s + 20 s + request timeout 10 s + report 7 s, plus a minute
    expect(smoke.timeout.toSeconds()).toBe(120);
  });

  test('threshold overrides replace the plan defaults one by one', () => {
    // GIVEN a plan and an override of the p99 limit only
    const { stack } = smokeStack({ plan: BERT_PLAN, thresholds: { p99MaxMs: 12, p50MaxMs: 6 } });

    // WHEN the stack is synthesized
    const { thresholds } = configOf(Template.fromStack(stack));

    // THEN the override wins and the other defaults stay
    expect(thresholds).toMatchObject({ p99MaxMs: 12, p50MaxMs: 6, maxErrorRate: 0.01 });
    expect(thresholds.minThroughputRps).toBeGreaterThan(0);
  });
});

describe('default thresholds from a plan', () => {
  const planned = { ...BERT_PLAN, p50Ms: 5, capacityRps: 100, targets: { throughputRps: 50, p99Ms: 10 } };

  test('a closed loop must reach a share of what its concurrency drives at the plan latency, capped by capacity', () => {
    // GIVEN 4 in flight at a 5 ms p50 with 20 ms allowance: 4 x 1000 / 25 = 160 req/s, capped by capacity 100
    // WHEN the defaults are derived with a 0.5 share
    const thresholds = smokeThresholdDefaults(planned, { mode: { kind: 'closed', concurrency: 4 } }, Duration.millis(20), 0.5);

    // THEN p99 = 10 + 20 ms, throughput >= 50 req/s, errors <= 1 %
    expect(thresholds).toEqual({ p99MaxMs: 30, minThroughputRps: 50, maxErrorRate: 0.01 });
  });

  test('an open loop must reach a share of its rate', () => {
    // GIVEN 40 req/s offered, below the capacity
    // WHEN the defaults are derived
    const thresholds = smokeThresholdDefaults(planned, { mode: { kind: 'open', rateRps: 40 } }, Duration.millis(5), 0.5);

    // THEN throughput >= 20 req/s and p99 = 10 + 5 ms
    expect(thresholds).toEqual({ p99MaxMs: 15, minThroughputRps: 20, maxErrorRate: 0.01 });
  });

  test('a batching plan also limits the server p99 to the plan prediction, a stock plan does not', () => {
    const batching: Plan = { ...BERT_PLAN, serving: 'batching' };
    const light = { mode: { kind: 'open', rateRps: 10 } } as const;
    expect(smokeThresholdDefaults(batching, light, Duration.millis(20), 0.5).serverP99MaxMs).toBe(Math.round(BERT_PLAN.predictedP99Ms * 100) / 100);
    expect(smokeThresholdDefaults(BERT_PLAN, light, Duration.millis(20), 0.5)).not.toHaveProperty('serverP99MaxMs');
  });

  test('without a plan only the error rate is limited', () => {
    expect(smokeThresholdDefaults(undefined, { mode: { kind: 'closed', concurrency: 4 } }, Duration.millis(20), 0.5)).toEqual({
      maxErrorRate: 0.01,
    });
  });
});

describe('re-running on a changed deployment', () => {
  function triggerVersion(options: Parameters<typeof smokeStack>[0]): string {
    return triggerOf(Template.fromStack(smokeStack(options).stack)).handlerVersion;
  }

  test('a changed deployment fingerprint gives the Trigger a new function version to invoke', () => {
    // GIVEN the same benchmark of two deployments that differ only in their fingerprint
    // WHEN both are synthesized
    const first = triggerVersion({ fingerprint: 'image-abc' });
    const second = triggerVersion({ fingerprint: 'image-def' });

    // THEN the Trigger's HandlerArn points at a different version: CloudFormation updates it and the provider invokes
    expect(second).not.toBe(first);
  });

  test('an unchanged deployment keeps the same version, so the Trigger does not run again', () => {
    expect(triggerVersion({ fingerprint: 'image-abc' })).toBe(triggerVersion({ fingerprint: 'image-abc' }));
  });

  test('changed thresholds or a changed request run it again too', () => {
    const base = triggerVersion({});
    expect(triggerVersion({ thresholds: { p99MaxMs: 5 } })).not.toBe(base);
    expect(triggerVersion({ request: { body: '{"inputs":"another golden input"}' } })).not.toBe(base);
  });

  test('a target without a fingerprint is flagged, since only the benchmark settings would re-run it', () => {
    // GIVEN an endpoint without a deployment fingerprint
    const { stack } = smokeStack({ fingerprint: undefined });

    // WHEN the stack is synthesized
    // THEN a warning says the benchmark will not follow redeployments
    Annotations.fromStack(stack).hasWarning(
      '/Serving/Smoke',
      Match.stringLikeRegexp('has no deployment fingerprint.*Give the target a fingerprint'),
    );
  });
});

describe('runs that cannot fit in a Lambda', () => {
  test('a timeout above 13 minutes is rejected at synth, naming the prop', () => {
    const error = synthError(() => smokeStack({ timeout: Duration.minutes(14) }));
    expect(error.problems).toEqual([expect.stringMatching(/^timeout=14 minutes is above 13 minutes, the longest a smoke benchmark may run/)]);
    expect(MAX_SMOKE_TIMEOUT.toMinutes()).toBe(13);
  });

  test('a duration that needs more than 13 minutes is rejected, naming load.duration', () => {
    const error = synthError(() => smokeStack({ load: { duration: Duration.minutes(13) } }));
    // 15 s startup + 5 s warm-up + 780 s + 10 s request timeout + 7 s report
    expect(error.message).toMatch(/^Serving\/Smoke: load\.duration: the run needs 817 s \(startup 15 s/);
    expect(error.message).toContain('above the 13 minutes a smoke benchmark may run');
    expect(error.message).toContain('Provider framework');
  });

  test('a timeout shorter than the run is rejected with the time the run needs', () => {
    const error = synthError(() =>
      smokeStack({ timeout: Duration.minutes(1), load: { duration: Duration.seconds(60), warmup: Duration.seconds(5) } }),
    );
    // 15 s startup + 5 s warm-up + 60 s + 10 s request timeout + 7 s report = 97 s
    expect(error.message).toContain('timeout=1 minute is shorter than the run needs: 97 s');
    expect(error.message).toContain('Duration.seconds(97)');
  });

  test('every bad prop is reported at once', () => {
    const error = synthError(() =>
      smokeStack({
        load: { concurrency: 4, rateRps: 10, duration: Duration.seconds(10), requests: 100 },
        throughputShare: 1.5,
        expectStatus: 201,
        reportPrefix: '/reports/',
        expect: { kind: 'json-path', path: 'label', value: 'x' },
      }),
    );
    expect(error.problems).toEqual([
      expect.stringContaining('load.concurrency=4 and load.rateRps=10 are both set'),
      expect.stringContaining('load.duration=10 s and load.requests=100 are both set'),
      expect.stringContaining('throughputShare=1.5 must be above 0 and at most 1'),
      expect.stringContaining('expectStatus=201: SageMaker answers 200 on success'),
      expect.stringContaining("expect: JSON path 'label' must start with '$'"),
      expect.stringContaining('reportPrefix="/reports/" must be key segments'),
    ]);
  });

  test('a golden request too large for the Lambda environment is rejected, naming request.body', () => {
    const error = synthError(() => smokeStack({ request: { body: JSON.stringify({ inputs: 'x'.repeat(4000) }) } }));
    expect(error.message).toMatch(/^Serving\/Smoke: request\.body and expect take \d+ bytes of the Lambda environment/);
  });
});

describe('the report bucket', () => {
  test('the default bucket is encrypted, SSL-only, private and logs its access to a second bucket', () => {
    // GIVEN a smoke benchmark without a bucket of its own
    const { stack, smoke } = smokeStack();

    // WHEN the stack is synthesized
    const template = Template.fromStack(stack);

    // THEN the report bucket is locked down
    const bucketId = stack.getLogicalId(smoke.reportBucket.node.defaultChild as s3.CfnBucket);
    const buckets = template.findResources('AWS::S3::Bucket');
    expect(buckets[bucketId]).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: {
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        LoggingConfiguration: { DestinationBucketName: { Ref: 'SmokeReportAccessLogsFC3ACC83' }, LogFilePrefix: 'report-bucket/' },
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  test('the logical ids of the report buckets are pinned', () => {
    const { stack } = smokeStack();
    const ids = Object.keys(Template.fromStack(stack).findResources('AWS::S3::Bucket')).sort();
    expect(ids).toEqual(['SmokeReportAccessLogsFC3ACC83', 'SmokeReportBucket0C02EFF3']);
  });

  test('a bucket of the caller is used as is, with put on the prefix and the data key its KMS encryption needs', () => {
    // GIVEN the caller's KMS-encrypted bucket
    const app = new App();
    const stack = new Stack(app, 'Serving', { env: ENV });
    const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
    const bucket = new s3.Bucket(stack, 'Reports', { encryptionKey: key, enforceSSL: true });
    const { endpoint } = fakeEndpoint(stack, 'abc');

    // WHEN a smoke benchmark writes there
    const smoke = new SmokeBenchmark(stack, 'Smoke', {
      target: SmokeTarget.sageMakerEndpoint(endpoint),
      request: REQUEST,
      reportBucket: bucket,
      reportPrefix: 'ci/smoke',
    });
    const template = Template.fromStack(stack);

    // THEN no bucket is added, and the function may put objects under its prefix and generate data keys
    expect(Object.keys(template.findResources('AWS::S3::Bucket'))).toEqual([stack.getLogicalId(bucket.node.defaultChild as s3.CfnBucket)]);
    expect(smoke.reportPrefix).toBe('ci/smoke/bert-prod');
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 's3:PutObject',
            Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [stack.getLogicalId(bucket.node.defaultChild as s3.CfnBucket), 'Arn'] }, '/ci/smoke/bert-prod/*']] },
          }),
          Match.objectLike({
            Action: 'kms:GenerateDataKey',
            Resource: { 'Fn::GetAtt': [stack.getLogicalId(key.node.defaultChild as kms.CfnKey), 'Arn'] },
          }),
        ]),
      },
    });
  });
});

describe('metrics', () => {
  test('the helpers read what the handler publishes: namespace, EndpointName and Environment', () => {
    // GIVEN a smoke benchmark in prod
    const { stack, smoke } = smokeStack({ environmentName: 'prod', metricNamespace: 'Acme/Smoke' });

    // WHEN metrics are asked for
    const passedMetric = smoke.metricPassed({ period: Duration.minutes(1) });
    const passed = stack.resolve(passedMetric.toMetricConfig().metricStat);
    const p99 = stack.resolve(smoke.metricP99().toMetricConfig().metricStat);

    // THEN they carry the namespace and dimensions, and the caller's options win
    expect(passed).toMatchObject({
      namespace: 'Acme/Smoke',
      metricName: 'Passed',
      statistic: 'Minimum',
      dimensions: [
        { name: 'EndpointName', value: 'bert-prod' },
        { name: 'Environment', value: 'prod' },
      ],
    });
    expect(passedMetric.period.toSeconds()).toBe(60);
    expect(p99).toMatchObject({ metricName: 'LatencyP99', statistic: 'Maximum', unitFilter: cloudwatch.Unit.MILLISECONDS });
    expect(smoke.metricErrorRate().metricName).toBe('ErrorRate');
    expect(smoke.metricThroughput().metricName).toBe('Throughput');
    expect(smoke.metricP50().metricName).toBe('LatencyP50');
  });

  test('the environment dimension defaults to the stack name', () => {
    const { smoke } = smokeStack();
    expect(smoke.environmentName).toBe('Serving');
  });
});

describe('a URL target behind an internal load balancer', () => {
  test('puts the function in the VPC and grants no SageMaker permission', () => {
    // GIVEN a VPC and an internal URL
    const app = new App();
    const stack = new Stack(app, 'Serving', { env: ENV });
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'private', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });

    // WHEN a smoke benchmark targets it
    const smoke = new SmokeBenchmark(stack, 'Smoke', {
      target: SmokeTarget.url('http://internal-alb.example.internal/invocations', { vpc, fingerprint: 'lt-7', name: 'bert-ec2' }),
      request: REQUEST,
    });
    const template = Template.fromStack(stack);

    // THEN the function runs in the VPC's subnets and targets the URL
    const { properties } = functionOf(template);
    expect(properties.VpcConfig.SubnetIds).toHaveLength(2);
    expect(properties.Environment.Variables).toMatchObject({
      SMOKE_TARGET: 'http://internal-alb.example.internal/invocations',
      SMOKE_NAME: 'bert-ec2',
    });
    expect(configOf(template)).toMatchObject({ target: { kind: 'http' }, fingerprint: 'lt-7' });
    expect(JSON.stringify(template.toJSON())).not.toContain('sagemaker:InvokeEndpoint');
    expect(smoke.reportPrefix).toBe('smoke-benchmarks/bert-ec2');
    // AND the URL's default latency allowance is 5 ms (no thresholds without a plan except the error rate)
    expect(smoke.thresholds).toEqual({ maxErrorRate: 0.01 });
  });

  test('a fingerprint known only at deploy time is rejected: it could not re-run the benchmark', () => {
    const stack = new Stack(new App(), 'Serving', { env: ENV });
    const bucket = new s3.Bucket(stack, 'B');
    const error = synthError(
      () =>
        new SmokeBenchmark(stack, 'Smoke', {
          target: SmokeTarget.url('https://example.com/', { fingerprint: bucket.bucketName }),
          request: REQUEST,
        }),
    );
    expect(error.message).toContain('target fingerprint is a CloudFormation token');
  });
});

describe('cdk-nag', () => {
  test('a smoke benchmark of an endpoint is clean under AwsSolutions and the Neuron rules', () => {
    // GIVEN a stack with an endpoint and its smoke benchmark, checked by both packs
    const { app } = smokeStack({ plan: BERT_PLAN });

    // WHEN the app is synthesized
    // THEN there is no finding on the benchmark, its buckets, its function or the Trigger provider
    expect(nagFindings(app).filter((f) => !f.resourcePath.startsWith('Serving/Endpoint'))).toEqual([]);
  });

  test('a smoke benchmark of a URL in a VPC is clean too', () => {
    expect(nagFindings(urlInVpcStack({}, true).smoke)).toEqual([]);
  });

  test('the checks are live: a non-compliant bucket next to the benchmark is reported', () => {
    // GIVEN a caller's bucket without SSL enforcement or access logs, used for the reports
    const app = new App();
    const stack = new Stack(app, 'Serving', { env: ENV });
    const bucket = new s3.Bucket(stack, 'Loose');
    const { endpoint } = fakeEndpoint(stack, 'abc');
    new SmokeBenchmark(stack, 'Smoke', { target: SmokeTarget.sageMakerEndpoint(endpoint), request: REQUEST, reportBucket: bucket });
    applyPolicyChecks(app);

    // WHEN the app is synthesized
    const findings = nagFindings(app);

    // THEN the bucket's findings are reported, and none of the benchmark's own resources
    expect(findings.map((f) => [f.ruleId, f.resourcePath])).toEqual(
      expect.arrayContaining([
        ['AwsSolutions-S1', 'Serving/Loose/Resource'],
        ['AwsSolutions-S10', 'Serving/Loose/Resource'],
      ]),
    );
    expect(findings.filter((f) => f.resourcePath.startsWith('Serving/Smoke') || f.resourcePath.startsWith('Serving/AWSCDK'))).toEqual([]);
  });
});

describe('the capacity proof', () => {
  /** The hook (it has the stack id) and the load worker (it has SMOKE_CONFIG but no stack id). */
  function functionsOf(template: Template): { hook: { id: string; props: CfnJson }; worker: { id: string; props: CfnJson } } {
    const all = template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { SMOKE_CONFIG: Match.anyValue() } } },
    });
    const entries = Object.entries(all).map(([id, r]) => ({ id, props: (r as CfnJson).Properties as CfnJson }));
    const hook = entries.find((e) => e.props.Environment.Variables.SMOKE_STACK_ID !== undefined)!;
    const worker = entries.find((e) => e.props.Environment.Variables.SMOKE_STACK_ID === undefined)!;
    expect(entries).toHaveLength(2);
    return { hook, worker };
  }

  function statementsOf(template: Template, functionProps: CfnJson): CfnJson[] {
    const roleId = functionProps.Role['Fn::GetAtt'][0];
    const policies = template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } });
    return Object.values(policies).flatMap((p) => (p as CfnJson).Properties.PolicyDocument.Statement as CfnJson[]);
  }

  test('drives the plan capacity over enough workers, with limits from the plan', () => {
    // GIVEN a smoke benchmark with a capacity proof at the plan's capacity
    const { stack, smoke } = smokeStack({ plan: BERT_PLAN, capacityProof: { duration: Duration.seconds(90) } });

    // WHEN the stack is synthesized
    const template = Template.fromStack(stack);
    const { hook } = functionsOf(template);
    const config = JSON.parse(hook.props.Environment.Variables.SMOKE_CONFIG) as SmokeConfig;

    // THEN the proof drives the planned capacity over ceil(rate / 400) workers
    const rate = Math.round(BERT_PLAN.capacityRps * 100) / 100;
    expect(config.capacity).toMatchObject({
      rateRps: rate,
      workers: Math.ceil(rate / 400),
      durationMs: 90_000,
      warmupMs: 10_000,
      predicted: { rateRps: BERT_PLAN.capacityRps, p99Ms: BERT_PLAN.targets.p99Ms },
      thresholds: { minRateRps: Math.round(0.95 * rate * 100) / 100, p99MaxMs: BERT_PLAN.targets.p99Ms + 20, maxErrorRate: 0.01 },
    });
    // AND a stock plan's server sends no timing header, so no server-side limit is set
    expect(config.capacity?.thresholds.serverP99MaxMs).toBeUndefined();
    // AND the hook's timeout covers the smoke run and the proof
    expect(smoke.timeout.toSeconds()).toBeGreaterThanOrEqual(15 + 5 + 30 + 10 + 7 + 15 + 10 + 90 + 10 + 5);
    expect(smoke.capacity).toEqual(config.capacity);
    // AND the plan it proves travels with it, for the report's calibration record (cdk-inferentia calibrate)
    expect(config.capacity?.plan).toEqual(planBasis(BERT_PLAN));
  });

  test('a batching plan is judged on the server p99 it predicts, without the network in between', () => {
    const batching: Plan = { ...BERT_PLAN, serving: 'batching', batching: { maxBatchSize: BERT_PLAN.batchSize, maxDelayMs: 2 } };
    const { stack } = smokeStack({ plan: batching, capacityProof: { fraction: 0.25 } });

    const config = JSON.parse(functionsOf(Template.fromStack(stack)).hook.props.Environment.Variables.SMOKE_CONFIG) as SmokeConfig;

    // A quarter of the capacity is at most the target rate here, so the predicted p99 is the plan's own prediction.
    expect(BERT_PLAN.capacityRps * 0.25).toBeLessThanOrEqual(BERT_PLAN.targets.throughputRps);
    expect(config.capacity?.thresholds.serverP99MaxMs).toBe(BERT_PLAN.predictedP99Ms);
  });

  test('the load worker gets one vCPU, the target and nothing else; the hook may invoke only that worker', () => {
    const { stack } = smokeStack({ plan: BERT_PLAN, capacityProof: {} });

    const template = Template.fromStack(stack);
    const { hook, worker } = functionsOf(template);

    expect(worker.props.MemorySize).toBe(1769);
    expect(Object.keys(worker.props.Environment.Variables).sort()).toEqual(['NODE_OPTIONS', 'SMOKE_CONFIG', 'SMOKE_TARGET']);
    expect(hook.props.Environment.Variables.SMOKE_WORKER_FUNCTION).toEqual({ Ref: worker.id });
    expect(statementsOf(template, hook.props)).toContainEqual({
      Sid: 'InvokeOwnLoadWorker',
      Effect: 'Allow',
      Action: 'lambda:InvokeFunction',
      Resource: { 'Fn::GetAtt': [worker.id, 'Arn'] },
    });
    const workerActions = statementsOf(template, worker.props).map((s) => s.Action);
    expect(workerActions).toEqual([['logs:CreateLogStream', 'logs:PutLogEvents'], 'sagemaker:InvokeEndpoint']);
  });

  test('a rate that needs more workers than a proof may fan out to is rejected, naming the rate and the fix', () => {
    const error = synthError(() => smokeStack({ plan: BERT_PLAN, capacityProof: { rateRps: 50_000 } }));
    expect(error.message).toContain('capacityProof.rateRps=50000 needs 125 load workers at 400 requests/s each, above the 100');
    expect(error.message).toContain("Lambda's default account concurrency is 1000");
  });

  test('a proof that cannot fit in the 13 minutes is rejected, naming capacityProof.duration', () => {
    const error = synthError(() => smokeStack({ plan: BERT_PLAN, capacityProof: { duration: Duration.minutes(12) } }));
    expect(error.message).toMatch(/capacityProof\.duration: the run needs .* \+ the capacity proof .*above the 13 minutes/);
  });

  test('without a plan the rate and the p99 must be given', () => {
    const error = synthError(() => smokeStack({ capacityProof: {} }));
    expect(error.message).toContain('capacityProof needs a plan to take its rate from, or capacityProof.rateRps');
    expect(error.message).toContain('capacityProof.p99Max is needed without a plan');
  });

  test('against a URL in a VPC, the workers run in the VPC too and the stack stays clean under cdk-nag', () => {
    // GIVEN an internal load balancer URL reached from a VPC, with a capacity proof at a given rate and p99
    const urlStack = (checked: boolean) => urlInVpcStack({ capacityProof: { rateRps: 1_000, p99Max: Duration.millis(50) } }, checked);
    const { stack, smoke } = urlStack(false);

    // WHEN the stack is synthesized
    const { hook, worker } = functionsOf(Template.fromStack(stack));

    // THEN both functions sit in the VPC and the proof fans out over 3 workers
    expect(hook.props.VpcConfig).toBeDefined();
    expect(worker.props.VpcConfig.SubnetIds).toEqual(hook.props.VpcConfig.SubnetIds);
    expect(smoke.capacity).toMatchObject({ rateRps: 1_000, workers: 3, thresholds: { p99MaxMs: 50, minRateRps: 950 } });
    // AND neither function nor its role has a finding
    expect(nagFindings(urlStack(true).smoke)).toEqual([]);
  });

  test('GIVEN a plan made for bursty arrivals WHEN its capacity is proven THEN the workers send the plan\'s process, each its share', () => {
    const arrivals = { scv: 3, source: 'gateway.jsonl: 1,200 arrival times', gapQuantiles: Array.from({ length: 60 }, (_, i) => i / 20) };
    const bursty = plan(findProfile('bert-base-uncased')!, { throughputRps: 500, p99Ms: 20, arrivals }, { region: 'us-east-1', hosting: 'sagemaker' });
    const { smoke } = smokeStack({ plan: bursty, capacityProof: {} });
    expect(smoke.capacity?.arrivals).toEqual(arrivals);
    const requests = workerRequests(smoke.capacity!);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((r) => r.arrivals === 'process' && r.seed === 1)).toBe(true);
    expect(smokeStack({ plan: BERT_PLAN, capacityProof: {} }).smoke.capacity?.arrivals).toBeUndefined();
  });

  test('is clean under cdk-nag', () => {
    const { app } = smokeStack({ plan: BERT_PLAN, capacityProof: {} });
    expect(nagFindings(app).filter((f) => !f.resourcePath.startsWith('Serving/Endpoint'))).toEqual([]);
  });
});
