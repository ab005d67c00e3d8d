/**
 * SmokeBenchmark with a GenerativePlan: the proof in tokens it renders (golden prompt, short run, limits and
 * predictions from the plan, fan-out by streams) and the props it refuses. Bundling is skipped
 * (`aws:cdk:bundling-stacks: []`): the single-call tests bundle both handlers already; this file costs about 14 s of
 * CPU, most of it loading aws-cdk-lib.
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { SmokeBenchmark, SmokeTarget, type ISmokeBenchmarkEndpoint, type SmokeBenchmarkProps } from '../../../constructs/proof';
import { tokenProofConfigSchema, type TokenProofConfig } from '../../../lib/bench/token-proof';
import { findGenerativeProfile, planGenerative } from '../../../lib/generative';
import { inputError } from '../../support/input-error';

const PLAN = planGenerative(
  findGenerativeProfile('llama-3.1-8b-instruct')!,
  { requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60 },
  { region: 'us-east-1', hosting: 'sagemaker' },
);

function endpoint(): ISmokeBenchmarkEndpoint {
  const endpointArn = 'arn:aws:sagemaker:us-east-1:123456789012:endpoint/llama-prod';
  return {
    endpointName: 'llama-prod',
    endpointArn,
    deploymentFingerprint: 'engine-abc',
    grantInvoke: (grantee) => iam.Grant.addToPrincipal({ grantee, actions: ['sagemaker:InvokeEndpoint'], resourceArns: [endpointArn] }),
  };
}

function build(props: Partial<SmokeBenchmarkProps> = {}): { stack: Stack; smoke: SmokeBenchmark } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Serving', { env: { account: '123456789012', region: 'us-east-1' } });
  const smoke = new SmokeBenchmark(stack, 'Smoke', {
    target: SmokeTarget.sageMakerEndpoint(endpoint(), { inferenceComponentName: 'llama-ic-0' }),
    plan: PLAN,
    tokens: { servedModelName: 'llama-3.1-8b-instruct' },
    ...props,
  });
  return { stack, smoke };
}

function renderedConfig(stack: Stack, smoke: SmokeBenchmark): TokenProofConfig {
  const fn = Template.fromStack(stack).toJSON().Resources[stack.getLogicalId(smoke.function.node.defaultChild as never)];
  return tokenProofConfigSchema().parse(JSON.parse(fn.Properties.Environment.Variables.SMOKE_CONFIG as string)) as TokenProofConfig;
}

/** The problems the smoke benchmark with `props` is refused with. */
const problemsOf = (props: Partial<SmokeBenchmarkProps>): readonly string[] => inputError(() => build(props)).problems;

describe('a smoke benchmark of a generative plan', () => {
  test('GIVEN a plan WHEN synthesized THEN the proof in tokens takes its lengths, limits and predictions from it', () => {
    const { stack, smoke } = build({ capacityProof: {} });
    const config = renderedConfig(stack, smoke);
    const g = PLAN.generative;
    expect(config).toMatchObject({
      kind: 'tokens',
      target: { kind: 'sagemaker', inferenceComponentName: 'llama-ic-0' },
      api: 'chat',
      model: 'llama-3.1-8b-instruct',
      // The default golden prompt: one fact, a pattern that tolerates punctuation.
      golden: { prompt: 'What is the capital of France? Answer with one word.', maxTokens: 16, expect: { kind: 'regex', pattern: '\\bParis\\b' } },
      smoke: {
        requests: 20,
        concurrency: 4,
        inputTokens: 1024,
        outputTokens: 256,
        predicted: { ttftP99Ms: g.predictedTtftP99Ms, tpotP99Ms: g.predictedTpotP99Ms, e2eP99Ms: g.predictedE2eP99Ms },
        // TTFT: the target plus the Runtime API round trip; TPOT: the target, which a fixed hop does not stretch.
        thresholds: { ttftP99MaxMs: 2020, tpotP99MaxMs: 60, maxErrorRate: 0.01 },
      },
      capacity: {
        rateRps: 2,
        inputTokens: 1024,
        outputTokens: 256,
        predicted: { rateRps: 2, outputTokensPerSecond: 512 },
        thresholds: { rateShare: 0.95, ttftP99MaxMs: 2020, tpotP99MaxMs: 60, maxErrorRate: 0.01 },
      },
    });
    // 2 requests/s x the predicted e2e is a handful of streams: one worker, not one per 400 requests/s.
    expect(config.capacity?.workers).toBe(Math.max(1, Math.ceil((2 * g.predictedE2eP99Ms) / 1000 / 64)));
    expect(smoke.loadWorker).toBeDefined();
    expect(smoke.tokenProof).toEqual(config);
    // The README's plan is timed by a published row: calibrate's row takes that row's SDK (an ESTIMATE's takes the image's,
    // test/bin/input-refusals.test.ts), never "unknown", which plan --profile refused.
    expect(g.measurement.length).toBeGreaterThan(0);
    expect(config.plan).toMatchObject({ instanceType: PLAN.instanceType.replace(/^ml\./, ''), neuronSdkVersion: g.measurement[0].neuronSdkVersion });
    expect(config.plan?.neuronSdkVersion).toMatch(/^\d+\.\d+\.\d+$/);
  });

  test('GIVEN a plan from a log (its lengths and bursty arrivals) WHEN built THEN the proof draws both and still fits the function\'s environment', () => {
    // A log's own traffic: a 60-point table per length, gaps of SCV 3; what `plan --lengths-from` puts in the plan.
    const table = (scale: number) => Array.from({ length: 60 }, (_, i) => Math.round(scale * (1 + i) ** 1.5));
    const empirical = (mean: number, p99: number, scale: number) => ({
      spread: 'empirical' as const, mean, p99, mu: Math.log(mean), sigma: 0.5, scv: 0.6, quantiles: table(scale), source: 'gateway.jsonl (jsonl, 12,000 requests)',
    });
    const lengths = { input: empirical(900, 3000, 8), output: empirical(180, 600, 2), correlation: 0.2, totalP99: 3400 };
    const arrivals = { scv: 3, source: 'gateway.jsonl: 12,000 arrival times (created) over 3600 s, 3.3 requests/s', gapQuantiles: table(0.01) };
    const fromLog = planGenerative(
      findGenerativeProfile('llama-3.1-8b-instruct')!,
      { requestsPerSecond: 2, inputTokens: { mean: 900, p99: 3000 }, outputTokens: { mean: 180, p99: 600 }, lengths, arrivals, ttftP99Ms: 3000, tpotP99Ms: 60 },
      { region: 'us-east-1', hosting: 'sagemaker', instanceTypes: ['inf2.48xlarge'], estimates: false },
    );
    const { smoke } = build({ plan: fromLog, capacityProof: {} });
    expect(smoke.tokenProof?.capacity).toMatchObject({ lengths: { input: { quantiles: table(8) }, correlation: 0.2 }, arrivals });
    expect(tokenProofConfigSchema().safeParse(smoke.tokenProof).success).toBe(true);
  });

  test('GIVEN a SageMaker target WHEN synthesized THEN the gate and the worker may stream from that endpoint only', () => {
    const { stack } = build({ capacityProof: {} });
    const statement = Match.objectLike({
      Action: 'sagemaker:InvokeEndpointWithResponseStream',
      Effect: 'Allow',
      Resource: 'arn:aws:sagemaker:us-east-1:123456789012:endpoint/llama-prod',
    });
    const policies = Template.fromStack(stack).findResources('AWS::IAM::Policy', {
      Properties: { PolicyDocument: { Statement: Match.arrayWith([statement]) } },
    });
    expect(Object.keys(policies)).toHaveLength(2);
  });

  test('GIVEN your own golden prompt and limits WHEN synthesized THEN they replace the defaults', () => {
    const { stack, smoke } = build({
      tokens: {
        servedModelName: 'llama',
        api: 'completions',
        golden: { prompt: '2 + 2 =', maxTokens: 2, expect: { kind: 'exact', text: '4' } },
        tpotP99Max: Duration.millis(45),
        requests: 10,
      },
    });
    expect(renderedConfig(stack, smoke)).toMatchObject({
      api: 'completions',
      golden: { prompt: '2 + 2 =', maxTokens: 2, expect: { kind: 'exact', text: '4' } },
      smoke: { requests: 10, thresholds: { tpotP99MaxMs: 45 } },
    });
  });

  test('GIVEN bad props WHEN synthesized THEN every problem is named with its value and fix, at once', () => {
    const problems = problemsOf({
      request: { body: '{}' },
      tokens: {
        servedModelName: ' ',
        golden: { prompt: 'Capital of Peru?', expect: { kind: 'regex', pattern: '(Lima' } },
        concurrency: 0,
      },
      capacityProof: { p99Max: Duration.millis(50), rateShare: 2 },
    });
    expect(problems).toEqual([
      expect.stringContaining('request is set but the plan is generative'),
      expect.stringContaining('tokens.servedModelName=" " must be the literal model name'),
      expect.stringContaining('tokens.golden.expect.pattern="(Lima" is not a regular expression'),
      expect.stringContaining('tokens.concurrency=0 must be a whole number from 1 to'),
      expect.stringContaining('capacityProof.p99Max applies to single-call plans'),
      expect.stringContaining('capacityProof.rateShare=2 must be above 0 and at most 1'),
    ]);
  });

  test('GIVEN a generative plan without tokens, or tokens without one WHEN synthesized THEN the fix is named', () => {
    expect(problemsOf({ tokens: undefined })).toEqual([expect.stringContaining('tokens is not set but the plan is generative (llama-3.1-8b-instruct)')]);
    expect(problemsOf({ plan: undefined, request: { body: '{}' } })).toEqual([
      expect.stringContaining('tokens is set but the plan is not generative'),
      expect.stringContaining('the target names an inference component'),
    ]);
  });

  test('GIVEN a capacity proof too long for the Lambda WHEN synthesized THEN the time it needs is stated', () => {
    expect(problemsOf({ capacityProof: { duration: Duration.minutes(12) } })).toEqual([
      expect.stringMatching(/^the proof in tokens needs \d+ s .*capacity proof \d+ s\) and the Lambda may run \d+ s \(at most 780 s\)/),
    ]);
  });
});
