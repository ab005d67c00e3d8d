import { Stack, Validations } from 'aws-cdk-lib';
import * as codebuild from 'aws-cdk-lib/aws-codebuild';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as pipelines from 'aws-cdk-lib/pipelines';
import { Construct } from 'constructs';
import { acknowledgeWildcards } from '../private/wildcard-acknowledgement';
import type { InferenceStage } from './inference-stage';
import { throwIfProblems } from '../private/construct-errors';
import { markOwned } from '../private/ownership';

/** Props of {@link PromotionPipeline}. */
export interface PromotionPipelineProps {
  /**
   * Where the app's source comes from, e.g.
   * `pipelines.CodePipelineSource.connection('org/repo', 'main', { connectionArn })` (CodeConnections, GitHub or
   * GitLab) or `pipelines.CodePipelineSource.codeCommit(repository, 'main')`.
   */
  readonly source: pipelines.CodePipelineSource;

  /** The environments' stages in promotion order, e.g. dev, staging, prod. */
  readonly stages: readonly InferenceStage[];

  /**
   * The environments config in the repository, handed to `promote --config`.
   *
   * @default - none: `promote` reads the `environments` and `prices` context of the repository's `cdk.json`, as the
   *   app does
   */
  readonly environmentsFile?: string;

  /**
   * How the gate and promotion steps run the CLI, after `installCommands`.
   *
   * @default 'npx cdk-inferentia' - the installed package's executable
   */
  readonly cliCommand?: string;

  /**
   * Commands that install dependencies, in the synth step and before every gate.
   *
   * @default ['npm install --no-audit --no-fund']
   */
  readonly installCommands?: readonly string[];

  /**
   * Commands that test the app and synthesize it into `cdk.out`.
   *
   * @default ['npm test', 'npx cdk synth']
   */
  readonly synthCommands?: readonly string[];

  /**
   * Name of the pipeline.
   *
   * @default - generated
   */
  readonly pipelineName?: string;
}

/**
 * Promotes one model through its environments with CDK Pipelines: source, synth (install, test, synth), then each
 * {@link InferenceStage} in order. After each stage a gate step runs `promote --check` on that environment's latest
 * smoke report; before each later stage a promote step copies the image and artifact that passed into it and writes
 * its release record; an environment whose config asks for approval waits for a person first.
 *
 * dev -> gate -> promote -> staging -> gate -> approval -> promote -> prod
 *
 * Gate and promote steps reach each environment through its promotion role (created by its stage), so their own
 * CodeBuild role only gets `sts:AssumeRole` on those roles.
 */
export class PromotionPipeline extends Construct {
  /** The CDK pipeline. */
  readonly pipeline: pipelines.CodePipeline;
  /** The gate step after each stage, by environment name. */
  readonly gates: Readonly<Record<string, pipelines.CodeBuildStep>>;
  /** The promote step before each stage but the first, by target environment name. */
  readonly promotions: Readonly<Record<string, pipelines.CodeBuildStep>>;
  /** The approval step before each stage that needs one, by environment name. */
  readonly approvals: Readonly<Record<string, pipelines.ManualApprovalStep>>;

  constructor(scope: Construct, id: string, props: PromotionPipelineProps) {
    super(scope, id);
    markOwned(this);
    const stages = props.stages;
    const problems: string[] = [];
    if (stages.length === 0) {
      problems.push('stages is empty; pass the InferenceStage of each environment in promotion order');
    }
    const names = stages.map((s) => s.environment.name);
    if (new Set(names).size !== names.length) {
      problems.push(`stages name an environment twice (${names.join(', ')}); pass each environment's stage once`);
    }
    throwIfProblems(this, problems);

    const install = [...(props.installCommands ?? ['npm install --no-audit --no-fund'])];
    const cli = props.cliCommand ?? 'npx cdk-inferentia';
    const pipelineAccount = Stack.of(this).account;
    const crossAccount = stages.some((s) => s.environment.account !== pipelineAccount);
    this.pipeline = new pipelines.CodePipeline(this, 'Resource', {
      pipelineName: props.pipelineName,
      crossAccountKeys: crossAccount,
      enableKeyRotation: crossAccount,
      synth: new pipelines.ShellStep('Synth', {
        input: props.source,
        installCommands: install,
        commands: [...(props.synthCommands ?? ['npm test', 'npx cdk synth'])],
      }),
      codeBuildDefaults: { buildEnvironment: { buildImage: codebuild.LinuxBuildImage.STANDARD_7_0 } },
    });

    const step = (name: string, stage: InferenceStage[], command: string) => new pipelines.CodeBuildStep(name, {
      input: props.source,
      installCommands: install,
      commands: [`${cli} ${command}${props.environmentsFile !== undefined ? ` --config ${props.environmentsFile}` : ''} --json`],
      rolePolicyStatements: [new iam.PolicyStatement({
        actions: ['sts:AssumeRole'],
        resources: stage.map((s) => s.environment.promotionRoleArn),
      })],
    });
    const gates: Record<string, pipelines.CodeBuildStep> = {};
    const promotions: Record<string, pipelines.CodeBuildStep> = {};
    const approvals: Record<string, pipelines.ManualApprovalStep> = {};
    stages.forEach((stage, i) => {
      const env = stage.environment;
      const previous = stages[i - 1];
      const pre: pipelines.Step[] = [];
      if (env.approval === 'manual') {
        approvals[env.name] = new pipelines.ManualApprovalStep(`Approve-${env.name}`, {
          comment: `Promote to ${env.name}: ${previous ? `${previous.environment.name} passed its gate; ` : ''}`
            + `the release record of ${env.name} will say what was promoted and why`,
        });
        pre.push(approvals[env.name]);
      }
      if (previous !== undefined) {
        const promote = step(`Promote-${previous.environment.name}-to-${env.name}`, [previous, stage],
          `promote --from ${previous.environment.name} --to ${env.name}`);
        if (approvals[env.name] !== undefined) {
          promote.addStepDependency(approvals[env.name]);
        }
        promotions[env.name] = promote;
        pre.push(promote);
      }
      gates[env.name] = step(`Gate-${env.name}`, [stage], `promote --from ${env.name} --check`);
      // The promote step goes before the inference stack but after the Release stack, whose repository and role
      // it needs: on a first run that stack does not exist yet.
      this.pipeline.addStage(stage, {
        stackSteps: pre.length > 0 ? [{ stack: stage.inferenceStack, pre }] : [],
        post: [gates[env.name]],
      });
    });
    this.gates = gates;
    this.promotions = promotions;
    this.approvals = approvals;
  }

  /**
   * Builds the pipeline now and acknowledges the findings CDK Pipelines' generated resources leave, each with its
   * reason. Called by the app before synth (CDK Pipelines builds lazily otherwise, after the checks could see it).
   */
  buildPipeline(): void {
    this.pipeline.buildPipeline();
    acknowledgeWildcards(this.pipeline, 'Generated by CDK Pipelines: CodeBuild log streams and report groups named '
      + 'per build, the artifact bucket\'s objects (one key per artifact) and its KMS key actions, and the CDK bootstrap '
      + 'roles (cdk-hnb659fds-*-role-<account>-<region>) each stage deploys through. The gate and promote steps add '
      + 'only sts:AssumeRole on the environments\' promotion roles, by ARN.');
    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-S1',
        reason: 'The pipeline\'s artifact bucket holds build outputs only, each also recorded by CodePipeline\'s own '
          + 'execution history; server access logs would add a bucket per pipeline with nothing to audit.',
      },
      {
        id: 'AwsSolutions-CB4',
        reason: 'CDK Pipelines\' CodeBuild projects write only to the pipeline artifact bucket, which is encrypted '
          + '(with a KMS key when cross-account); CodeBuild encrypts build output with the AWS managed key.',
      },
    );
  }
}
