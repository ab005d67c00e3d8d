/**
 * `cdk-inferentia promote --from dev --to staging`: moves exactly what passed in one environment into the next.
 *
 * Reads the source's deployment record (SSM) and its latest smoke report (S3), applies the gate
 * (`lib/release/gate.ts`), then copies the image by digest into the target's repository, copies the compiled
 * artifact prefix, and writes the target's release record. Every read happens before the first write, so a refusal
 * (no digest, no record, a failed or stale report, an image the source does not hold) writes nothing. `--dry-run`
 * does every read and prints the copy it would do; `--check` applies only the gate (the pipeline's gate step).
 * Each environment is reached with the role its config names (`promotionRoleArn`, assumed through STS) in its own
 * region, else with the caller's credentials.
 */
import { createHash } from 'crypto';
import { ECRClient } from '@aws-sdk/client-ecr';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { _Object } from '@aws-sdk/client-s3';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import type { Command } from 'commander';
import { environmentNamed, nextEnvironment } from '../../lib/environments';
import type { EnvironmentConfig, EnvironmentsConfig } from '../../lib/environments';
import { InputError } from '../../lib/errors';
import {
  PromotionRefusedError, deploymentParameterName, deploymentRecordSchema, evaluateGate, parseRecord,
  releaseParameterName, smokeReportSchema,
} from '../../lib/release';
import type { DeploymentRecord, GenerativeDeploymentRecord, ReleaseRecord, SmokeReport } from '../../lib/release';
import { loadEnvironments, readCdkContext } from '../environments';
import { copyImage, getManifest } from './image-copy';
import type { ImageCopyResult, RepositoryRef } from './image-copy';
import type { CliIo } from './io';
import { once } from './once';
import { checkGenerativeSource, readRecord, safeJson } from './promote-records';

/** The clients of one environment. */
export interface EnvironmentClients {
  readonly ecr: ECRClient;
  readonly s3: S3Client;
  readonly ssm: SSMClient;
}

/** Makes an environment's clients; tests pass a factory that records what it was asked for. */
export type PromoteClientFactory = (env: EnvironmentConfig) => EnvironmentClients;

/** The session name promote's assumed-role sessions carry, so CloudTrail shows who copied what. */
export const PROMOTE_SESSION_NAME = 'cdk-inferentia-promote';

/**
 * Clients in the environment's region, with the environment's promotion role when it names one (a cross-account
 * target), else the standard credential chain.
 */
export const defaultPromoteClients: PromoteClientFactory = (env) => {
  const credentials = env.promotionRoleArn === undefined
    ? undefined
    : fromTemporaryCredentials({
      params: { RoleArn: env.promotionRoleArn, RoleSessionName: PROMOTE_SESSION_NAME, DurationSeconds: 3600 },
      clientConfig: { region: env.region },
    });
  const config = { region: env.region, ...(credentials !== undefined ? { credentials } : {}) };
  return { ecr: new ECRClient(config), s3: new S3Client({ ...config, followRegionRedirects: true }), ssm: new SSMClient(config) };
};

interface PromoteFlags {
  readonly from: string;
  readonly to?: string;
  readonly config?: string;
  readonly prices?: string;
  readonly dryRun?: boolean;
  readonly check?: boolean;
  readonly json?: boolean;
}

/** What one S3 object copy does. */
interface ObjectCopy {
  readonly fromBucket: string;
  readonly from: string;
  readonly toBucket: string;
  readonly to: string;
  readonly bytes: number;
}

/** What `promote` did, or would do with `--dry-run`. */
export interface PromotionResult {
  readonly application: string;
  readonly from: string;
  readonly to?: string;
  readonly dryRun: boolean;
  /** Only the gate was applied (`--check`). */
  readonly checkOnly: boolean;
  readonly gate: { readonly passed: true; readonly reportUri: string; readonly fingerprint: string; readonly invokedAt: string };
  readonly image?: {
    readonly from: string;
    readonly to: string;
    readonly digest: string;
  } & ImageCopyResult;
  readonly artifact?: { readonly from: string; readonly to: string; readonly objects: number; readonly bytes: number; readonly sha256: string };
  readonly record?: { readonly parameter: string; readonly region: string; readonly account: string; readonly value: ReleaseRecord };
  /**
   * What this promotion means for the environment's generative model (its `generative` section), as the source's
   * generative deployment record names it: its compiled replica (`hash`) travels inside the artifact prefix copied
   * above, to `compiledPrefix`; its vLLM image is the digest the source runs, the config's `generativeImageDigest`
   * (public, pinned, nothing to copy); and its gate is the token proof its own stack's deploy runs.
   */
  readonly generative?: {
    readonly profile: string;
    readonly imageDigest: string;
    readonly hash: string;
    readonly compiledPrefix: string;
    readonly gate: string;
  };
}

/** Registers `promote` on the program. */
export function registerPromoteCommand(program: Command, io: CliIo, clients: PromoteClientFactory = defaultPromoteClients, now: () => Date = () => new Date()): Command {
  return program
    .command('promote')
    .description('Promote the image and compiled artifact that passed in one environment to the next: refuses when the '
      + "source's smoke report failed or is for another deployment; copies the image by digest and the artifact, "
      + "writes the target's release record")
    .requiredOption('--from <environment>', 'the environment that passed, e.g. dev', once('--from'))
    .option('--to <environment>', 'the next environment in the config (required unless --check)', once('--to'))
    .option('--config <file>', 'the environments config (default: the "environments" context of ./cdk.json)', once('--config'))
    .option('--prices <file>', 'with --config: a price file for regions the built-in catalog does not price', once('--prices'))
    .option('--dry-run', 'read everything and print the copy, write nothing')
    .option('--check', "apply only the gate to --from's latest report (the pipeline's gate step)")
    .option('--json', 'print the result as JSON')
    .action(async (flags: PromoteFlags) => {
      const config = readConfig(flags.config, flags.prices);
      const result = await promote(config, flags, clients, now());
      io.stdout(flags.json === true ? `${JSON.stringify(result, null, 2)}\n` : formatResult(result));
    });
}

function readConfig(file: string | undefined, prices: string | undefined): EnvironmentsConfig {
  if (file !== undefined) {
    return loadEnvironments({ environments: file, prices, baseDir: process.cwd(), origin: '--config' });
  }
  const context = readCdkContext(process.cwd());
  if (context.environments === undefined) {
    throw new InputError('./cdk.json has no "environments" context; pass --config <environments.json>');
  }
  return loadEnvironments({ environments: context.environments, prices: context.prices, baseDir: process.cwd(), origin: 'context environments' });
}

/**
 * Runs one promotion (or gate check) against the environments' AWS accounts.
 *
 * @throws InputError for flags that do not fit the config, PromotionRefusedError when the gate or the source refuses
 */
export async function promote(config: EnvironmentsConfig, flags: PromoteFlags, clients: PromoteClientFactory, now: Date): Promise<PromotionResult> {
  const from = environmentNamed(config, flags.from, '--from');
  const next = nextEnvironment(config, from);
  let to: EnvironmentConfig | undefined;
  if (flags.check !== true || flags.to !== undefined) {
    const order = config.environments.map((e) => e.name).join(' -> ');
    if (next === undefined) {
      // Said before --to is looked at: whatever --to names (or none), nothing follows the last environment.
      throw new InputError(`--from ${from.name} is the last environment (${order}): nothing is promoted from it; `
        + `to roll out a new image, deploy it to ${config.environments[0].name} and promote from there `
        + `(--check applies only the gate to ${from.name}'s report)`);
    }
    if (flags.to === undefined) {
      throw new InputError(`--to is missing; promote ${from.name} to ${next.name}, or pass --check to apply only the gate`);
    }
    to = environmentNamed(config, flags.to, '--to');
    if (to !== next) {
      throw new InputError(`--to ${to.name} does not follow --from ${from.name} in the environments config `
        + `(${order}); promote one step at a time: --to ${next.name}`);
    }
  }
  const refuse = (reasons: string[]): never => {
    throw new PromotionRefusedError(from.name, to?.name, reasons);
  };
  if (config.imageDigest === undefined && to !== undefined) {
    refuse(['the environments config names no imageDigest: set "imageDigest" to the digest of the image to roll out '
      + '(the one deployed to the first environment)']);
  }

  // Every read before the first write.
  const source = clients(from);
  const parameter = deploymentParameterName(config.application, from.name);
  const deployment = await readDeploymentRecord(source.ssm, parameter, from) ?? refuse([
    `${from.name} has no deployment record at ssm:${parameter} (${from.account}, ${from.region}): deploy it first `
      + `(npx cdk deploy '${from.name}/*')`,
  ]);
  const reportUri = `s3://${deployment.report.bucket}/${deployment.report.key}`;
  const report = await readReport(source.s3, deployment, reportUri, refuse);
  const verdict = evaluateGate({
    environment: from.name, deployment, report, reportUri, settings: from.gate, expectedDigest: config.imageDigest, now,
  });
  // The generative model moves with the artifact prefix: what its stack recorded is checked with the same gate.
  const generativeSource = from.generative === undefined ? undefined : await checkGenerativeSource(source.ssm, config, from);
  const reasons = [
    ...(verdict.passed ? [] : verdict.reasons),
    ...(generativeSource !== undefined && 'reasons' in generativeSource ? generativeSource.reasons : []),
  ];
  if (reasons.length > 0) {
    refuse(reasons);
  }
  const evidence = verdict.passed ? verdict.evidence : refuse([]);
  const generative = generativeSource !== undefined && 'record' in generativeSource ? generativeSource.record : undefined;
  const gate = { passed: true as const, reportUri, fingerprint: deployment.fingerprint, invokedAt: evidence.smoke.invokedAt };
  const base = {
    application: config.application, from: from.name, dryRun: flags.dryRun === true, gate,
    ...(generative !== undefined ? { generative: generativeNote(from, to ?? from, generative) } : {}),
  };
  if (to === undefined) {
    return { ...base, checkOnly: true };
  }

  const target = clients(to);
  const srcRepo: RepositoryRef = { registryId: from.account, region: from.region, repositoryName: deployment.repositoryName };
  const dstRepo: RepositoryRef = { registryId: to.account, region: to.region, repositoryName: to.repositoryName };
  const digest = deployment.imageDigest;
  const manifest = await getManifest(source.ecr, srcRepo, digest).catch((e: unknown) => {
    if ((e as { name?: string }).name === 'ImageNotFoundException' || (e as { name?: string }).name === 'RepositoryNotFoundException') {
      return undefined;
    }
    throw e;
  }) ?? refuse([`${repoUri(srcRepo)} does not hold ${digest}, the image ${from.name} runs; was it deleted by a lifecycle rule?`]);
  const artifactCopies = await planArtifactCopy(source.s3, from, to);
  if (generative !== undefined && !(artifactCopies?.copies ?? []).some((c) => c.from.startsWith(generative.artifact.prefix))) {
    refuse([`s3://${generative.artifact.bucket}/${generative.artifact.prefix}, the compiled replica ${from.name}'s generative `
      + `model serves (hash ${generative.hash}), holds no object to promote; redeploy ${from.name} (npx cdk deploy `
      + `'${from.name}/*') so its compile writes it again`]);
  }
  const dryRun = flags.dryRun === true;
  const image = await copyImage(source.ecr, target.ecr, srcRepo, dstRepo, manifest, { dryRun, tag: digest.replace(':', '-') });
  const artifact = artifactCopies === undefined ? undefined : summarizeArtifact(from, to, artifactCopies);
  if (!dryRun && artifactCopies !== undefined) {
    for (const copy of artifactCopies.copies) {
      await copyObject(source.s3, target.s3, copy);
    }
  }
  const record: ReleaseRecord = {
    schemaVersion: 1,
    application: config.application,
    environment: to.name,
    promotedFrom: from.name,
    promotedAt: now.toISOString(),
    image: { registryId: to.account, region: to.region, repositoryName: to.repositoryName, digest, mediaType: manifest.mediaType },
    ...(artifact !== undefined ? { artifact: { bucket: to.artifact!.bucket, prefix: to.artifact!.prefix, objects: artifact.objects, bytes: artifact.bytes, sha256: artifact.sha256 } } : {}),
    source: { environment: from.name, target: deployment.target, fingerprint: deployment.fingerprint, plan: deployment.plan },
    evidence,
    ...(generative !== undefined && to.artifact !== undefined ? {
      generative: {
        profileId: generative.profileId, imageDigest: generative.imageDigest, hash: generative.hash,
        bucket: to.artifact.bucket, prefix: promotedPrefix(from, to, generative),
      },
    } : {}),
  };
  const recordParameter = releaseParameterName(config.application, to.name);
  if (!dryRun) {
    await target.ssm.send(new PutParameterCommand({
      Name: recordParameter,
      Value: JSON.stringify(record),
      Type: 'String',
      Overwrite: true,
      Tier: 'Intelligent-Tiering',
      Description: `cdk-inferentia release record: promoted from ${from.name}`,
    }));
  }
  return {
    ...base,
    to: to.name,
    checkOnly: false,
    image: { from: `${repoUri(srcRepo)}@${digest}`, to: `${repoUri(dstRepo)}@${digest}`, digest, ...image },
    ...(artifact !== undefined ? { artifact } : {}),
    record: { parameter: recordParameter, region: to.region, account: to.account, value: record },
  };
}

async function readDeploymentRecord(ssm: SSMClient, name: string, env: EnvironmentConfig): Promise<DeploymentRecord | undefined> {
  return readRecord(ssm, name, deploymentRecordSchema(), env);
}

async function readReport(s3: S3Client, deployment: DeploymentRecord, uri: string, refuse: (r: string[]) => never): Promise<SmokeReport | undefined> {
  let text: string;
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: deployment.report.bucket, Key: deployment.report.key }));
    text = await (out.Body as { transformToString(): Promise<string> }).transformToString();
  } catch (e) {
    if ((e as { name?: string }).name === 'NoSuchKey') {
      return undefined;
    }
    throw e;
  }
  const parsed = parseRecord(smokeReportSchema(), safeJson(text), uri);
  return 'problem' in parsed ? refuse([parsed.problem]) : parsed.value;
}

/** S3's limit for one PutObject; larger objects need a multipart copy this command does not do. */
const MAX_SINGLE_PUT_BYTES = 5 * 1024 ** 3;

interface ArtifactPlan {
  readonly copies: readonly ObjectCopy[];
  readonly objects: readonly _Object[];
}

async function planArtifactCopy(s3: S3Client, from: EnvironmentConfig, to: EnvironmentConfig): Promise<ArtifactPlan | undefined> {
  if (from.artifact === undefined || to.artifact === undefined) {
    if (from.artifact !== to.artifact) {
      throw new InputError(`environment "${(from.artifact === undefined ? from : to).name}" has no artifact while `
        + `"${(from.artifact === undefined ? to : from).name}" has one; give both an artifact { bucket, prefix } or neither`);
    }
    return undefined;
  }
  const objects: _Object[] = [];
  let token: string | undefined;
  do {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: from.artifact.bucket, Prefix: from.artifact.prefix, ContinuationToken: token }));
    objects.push(...(out.Contents ?? []));
    token = out.IsTruncated === true ? out.NextContinuationToken : undefined;
  } while (token !== undefined);
  if (objects.length === 0) {
    throw new PromotionRefusedError(from.name, to.name, [`s3://${from.artifact.bucket}/${from.artifact.prefix} holds no compiled artifact`]);
  }
  const tooLarge = objects.filter((o) => (o.Size ?? 0) > MAX_SINGLE_PUT_BYTES);
  if (tooLarge.length > 0) {
    throw new PromotionRefusedError(from.name, to.name, tooLarge.map((o) => `s3://${from.artifact!.bucket}/${o.Key} is over 5 GiB, `
      + 'more than one PutObject carries; split the artifact or copy it with `aws s3 cp`'));
  }
  objects.sort((a, b) => (a.Key! < b.Key! ? -1 : a.Key! > b.Key! ? 1 : 0));
  const copies = objects.map((o) => ({
    fromBucket: from.artifact!.bucket,
    from: o.Key!,
    toBucket: to.artifact!.bucket,
    to: `${to.artifact!.prefix}${o.Key!.slice(from.artifact!.prefix.length)}`,
    bytes: o.Size ?? 0,
  }));
  return { copies, objects };
}

function summarizeArtifact(from: EnvironmentConfig, to: EnvironmentConfig, plan: ArtifactPlan) {
  const hash = createHash('sha256');
  for (const o of plan.objects) {
    hash.update(`${o.Key!.slice(from.artifact!.prefix.length)}\t${o.Size ?? 0}\t${o.ETag ?? ''}\n`);
  }
  return {
    from: `s3://${from.artifact!.bucket}/${from.artifact!.prefix}`,
    to: `s3://${to.artifact!.bucket}/${to.artifact!.prefix}`,
    objects: plan.objects.length,
    bytes: plan.copies.reduce((sum, c) => sum + c.bytes, 0),
    sha256: hash.digest('hex'),
    copies: plan.copies,
  };
}

/**
 * Streams one object from the source's credentials to the target's: CopyObject would need one principal allowed to
 * read the source and write the target, which two accounts with a role each do not give.
 */
async function copyObject(src: S3Client, dst: S3Client, copy: ObjectCopy): Promise<void> {
  const out = await src.send(new GetObjectCommand({ Bucket: copy.fromBucket, Key: copy.from }));
  await dst.send(new PutObjectCommand({
    Bucket: copy.toBucket,
    Key: copy.to,
    Body: out.Body,
    ContentLength: out.ContentLength ?? copy.bytes,
    ...(out.ContentType !== undefined ? { ContentType: out.ContentType } : {}),
  }));
}

function repoUri(repo: RepositoryRef): string {
  return `${repo.registryId}.dkr.ecr.${repo.region}.amazonaws.com/${repo.repositoryName}`;
}

function formatBytes(n: number): string {
  return n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(2)} GiB` : n >= 1024 ** 2 ? `${(n / 1024 ** 2).toFixed(1)} MiB` : `${n} B`;
}

/**
 * Where the source's compiled replica lands in the target: the same path under the target's artifact prefix, as every
 * artifact object is copied.
 */
function promotedPrefix(from: EnvironmentConfig, to: EnvironmentConfig, generative: GenerativeDeploymentRecord): string {
  return from.artifact === undefined || to.artifact === undefined ? generative.artifact.prefix
    : `${to.artifact.prefix}${generative.artifact.prefix.slice(from.artifact.prefix.length)}`;
}

/** What `promote` does for an environment's generative model, in its result. */
function generativeNote(from: EnvironmentConfig, env: EnvironmentConfig, generative: GenerativeDeploymentRecord): NonNullable<PromotionResult['generative']> {
  const bucket = env === from || env.artifact === undefined ? generative.artifact.bucket : env.artifact.bucket;
  return {
    profile: generative.profileId,
    imageDigest: generative.imageDigest,
    hash: generative.hash,
    compiledPrefix: `s3://${bucket}/${env === from ? generative.artifact.prefix : promotedPrefix(from, env, generative)}`,
    gate: `the token proof of ${env.name}-Generative, which fails its deploy (CloudFormation rolls back) on a miss`,
  };
}

/** The human-readable account of a promotion. */
export function formatResult(result: PromotionResult): string {
  const lines: string[] = [];
  const { gate } = result;
  lines.push(result.checkOnly
    ? `gate of ${result.from} (${result.application}): passed`
    : `${result.dryRun ? 'dry run: would promote' : 'promoted'} ${result.from} -> ${result.to} (${result.application})`);
  lines.push(`  gate: ${gate.reportUri} passed at ${gate.invokedAt} for deployment ${gate.fingerprint}`);
  if (result.image) {
    const img = result.image;
    const blobs = `${img.blobsCopied} blob(s), ${formatBytes(img.bytesCopied)} ${result.dryRun ? 'to copy' : 'copied'}, ${img.blobsPresent} already there`;
    lines.push(`  image: ${img.from}`);
    lines.push(`      -> ${img.to}`);
    lines.push(`     (${img.mediaType}; ${blobs}${img.alreadyPresent ? '; manifest already there' : ''})`);
  }
  if (result.artifact) {
    lines.push(`  artifact: ${result.artifact.from} -> ${result.artifact.to} (${result.artifact.objects} objects, `
      + `${formatBytes(result.artifact.bytes)}, sha256 ${result.artifact.sha256})`);
  }
  if (result.generative) {
    const g = result.generative;
    lines.push(`  generative ${g.profile}: compiled replica ${g.hash} at ${g.compiledPrefix} ${result.checkOnly ? 'is' : 'travels'} in the `
      + `artifact prefix; vLLM image ${g.imageDigest} is pinned in the config, not copied; gated by ${g.gate}`);
  }
  if (result.record) {
    lines.push(`  record: ssm:${result.record.parameter} in ${result.record.account} ${result.record.region}`
      + `${result.dryRun ? ' (not written)' : ''}`);
  }
  if (result.dryRun) {
    lines.push('dry run: nothing was written');
  }
  return `${lines.join('\n')}\n`;
}
