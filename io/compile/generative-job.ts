/**
 * The generative compile job's state machine: the same start / check / stop flow as single-call compiles
 * (`./job`), with the generative spec, its boot script and manifest.
 *
 * start: S3 weights are listed first (config.json and a safetensors file must be there; their ETags give the weights
 * digest); a manifest already under `<prefix><hash>/` is the cache, refused when the weights under the prefix changed
 * since; a compile host already running for the hash is adopted; otherwise one is launched on the plan's instance type.
 * check: the manifest means success once it matches the spec; a failure record, a host gone, or the timeout fails.
 * stop: terminates what runs for the hash; the artifacts stay.
 */
import { randomBytes } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { artifactPrefixOf, canonicalJson } from '../../lib/compile/hash';
import { MANIFEST_FILE } from '../../lib/compile/manifest';
import {
  missingWeightsFiles,
  parseGenerativeManifest,
  weightsDigest,
  type GenerativeManifest,
  type WeightsObject,
} from '../../lib/compile/generative-manifest';
import { renderGenerativeBootScript } from '../../lib/compile/generative-script';
import type { GenerativeCompileSpec } from '../../lib/compile/generative-spec';
import { generativeFactsOfSpec } from '../../lib/compile/generative-check';
import {
  ATTEMPT_TAG,
  CompileJobFailedError,
  launchCompileHost,
  pollCompileHost,
  readJson,
  runningInstances,
  stopCompileHosts,
  type CompileInstanceSettings,
  type CompileJobClients,
} from './job';

/** Where the generative compile host runs; the script is `compile_generative.py`'s asset and SHA-256. */
export type GenerativeInstanceSettings = CompileInstanceSettings;

/** The generative job, as `NeuronGenerativeCompileJob` renders it into the custom resource's `Config` (JSON). */
export interface GenerativeCompileJobConfig {
  readonly kind: 'generative';
  readonly spec: GenerativeCompileSpec;
  readonly hash: string;
  readonly region: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly timeoutSeconds: number;
  /** The serving image by digest. */
  readonly image: string;
  /** Secret holding the Hub token, for Hub weights of a gated or private repository. */
  readonly tokenSecretArn?: string;
  readonly instance: GenerativeInstanceSettings;
}

/** What `startGenerativeCompileJob` did; carried between calls. */
export interface GenerativeCompileJobState {
  readonly status: 'cached' | 'launched' | 'adopted';
  readonly startedAt: number;
  readonly attemptId?: string;
  readonly instanceId?: string;
  readonly instanceType?: string;
  readonly skipped: readonly string[];
  readonly weightsDigest?: string;
  readonly manifest?: GenerativeManifest;
}

/** Does a job config (the custom resource's `Config`) describe a generative compile? */
export function isGenerativeConfig(config: unknown): config is GenerativeCompileJobConfig {
  return typeof config === 'object' && config !== null && (config as { kind?: unknown }).kind === 'generative';
}

function splitS3Uri(uri: string): { bucket: string; key: string } {
  const match = /^s3:\/\/([^/]+)\/(.*)$/.exec(uri);
  if (!match) {
    throw new CompileJobFailedError(`weights s3Uri ${uri} is not an s3:// URI`);
  }
  return { bucket: match[1], key: match[2] };
}

/** Every object under the S3 weights prefix, with its ETag and size. */
export async function listWeights(s3Uri: string, clients: CompileJobClients): Promise<WeightsObject[]> {
  const { bucket, key: prefix } = splitS3Uri(s3Uri);
  const objects: WeightsObject[] = [];
  let token: string | undefined;
  do {
    const out = await clients.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of out.Contents ?? []) {
      if (o.Key !== undefined && !o.Key.endsWith('/')) {
        objects.push({ key: o.Key.slice(prefix.length), etag: o.ETag ?? '', size: o.Size ?? 0 });
      }
    }
    token = out.IsTruncated ? out.NextContinuationToken : undefined;
  } while (token !== undefined);
  return objects;
}

/** The manifest for the config's hash, if a compile finished. */
export async function readGenerativeManifest(config: GenerativeCompileJobConfig, clients: CompileJobClients): Promise<GenerativeManifest | undefined> {
  const key = `${artifactPrefixOf(config.prefix, config.hash)}${MANIFEST_FILE}`;
  const json = await readJson(clients, config.bucket, key);
  return json === undefined ? undefined : parseGenerativeManifest(json, `s3://${config.bucket}/${key}`);
}

/** Where a manifest disagrees with the spec it was compiled for (a stale or foreign file under the hash). */
export function manifestDisagreements(spec: GenerativeCompileSpec, manifest: GenerativeManifest, digest: string | undefined): string[] {
  const out: string[] = [];
  for (const field of ['tensorParallelSize', 'maxNumSeqs', 'maxModelLen', 'neuronSdkVersion', 'chip', 'logicalNeuronCoreConfig'] as const) {
    if (manifest[field] !== spec[field]) {
      out.push(`${field}: manifest ${manifest[field]}, spec ${spec[field]}`);
    }
  }
  const compiledWith = canonicalJson(manifest.engine ?? {});
  const specEngine = canonicalJson(generativeFactsOfSpec(spec).engine ?? {});
  if (compiledWith !== specEngine) {
    out.push(`engine: manifest ${compiledWith}, spec ${specEngine}`);
  }
  if (digest !== undefined && manifest.weightsDigest !== undefined && manifest.weightsDigest !== digest) {
    out.push(`weights: the objects under ${spec.weights.source === 's3' ? spec.weights.s3Uri : 'the prefix'} changed since the compile `
      + `(ETag digest ${manifest.weightsDigest.slice(0, 12)} then, ${digest.slice(0, 12)} now); put new weights under a new prefix, `
      + 'or pass a new version to GenerativeWeights.fromS3Prefix, so they get their own artifact');
  }
  return out;
}

/**
 * Starts the generative compile, or finds it done or under way.
 *
 * @throws CompileJobFailedError when the S3 weights lack config.json or safetensors, or changed since a cached compile
 */
export async function startGenerativeCompileJob(config: GenerativeCompileJobConfig, clients: CompileJobClients, now = Date.now(),
  attemptId = randomBytes(6).toString('hex')): Promise<GenerativeCompileJobState> {
  let digest: string | undefined;
  if (config.spec.weights.source === 's3') {
    const objects = await listWeights(config.spec.weights.s3Uri, clients);
    const missing = missingWeightsFiles(objects);
    if (missing.length > 0) {
      throw new CompileJobFailedError(`the weights at ${config.spec.weights.s3Uri} lack ${missing.join(' and ')} (found ${objects.length} `
        + 'objects); upload the uncompressed Hugging Face layout (config.json, *.safetensors, tokenizer files) under that prefix');
    }
    digest = weightsDigest(objects);
  }
  const manifest = await readGenerativeManifest(config, clients);
  if (manifest !== undefined) {
    const disagreements = manifestDisagreements(config.spec, manifest, digest);
    if (disagreements.length > 0) {
      throw new CompileJobFailedError(`the artifact at s3://${config.bucket}/${artifactPrefixOf(config.prefix, config.hash)} does not `
        + `fit its spec: ${disagreements.join('; ')}`);
    }
    return { status: 'cached', startedAt: now, manifest, skipped: [], weightsDigest: digest };
  }
  const [running] = await runningInstances(config, clients);
  if (running !== undefined) {
    return {
      status: 'adopted',
      startedAt: running.LaunchTime?.getTime() ?? now,
      attemptId: running.Tags?.find((t) => t.Key === ATTEMPT_TAG)?.Value,
      instanceId: running.InstanceId,
      instanceType: running.InstanceType,
      skipped: [],
      weightsDigest: digest,
    };
  }
  const state = await launchCompileHost({ hash: config.hash, model: config.spec.model }, config.instance, clients, now, attemptId,
    (instanceType) => renderGenerativeBootScript({
      region: config.region,
      bucket: config.bucket,
      artifactPrefix: artifactPrefixOf(config.prefix, config.hash),
      attemptId,
      instanceType,
      spec: config.spec,
      hash: config.hash,
      scriptS3Uri: config.instance.scriptS3Uri,
      scriptSha256: config.instance.scriptSha256,
      image: config.image,
      tokenSecretArn: config.tokenSecretArn,
      weightsDigest: digest,
      timeoutSeconds: config.timeoutSeconds,
    }));
  return { ...state, manifest: undefined, weightsDigest: digest };
}

/**
 * One poll: the manifest once the compile is done and it fits the spec, `undefined` while the compile runs.
 *
 * @throws CompileJobFailedError with the reason: the failure record, the host gone without a result, a manifest that
 * disagrees with the spec, or the timeout (the host is then terminated)
 */
export async function checkGenerativeCompileJob(config: GenerativeCompileJobConfig, state: GenerativeCompileJobState,
  clients: CompileJobClients, now = Date.now()): Promise<GenerativeManifest | undefined> {
  const accept = (manifest: GenerativeManifest): GenerativeManifest => {
    const disagreements = manifestDisagreements(config.spec, manifest, state.weightsDigest);
    if (disagreements.length > 0) {
      throw new CompileJobFailedError(`the compile wrote a manifest that does not fit its spec: ${disagreements.join('; ')}`);
    }
    return manifest;
  };
  const manifest = state.manifest ?? await readGenerativeManifest(config, clients);
  if (manifest !== undefined) {
    return accept(manifest);
  }
  return pollCompileHost(config, state, clients, async () => {
    const late = await readGenerativeManifest(config, clients);
    return late === undefined ? undefined : accept(late);
  }, 'raise the timeout (at most 50 minutes in a stack) or compile outside CloudFormation and deploy the artifact by hash', now);
}

/** Stops what still runs for the config's hash; the artifacts stay. Returns the instances stopped. */
export async function stopGenerativeCompileJob(config: GenerativeCompileJobConfig, clients: CompileJobClients): Promise<string[]> {
  return stopCompileHosts(config, clients);
}

/** The custom resource's attributes from a generative manifest. */
export function generativeAttributesOf(config: GenerativeCompileJobConfig, manifest: GenerativeManifest, cached: boolean): Record<string, string> {
  const base = `s3://${config.bucket}/${artifactPrefixOf(config.prefix, config.hash)}`;
  return {
    ArtifactS3Uri: base,
    CompiledArtifactsS3Uri: `${base}${manifest.compiledArtifacts}`,
    ModelS3Uri: manifest.stagedModel !== null ? `${base}${manifest.stagedModel}` : (config.spec.weights.source === 's3' ? config.spec.weights.s3Uri : ''),
    ManifestS3Uri: `${base}${MANIFEST_FILE}`,
    Hash: manifest.hash,
    TensorParallelSize: String(manifest.tensorParallelSize),
    MaxNumSeqs: String(manifest.maxNumSeqs),
    MaxModelLen: String(manifest.maxModelLen),
    NeuronSdkVersion: manifest.neuronSdkVersion,
    Dtype: manifest.dtype,
    VllmVersion: manifest.versions.vllm,
    NxdInferenceVersion: manifest.versions.nxdInference,
    CompileSeconds: String(manifest.compileSeconds),
    CheckOutput: manifest.check.output.slice(0, 200),
    HostInstanceType: manifest.hostInstanceType,
    Cached: String(cached),
  };
}
