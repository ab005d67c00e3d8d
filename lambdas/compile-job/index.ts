/**
 * The NeuronCompileJob custom resource: both Provider framework steps in one bundle, chosen by `COMPILE_JOB_STEP`.
 *
 * - `onEvent` (Create, Update): starts the compile (`startCompileJob`: cache hit, adopt, launch or Neo) and returns
 *   the job's state as `Data.State`; the physical id is the content hash, so an Update to the same spec is no
 *   replacement and a new spec replaces (CloudFormation then deletes the old resource).
 * - `onEvent` (Delete): stops what still runs for the hash; the artifacts stay, they are the cache.
 * - `isComplete`: polls (`checkCompileJob`) until the manifest is there, and returns its fields as attributes; a
 *   failure throws, and the Provider puts the message in the CloudFormation event.
 *
 * A `Config` with `kind: 'generative'` (NeuronGenerativeCompileJob) runs the generative flow of
 * `io/compile/generative-job.ts` through the same three steps.
 *
 * Idempotent: a repeated Create or Update (CloudFormation retries, rollback to old properties) finds the manifest
 * or the running instance and launches nothing new.
 */
import { EC2Client } from '@aws-sdk/client-ec2';
import { S3Client } from '@aws-sdk/client-s3';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import type { GenerativeManifest } from '../../lib/compile/generative-manifest';
import { MANIFEST_FILE, type CompileManifest } from '../../lib/compile/manifest';
import {
  artifactPrefix,
  checkCompileJob,
  startCompileJob,
  stopCompileJob,
  type CompileJobClients,
  type CompileJobConfig,
  type CompileJobState,
} from '../../io/compile/job';
import {
  checkGenerativeCompileJob,
  generativeAttributesOf,
  isGenerativeConfig,
  startGenerativeCompileJob,
  stopGenerativeCompileJob,
  type GenerativeCompileJobConfig,
  type GenerativeCompileJobState,
} from '../../io/compile/generative-job';

const clients: CompileJobClients = {
  ec2: new EC2Client({}),
  s3: new S3Client({}),
  ssm: new SSMClient({}),
  sagemaker: new SageMakerClient({}),
};

/** Which Provider step this function is: `onEvent` or `isComplete`. */
export const STEP_VARIABLE = 'COMPILE_JOB_STEP';

/** What onEvent returns. */
export interface OnEventResult {
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, string>;
}

/** What isComplete returns. */
export interface IsCompleteResult {
  readonly IsComplete: boolean;
  readonly Data?: Record<string, string>;
}

type Event = CloudFormationCustomResourceEvent & { readonly Data?: Record<string, string> };

function configOf(event: Event): CompileJobConfig | GenerativeCompileJobConfig {
  const raw = (event.ResourceProperties as Record<string, unknown>).Config;
  if (typeof raw !== 'string') {
    throw new Error('the custom resource has no Config property; it must be created by NeuronCompileJob');
  }
  return JSON.parse(raw) as CompileJobConfig | GenerativeCompileJobConfig;
}

/** The attributes `NeuronCompileJob` exposes, from the manifest. */
export function attributesOf(config: CompileJobConfig, manifest: CompileManifest, cached: boolean): Record<string, string> {
  const base = `s3://${config.bucket}/${artifactPrefix(config)}`;
  return {
    ArtifactS3Uri: base,
    ManifestS3Uri: `${base}${MANIFEST_FILE}`,
    ProfileS3Uri: manifest.profile ? `${base}${manifest.profile}` : '',
    Hash: manifest.hash,
    Chip: manifest.chip,
    CoreVersion: manifest.coreVersion,
    CoresPerProcess: String(manifest.coresPerProcess),
    BatchSizes: manifest.batchSizes.join(','),
    CompilerVersion: manifest.versions.compiler,
    RuntimeVersion: manifest.versions.runtime,
    NeuronSdkVersion: manifest.versions.neuronSdk,
    CompileSeconds: String(manifest.compileSeconds),
    MaxAbsError: String(manifest.accuracy.maxAbsError),
    HostInstanceType: manifest.hostInstanceType,
    Cached: String(cached),
  };
}

/** What every engine's job state carries for the steps and the log. */
interface JobState<M> {
  readonly status: string;
  readonly instanceId?: string;
  readonly skipped: readonly string[];
  readonly manifest?: M;
}

/** One engine's compile job: what the three Provider steps call. A new engine adds one of these. */
interface CompileJobFlow<C, S extends JobState<M>, M> {
  start(config: C, clients: CompileJobClients): Promise<S>;
  check(config: C, state: S, clients: CompileJobClients): Promise<M | undefined>;
  stop(config: C, clients: CompileJobClients): Promise<string[]>;
  attributes(config: C, manifest: M, cached: boolean): Record<string, string>;
}

const SINGLE_CALL: CompileJobFlow<CompileJobConfig, CompileJobState, CompileManifest> = {
  start: startCompileJob, check: checkCompileJob, stop: stopCompileJob, attributes: attributesOf,
};
const GENERATIVE: CompileJobFlow<GenerativeCompileJobConfig, GenerativeCompileJobState, GenerativeManifest> = {
  start: startGenerativeCompileJob, check: checkGenerativeCompileJob, stop: stopGenerativeCompileJob, attributes: generativeAttributesOf,
};

/** The three steps of the config's engine, bound to its config; the state travels as JSON between them. */
interface CompileJobSteps {
  start(): Promise<OnEventResult>;
  check(stateJson: string): Promise<IsCompleteResult>;
  stop(): Promise<string[]>;
}

function bind<C extends { readonly hash: string }, S extends JobState<M>, M>(flow: CompileJobFlow<C, S, M>, config: C): CompileJobSteps {
  return {
    async start() {
      const state = await flow.start(config, clients);
      console.log(JSON.stringify({ hash: config.hash, status: state.status, instanceId: state.instanceId, skipped: state.skipped }));
      const { manifest, ...rest } = state;
      return {
        PhysicalResourceId: `compile-${config.hash}`,
        Data: { State: JSON.stringify(rest), ...(manifest ? flow.attributes(config, manifest, true) : {}) },
      };
    },
    async check(stateJson) {
      const state = JSON.parse(stateJson) as S;
      const manifest = await flow.check(config, state, clients);
      return manifest === undefined
        ? { IsComplete: false }
        : { IsComplete: true, Data: flow.attributes(config, manifest, state.status === 'cached') };
    },
    stop: () => flow.stop(config, clients),
  };
}

function stepsOf(config: CompileJobConfig | GenerativeCompileJobConfig): CompileJobSteps {
  return isGenerativeConfig(config) ? bind(GENERATIVE, config) : bind(SINGLE_CALL, config);
}

/** The Provider's onEvent step. */
export async function onEvent(event: Event): Promise<OnEventResult> {
  const config = configOf(event);
  if (event.RequestType === 'Delete') {
    const stopped = await stepsOf(config).stop();
    console.log(JSON.stringify({ deleted: `compile-${config.hash}`, stopped, artifactsKept: `s3://${config.bucket}/${artifactPrefix(config)}` }));
    return { PhysicalResourceId: event.PhysicalResourceId };
  }
  return stepsOf(config).start();
}

/** The Provider's isComplete step. */
export async function isComplete(event: Event): Promise<IsCompleteResult> {
  if (event.RequestType === 'Delete') {
    return { IsComplete: true };
  }
  const config = configOf(event);
  const stateJson = event.Data?.State;
  if (stateJson === undefined) {
    throw new Error('isComplete got no State from onEvent');
  }
  if (JSON.parse(stateJson).status === 'cached' && event.Data?.Hash !== undefined) {
    return { IsComplete: true };
  }
  return stepsOf(config).check(stateJson);
}

/** Entry point: the step named by `COMPILE_JOB_STEP`. */
export async function handler(event: Event): Promise<OnEventResult | IsCompleteResult> {
  return process.env[STEP_VARIABLE] === 'isComplete' ? isComplete(event) : onEvent(event);
}
