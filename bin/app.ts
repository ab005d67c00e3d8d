/**
 * The example CDK app: bert-base-uncased on a SageMaker Neuron endpoint, planned from targets given as context.
 *
 * `npx cdk synth` runs it (cdk.json `app`). It reads its settings from CDK context (cdk.json `context`, or
 * `-c key=value`), which placeholders fill so a fresh clone synthesizes offline with no credentials and no Docker:
 * - `account` (placeholder 123456789012) and `region` (us-east-1): where the stack deploys and the plan prices;
 * - `imageDigest` (placeholder `sha256:` + 64 zeros): the digest of the Neuron DLC image the model server image is
 *   built on (`cdk deploy` builds it with Docker: log in to the DLC registry first, docs/model-server.md);
 * - `prices`: a price file (`cdk-inferentia catalog refresh --out prices.json`) for regions the built-in catalog
 *   does not price;
 * - `throughput` (requests/s, default 2000), `p99` (ms, default 10), `peak` (requests/s autoscaling reaches,
 *   default twice the throughput: 4000) and `minInstances` (default 2): the targets the plan meets;
 * - `modelSource` (`compile`, the default: a `NeuronCompileJob` compiles the model in the deploy; `directory`: serve
 *   `examples/bert-base-uncased/model` compiled by hand);
 * - `fallbacks` (0 to 4, default 2): the fallback instance pools of the SageMaker endpoints (BERT and Llama), tried in
 *   priority order when the chosen type runs out of capacity (docs/capacity.md); a pool on another chip family is
 *   compiled for it in the deploy, and with `modelSource=directory` (one hand-compiled model) the pools are the
 *   chosen family's other types;
 * - `ecsImageRepository` and `ecsImageDigest`: the image of the EC2 (ECS) stack, docs/ecs.md;
 * - `llama*`: the generative example's image, token secret and targets (bin/llama-example.ts).
 *
 * A key the app does not read (`-c throughtput=5`) is refused with the nearest one it does (bin/context-keys.ts holds
 * every key the app reads); CDK's own keys pass.
 *
 * Placeholders, and (with `modelSource=directory`) model files missing from `examples/bert-base-uncased/model`, keep synth working with a warning
 * and make CloudFormation refuse `cdk deploy` before any resource is created (`DeployRefusal`).
 *
 * With the `environments` context key (a config file, `examples/environments.json` in cdk.json), the app also adds
 * one stage per environment (`npx cdk deploy 'dev/*'`) and the `PromotionPipeline` stack (docs/promotion.md).
 */
import * as path from 'path';
import { App } from 'aws-cdk-lib';
import { Catalog, isAwsRegion, parsePriceFile } from '../lib/catalog';
import { parseCompileSpec } from '../lib/compile';
import type { CompileSpecInput } from '../lib/compile';
import { DeployRefusal } from '../constructs/proof/deploy-refusal';
import { InferenceStack } from '../constructs/sagemaker/inference-stack';
import { ModelImage } from '../constructs/image/model-image';
import { applyPolicyChecks } from '../constructs/nag';
import { digestProblem } from '../constructs/image/private/image-digest';
import type { SmokeBenchmarkOptions } from '../constructs/proof/smoke-benchmark-props';
import { InfeasibleError, InputError } from '../lib/errors';
import { chipOf, MAX_FALLBACKS, plan } from '../lib/planner';
import type { PlanTargets } from '../lib/planner';
import { requireProfile } from '../lib/profiles';
import { messageOf, readJsonFile } from './commands/files';
import { addEnvironmentStages, readEnvironmentsContext } from './environment-stages';
import { addEcsExample, readEcsContext } from './ecs-example';
import { addLlamaExample, llamaStageContent, readLlamaContext } from './llama-example';
import { readContextNumber as readNumber, unknownAppContextKeyProblems } from './context-keys';
import { addLlama70bTrn2Example, readTrn2Digest } from './llama70b-trn2-example';
import type { EnvironmentsConfig } from '../lib/environments';

/** The account cdk.json ships with: AWS's documentation example, which nobody deploys to. */
export const PLACEHOLDER_ACCOUNT = '123456789012';

/** The digest cdk.json ships with: it names no image, so a deploy with it fails to pull. */
export const PLACEHOLDER_IMAGE_DIGEST = `sha256:${'0'.repeat(64)}`;

/**
 * The Neuron DLC the example serves with: the last `pytorch-inference-neuronx` release, Neuron SDK 2.31.1
 * (https://github.com/aws-neuron/deep-learning-containers README; no inference image from SDK 2.32.0 on, Neuron
 * release notes, "Neuron Containers" component).
 */
export const EXAMPLE_DLC_TAG = '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04';

/** Where the example's model data lives: the handler ships, the compiled model is added by the user. */
export const EXAMPLE_MODEL_DATA = path.join(__dirname, '..', 'examples', 'bert-base-uncased', 'model');

/**
 * The files `examples/bert-base-uncased/model/code/inference.py` loads at startup: `model.pt` (the traced model,
 * `torch.jit.load`), and what `AutoTokenizer.from_pretrained(model_dir)` needs for BERT: `tokenizer_config.json`
 * (which tokenizer class) and `vocab.txt` (BERT's vocabulary; `tokenizer.json` is optional, built from it).
 */
export const EXAMPLE_REQUIRED_MODEL_FILES: readonly string[] = [
  'model.pt', 'tokenizer_config.json', 'vocab.txt', 'code/inference.py',
];

/** The targets the example plans for when the context names none. */
export const EXAMPLE_TARGETS = { throughputRps: 2000, p99Ms: 10, peakThroughputRps: 4000, minInstances: 2 } as const;

/**
 * Fallback instance pools of the example's SageMaker endpoints unless `-c fallbacks` says otherwise: two, so each
 * endpoint shows a pool of the chosen chip family and one of another (docs/capacity.md).
 */
export const EXAMPLE_FALLBACKS = 2;

/**
 * The example's deploy gate: one sentence through the shipped handler (`code/inference.py` answers
 * `{"outputs": [[...floats...]]}`), thresholds from the plan. The regex proves the model ran and returned numbers,
 * not an error page; replace it with a golden output of your compiled model (`expect: { kind: 'json', value }`)
 * to catch a model that loads but answers wrong.
 */
export const EXAMPLE_SMOKE_BENCHMARK: SmokeBenchmarkOptions = {
  request: { body: JSON.stringify({ inputs: ['The quick brown fox jumps over the lazy dog.'] }), contentType: 'application/json' },
  expect: { kind: 'regex', pattern: '^\\{"outputs": \\[\\[-?[0-9]' },
};

/** Name of the example stack. */
export const EXAMPLE_STACK_NAME = 'BertBaseUncasedInference';

/** The compile spec the example compiles bert-base-uncased with in the deploy (docs/compile.md). */
export const EXAMPLE_COMPILE_SPEC = path.join(__dirname, '..', 'examples', 'bert-base-uncased', 'compile-spec.json');

/**
 * Where the example's model comes from: `compile` (the default) compiles it in the deploy with a `NeuronCompileJob`
 * and bakes the handler into the server image; `directory` serves `examples/bert-base-uncased/model` as you compiled
 * it by hand (see its README).
 */
export const MODEL_SOURCES = ['compile', 'directory'] as const;

/**
 * Builds the example stack in `app` from its context and registers the policy checks.
 *
 * @throws InputError listing every missing or malformed context value, or the planner's refusal of the targets
 * @throws InfeasibleError when no Neuron deployment meets the targets
 */
export function buildApp(app: App = new App()): App {
  const problems: string[] = [];
  const raw = (key: string): unknown => app.node.tryGetContext(key);
  const read = (key: string, example: string): string => {
    const value = raw(key);
    if (typeof value !== 'string' || value.trim() === '') {
      problems.push(`context ${key}=${JSON.stringify(value)} is missing or not a string; set "${key}" in cdk.json `
        + `context or pass -c ${key}=${example}`);
      return '';
    }
    return value.trim();
  };
  const account = read('account', '123456789012');
  const region = read('region', 'us-east-1');
  const imageDigest = read('imageDigest', 'sha256:<64 hex digits>');
  if (account !== '' && !/^\d{12}$/.test(account)) {
    problems.push(`context account=${JSON.stringify(account)} is not a 12-digit AWS account id; set "account" in `
      + 'cdk.json context (or -c account=<12 digits>) to the account you deploy to');
  }
  if (imageDigest !== '') {
    const problem = digestProblem('context imageDigest', imageDigest);
    if (problem !== undefined) {
      problems.push(`${problem}; the image is 763104351884.dkr.ecr.<region>.amazonaws.com/pytorch-inference-neuronx:`
        + EXAMPLE_DLC_TAG);
    }
  }
  if (region !== '' && !isAwsRegion(region)) {
    problems.push(`context region=${JSON.stringify(region)} is not an AWS region code; pass e.g. -c region=us-east-1`);
  }
  const catalog = readCatalog(raw('prices'), problems);
  const throughputRps = readNumber(raw('throughput'), 'throughput', EXAMPLE_TARGETS.throughputRps, 'requests per second', problems);
  const p99Ms = readNumber(raw('p99'), 'p99', EXAMPLE_TARGETS.p99Ms, 'milliseconds', problems);
  // Without -c peak the peak stays twice the throughput (4,000 for the default 2,000), so raising only the
  // throughput never puts it above the peak.
  const peak = readNumber(raw('peak'), 'peak', 2 * (throughputRps ?? EXAMPLE_TARGETS.throughputRps), 'requests per second',
    problems);
  const minInstances = readNumber(raw('minInstances'), 'minInstances', EXAMPLE_TARGETS.minInstances, 'instances', problems, true);
  if (peak !== undefined && throughputRps !== undefined && peak < throughputRps) {
    problems.push(`context peak=${peak} is below throughput=${throughputRps}; the peak is the most autoscaling must `
      + `serve: pass -c peak=${throughputRps} or more`);
  }
  if (catalog && region !== '' && isAwsRegion(region) && !catalog.regionsWithPrices('sagemaker').includes(region)) {
    const priced = catalog.regionsWithPrices('sagemaker').join(', ');
    problems.push(`context region=${region}: no SageMaker prices for it (priced: ${priced}); fetch them with `
      + `\`npx cdk-inferentia catalog refresh --regions ${region} --out prices.json\` and pass -c prices=prices.json`);
  }
  const modelSource = raw('modelSource') ?? 'compile';
  if (!(MODEL_SOURCES as readonly unknown[]).includes(modelSource)) {
    problems.push(`context modelSource=${JSON.stringify(modelSource)} is not one of ${MODEL_SOURCES.join(', ')}; pass `
      + '-c modelSource=compile (compile in the deploy) or -c modelSource=directory (serve examples/bert-base-uncased/model)');
  }
  const compileSpec = modelSource === 'compile' ? readCompileSpec(problems) : undefined;
  const fallbacks = readFallbacks(raw('fallbacks'), problems);
  // Every context value is checked here, before the first stack: a stack's Lambda bundles are built as it is
  // constructed, and a bad value refused after them would come at the end of a screen of bundling output.
  const ecsContext = readEcsContext(app, problems);
  const llamaContext = { ...readLlamaContext(app, problems), fallbacks };
  problems.push(...unknownAppContextKeyProblems(app));
  const trn2Digest = readTrn2Digest(app, problems);
  InputError.throwIfAny(problems);
  // After the others: the environments config reads the same prices file, whose problem is then already reported.
  const environments: EnvironmentsConfig | undefined = readEnvironmentsContext(app, path.join(__dirname, '..'));

  const targets: PlanTargets = { throughputRps: throughputRps!, p99Ms: p99Ms!, peakThroughputRps: peak! };
  // 'any': the model server runs both modes, so the planner takes batching wherever it is cheaper.
  const options = { region, hosting: 'sagemaker' as const, minInstances: minInstances!, serving: 'any' as const, fallbacks };
  let planned = plan(requireProfile('bert-base-uncased'), targets, options, catalog);
  if (compileSpec === undefined && planned.fallbacks?.some((pool) => pool.sharesCompiledModelWith === undefined)) {
    // A hand-compiled directory holds one compiled model: the pools are then the chosen chip family's other types.
    const chip = chipOf(planned.instance.family);
    planned = plan(requireProfile('bert-base-uncased'), targets,
      { ...options, instanceTypes: catalog!.instances.filter((i) => chipOf(i.family) === chip).map((i) => i.name) }, catalog);
  }
  const stack = new InferenceStack(app, EXAMPLE_STACK_NAME, {
    env: { account, region },
    description: `cdk-inferentia example: bert-base-uncased on a SageMaker Neuron endpoint, planned for `
      + `${throughputRps} rps (peak ${peak}) at p99 ${p99Ms} ms`,
    plan: planned,
    // The model server (serving/) built FROM the DLC by digest at deploy time; synth needs no Docker.
    // Compiling in the deploy: the artifact holds the model and tokenizer, the image carries the handler.
    ...(compileSpec
      ? {
        image: ModelImage.fromServer({ tag: EXAMPLE_DLC_TAG, digest: imageDigest, handler: path.join(EXAMPLE_MODEL_DATA, 'code') }),
        compile: { spec: compileSpec },
      }
      : {
        image: ModelImage.fromServer({ tag: EXAMPLE_DLC_TAG, digest: imageDigest }),
        modelDataPath: EXAMPLE_MODEL_DATA,
        requiredModelFiles: EXAMPLE_REQUIRED_MODEL_FILES,
      }),
    smokeBenchmark: EXAMPLE_SMOKE_BENCHMARK,
  });
  if (account === PLACEHOLDER_ACCOUNT) {
    new DeployRefusal(stack, 'PlaceholderAccount', {
      account,
      message: `account is the placeholder ${PLACEHOLDER_ACCOUNT}: set "account" in cdk.json context (or pass `
        + '-c account=<12 digits>) to the account you deploy to.',
    });
  }
  if (imageDigest === PLACEHOLDER_IMAGE_DIGEST) {
    new DeployRefusal(stack, 'PlaceholderImageDigest', {
      message: `imageDigest is the placeholder ${PLACEHOLDER_IMAGE_DIGEST}, which names no image. Set "imageDigest" `
        + `in cdk.json context to the digest of pytorch-inference-neuronx:${EXAMPLE_DLC_TAG}: aws ecr describe-images `
        + `--region ${region} --registry-id 763104351884 --repository-name pytorch-inference-neuronx --image-ids `
        + `imageTag=${EXAMPLE_DLC_TAG} --query 'imageDetails[0].imageDigest' --output text`,
    });
  }
  // The same model and targets on EC2 instances run by ECS (docs/ecs.md).
  addEcsExample(app, {
    account, region, catalog: catalog!, targets, minInstances: minInstances!, smokeBenchmark: EXAMPLE_SMOKE_BENCHMARK,
    warnOn: stack,
  }, ecsContext);
  // The generative example: Llama 3.1 8B Instruct on SageMaker inference components and on ECS (docs/generative.md).
  addLlamaExample(app, { account, region, catalog: catalog! }, llamaContext);
  // The Trainium2 example: Llama 3.3 70B on trn2.48xlarge with the vLLM Neuron plugin, in US East (Ohio) (docs/trainium2.md).
  addLlama70bTrn2Example(app, { account, catalog: catalog! }, { digest: trn2Digest, tokenSecret: llamaContext.tokenSecret });
  // The environments (dev/*, staging/*, prod/*) and their promotion pipeline, when cdk.json names a config
  // (docs/promotion.md); the stack above stays the first-deploy path.
  addEnvironmentStages(app, {
    modelDataPath: EXAMPLE_MODEL_DATA,
    requiredModelFiles: EXAMPLE_REQUIRED_MODEL_FILES,
    smokeBenchmark: EXAMPLE_SMOKE_BENCHMARK,
    cliCommand: 'node bin/cdk-inferentia.js',
    // Environments with a generative section also serve the Llama example, compiled once and promoted.
    generative: (digest) => llamaStageContent(llamaContext.tokenSecret, digest),
  }, path.join(__dirname, '..'), environments);
  applyPolicyChecks(app);
  return app;
}

/** `-c fallbacks`: 0 to 4 fallback pools (`MAX_FALLBACKS`), or the example's default; undefined with a problem. */
function readFallbacks(value: unknown, problems: string[]): number | undefined {
  if (value === undefined) {
    return EXAMPLE_FALLBACKS;
  }
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d$/.test(value.trim()) ? Number(value) : NaN;
  if (!(Number.isInteger(n) && n >= 0 && n <= MAX_FALLBACKS)) {
    problems.push(`context fallbacks=${JSON.stringify(value)} is not a whole number from 0 to ${MAX_FALLBACKS} (fallback instance pools); `
      + `pass e.g. -c fallbacks=${EXAMPLE_FALLBACKS}, or -c fallbacks=0 for one instance type`);
    return undefined;
  }
  return n;
}

/** The built-in catalog, with the `prices` file merged in when given; undefined (and a problem) when it is bad. */
/** The example's compile spec, parsed; its problems join the others. */
function readCompileSpec(problems: string[]): CompileSpecInput | undefined {
  try {
    const json = readJsonFile('compile spec', EXAMPLE_COMPILE_SPEC, '');
    // Checked here with every other context problem; NeuronCompileJob parses the same JSON again.
    parseCompileSpec(json, EXAMPLE_COMPILE_SPEC);
    return json as CompileSpecInput;
  } catch (e) {
    if (e instanceof InputError) {
      problems.push(...e.problems);
      return undefined;
    }
    throw e;
  }
}

function readCatalog(value: unknown, problems: string[]): Catalog | undefined {
  if (value === undefined) {
    return Catalog.builtIn();
  }
  if (typeof value !== 'string' || value.trim() === '') {
    problems.push(`context prices=${JSON.stringify(value)} is not a file path; pass -c prices=prices.json (written by `
      + '`npx cdk-inferentia catalog refresh --regions <region> --out prices.json`)');
    return undefined;
  }
  try {
    const json = readJsonFile('context prices', value, '; a price file looks like '
      + '{"prices":[{"instanceType":"inf2.xlarge","region":"eu-west-1","hosting":"sagemaker","usdPerHour":0.99}]}');
    return Catalog.builtIn().withPriceFile(parsePriceFile(json, `context prices=${value}`));
  } catch (e) {
    if (e instanceof InputError) {
      problems.push(...e.problems);
      return undefined;
    }
    throw e;
  }
}

/**
 * Runs the example as the CDK CLI does (cdk.json `app`), printing a bad context value as one message instead of a
 * stack trace.
 */
export function main(): void {
  try {
    buildApp();
  } catch (e) {
    if (e instanceof InputError || e instanceof InfeasibleError) {
      process.stderr.write(`error: ${messageOf(e)}\n`);
      process.exit(1);
    }
    throw e;
  }
}

if (require.main === module) {
  main();
}
