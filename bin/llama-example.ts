/**
 * The generative example: Llama 3.1 8B Instruct planned in tokens, compiled in the deploy for the plan by the serving
 * image's own vLLM, served on SageMaker inference components and proven in tokens (`GenerativeInferenceStack`), and
 * its ECS twin (`GenerativeEcsInferenceStack`), compiled the same way in its own deploy for its own (ec2) plan.
 * docs/generative.md walks through it.
 *
 * Context it reads besides the example's own `account` and `region`:
 * - `llamaImageDigest` (placeholder `sha256:` + 64 zeros): the digest of the pinned Neuron vLLM image
 *   (`public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:<tag>`, the tag `VLLM_DLC_PINS` names for the plan's chip);
 * - `llamaTokenSecret` (default `cdk-inferentia/hugging-face-token`): the Secrets Manager secret holding a Hugging
 *   Face token whose account accepted the Llama 3.1 license; both stacks' compile hosts read it at run time.
 * - the targets both stacks are planned for (defaults: `LLAMA_TARGETS`): `llamaThroughput` (requests/s), `llamaPeak`
 *   (requests/s autoscaling reaches), `llamaInputTokens` and `llamaOutputTokens` (mean lengths, tokens),
 *   `llamaInputTokensP99` and `llamaOutputTokensP99` (their 99th percentiles), `llamaTtftP99` and `llamaTpotP99` (ms),
 *   `llamaE2eP99` (ms, end to end). Each is checked as the planner checks it, before any stack is built.
 * `llamaModelBucket` and `llamaWeightsPrefix`, which once pointed the ECS twin at weights it compiled at every task
 * start, are refused: the twin compiles in its deploy now.
 * With the placeholder digest, synth warns and CloudFormation refuses the deploy before creating anything.
 */
import { App, Stack } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { GenerativeWeights } from '../constructs/compile/neuron-generative-compile-job';
import { GenerativeEcsInferenceStack } from '../constructs/ecs/generative-ecs-inference-stack';
import { ModelImage } from '../constructs/image/model-image';
import { digestProblem } from '../constructs/image/private/image-digest';
import { GenerativeInferenceStack } from '../constructs/sagemaker/generative-inference-stack';
import { Catalog } from '../lib/catalog';
import { InputError } from '../lib/errors';
import { findGenerativeProfile, planGenerative } from '../lib/generative';
import type { GenerativePlan, GenerativeTargets, TokenLength } from '../lib/generative';
import { VLLM_DLC_PINS } from '../lib/generative/engine-image';
import { resolveGenerativeRequest } from '../lib/generative/planner';
import { readContextNumber } from './context-keys';

/** Names of the generative example's stacks. */
export const LLAMA_STACK_NAME = 'Llama31Inference';
export const LLAMA_ECS_STACK_NAME = 'Llama31Ecs';

/** The Hugging Face commit the example compiles: pinned, so the compile cache never serves other weights. */
export const LLAMA_REPOSITORY = 'meta-llama/Llama-3.1-8B-Instruct';
export const LLAMA_REVISION = '0e9e39f249a16976918f6564b8830bc894c89659';

/** The digest the example uses until `llamaImageDigest` is set: it names no image. */
export const PLACEHOLDER_LLAMA_IMAGE_DIGEST = `sha256:${'0'.repeat(64)}`;

/** The secret the example reads the Hugging Face token from unless `llamaTokenSecret` names another. */
export const DEFAULT_LLAMA_TOKEN_SECRET = 'cdk-inferentia/hugging-face-token';

/** What the example plans for: the README's command (a chat service of 2 requests/s). */
export const LLAMA_TARGETS: GenerativeTargets = {
  requestsPerSecond: 2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 2000, tpotP99Ms: 60,
};

/** The generative example's context, read with every other context value before any stack exists. */
export interface LlamaContext {
  readonly digest: string;
  readonly tokenSecret: string;
  /** @default LLAMA_TARGETS */
  readonly targets?: GenerativeTargets;
  /** Fallback instance pools of the SageMaker stack (the app's `fallbacks`). @default 0 */
  readonly fallbacks?: number;
}

/** Context keys the example no longer reads: refused, so a deploy does not silently ignore them. */
const RETIRED_LLAMA_KEYS = ['llamaModelBucket', 'llamaWeightsPrefix'] as const;

/** Reads `llamaImageDigest` and `llamaTokenSecret`, adding problems to `problems`. */
export function readLlamaContext(app: App, problems: string[]): LlamaContext {
  const text = (key: string): string | undefined => {
    const raw = app.node.tryGetContext(key) as unknown;
    if (raw === undefined) return undefined;
    if (typeof raw !== 'string' || raw.trim() === '') {
      problems.push(`context ${key}=${JSON.stringify(raw)} is not a non-empty string; pass -c ${key}=<value> or leave it out`);
      return undefined;
    }
    return raw.trim();
  };
  const digest = text('llamaImageDigest') ?? PLACEHOLDER_LLAMA_IMAGE_DIGEST;
  const problem = digestProblem('context llamaImageDigest', digest);
  if (problem !== undefined) {
    problems.push(`${problem}; it is the digest of public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:${VLLM_DLC_PINS.inf2Trn1.tag}`);
  }
  const tokenSecret = text('llamaTokenSecret') ?? DEFAULT_LLAMA_TOKEN_SECRET;
  if (!/^[A-Za-z0-9/_+=.@-]{1,512}$/.test(tokenSecret)) {
    problems.push(`context llamaTokenSecret=${JSON.stringify(tokenSecret)} is not a Secrets Manager secret name; pass e.g. `
      + `-c llamaTokenSecret=${DEFAULT_LLAMA_TOKEN_SECRET}`);
  }
  for (const key of RETIRED_LLAMA_KEYS) {
    if (app.node.tryGetContext(key) !== undefined) {
      problems.push(`context ${key} is no longer read: the ECS twin (${LLAMA_ECS_STACK_NAME}) compiles ${LLAMA_REPOSITORY} in its `
        + `deploy, as the SageMaker stack does; drop -c ${key} (to serve weights from your own S3 prefixes, give `
        + 'GenerativeEcsInferenceStack modelBucketName and weightsPrefix in your own app)');
    }
  }
  const targets = readLlamaTargets(app, problems);
  return { digest, tokenSecret, ...(targets ? { targets } : {}) };
}

/** The example's targets from the `llama*` context keys, each defaulting to `LLAMA_TARGETS`; undefined on a problem. */
function readLlamaTargets(app: App, problems: string[]): GenerativeTargets | undefined {
  const before = problems.length;
  const value = (key: string) => app.node.tryGetContext(key) as unknown;
  const number = (key: string, dflt: number, unit: string, integer = false) =>
    readContextNumber(value(key), key, dflt, unit, problems, integer);
  const optional = (key: string, example: number, unit: string, integer = false) =>
    value(key) === undefined ? undefined : number(key, example, unit, integer);
  const length = (key: string, dflt: TokenLength): TokenLength => {
    const mean = number(key, dflt.mean, 'tokens', true) ?? dflt.mean;
    const p99 = optional(`${key}P99`, 2 * mean, 'tokens', true);
    if (p99 !== undefined && p99 < mean) {
      problems.push(`context ${key}P99=${p99} is below ${key}=${mean}; the 99th percentile length is at least the mean: `
        + `pass -c ${key}P99=${mean} or more, or leave it out for fixed lengths`);
    }
    return { mean, ...(p99 !== undefined ? { p99 } : {}) };
  };
  const d = LLAMA_TARGETS;
  const requestsPerSecond = number('llamaThroughput', d.requestsPerSecond, 'requests per second') ?? d.requestsPerSecond;
  const peak = optional('llamaPeak', 2 * requestsPerSecond, 'requests per second');
  if (peak !== undefined && peak < requestsPerSecond) {
    problems.push(`context llamaPeak=${peak} is below llamaThroughput=${requestsPerSecond}; the peak is the most `
      + `autoscaling must serve: pass -c llamaPeak=${requestsPerSecond} or more`);
  }
  const e2e = optional('llamaE2eP99', 30000, 'milliseconds');
  const targets: GenerativeTargets = {
    requestsPerSecond,
    inputTokens: length('llamaInputTokens', d.inputTokens),
    outputTokens: length('llamaOutputTokens', d.outputTokens),
    ttftP99Ms: number('llamaTtftP99', d.ttftP99Ms, 'milliseconds') ?? d.ttftP99Ms,
    tpotP99Ms: number('llamaTpotP99', d.tpotP99Ms, 'milliseconds') ?? d.tpotP99Ms,
    ...(e2e !== undefined ? { e2eP99Ms: e2e } : {}),
    ...(peak !== undefined ? { peakRequestsPerSecond: peak } : {}),
  };
  if (problems.length > before) return undefined;
  try {
    // The planner's own check of the targets (the context limit of the model, say), here so it comes before any
    // stack bundles its assets; us-east-1 SageMaker is priced in the built-in catalog, so only the targets can fail.
    resolveGenerativeRequest(llamaProfile(), targets, { region: 'us-east-1', hosting: 'sagemaker' }, Catalog.builtIn());
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    problems.push(...e.problems.map((p) => `context llama targets: ${p}`));
    return undefined;
  }
  return targets;
}

function llamaProfile() {
  const profile = findGenerativeProfile('llama-3.1-8b-instruct');
  if (!profile) throw new Error('built-in profile llama-3.1-8b-instruct is missing');
  return profile;
}

/**
 * Plans Llama 3.1 8B Instruct for the hosting, in tokens.
 *
 * @param fallbacks fallback instance pools (SageMaker only) @default 0
 */
export function planLlama(region: string, hosting: 'sagemaker' | 'ec2', catalog: Catalog,
  targets: GenerativeTargets = LLAMA_TARGETS, fallbacks = 0): GenerativePlan {
  return planGenerative(llamaProfile(), targets, { region, hosting, ...(fallbacks > 0 ? { fallbacks } : {}) }, catalog);
}

/**
 * The generative model of the environments' stages: the example's Llama commit and token secret, on the pinned Neuron
 * vLLM image with `digest` (the environments config's `generativeImageDigest`).
 */
export function llamaStageContent(tokenSecret: string, digest: string): { image: ModelImage; weights: (scope: Stack) => GenerativeWeights } {
  return {
    image: ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.inf2Trn1.tag, digest }),
    weights: (scope: Stack) => GenerativeWeights.fromHuggingFace({
      repository: LLAMA_REPOSITORY,
      revision: LLAMA_REVISION,
      token: secretsmanager.Secret.fromSecretNameV2(scope, 'HuggingFaceToken', tokenSecret),
    }),
  };
}

/** Adds the SageMaker stack and its ECS twin to `app`. */
export function addLlamaExample(app: App, settings: { account: string; region: string; catalog: Catalog }, context: LlamaContext): Stack[] {
  const { account, region, catalog } = settings;
  const image = ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.inf2Trn1.tag, digest: context.digest });
  // One commit for both stacks; each compiles it for its own plan, and the token is read in each stack.
  const weights = (scope: Stack) => GenerativeWeights.fromHuggingFace({
    repository: LLAMA_REPOSITORY,
    revision: LLAMA_REVISION,
    token: secretsmanager.Secret.fromSecretNameV2(scope, 'HuggingFaceToken', context.tokenSecret),
  });
  const targets = context.targets ?? LLAMA_TARGETS;
  const sagemakerPlan = planLlama(region, 'sagemaker', catalog, targets, context.fallbacks ?? 0);
  const stack = new GenerativeInferenceStack(app, LLAMA_STACK_NAME, {
    env: { account, region },
    description: 'cdk-inferentia example: Llama 3.1 8B Instruct with vLLM on Neuron, on SageMaker inference components, '
      + `planned for ${targets.requestsPerSecond} requests/s (TTFT p99 ${targets.ttftP99Ms} ms, TPOT p99 ${targets.tpotP99Ms} ms)`,
    plan: sagemakerPlan,
    image,
    weights,
  });
  const stacks: Stack[] = [stack];
  if (catalog.regionsWithPrices('ec2').includes(region)) {
    stacks.push(new GenerativeEcsInferenceStack(app, LLAMA_ECS_STACK_NAME, {
      env: { account, region },
      description: 'cdk-inferentia example: Llama 3.1 8B Instruct with vLLM on Neuron EC2 instances run by Amazon ECS, '
        + `planned for ${targets.requestsPerSecond} requests/s (TTFT p99 ${targets.ttftP99Ms} ms, TPOT p99 ${targets.tpotP99Ms} ms)`,
      plan: planLlama(region, 'ec2', catalog, targets),
      image,
      weights,
    }));
  }
  return stacks;
}
