/**
 * The environments' stages and the promotion pipeline in the CDK app, from the `environments` context.
 *
 * Kept apart from `bin/environments.ts` so the `promote` command reads the config without loading aws-cdk-lib.
 */
import { App, Stack, Stage } from 'aws-cdk-lib';
import * as cxapi from 'aws-cdk-lib/cx-api';
import * as codecommit from 'aws-cdk-lib/aws-codecommit';
import * as pipelines from 'aws-cdk-lib/pipelines';
import { DeployRefusal } from '../constructs/proof/deploy-refusal';
import { InferenceStage, type InferenceStageGenerativeProps } from '../constructs/release/inference-stage';
import { PromotionPipeline } from '../constructs/release/promotion-pipeline';
import type { SmokeBenchmarkOptions } from '../constructs/proof/smoke-benchmark-props';
import type { EnvironmentsConfig } from '../lib/environments';
import { ENVIRONMENTS_CONTEXT_KEY, loadEnvironments } from './environments';

/** What every environment's stage serves, from the example app. */
export interface StageContent {
  readonly modelDataPath: string;
  readonly requiredModelFiles?: readonly string[];
  readonly smokeBenchmark: SmokeBenchmarkOptions;
  /** Runs the CLI in pipeline steps, e.g. `node bin/cdk-inferentia.js` in this repository. */
  readonly cliCommand?: string;
  /**
   * The generative model of environments with a `generative` section, given the config's vLLM image digest (the
   * placeholder until one is pinned): its image and weights. The first such stage compiles; the later ones serve
   * its compiled prefix.
   */
  readonly generative?: (imageDigest: string) => Omit<InferenceStageGenerativeProps, 'compiled' | 'imageDigest'>;
}

/** The account, digest and connection that example configs ship with: each names nothing real. */
export const PLACEHOLDERS = {
  account: '123456789012',
  imageDigest: `sha256:${'0'.repeat(64)}`,
  connectionId: '00000000-0000-0000-0000-000000000000',
} as const;

/** The stages and the pipeline the environments context made, when it was set. */
export interface EnvironmentStages {
  readonly config: EnvironmentsConfig;
  readonly stages: readonly InferenceStage[];
  readonly pipelineStack?: Stack;
}

/** Id of the pipeline stack: `npx cdk deploy PromotionPipeline`. */
export const PIPELINE_STACK_ID = 'PromotionPipeline';

/**
 * The environments config the `environments` context names, or undefined when it names none.
 *
 * @throws InputError naming the file, the environment and the field of every problem
 */
export function readEnvironmentsContext(app: App, baseDir: string): EnvironmentsConfig | undefined {
  const value = app.node.tryGetContext(ENVIRONMENTS_CONTEXT_KEY);
  if (value === undefined) {
    return undefined;
  }
  return loadEnvironments({ environments: value, prices: app.node.tryGetContext('prices'), baseDir, origin: 'context environments' });
}

/**
 * Adds one {@link InferenceStage} per environment of the `environments` context (`npx cdk deploy 'dev/*'`) and,
 * when the config names a pipeline source, the `PromotionPipeline` stack. Does nothing without that context.
 *
 * Placeholders (account, image digest, connection) keep synth working and make CloudFormation refuse the deploy.
 *
 * @throws InputError naming every problem of the config
 */
export function addEnvironmentStages(app: App, content: StageContent, baseDir: string,
  loaded: EnvironmentsConfig | undefined = readEnvironmentsContext(app, baseDir)): EnvironmentStages | undefined {
  if (loaded === undefined) {
    return undefined;
  }
  const config = loaded;
  const digest = config.imageDigest ?? PLACEHOLDERS.imageDigest;
  const generativeDigest = config.generativeImageDigest ?? PLACEHOLDERS.imageDigest;
  const generativeContent = content.generative?.(generativeDigest);
  const generative = generativeContent === undefined ? undefined : { ...generativeContent, imageDigest: generativeDigest };
  let compiled: InferenceStage['generativeArtifacts'];
  const stages = config.environments.map((environment) => {
    const stage = new InferenceStage(app, environment.name, {
      environment,
      application: config.application,
      imageDigest: digest,
      ...(config.artifactHash !== undefined ? { artifactHash: config.artifactHash } : {}),
      modelDataPath: content.modelDataPath,
      requiredModelFiles: content.requiredModelFiles,
      smokeBenchmark: content.smokeBenchmark,
      trustedAccounts: [config.pipeline.account],
      // The first generative environment compiles; every later one serves that compiled prefix, promoted.
      ...(generative !== undefined ? { generative: { ...generative, ...(compiled !== undefined ? { compiled } : {}) } } : {}),
    });
    compiled ??= stage.generativeArtifacts;
    refusePlaceholders(stage.releaseStack, environment.account, undefined);
    refusePlaceholders(stage.inferenceStack, environment.account, digest);
    if (stage.generativeStack !== undefined) {
      // The vLLM image's placeholder digest is refused by the endpoint itself.
      refusePlaceholders(stage.generativeStack, environment.account, undefined);
    }
    return stage;
  });
  const source = config.pipeline.source;
  if (source === undefined) {
    return { config, stages };
  }
  stages.forEach(synthesizeStageQuietly);
  const pipelineStack = new Stack(app, PIPELINE_STACK_ID, {
    env: { account: config.pipeline.account, region: config.pipeline.region },
    description: `cdk-inferentia ${config.application}: ${config.environments.map((e) => e.name).join(' -> ')}`,
  });
  const pipeline = new PromotionPipeline(pipelineStack, 'Pipeline', {
    source: 'connectionArn' in source
      ? pipelines.CodePipelineSource.connection(source.repository, source.branch, { connectionArn: source.connectionArn })
      : pipelines.CodePipelineSource.codeCommit(
        codecommit.Repository.fromRepositoryName(pipelineStack, 'Source', source.codeCommitRepository), source.branch),
    stages,
    // No --config: promote reads cdk.json's environments and prices context, exactly what this app read.
    cliCommand: content.cliCommand,
  });
  pipeline.buildPipeline();
  refusePlaceholders(pipelineStack, config.pipeline.account, undefined);
  if ('connectionArn' in source && source.connectionArn.endsWith(PLACEHOLDERS.connectionId)) {
    new DeployRefusal(pipelineStack, 'PlaceholderConnection', {
      message: `pipeline.source.connectionArn is the placeholder ${source.connectionArn}: create a connection `
        + '(aws codeconnections create-connection --provider-type GitHub --connection-name inference), complete it '
        + 'in the console, and put its ARN in the environments config.',
    });
  }
  return { config, stages, pipelineStack };
}

/**
 * Synthesizes a stage the pipeline deploys so that the CDK CLI reports its stacks' warnings when they are selected
 * (`cdk synth 'dev/*'`), as it does for a top-level stack, and not on every synth of any stack.
 *
 * CDK Pipelines synthesizes each stage it deploys with `validateOnSynthesis` (aws-cdk-lib `pipelines`
 * `pipelineSynth`), and the CLI validates such stacks whatever was selected: `cdk synth BertBaseUncasedInference`
 * printed 26 messages about the nine stacks of dev, staging and prod beside its own 4. `Stage.synth` returns its
 * first assembly to every later call, so the pipeline deploys this one. A stage with an error annotation is
 * synthesized again with the validation, so that its error still stops every synth, as the pipeline intends.
 */
export function synthesizeStageQuietly(stage: Stage): void {
  const assembly = stage.synth({ validateOnSynthesis: false });
  const hasError = assembly.stacks.some((s) => s.messages.some((m) => m.level === cxapi.SynthesisMessageLevel.ERROR));
  if (hasError) {
    stage.synth({ validateOnSynthesis: true, force: true });
  }
}

function refusePlaceholders(stack: Stack, account: string, digest: string | undefined): void {
  if (account === PLACEHOLDERS.account) {
    new DeployRefusal(stack, 'PlaceholderAccount', {
      account,
      message: `account is the placeholder ${PLACEHOLDERS.account}: set the environment's "account" in the `
        + 'environments config to the account it deploys to.',
    });
  }
  if (digest === PLACEHOLDERS.imageDigest) {
    new DeployRefusal(stack, 'PlaceholderImageDigest', {
      message: `imageDigest is the placeholder ${PLACEHOLDERS.imageDigest}, which names no image. Push the model `
        + 'server image to the first environment\'s repository and set "imageDigest" in the environments config to '
        + 'its digest.',
    });
  }
}
