/**
 * The example's EC2 stack: the same model and targets as the SageMaker example, planned with `hosting: 'ec2'` and
 * served by Amazon ECS (`EcsInferenceStack`, docs/ecs.md).
 *
 * Context it reads besides the example's own: `ecsImageRepository` (default `bert-base-uncased-model-server`), an
 * ECR repository in the account and region, and `ecsImageDigest` (placeholder `sha256:` + 64 zeros), the digest of
 * the model server image with the compiled model in `/opt/ml/model` pushed there (docs/ecs.md, "The image"). The
 * image lives outside the stack so it can be pushed before the first deploy. With the placeholder, synth warns and
 * CloudFormation refuses the deploy.
 */
import { Annotations, App, Stack } from 'aws-cdk-lib';
import { DeployRefusal } from '../constructs/proof/deploy-refusal';
import { EcsInferenceStack } from '../constructs/ecs/ecs-inference-stack';
import { digestProblem } from '../constructs/image/private/image-digest';
import type { SmokeBenchmarkOptions } from '../constructs/proof/smoke-benchmark-props';
import type { Catalog } from '../lib/catalog';
import { InfeasibleError, InputError } from '../lib/errors';
import { plan } from '../lib/planner';
import type { PlanTargets } from '../lib/planner';
import { requireProfile } from '../lib/profiles';

/** Name of the example's EC2 stack. */
export const EXAMPLE_ECS_STACK_NAME = 'BertBaseUncasedEcs';

/** The digest the EC2 example uses until `ecsImageDigest` is set: it names no image. */
export const PLACEHOLDER_ECS_IMAGE_DIGEST = `sha256:${'0'.repeat(64)}`;

/** The repository the EC2 example pulls from unless `ecsImageRepository` names another. */
export const DEFAULT_ECS_IMAGE_REPOSITORY = 'bert-base-uncased-model-server';

/** What the example app already read from its context. */
export interface EcsExampleSettings {
  readonly account: string;
  readonly region: string;
  readonly catalog: Catalog;
  readonly targets: PlanTargets;
  readonly minInstances: number;
  readonly smokeBenchmark: SmokeBenchmarkOptions;
  /** A stack that carries the warning when the EC2 stack cannot be planned. */
  readonly warnOn: Stack;
}

/**
 * The EC2 example's context (`ecsImageDigest`, `ecsImageRepository`), its problems added to `problems`: the app
 * checks it with every other context value before any stack bundles its assets.
 */
export function readEcsContext(app: App, problems: string[]): { digest: string; repositoryName: string } {
  const raw = app.node.tryGetContext('ecsImageDigest') as unknown;
  const digest = raw === undefined ? PLACEHOLDER_ECS_IMAGE_DIGEST : typeof raw === 'string' ? raw.trim() : '';
  const repositoryName = app.node.tryGetContext('ecsImageRepository') ?? DEFAULT_ECS_IMAGE_REPOSITORY;
  const problem = digestProblem('context ecsImageDigest', digest);
  if (problem !== undefined) {
    problems.push(`${problem}; it is the digest of the model server image with the model (docs/ecs.md)`);
  }
  if (typeof repositoryName !== 'string' || !/^[a-z0-9]+(?:[._-][a-z0-9]+)*(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$/.test(repositoryName)) {
    problems.push(`context ecsImageRepository=${JSON.stringify(repositoryName)} is not an ECR repository name; pass `
      + `e.g. -c ecsImageRepository=${DEFAULT_ECS_IMAGE_REPOSITORY}`);
  }
  return { digest, repositoryName: String(repositoryName) };
}

/**
 * Adds the EC2 stack to `app`, or warns on `warnOn` (without failing the SageMaker example) when the region has no
 * EC2 prices or no EC2 plan meets the targets.
 *
 * @throws InputError when `ecsImageDigest` is set but is not a digest
 */
export function addEcsExample(app: App, settings: EcsExampleSettings,
  context?: { digest: string; repositoryName: string }): EcsInferenceStack | undefined {
  const problems: string[] = [];
  const { digest, repositoryName } = context ?? readEcsContext(app, problems);
  InputError.throwIfAny(problems);

  const { account, region, catalog, targets } = settings;
  if (!catalog.regionsWithPrices('ec2').includes(region)) {
    Annotations.of(settings.warnOn).addWarningV2('@cdk-inferentia/app:noEcsExample',
      `No EC2 prices for ${region}, so the EC2 example stack ${EXAMPLE_ECS_STACK_NAME} is left out; fetch them with `
      + `\`npx cdk-inferentia catalog refresh --regions ${region} --out prices.json\` and pass -c prices=prices.json`);
    return undefined;
  }
  let planned;
  try {
    // 'any': the model server runs both modes, so the planner takes batching wherever it is cheaper.
    planned = plan(requireProfile('bert-base-uncased'), targets,
      { region, hosting: 'ec2', minInstances: settings.minInstances, serving: 'any' }, catalog);
  } catch (e) {
    if (!(e instanceof InfeasibleError)) {
      throw e;
    }
    Annotations.of(settings.warnOn).addWarningV2('@cdk-inferentia/app:noEcsExample',
      `No EC2 plan meets the targets, so ${EXAMPLE_ECS_STACK_NAME} is left out: ${e.message}`);
    return undefined;
  }
  const stack = new EcsInferenceStack(app, EXAMPLE_ECS_STACK_NAME, {
    env: { account, region },
    description: `cdk-inferentia example: bert-base-uncased on Neuron EC2 instances run by Amazon ECS, planned for `
      + `${targets.throughputRps} rps (peak ${targets.peakThroughputRps}) at p99 ${targets.p99Ms} ms`,
    plan: planned,
    imageDigest: digest,
    imageRepositoryName: repositoryName,
    smokeBenchmark: settings.smokeBenchmark,
  });
  if (digest === PLACEHOLDER_ECS_IMAGE_DIGEST) {
    new DeployRefusal(stack, 'PlaceholderImageDigest', {
      message: `ecsImageDigest is the placeholder ${PLACEHOLDER_ECS_IMAGE_DIGEST}, which names no image. Build the `
        + 'model server image with the compiled model in /opt/ml/model, push it to the ECR repository '
        + `${repositoryName} (docs/ecs.md, "The image") and pass -c ecsImageDigest=<its digest>.`,
    });
  }
  return stack;
}
