/**
 * The Trainium2 example: Llama 3.3 70B Instruct on trn2.48xlarge, served by the vLLM Neuron plugin on EC2 instances
 * run by Amazon ECS (`Llama33Trn2Ecs`), in US East (Ohio), the region whose AWS price list sells trn2.48xlarge on
 * demand. docs/trainium2.md walks through its plan, its cost per 1M output tokens and the Inf2 plan for the same
 * targets.
 *
 * Context it reads: `llama70bTrn2ImageDigest` (placeholder `sha256:` + 64 zeros), the digest of the pinned plugin image
 * `public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:<VLLM_DLC_PINS.trn2.tag>`; the Hugging Face token secret is
 * the generative example's (`llamaTokenSecret`). With the placeholder digest, synth warns and CloudFormation refuses
 * the deploy before creating anything.
 */
import { App, Stack } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { GenerativeWeights } from '../constructs/compile/neuron-generative-compile-job';
import { GenerativeEcsInferenceStack } from '../constructs/ecs/generative-ecs-inference-stack';
import { ModelImage } from '../constructs/image/model-image';
import { digestProblem } from '../constructs/image/private/image-digest';
import type { Catalog } from '../lib/catalog';
import { findGenerativeProfile, planGenerative } from '../lib/generative';
import type { GenerativePlan, GenerativeTargets } from '../lib/generative';
import { VLLM_DLC_PINS } from '../lib/generative/engine-image';

/** The stack's name. */
export const LLAMA70B_TRN2_STACK_NAME = 'Llama33Trn2Ecs';

/** Where Trn2 is sold on demand (AWS price list, lib/catalog/data/on-demand.ts). */
export const LLAMA70B_TRN2_REGION = 'us-east-2';

/** The Hugging Face commit the example compiles. */
export const LLAMA70B_REPOSITORY = 'meta-llama/Llama-3.3-70B-Instruct';
export const LLAMA70B_REVISION = '6f6073b423013f6a7d4d9f39144961bfbfbc386b';

/** The digest used until `llama70bTrn2ImageDigest` is set: it names no image. */
export const PLACEHOLDER_TRN2_IMAGE_DIGEST = `sha256:${'0'.repeat(64)}`;

/**
 * What the example plans for: 1.2 requests/s of 1024 tokens in and 256 out, on trn2.48xlarge (over every type with
 * built-in prices in US East (Ohio) the planner picks Inf2 for these decode-bound targets: docs/trainium2.md).
 */
export const LLAMA70B_TARGETS: GenerativeTargets = {
  requestsPerSecond: 1.2, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 10_000, tpotP99Ms: 100,
};

/** Plans Llama 3.3 70B on `instanceTypes` (all types when undefined) with the example's targets, on EC2. */
export function planLlama70b(catalog: Catalog, instanceTypes?: readonly string[]): GenerativePlan {
  const profile = findGenerativeProfile('llama-3.3-70b-instruct');
  if (!profile) throw new Error('built-in profile llama-3.3-70b-instruct is missing');
  return planGenerative(profile, LLAMA70B_TARGETS, {
    region: LLAMA70B_TRN2_REGION, hosting: 'ec2', ...(instanceTypes ? { instanceTypes: [...instanceTypes] } : {}),
  }, catalog);
}

/** Reads `llama70bTrn2ImageDigest`, adding its problem to `problems`. */
export function readTrn2Digest(app: App, problems: string[]): string {
  const raw = app.node.tryGetContext('llama70bTrn2ImageDigest') as unknown;
  const digest = typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : PLACEHOLDER_TRN2_IMAGE_DIGEST;
  if (raw !== undefined && (typeof raw !== 'string' || raw.trim() === '')) {
    problems.push(`context llama70bTrn2ImageDigest=${JSON.stringify(raw)} is not a non-empty string; pass -c llama70bTrn2ImageDigest=sha256:<64 hex>`);
  }
  const problem = digestProblem('context llama70bTrn2ImageDigest', digest);
  if (problem !== undefined) {
    problems.push(`${problem}; it is the digest of public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:${VLLM_DLC_PINS.trn2.tag}`);
  }
  return digest;
}

/** Adds the Trn2 stack to `app`, when the catalog prices trn2.48xlarge on EC2 in US East (Ohio). */
export function addLlama70bTrn2Example(
  app: App, settings: { account: string; catalog: Catalog }, context: { digest: string; tokenSecret: string },
): Stack | undefined {
  if (!settings.catalog.price('trn2.48xlarge', LLAMA70B_TRN2_REGION, 'ec2')) return undefined;
  const image = ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.trn2.tag, digest: context.digest });
  const plan = planLlama70b(settings.catalog, ['trn2.48xlarge']);
  return new GenerativeEcsInferenceStack(app, LLAMA70B_TRN2_STACK_NAME, {
    env: { account: settings.account, region: LLAMA70B_TRN2_REGION },
    description: 'cdk-inferentia example: Llama 3.3 70B Instruct with the vLLM Neuron plugin on trn2.48xlarge, run by Amazon ECS, '
      + `planned for ${LLAMA70B_TARGETS.requestsPerSecond} requests/s (TTFT p99 ${LLAMA70B_TARGETS.ttftP99Ms} ms, TPOT p99 ${LLAMA70B_TARGETS.tpotP99Ms} ms)`,
    plan,
    image,
    weights: (scope: Stack) => GenerativeWeights.fromHuggingFace({
      repository: LLAMA70B_REPOSITORY,
      revision: LLAMA70B_REVISION,
      token: secretsmanager.Secret.fromSecretNameV2(scope, 'HuggingFaceToken', context.tokenSecret),
    }),
  });
}
