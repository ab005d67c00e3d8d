import { Annotations, CfnOutput, Duration, Stack, Stage, StageProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct, DependencyGroup } from 'constructs';
import { COMPILED_ARTIFACTS_DIR, STAGED_MODEL_DIR } from '../../lib/compile/generative-spec';
import { type GenerativeArtifactFacts } from '../../lib/compile/generative-check';
import type { GenerativeWeights, ICompiledGenerativeArtifacts } from '../compile/neuron-generative-compile-job';
import { GenerativeInferenceStack } from '../sagemaker/generative-inference-stack';
import type { GenerativeSmokeBenchmarkOptions } from '../proof/smoke-benchmark-props';
import { promotionRoleName, type EnvironmentConfig } from '../../lib/environments/environments';
import {
  RECORD_PARAMETER_ROOT, deploymentParameterName, generativeDeploymentParameterName, type DeploymentRecord,
  type GenerativeDeploymentRecord,
} from '../../lib/release/records';
import { EcsInferenceStack } from '../ecs/ecs-inference-stack';
import { InferenceStack } from '../sagemaker/inference-stack';
import { ModelData } from '../model/model-data';
import { ModelImage } from '../image/model-image';
import { ModelImageRepository } from '../image/model-image-repository';
import { acknowledgeWildcards } from '../private/wildcard-acknowledgement';
import type { SmokeBenchmark } from '../proof/smoke-benchmark';
import type { SmokeBenchmarkOptions } from '../proof/smoke-benchmark-props';
import { constructError } from '../private/construct-errors';
import { markOwned } from '../private/ownership';

/** What an {@link InferenceStage} serves for an environment with a `generative` section. */
export interface InferenceStageGenerativeProps {
  /** The Neuron vLLM image by digest (`ModelImage.fromNeuronVllm`), the same in every environment. */
  readonly image: ModelImage;

  /**
   * Digest of the Neuron vLLM image `image` is built from (the environments config's `generativeImageDigest`), named
   * in the generative deployment record so `promote` checks it against the config.
   */
  readonly imageDigest: string;

  /**
   * The weights the first environment compiles (a Hugging Face commit or an S3 prefix), or a function of the stack
   * returning them (for a token secret referenced in it).
   */
  readonly weights: GenerativeWeights | ((stack: Stack) => GenerativeWeights);

  /**
   * What an earlier environment compiled (its stage's `generativeArtifacts`): this stage then compiles nothing and
   * serves `<artifact.prefix><hash>/` from its own artifact location, where `promote` copies the earlier
   * environment's prefix before this stage deploys.
   *
   * @default - this stage compiles `weights` into its artifact location (the first environment)
   */
  readonly compiled?: Pick<ICompiledGenerativeArtifacts, 'hash' | 'manifest'>;

  /**
   * The proof in tokens gating each deploy; the stage sets its environment name. A miss fails the deploy and
   * CloudFormation rolls the generative stack back.
   *
   * @default - the default golden prompt and a short streamed run judged against the environment's token targets
   */
  readonly smokeBenchmark?: GenerativeSmokeBenchmarkOptions;
}

/** Props of {@link InferenceStage}. */
export interface InferenceStageProps extends Omit<StageProps, 'env' | 'stageName'> {
  /** The environment this stage deploys: account, region, plan, repository and gate settings. */
  readonly environment: EnvironmentConfig;

  /** The application the environments belong to; names the SSM records (`/cdk-inferentia/<application>/...`). */
  readonly application: string;

  /**
   * Digest of the image every environment runs, in this environment's repository (`promote` copies it there).
   */
  readonly imageDigest: string;

  /**
   * Directory with the model data (handler, tokenizer, compiled model), uploaded as an asset (SageMaker hosting
   * only). Not used when the environment has an `artifact` location and `artifactHash` is given: the stage then
   * serves the promoted artifact.
   */
  readonly modelDataPath: string;

  /**
   * Content hash of the compiled artifact to serve from the environment's `artifact` location,
   * `<artifact.prefix><hash>/` (where `promote` copies it), so every environment serves the same artifact.
   *
   * @default - the model data comes from `modelDataPath`
   */
  readonly artifactHash?: string;

  /**
   * Files in `modelDataPath` the handler loads; a missing one makes CloudFormation refuse the deploy.
   *
   * @default - only that the directory holds at least one file
   */
  readonly requiredModelFiles?: readonly string[];

  /**
   * The request and answer check of the smoke benchmark that gates each deployment; the stage sets its environment
   * name and, when the environment config gives them, its p99 and error-rate limits.
   */
  readonly smokeBenchmark: SmokeBenchmarkOptions;

  /**
   * Accounts whose principals may assume the environment's promotion role (their IAM policies must allow it too):
   * the account the pipeline or the CI role runs in.
   *
   * @default - the environment's own account only
   */
  readonly trustedAccounts?: readonly string[];

  /**
   * Name of the inference stack inside the stage (deployed as `<stage>-<name>`).
   *
   * @default 'Inference'
   */
  readonly inferenceStackName?: string;

  /**
   * The generative model, for an environment whose config has a `generative` section (deployed as
   * `<stage>-Generative`); ignored for one without.
   *
   * @default - none: an environment with a generative section is refused
   */
  readonly generative?: InferenceStageGenerativeProps;
}

/**
 * One environment of a model (dev, staging, prod) as a CDK Stage: `npx cdk deploy 'dev/*'` deploys it, and a
 * {@link PromotionPipeline} adds it as one step of the promotion.
 *
 * Two stacks. `Release` holds what must exist before the endpoint: the ECR repository (named by the config, so
 * `promote` copies the image there before the endpoint that pulls it deploys) and the promotion role `promote` assumes (fixed name, least privilege on exactly these resources and the
 * environment's records). `Inference` holds the SageMaker endpoint (`hosting: "sagemaker"`, an {@link InferenceStack}) or the ECS
 * service (`hosting: "ec2"`, an {@link EcsInferenceStack}, the model baked into the image) with its smoke benchmark and the environment's
 * deployment record: an SSM parameter saying which image digest and deployment fingerprint run here and where their
 * smoke report is, which `promote` reads before moving anything on.
 */
export class InferenceStage extends Stage {
  /** The stack holding the repository, the report bucket and the promotion role. */
  readonly releaseStack: Stack;
  /** The environment's image repository. */
  readonly repository: ModelImageRepository;
  /** The role `promote` assumes to read and write this environment. */
  readonly promotionRole: iam.Role;
  /** The stack serving the model: an {@link InferenceStack} (`sagemaker`) or an {@link EcsInferenceStack} (`ec2`). */
  readonly inferenceStack: InferenceStack | EcsInferenceStack;
  /**
   * What the smoke benchmark targets, as a stack output (usable by pipeline steps through `envFromCfnOutputs`): the
   * SageMaker endpoint name, or the model server URL on ECS.
   */
  readonly target: CfnOutput;
  /** The URL the model is invoked at: SageMaker Runtime `InvokeEndpoint`, or the internal load balancer on ECS. */
  readonly endpointUrl: CfnOutput;
  /** The deployment fingerprint the smoke reports of this deployment carry. */
  readonly deploymentFingerprint: string;
  /** Name of the SSM parameter holding the deployment record. */
  readonly deploymentRecordParameter: CfnOutput;
  /** The environment this stage deploys. */
  readonly environment: EnvironmentConfig;
  /**
   * The generative model's stack (SageMaker inference components, gated by its proof in tokens), when the environment
   * has a `generative` section.
   */
  readonly generativeStack?: GenerativeInferenceStack;
  /**
   * What the generative stack serves: its own compile (first environment) or the promoted prefix; pass it to the
   * next stage's `generative.compiled`.
   */
  readonly generativeArtifacts?: ICompiledGenerativeArtifacts;

  constructor(scope: Construct, id: string, props: InferenceStageProps) {
    const env = props.environment;
    super(scope, id, { ...props, env: { account: env.account, region: env.region } });
    markOwned(this);
    this.environment = env;
    const description = `cdk-inferentia ${props.application} in ${env.name}`;

    this.releaseStack = new Stack(this, 'Release', { description: `${description}: image repository, smoke reports, promotion role` });
    this.repository = new ModelImageRepository(this.releaseStack, 'Repository', { repositoryName: env.repositoryName });
    this.promotionRole = this.definePromotionRole(props);

    const thresholds = {
      ...props.smokeBenchmark.thresholds,
      ...(env.gate.p99MaxMs !== undefined ? { p99MaxMs: env.gate.p99MaxMs } : {}),
      maxErrorRate: env.gate.maxErrorRate,
    };
    const name = props.inferenceStackName ?? 'Inference';
    const stackDescription = `${description}: ${env.plan.instanceCount} x ${env.plan.instanceType} for `
      + `${env.targets.throughputRps} requests/s at p99 ${env.targets.p99Ms} ms`;
    const image = ModelImage.fromRepository(this.repository, props.imageDigest, { modelServer: true });
    const smokeOptions: SmokeBenchmarkOptions = {
      ...props.smokeBenchmark,
      environmentName: env.name,
      thresholds,
      // The gate out of this environment needs a passed capacity proof: run one (the plan's capacity by default).
      ...(env.gate.capacityProofRequired ? { capacityProof: props.smokeBenchmark.capacityProof ?? {} } : {}),
    };
    let served: { fingerprint: string; smoke?: SmokeBenchmark; target: string; url: string; scope: Construct };
    if (env.hosting === 'ec2') {
      // The model is baked into the model server image on ECS (docs/ecs.md): model data is not used.
      const ecsStack = new EcsInferenceStack(this, name, { description: stackDescription, plan: env.plan, image, smokeBenchmark: smokeOptions });
      const service = ecsStack.service;
      served = { fingerprint: service.deploymentFingerprint, smoke: service.smokeBenchmark, target: service.url, url: service.url, scope: service };
      this.inferenceStack = ecsStack;
    } else {
      const sageMakerStack = new InferenceStack(this, name, {
        description: stackDescription,
        plan: env.plan,
        image,
        ...(env.artifact !== undefined && props.artifactHash !== undefined
          ? { modelData: promotedArtifact(this.releaseStack, env.artifact, props.artifactHash) }
          : { modelDataPath: props.modelDataPath, requiredModelFiles: props.requiredModelFiles }),
        smokeBenchmark: smokeOptions,
      });
      const endpoint = sageMakerStack.endpoint;
      served = {
        fingerprint: endpoint.deploymentFingerprint,
        smoke: endpoint.smokeBenchmark,
        target: endpoint.endpointName,
        url: `https://runtime.sagemaker.${sageMakerStack.region}.${sageMakerStack.urlSuffix}/endpoints/${endpoint.endpointName}/invocations`,
        scope: endpoint,
      };
      this.inferenceStack = sageMakerStack;
    }
    this.inferenceStack.addStackDependency(this.releaseStack, 'the service pulls its image from the Release repository');
    this.deploymentFingerprint = served.fingerprint;

    if (env.minInstances < 2) {
      // The config decided this, with a reason: the environment is not production, or its waiver says why.
      const why = env.production ? `availability.waiver: ${env.availabilityWaiver}` : `${env.name} is not a production environment`;
      Annotations.of(served.scope).acknowledgeWarning(env.hosting === 'ec2'
        ? '@cdk-inferentia/neuron-ecs-service:singleInstance'
        : '@cdk-inferentia/neuron-sagemaker-endpoint:singleInstance', why);
    }
    const smoke = served.smoke;
    if (smoke === undefined) {
      throw constructError(this, 'the service has no smoke benchmark, so promote would have nothing to gate on');
    }
    const parameterName = deploymentParameterName(props.application, env.name);
    const record: DeploymentRecord = {
      schemaVersion: 1,
      application: props.application,
      environment: env.name,
      account: env.account,
      region: env.region,
      repositoryName: env.repositoryName,
      imageDigest: props.imageDigest,
      hosting: env.hosting,
      fingerprint: served.fingerprint,
      target: served.target,
      report: { bucket: smoke.reportBucket.bucketName, key: `${smoke.reportPrefix}/latest.json` },
      plan: {
        profileId: env.plan.profileId,
        instanceType: env.plan.instanceType,
        instanceCount: env.plan.instanceCount,
        maxInstanceCount: env.plan.maxInstanceCount,
        serving: env.plan.serving,
        batchSize: env.plan.batchSize,
        capacityRps: Math.round(env.plan.capacityRps * 10) / 10,
        predictedP99Ms: Math.round(env.plan.predictedP99Ms * 100) / 100,
        hourlyCostUsd: Math.round(env.plan.hourlyCostUsd * 1000) / 1000,
      },
      ...(env.artifact !== undefined ? { artifact: env.artifact } : {}),
    };
    const parameter = new ssm.StringParameter(this.inferenceStack, 'DeploymentRecord', {
      parameterName,
      description: `What ${env.name} runs: image digest, deployment fingerprint, smoke report location, plan`,
      stringValue: this.inferenceStack.toJsonString(record),
    });
    // Written after the smoke benchmark passed, so a record never points at a deployment whose gate failed.
    parameter.node.addDependency(smoke);
    // In the inference stack, where the report bucket is: the role exists before it (Release deploys first).
    const readReports = new iam.Policy(this.inferenceStack, 'PromotionRoleReadsReports', {
      roles: [this.promotionRole],
      statements: [new iam.PolicyStatement({
        sid: 'ReadSmokeReports', actions: ['s3:GetObject'], resources: [smoke.reportBucket.arnForObjects(`${smoke.reportPrefix}/*`)],
      })],
    });
    acknowledgeWildcards(readReports, 'Scoped to this endpoint\'s smoke report prefix: one report per run, named by its '
      + 'time and fingerprint at run time; promote reads latest.json and the run it points at.');

    this.target = new CfnOutput(this.inferenceStack, 'StageTarget', {
      description: env.hosting === 'ec2' ? `Model server URL of ${env.name}` : `SageMaker endpoint of ${env.name}`,
      value: served.target,
    });
    this.endpointUrl = new CfnOutput(this.inferenceStack, 'EndpointUrl', {
      description: env.hosting === 'ec2'
        ? `POST /invocations on ${env.name}'s internal load balancer`
        : `InvokeEndpoint URL of ${env.name} (SigV4-signed, service sagemaker)`,
      value: served.url,
    });
    this.deploymentRecordParameter = new CfnOutput(this.inferenceStack, 'DeploymentRecordParameter', {
      description: `SSM parameter with ${env.name}'s deployment record, read by cdk-inferentia promote`,
      value: parameter.parameterName,
    });
    if (env.generative !== undefined) {
      if (props.generative === undefined) {
        throw constructError(this, `environment "${env.name}" has a generative section but the stage was `
          + 'given no generative { image, weights }; pass them, or remove the section from the environments config');
      }
      this.generativeStack = this.defineGenerative(props.generative, props.application, description);
      this.generativeArtifacts = this.generativeStack.compiledArtifacts;
    }
  }

  /**
   * The generative stack: compiles into the environment's artifact location (first environment), or serves the prefix
   * an earlier one compiled, copied in by `promote` (which runs before the inference stack, so before this one).
   */
  private defineGenerative(props: InferenceStageGenerativeProps, application: string, description: string): GenerativeInferenceStack {
    const env = this.environment;
    const generative = env.generative!;
    const t = generative.targets;
    const artifactBucket = env.artifact === undefined ? undefined
      : s3.Bucket.fromBucketName(this.releaseStack, 'GenerativeArtifactBucket', env.artifact.bucket);
    const stack = new GenerativeInferenceStack(this, 'Generative', {
      description: `${description}: ${generative.profileId} on SageMaker inference components for ${t.requestsPerSecond} `
        + `requests/s at TTFT p99 ${t.ttftP99Ms} ms, TPOT p99 ${t.tpotP99Ms} ms`,
      plan: generative.plan,
      image: props.image,
      ...(props.compiled === undefined
        ? { weights: props.weights, ...(artifactBucket !== undefined ? { compileBucket: artifactBucket, compilePrefix: env.artifact!.prefix } : {}) }
        : { compiledArtifacts: promotedGenerativeArtifacts(this.releaseStack, env, props.compiled) }),
      smokeBenchmark: { ...props.smokeBenchmark, environmentName: env.name },
    });
    // After the inference stack, whose pipeline step promotes the image and the compiled prefix before it deploys.
    stack.addStackDependency(this.inferenceStack, 'promote copies the compiled prefix before the inference stack deploys');
    const compiled = stack.compiledArtifacts;
    const record: GenerativeDeploymentRecord = {
      schemaVersion: 1,
      application,
      environment: env.name,
      profileId: generative.profileId,
      imageDigest: props.imageDigest,
      hash: compiled.hash,
      artifact: { bucket: compiled.bucket.bucketName, prefix: compiled.artifactPrefix },
    };
    const parameter = new ssm.StringParameter(stack, 'GenerativeDeploymentRecord', {
      parameterName: generativeDeploymentParameterName(application, env.name),
      description: `What ${env.name}'s generative model serves: vLLM image digest, compiled replica hash and prefix`,
      stringValue: stack.toJsonString(record),
    });
    // Written after the proof in tokens passed, so promote never moves on a replica whose gate failed.
    parameter.node.addDependency(stack.smokeBenchmark);
    return stack;
  }

  /**
   * The role `promote` assumes: reads the deployment record and smoke reports (promotion out), copies the image and
   * the artifact in and writes the release record (promotion in). Nothing else.
   */
  private definePromotionRole(props: InferenceStageProps): iam.Role {
    const env = props.environment;
    const stack = this.releaseStack;
    const accounts = [...new Set([env.account, ...(props.trustedAccounts ?? [])])];
    const role = new iam.Role(stack, 'PromotionRole', {
      roleName: promotionRoleName(props.application, env.name),
      description: `cdk-inferentia promote: reads ${env.name}'s records and reports, copies images and artifacts into it`,
      assumedBy: new iam.CompositePrincipal(...accounts.map((a) => new iam.AccountPrincipal(a))),
      maxSessionDuration: Duration.hours(1),
    });
    const record = (name: string) => stack.formatArn({
      service: 'ssm', resource: 'parameter', resourceName: `${RECORD_PARAMETER_ROOT.slice(1)}/${props.application}/${env.name}/${name}`,
    });
    role.addToPolicy(new iam.PolicyStatement({
      sid: 'ReadRecords', actions: ['ssm:GetParameter'],
      resources: [record('deployment'), record('release'), ...(env.generative !== undefined ? [record('generative-deployment')] : [])],
    }));
    // The deployment record belongs to CloudFormation; promote writes only the release record.
    role.addToPolicy(new iam.PolicyStatement({ sid: 'WriteReleaseRecord', actions: ['ssm:PutParameter'], resources: [record('release')] }));
    role.addToPolicy(new iam.PolicyStatement({
      sid: 'CopyImages',
      actions: [
        'ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchCheckLayerAvailability',
        'ecr:InitiateLayerUpload', 'ecr:UploadLayerPart', 'ecr:CompleteLayerUpload', 'ecr:PutImage',
      ],
      resources: [this.repository.repositoryArn],
    }));
    if (env.artifact !== undefined) {
      const bucketArn = `arn:${stack.partition}:s3:::${env.artifact.bucket}`;
      role.addToPolicy(new iam.PolicyStatement({
        sid: 'ListArtifacts', actions: ['s3:ListBucket'], resources: [bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${env.artifact.prefix}*`] } },
      }));
      role.addToPolicy(new iam.PolicyStatement({
        sid: 'CopyArtifacts', actions: ['s3:GetObject', 's3:PutObject'], resources: [`${bucketArn}/${env.artifact.prefix}*`],
      }));
    }
    acknowledgeWildcards(role, 'Scoped to this environment\'s artifact prefix: one key per compiled file, named by the '
      + 'compile job, unknown at synth.');
    return role;
  }
}

/**
 * The compiled prefix an earlier environment produced, as this environment serves it once `promote` copied it:
 * `<artifact.prefix><hash>/` in the environment's artifact bucket, compiled for the facts of `compiled.manifest`.
 */
function promotedGenerativeArtifacts(scope: Stack, env: EnvironmentConfig,
  compiled: { readonly hash: string; readonly manifest: GenerativeArtifactFacts }): ICompiledGenerativeArtifacts {
  if (env.artifact === undefined) {
    throw constructError(scope, `environment "${env.name}" artifact: missing; the generative model's compiled prefix is promoted `
      + 'into it: add artifact { bucket, prefix } to the environments config');
  }
  const bucket = s3.Bucket.fromBucketName(scope, 'PromotedGenerativeBucket', env.artifact.bucket);
  const artifactPrefix = `${env.artifact.prefix}${compiled.hash}/`;
  return {
    hash: compiled.hash,
    bucket,
    artifactPrefix,
    s3Uri: bucket.s3UrlForObject(`${artifactPrefix}${COMPILED_ARTIFACTS_DIR}`),
    modelS3Uri: bucket.s3UrlForObject(`${artifactPrefix}${STAGED_MODEL_DIR}`),
    manifest: compiled.manifest,
    // Nothing to wait for in this stage: promote copied the prefix before the pipeline deployed it.
    resource: new DependencyGroup(),
    grantRead: (grantee) => {
      bucket.grantRead(grantee, `${artifactPrefix}*`);
    },
  };
}

/**
 * The promoted artifact as model data: the environment's artifact bucket, imported by name (literal ARNs, so no
 * cross-stack export), and the hash's prefix in it.
 */
function promotedArtifact(scope: Stack, artifact: { readonly bucket: string; readonly prefix: string }, hash: string): ModelData {
  return ModelData.fromBucket(s3.Bucket.fromBucketName(scope, 'ArtifactBucket', artifact.bucket), `${artifact.prefix}${hash}/`);
}
