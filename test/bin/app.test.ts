import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { Construct } from 'constructs';
import {
  buildApp,
  EXAMPLE_DLC_TAG,
  EXAMPLE_FALLBACKS,
  EXAMPLE_STACK_NAME,
  PLACEHOLDER_ACCOUNT,
  PLACEHOLDER_IMAGE_DIGEST,
} from '../../bin/app';
import { LLAMA_ECS_STACK_NAME, LLAMA_STACK_NAME, planLlama } from '../../bin/llama-example';
import { GenerativeEcsInferenceStack } from '../../constructs/ecs/generative-ecs-inference-stack';
import { GenerativeInferenceStack } from '../../constructs/sagemaker/generative-inference-stack';
import { InferenceStack } from '../../constructs/sagemaker/inference-stack';
import { Catalog } from '../../lib/catalog';
import { InputError } from '../../lib/errors';
import { chipOf } from '../../lib/planner';
import { failedRuleAssertions } from '../support/cfn-rules';
import { patchedShapes, serviceSpecProblems, serviceSpecShapes, type CfnLintPatch } from '../support/service-spec';
import { nagFindings } from '../support/nag';
import { describeWithTool } from '../support/stand-ins';
import { keepCloudFormationValidation } from '../support/cfn-validation';

// These templates are checked against CloudFormation's schemas, as `cdk synth` of the app checks them.
keepCloudFormationValidation();

const CDK_JSON = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'cdk.json'), 'utf8')) as {
  app: string;
  context: Record<string, unknown>;
};
const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const REAL_ACCOUNT = '210987654321';
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'app-test-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/**
 * Context that skips esbuild: the tests that read only plans, stack lists or refusals need no handler bundles, and
 * building them for the 15 stacks of each app was most of this file's time.
 */
const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] as string[] };

/** The problems buildApp reports for `context`, or [] when it builds. */
function problemsOf(context: Record<string, unknown>): readonly string[] {
  try {
    buildApp(new App({ context: { ...CDK_JSON.context, ...context } }));
    return [];
  } catch (e) {
    if (e instanceof InputError) {
      return e.problems;
    }
    throw e;
  }
}

function exampleStack(app: App): InferenceStack {
  return app.node.findChild(EXAMPLE_STACK_NAME) as InferenceStack;
}

function warnings(stack: Construct): string[] {
  return stack.node.metadata.filter((m) => m.type === 'aws:cdk:warning').map((m) => String(m.data));
}

describe('cdk.json', () => {
  test('runs bin/app.ts through tsx, with placeholders and CloudFormation validation as errors', () => {
    // THEN
    expect(CDK_JSON.app).toBe('npx tsx bin/app.ts');
    expect(CDK_JSON.context).toMatchObject({
      'account': '123456789012',
      'region': 'us-east-1',
      'imageDigest': PLACEHOLDER_IMAGE_DIGEST,
      '@aws-cdk/core:validateAgainstDefaultRules': true,
    });
  });
});

describe('The example app built from the cdk.json context', () => {
  // GIVEN the context `cdk synth` passes on a fresh clone
  const app = new App({ context: CDK_JSON.context });
  // WHEN
  buildApp(app);
  const stack = exampleStack(app);

  test('defines the bert-base-uncased stack in the placeholder account and us-east-1', () => {
    // THEN
    // Other stacks of the app (the ECS example, the promotion pipeline) have their own tests.
    expect(app.node.children.filter(Stack.isStack).map((s) => s.stackName)).toContain(EXAMPLE_STACK_NAME);
    expect([stack.account, stack.region]).toEqual(['123456789012', 'us-east-1']);
  });

  describeWithTool('cfn-lint', 'cfn-lint over every template it synthesizes', (cfnLint) => {
    test('finds no error in the SageMaker and ECS examples (BERT, Llama and the 70B Trn2 stack), the three stages and the pipeline (ignored checks: .cfnlintrc.yaml)', () => {
      // About 10 s of CPU: one cfn-lint process over the nine templates of the app this describe built.
      const outdir = app.synth().directory;
      const templates = fs.readdirSync(outdir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.template.json'));
      expect(templates).toHaveLength(15);
      // From the repository root, where .cfnlintrc.yaml's override_spec (the instance pools' properties) resolves.
      const root = path.join(__dirname, '..', '..');
      const run = spawnSync(cfnLint, ['--config-file', path.join(root, '.cfnlintrc.yaml'), '--format', 'parseable',
        '--', ...templates.map((t) => path.join(outdir, t))], { cwd: root, encoding: 'utf8', timeout: 300_000 });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe('');
      expect(run.status).toBe(0);
    });
  });

  test('holds exactly the stacks the README\'s table lists, so `npx cdk synth <stack>` names a real one', () => {
    const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
    const table = readme.split('| stack | what it holds |')[1].split('\n\n')[0];
    const listed = [...table.matchAll(/`([\w/]+)`/g)].map((m) => m[1]).filter((id) => /^[A-Z]|\//.test(id));
    const stacks = app.node.findAll().filter(Stack.isStack).map((s) => s.node.path);
    expect(new Set(listed)).toEqual(new Set(stacks));
    expect(readme).toContain(`npx cdk ls                                # the example app's ${stacks.length} stacks`);
  });

  test('deploys the plan for 2,000 rps at p99 10 ms on SageMaker with the model server built on the pinned Neuron DLC', () => {
    // THEN the planner chose between stock and batching serving; the server runs either
    const plan = stack.endpoint.plan;
    expect(plan).toMatchObject({
      profileId: 'bert-base-uncased',
      region: 'us-east-1',
      hosting: 'sagemaker',
      targets: { throughputRps: 2000, p99Ms: 10 },
    });
    expect(['stock', 'batching']).toContain(plan?.serving);
    expect(stack.endpoint.environment).toMatchObject({
      MODEL_SERVER_VISIBLE_CORES: plan?.visibleCores.join(';'),
      MODEL_SERVER_MAX_BATCH_SIZE: `${plan?.batching?.maxBatchSize ?? plan?.batchSize}`,
    });
    // The image is the Docker asset in the bootstrap repository, built FROM the DLC by digest.
    expect(JSON.stringify(stack.resolve(stack.endpoint.cfnModel.primaryContainer))).toContain(
      'cdk-hnb659fds-container-assets-123456789012-us-east-1:');
    const assembly = app.synth();
    const assets = JSON.parse(fs.readFileSync(path.join(assembly.directory, `${stack.artifactId}.assets.json`), 'utf8'));
    expect(JSON.stringify(assets.dockerImages)).toContain(
      `"BASE_IMAGE":"763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference-neuronx@${PLACEHOLDER_IMAGE_DIGEST}"`);
    expect(EXAMPLE_DLC_TAG).toBe('2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04');
  });

  test('warns that the image digest is the placeholder and says how to get the real one', () => {
    // THEN
    expect(warnings(stack)).toEqual(expect.arrayContaining([expect.stringContaining(
      `imageDigest is the placeholder ${PLACEHOLDER_IMAGE_DIGEST}`)]));
    expect(warnings(stack).join('\n')).toContain(
      '--repository-name pytorch-inference-neuronx --image-ids imageTag=2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04');
  });

  test('makes CloudFormation refuse the deploy before any resource: placeholder digest, and the placeholder account '
    + 'when deployed there (the model is compiled in the deploy, so no model file can be missing)', () => {
    // WHEN the synthesized template's Rules are evaluated as CloudFormation does at CreateChangeSet
    const template = app.synth().getStackByName(EXAMPLE_STACK_NAME).template;
    const inRealAccount = failedRuleAssertions(template, { accountId: REAL_ACCOUNT, region: 'us-east-1' });
    const inPlaceholder = failedRuleAssertions(template, { accountId: PLACEHOLDER_ACCOUNT, region: 'us-east-1' });
    // THEN
    expect(inRealAccount).toEqual([
      expect.stringContaining(`imageDigest is the placeholder ${PLACEHOLDER_IMAGE_DIGEST}, which names no image.`),
    ]);
    expect(inPlaceholder).toEqual([
      expect.stringContaining(`account is the placeholder ${PLACEHOLDER_ACCOUNT}`),
      expect.stringContaining('imageDigest is the placeholder'),
    ]);
  });

  test('gates every deployment with a smoke benchmark that runs after the endpoint, with the plan\'s p99', () => {
    // THEN
    const smoke = stack.endpoint.smokeBenchmark;
    expect(smoke).toBeDefined();
    // 10 ms target + 20 ms SageMaker Runtime round-trip allowance (SmokeBenchmark's documented default)
    expect(smoke?.thresholds.p99MaxMs).toBe(30);
    const template = Template.fromJSON(app.synth().getStackByName(EXAMPLE_STACK_NAME).template);
    const triggers = template.findResources('Custom::Trigger');
    expect(Object.keys(triggers)).toHaveLength(1);
    const trigger = Object.values(triggers)[0] as { DependsOn?: string[]; Properties: { InvocationType: string } };
    expect(trigger.Properties.InvocationType).toBe('RequestResponse');
    expect(trigger.DependsOn).toEqual(expect.arrayContaining([stack.getLogicalId(stack.endpoint.cfnEndpoint)]));
  });

  test('compiles Llama 3.1 8B in each hosting\'s own deploy, the ECS twin for its ec2 plan, from the same Hub commit', () => {
    const sagemaker = app.node.findChild(LLAMA_STACK_NAME) as GenerativeInferenceStack;
    const ecs = app.node.findChild(LLAMA_ECS_STACK_NAME) as GenerativeEcsInferenceStack;
    const job = ecs.compileJob!;
    const engine = planLlama('us-east-1', 'ec2', Catalog.builtIn()).generative.engine;
    expect(job.spec).toMatchObject({
      tensorParallelSize: engine.tensorParallelSize, maxNumSeqs: engine.maxNumSeqs, maxModelLen: engine.maxModelLen,
    });
    expect(job.spec.weights).toEqual(sagemaker.compileJob!.spec.weights);
    expect(job.spec.weights).toMatchObject({ source: 'huggingface', repository: 'meta-llama/Llama-3.1-8B-Instruct' });
    // The SageMaker stack also compiles for its fallback pool on another chip family (its own test below).
    for (const [stack, compiles] of [[sagemaker, 1 + sagemaker.poolCompileJobs.length], [ecs, 1]] as const) {
      const template = app.synth().getStackByName(stack.stackName).template as { Resources: Record<string, { Type: string }>; Outputs: object };
      expect(Object.values(template.Resources).filter((r) => r.Type === 'Custom::NeuronCompileJob')).toHaveLength(compiles);
      expect(Object.keys(template.Outputs)).toContain('CompiledArtifacts');
    }
    expect(warnings(ecs.service).join('\n')).not.toContain('compilesAtStart');
  });

  test('deploys BERT and Llama on instance pools, each with a pool on another chip family compiled for it in the deploy', () => {
    const llama = app.node.findChild(LLAMA_STACK_NAME) as GenerativeInferenceStack;
    for (const [endpoint, poolJobs] of [[stack.endpoint, stack.poolCompileJobs], [llama.endpoint, llama.poolCompileJobs]] as const) {
      // THEN three pools by priority, on two chip families
      expect(endpoint.instancePools).toHaveLength(1 + EXAMPLE_FALLBACKS);
      const chips = endpoint.instancePools.map((t) => chipOf(t.spec.family));
      expect(new Set(chips).size).toBe(2);
      // AND the chip the chosen type lacks is compiled in the same deploy, once; a family-mate shares the chosen compile
      // unless it plans another one (Llama's inf2.24xlarge pool runs TP 4 beside the chosen inf2.48xlarge's TP 8)
      const other = chips.find((c) => c !== chips[0]);
      const jobChips = poolJobs.map((job) => job.spec.chip);
      expect(jobChips.filter((c) => c === other)).toHaveLength(1);
      expect(jobChips.length).toBeLessThanOrEqual(EXAMPLE_FALLBACKS);
    }
  });

  test('writes instance pools that fit the CloudFormation schema aws-cdk-lib is generated from, which the cfn-lint patch follows', () => {
    // About 3 s of CPU: loading @aws-cdk/aws-service-spec's database.
    const assembly = app.synth();
    const checked: string[] = [];
    for (const artifact of assembly.stacks.concat(assembly.nestedAssemblies.flatMap((a) => a.nestedAssembly.stacks))) {
      for (const [id, resource] of Object.entries(artifact.template.Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>)) {
        if (['AWS::SageMaker::EndpointConfig', 'AWS::SageMaker::InferenceComponent', 'AWS::SageMaker::Model'].includes(resource.Type)) {
          expect({ id, problems: serviceSpecProblems(resource.Type, resource.Properties) }).toEqual({ id, problems: [] });
          checked.push(JSON.stringify(resource.Properties));
        }
      }
    }
    expect(checked.filter((p) => p.includes('"InstancePools"')).length).toBeGreaterThanOrEqual(2);
    expect(checked.filter((p) => p.includes('"Specifications"'))).toHaveLength(1);
    // The patch gives cfn-lint exactly these properties, with the schema's types and required fields.
    const patch = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '.cfnlint-instance-pools.json'), 'utf8')) as CfnLintPatch;
    expect(patchedShapes(patch)).toEqual(serviceSpecShapes([
      ['AWS::SageMaker::EndpointConfig', ['ProductionVariants', 'InstancePools'], ['InstanceType', 'ModelNameOverride', 'Priority'], true],
      ['AWS::SageMaker::EndpointConfig', ['ProductionVariants'], ['VariantInstanceProvisionTimeoutInSeconds'], false],
      ['AWS::SageMaker::InferenceComponent', ['Specifications'], ['InstanceType', 'ModelName', 'Container', 'StartupParameters', 'ComputeResourceRequirements'], true],
    ]));
  });

  test('synthesizes with no cdk-nag, Neuron or CloudFormation validation finding', () => {
    // THEN nagFindings also fails when no pack is registered, so this proves applyPolicyChecks ran
    expect(nagFindings(app)).toEqual([]);
  });
});

describe('The example app with a real account and image digest', () => {
  test('compiles the model in the deploy, neither warns about nor refuses placeholders, and refuses nothing', () => {
    // GIVEN
    const app = new App({ context: { ...NO_BUNDLING, ...CDK_JSON.context, account: REAL_ACCOUNT, imageDigest: DIGEST } });
    // WHEN
    buildApp(app);
    const template = app.synth().getStackByName(EXAMPLE_STACK_NAME).template;
    // THEN
    // The model, and the same model for the fallback pool on another chip family.
    expect(Object.values(template.Resources).filter((r) => (r as { Type: string }).Type === 'Custom::NeuronCompileJob')).toHaveLength(2);
    expect(warnings(exampleStack(app)).filter((w) => w.includes('placeholder'))).toEqual([]);
    expect(failedRuleAssertions(template, { accountId: REAL_ACCOUNT, region: 'us-east-1' })).toEqual([]);
  });

  test('GIVEN -c modelSource=directory THEN it serves examples/bert-base-uncased/model and refuses the deploy while model.pt is missing', () => {
    const app = new App({ context: { ...NO_BUNDLING, ...CDK_JSON.context, account: REAL_ACCOUNT, imageDigest: DIGEST, modelSource: 'directory' } });
    buildApp(app);
    const template = app.synth().getStackByName(EXAMPLE_STACK_NAME).template;
    expect(Object.values(template.Resources).filter((r) => (r as { Type: string }).Type === 'Custom::NeuronCompileJob')).toEqual([]);
    // One hand-compiled model: the pools are the chosen chip family's other types, which load it.
    const endpoint = exampleStack(app).endpoint;
    expect(new Set(endpoint.instancePools.map((t) => chipOf(t.spec.family)))).toEqual(new Set([chipOf(endpoint.instanceType.spec.family)]));
    expect(failedRuleAssertions(template, { accountId: REAL_ACCOUNT, region: 'us-east-1' }))
      .toEqual([expect.stringMatching(/^Model data .*examples\/bert-base-uncased\/model lacks model.pt, tokenizer_config.json, vocab.txt, which/)]);
  });

  test('GIVEN an unknown modelSource THEN the app stops naming the two choices', () => {
    const app = new App({ context: { ...CDK_JSON.context, modelSource: 's3' } });
    expect(() => buildApp(app)).toThrow(/context modelSource="s3" is not one of compile, directory/);
  });
});

describe('The example app\'s targets', () => {
  test('default to 2,000 rps, p99 10 ms, peak 4,000 rps and 2 instances at least', () => {
    // WHEN
    const app = buildApp(new App({ context: { ...NO_BUNDLING, ...CDK_JSON.context } }));
    // THEN
    const plan = exampleStack(app).endpoint.plan!;
    expect(plan.targets).toMatchObject({ throughputRps: 2000, p99Ms: 10, peakThroughputRps: 4000 });
    expect(plan.instanceCount).toBeGreaterThanOrEqual(2);
    expect(plan.maxInstanceCount).toBeGreaterThan(plan.instanceCount);
  });

  test('come from -c throughput, p99, peak and minInstances, as strings from the command line', () => {
    // WHEN
    const app = buildApp(new App({ context: { ...NO_BUNDLING, ...CDK_JSON.context, throughput: '5000', p99: '12.5', peak: '9000', minInstances: '3' } }));
    // THEN
    const plan = exampleStack(app).endpoint.plan!;
    expect(plan.targets).toMatchObject({ throughputRps: 5000, p99Ms: 12.5, peakThroughputRps: 9000 });
    expect(plan.instanceCount).toBeGreaterThanOrEqual(3);
  });

  test('keep the peak at twice the throughput when only the throughput is given', () => {
    // WHEN
    const app = buildApp(new App({ context: { ...NO_BUNDLING, ...CDK_JSON.context, throughput: '5000' } }));
    // THEN
    expect(exampleStack(app).endpoint.plan!.targets).toMatchObject({ throughputRps: 5000, peakThroughputRps: 10000 });
  });

  test('take -c fallbacks from 0 to 4 and refuse anything else, naming the key, the value and the fix', () => {
    expect(problemsOf({ fallbacks: '7' })).toContain('context fallbacks="7" is not a whole number from 0 to 4 (fallback instance pools); '
      + 'pass e.g. -c fallbacks=2, or -c fallbacks=0 for one instance type');
    expect(problemsOf({ fallbacks: 'two' })).toHaveLength(1);
  });

  test('reject hex, exponents, zero, fractions of instances and a peak below the throughput, all at once', () => {
    // THEN
    expect(problemsOf({ throughput: '0x10', p99: '1e3', peak: '0', minInstances: '1.5' })).toEqual([
      'context throughput="0x10" is not a positive number (requests per second); pass e.g. -c throughput=2000',
      'context p99="1e3" is not a positive number (milliseconds); pass e.g. -c p99=10',
      'context peak="0" is not a positive number (requests per second); pass e.g. -c peak=4000',
      'context minInstances="1.5" is not a whole number of at least 1 (instances); pass e.g. -c minInstances=2',
    ]);
    expect(problemsOf({ throughput: '3000', peak: '2000' })).toEqual([
      'context peak=2000 is below throughput=3000; the peak is the most autoscaling must serve: pass -c peak=3000 or more',
    ]);
  });
});

describe('The example app in a region the built-in catalog does not price', () => {
  const prices = path.join(scratch, 'prices.json');
  fs.writeFileSync(prices, JSON.stringify({
    source: 'test price file',
    prices: ['xlarge', '8xlarge', '24xlarge', '48xlarge'].map((size, i) => (
      { instanceType: `inf2.${size}`, region: 'eu-west-1', hosting: 'sagemaker', usdPerHour: [1.1, 2.6, 8.6, 17.2][i] })),
  }));

  test('says how to get prices, with -c prices, in a region with no EC2 price either', () => {
    // THEN
    expect(problemsOf({ region: 'il-central-1' })).toEqual([
      expect.stringMatching(/^context region=il-central-1: no SageMaker prices for it \(priced: .*eu-west-1.*\); fetch them with `npx cdk-inferentia /),
    ]);
    expect(problemsOf({ region: 'il-central-1' })[0]).toContain('catalog refresh --regions il-central-1 --out prices.json` and pass -c prices=prices.json');
  });

  test('plans eu-west-1 offline with the SageMaker price estimated from EC2, marked ESTIMATE', () => {
    const app = buildApp(new App({ context: { ...NO_BUNDLING, ...CDK_JSON.context, region: 'eu-west-1' } }));
    const planned = exampleStack(app).endpoint.plan!;
    expect(planned.price).toMatchObject({ region: 'eu-west-1', hosting: 'sagemaker', estimate: expect.stringMatching(/^EC2 on-demand in eu-west-1/) });
    expect(planned.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/is an ESTIMATE/)]));
  });

  test('plans there with -c prices=FILE', () => {
    // WHEN
    const app = buildApp(new App({ context: { ...NO_BUNDLING, ...CDK_JSON.context, region: 'eu-west-1', prices } }));
    // THEN
    const stack = exampleStack(app);
    expect(stack.region).toBe('eu-west-1');
    expect(stack.endpoint.plan).toMatchObject({ region: 'eu-west-1', price: { source: 'test price file' } });
  });

  test('names a price file that cannot be read or is invalid', () => {
    // GIVEN
    const bad = path.join(scratch, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ prices: [{ instanceType: 'ml.inf2.xlarge', region: 'eu-west-1', hosting: 'sagemaker', usdPerHour: 1 }] }));
    // THEN
    expect(problemsOf({ prices: path.join(scratch, 'missing.json') })).toEqual([
      expect.stringMatching(/^context prices .*missing\.json: cannot read the file/),
    ]);
    expect(problemsOf({ prices: bad })).toEqual([
      expect.stringContaining('prices[0].instanceType: "ml.inf2.xlarge" is a SageMaker name'),
    ]);
  });
});

describe('The example app with context keys it does not read', () => {
  test.each([
    ['throughtput', '5', 'throughput'],
    ['throughputRps', '5000', 'throughput'],
    ['min-instances', '3', 'minInstances'],
    ['llamaImageDigst', DIGEST, 'llamaImageDigest'],
    ['llamaThroughtput', '5', 'llamaThroughput'],
    ['ecsImageDigets', DIGEST, 'ecsImageDigest'],
    ['enviroments', 'examples/environments.json', 'environments'],
  ])('GIVEN -c %s=%s (a slip) THEN the app is refused with "did you mean -c %s" before any stack', (key, value, meant) => {
    const app = new App({ context: { ...CDK_JSON.context, [key]: value } });
    expect(() => buildApp(app)).toThrow(`context ${key}=${JSON.stringify(value)} is read by no example stack; did you mean -c ${meant}=`);
    expect(app.node.children).toHaveLength(0);
  });

  test('GIVEN a key far from every one the app reads THEN it is refused before any stack, naming the nearest (CDK\'s keys: test/bin/context-keys.test.ts)', () => {
    const app = new App({ context: { ...CDK_JSON.context, llama70bTrn2Digest: DIGEST } });
    expect(() => buildApp(app)).toThrow(/^context llama70bTrn2Digest="sha256:[0-9a-f]{64}" is read by no example stack; the nearest key it reads is llama70bTrn2ImageDigest /);
    expect(app.node.children).toHaveLength(0);
  });
});

describe('The Llama example\'s targets come from context', () => {
  test('GIVEN -c llamaThroughput=5 -c llamaTtftP99=1500 THEN both Llama stacks are planned for them', () => {
    const app = buildApp(new App({ context: { ...NO_BUNDLING, ...CDK_JSON.context, llamaThroughput: '5', llamaTtftP99: 1500 } }));
    for (const name of [LLAMA_STACK_NAME, LLAMA_ECS_STACK_NAME]) {
      expect((app.node.findChild(name) as Stack).templateOptions.description).toContain('5 requests/s (TTFT p99 1500 ms');
    }
  });

  test.each([
    [{ llamaThroughput: 'abc' }, 'context llamaThroughput="abc" is not a positive number (requests per second); pass e.g. -c llamaThroughput=2'],
    [{ llamaInputTokens: '10.5' }, 'context llamaInputTokens="10.5" is not a whole number of at least 1 (tokens); pass e.g. -c llamaInputTokens=1024'],
    [{ llamaOutputTokens: 300, llamaOutputTokensP99: 200 }, 'context llamaOutputTokensP99=200 is below llamaOutputTokens=300'],
    [{ llamaThroughput: 4, llamaPeak: 3 }, 'context llamaPeak=3 is below llamaThroughput=4'],
    [{ llamaInputTokens: 200000 }, "context llama targets: input plus output tokens at p99 (200730) exceed llama-3.1-8b-instruct's context"],
  ])('GIVEN %j THEN the app is refused naming the key, the value and the fix', (context, message) => {
    const app = new App({ context: { ...CDK_JSON.context, ...context } });
    expect(() => buildApp(app)).toThrow(message);
    expect(app.node.children).toHaveLength(0);
  });
});

describe('The example app run by the CDK CLI (cdk.json app) with bad context', () => {
  test('prints one message, no stack trace, and exits 1', () => {
    // WHEN
    const run = spawnSync(process.execPath, [require.resolve('tsx/cli'), path.join(__dirname, '..', '..', 'bin', 'app.ts')], {
      env: { ...process.env, CDK_OUTDIR: path.join(scratch, 'out'), CDK_CONTEXT_JSON: JSON.stringify({ ...CDK_JSON.context, account: 'prod' }) },
      encoding: 'utf8',
    });
    // THEN
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('error: context account="prod" is not a 12-digit AWS account id; set "account" in cdk.json '
      + 'context (or -c account=<12 digits>) to the account you deploy to\n');
  });
});

describe('The example app checks every context value before the first stack bundles its assets', () => {
  test.each([
    ['ecsImageDigest', { ecsImageDigest: 'latest' }, /context ecsImageDigest/],
    ['ecsImageRepository', { ecsImageRepository: 'Bad Repo' }, /context ecsImageRepository="Bad Repo"/],
    ['environments', { environments: 'no-such-environments.json' }, /environments/],
    ['llamaModelBucket', { llamaModelBucket: 'my-models' }, /context llamaModelBucket is no longer read: the ECS twin \(Llama31Ecs\) compiles/],
    ['llamaWeightsPrefix', { llamaWeightsPrefix: 'llama/v1' }, /context llamaWeightsPrefix is no longer read/],
  ])('GIVEN a bad -c %s THEN the app is refused with no stack constructed', (_key, context, message) => {
    const app = new App({ context: { ...CDK_JSON.context, ...context } });
    expect(() => buildApp(app)).toThrow(message);
    // No stack, so no Lambda bundle was built before the refusal.
    expect(app.node.children).toHaveLength(0);
  });
});

describe('The example app without usable context', () => {
  test('reports every missing or malformed value at once', () => {
    // GIVEN
    const app = new App({ context: { account: 'prod', region: '' } });
    // WHEN
    let error: unknown;
    try {
      buildApp(app);
    } catch (e) {
      error = e;
    }
    // THEN
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).problems).toEqual([
      'context region="" is missing or not a string; set "region" in cdk.json context or pass -c region=us-east-1',
      'context imageDigest=undefined is missing or not a string; set "imageDigest" in cdk.json context or pass '
        + '-c imageDigest=sha256:<64 hex digits>',
      'context account="prod" is not a 12-digit AWS account id; set "account" in cdk.json context (or -c '
        + 'account=<12 digits>) to the account you deploy to',
    ]);
  });
});
