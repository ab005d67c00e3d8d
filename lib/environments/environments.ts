/**
 * Resolving and checking the environments config: defaults filled, every problem named by environment and field.
 */
import type { z } from 'zod';
import { Catalog } from '../catalog/catalog';
import { compiledSettingsDifferences, compiledSettingsOf } from '../compile/generative-check';
import { isAwsRegion } from '../catalog/regions';
import type { Hosting } from '../catalog';
import { InfeasibleError, InputError } from '../errors';
import { plan } from '../planner';
import type { Plan, PlanTargets } from '../planner';
import { closestProfileIds, findProfile } from '../profiles';
import { builtInGenerativeProfiles, findGenerativeProfile, planGenerative } from '../generative';
import type { GenerativePlan, GenerativeTargets } from '../generative';
import { IMAGE_DIGEST, environmentsInputSchema } from './schema';

/** When a smoke report counts as current, and whether the capacity proof must have passed too. */
export interface GateSettings {
  /**
   * The smoke benchmark's p99 limit, measured through the SageMaker Runtime API: at most the p99 target plus
   * {@link SMOKE_CLIENT_ALLOWANCE_MS}.
   *
   * @default - the SmokeBenchmark's own default from the plan: the p99 target plus its latency allowance
   */
  readonly p99MaxMs?: number;
  /** Share of failed requests the smoke benchmark allows, 0-1. */
  readonly maxErrorRate: number;
  /** A report older than this is stale and promotes nothing. */
  readonly maxReportAgeHours: number;
  /** Promotion out of this environment also needs a passed capacity proof in the report. */
  readonly capacityProofRequired: boolean;
}

/**
 * What the smoke benchmark's client adds to the model's latency: the SageMaker Runtime API round trip, the
 * SmokeBenchmark construct's default `latencyAllowance` for a SageMaker target.
 */
export const SMOKE_CLIENT_ALLOWANCE_MS = 20;

/** One environment, resolved: defaults filled, checked against the catalog, planned. */
export interface EnvironmentConfig {
  /** `dev`, `staging`, `prod`: the Stage id and the path segment of its records. */
  readonly name: string;
  /** Position in the promotion order, from 0. */
  readonly index: number;
  readonly account: string;
  readonly region: string;
  readonly hosting: Hosting;
  /** Built-in model profile id. */
  readonly profileId: string;
  readonly targets: PlanTargets;
  /** Fewest instances the endpoint runs; SageMaker spreads two or more across Availability Zones. */
  readonly minInstances: number;
  /** Why a production environment runs on one instance, when it does. */
  readonly availabilityWaiver?: string;
  /** Serves users: needs two instances unless waived, and approval by default. */
  readonly production: boolean;
  /** Whether promotion into this environment waits for a person. */
  readonly approval: 'manual' | 'none';
  readonly gate: GateSettings;
  /**
   * The ECR repository, in this environment's account and region, that holds the images it runs: `repositoryName`,
   * else `<application>/<environment>`, so environments sharing an account and region never claim one repository.
   */
  readonly repositoryName: string;
  /** Where this environment keeps compiled model artifacts, when it uses them. */
  readonly artifact?: { readonly bucket: string; readonly prefix: string };
  /**
   * Role the `promote` command assumes to read or write this environment: the config's `promotionRoleArn`, else
   * the role the environment's `InferenceStage` creates ({@link promotionRoleName}).
   */
  readonly promotionRoleArn: string;
  /** The plan for the targets in this region and hosting. */
  readonly plan: Plan;
  /**
   * The generative model this environment also serves on SageMaker inference components, planned in tokens; the
   * first environment compiles it, later ones serve the compiled prefix `promote` copied into their `artifact`.
   */
  readonly generative?: GenerativeEnvironmentConfig;
}

/** An environment's generative model, resolved and planned. */
export interface GenerativeEnvironmentConfig {
  /** Built-in generative profile id, the same in every environment. */
  readonly profileId: string;
  readonly targets: GenerativeTargets;
  /** The token plan for SageMaker in this environment's region. */
  readonly plan: GenerativePlan;
}

/** Every environment of one application, in promotion order. */
export interface EnvironmentsConfig {
  /** Names the records and the default repository: `/cdk-inferentia/<application>/<environment>/...`. */
  readonly application: string;
  /** The image digest being rolled out, the same in every environment; undefined until one is built. */
  readonly imageDigest?: string;
  /**
   * Content hash of the compiled artifact being rolled out (`NeuronCompileJob.hash`, `cdk-inferentia compile`), the
   * same in every environment: an environment with an `artifact` location serves `<artifact.prefix><hash>/`.
   */
  readonly artifactHash?: string;
  /** Digest of the Neuron vLLM image every environment's generative stack runs; undefined until one is pinned. */
  readonly generativeImageDigest?: string;
  /** Where the pipeline runs (the `pipeline` field, else the first environment's account and region) and its source. */
  readonly pipeline: {
    readonly account: string;
    readonly region: string;
    /** @default - none: the app synthesizes no pipeline */
    readonly source?:
      | { readonly connectionArn: string; readonly repository: string; readonly branch: string }
      | { readonly codeCommitRepository: string; readonly branch: string };
  };
  readonly environments: readonly EnvironmentConfig[];
}

/**
 * Name of the role an environment's stage creates for promotions into and out of it: fixed, so the pipeline and
 * the CLI can name it in another account before reading anything there.
 */
export function promotionRoleName(application: string, environment: string): string {
  return `cdk-inferentia-${application}-${environment}-promote`;
}

/** The partition of a region code. */
export function partitionOf(region: string): string {
  return region.startsWith('cn-') ? 'aws-cn' : region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws';
}

/** IAM's limit on role names. */
const MAX_ROLE_NAME = 64;

/** Options of {@link parseEnvironments}. */
export interface ParseEnvironmentsOptions {
  /** Named in every problem, e.g. `environments.json`. */
  readonly source: string;
  /** @default Catalog.builtIn() */
  readonly catalog?: Catalog;
  /**
   * Hostings the stages may use.
   *
   * @default ['sagemaker', 'ec2']
   */
  readonly hostings?: readonly Hosting[];
}

/**
 * Validates an environments config and resolves it.
 *
 * Checks, each reported as `<source>: environment "<name>" <field>: <problem>; <fix>`: the structure (zod), account
 * ids, region codes, hosting, the profile, prices for the hosting in the region, a plan that meets the targets in
 * that region (so the region offers a family that can), smoke thresholds no looser than the targets, production on
 * at least two instances unless `availability.waiver` says why, distinct names, a role in the environment's account.
 *
 * @throws InputError listing every problem at once
 */
export function parseEnvironments(json: unknown, options: ParseEnvironmentsOptions): EnvironmentsConfig {
  const { source } = options;
  const catalog = options.catalog ?? Catalog.builtIn();
  const hostings = options.hostings ?? ['sagemaker', 'ec2'];
  const result = environmentsInputSchema().safeParse(json);
  if (!result.success) {
    throw new InputError(result.error.issues.map((issue) => `${source}: ${describeIssue(json, issue)}`));
  }
  const input = result.data;
  const problems: string[] = [];
  const at = (name: string, field: string, message: string) =>
    problems.push(`${source}: environment "${name}" ${field}: ${message}`);

  if (input.imageDigest !== undefined && !IMAGE_DIGEST.test(input.imageDigest)) {
    problems.push(`${source}: imageDigest=${JSON.stringify(input.imageDigest)} is not "sha256:" and 64 lowercase hex `
      + 'digits; copy it from `aws ecr describe-images --query imageDetails[0].imageDigest` or remove it until an image is built');
  }
  if (input.artifactHash !== undefined && !/^[0-9a-f]{24}$/.test(input.artifactHash)) {
    problems.push(`${source}: artifactHash=${JSON.stringify(input.artifactHash)} is not a compile hash (24 lowercase hex `
      + 'digits); copy it from the compile job (`cdk-inferentia compile --spec FILE --json`, field hash)');
  }
  if (input.artifactHash !== undefined && input.environments.some((e) => e.artifact === undefined)) {
    problems.push(`${source}: artifactHash is set but environment(s) ${input.environments.filter((e) => e.artifact === undefined)
      .map((e) => `"${e.name}"`).join(', ')} have no artifact { bucket, prefix } to serve it from; give every environment one`);
  }
  if (input.generativeImageDigest !== undefined && !IMAGE_DIGEST.test(input.generativeImageDigest)) {
    problems.push(`${source}: generativeImageDigest=${JSON.stringify(input.generativeImageDigest)} is not "sha256:" and 64 `
      + 'lowercase hex digits; copy the digest of public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:<tag> '
      + '(`docker buildx imagetools inspect`) or remove it until one is pinned');
  }
  problems.push(...generativeLayoutProblems(source, input.environments));
  const seen = new Set<string>();
  const environments: EnvironmentConfig[] = [];
  const last = input.environments.length - 1;
  input.environments.forEach((env, index) => {
    const { name } = env;
    if (seen.has(name)) {
      at(name, 'name', `appears twice (environments[${index}]); give each environment its own name`);
    }
    seen.add(name);
    const production = env.production ?? index === last;
    const before = problems.length;
    if (!isAwsRegion(env.region)) {
      at(name, 'region', `${JSON.stringify(env.region)} is not an AWS region code; use e.g. "us-east-1"`);
    }
    if (!hostings.includes(env.hosting)) {
      at(name, 'hosting', `"${env.hosting}" is not allowed here; use ${hostings.map((h) => `"${h}"`).join(' or ')}`);
    }
    const profile = findProfile(env.profile);
    if (profile === undefined) {
      const close = closestProfileIds(env.profile);
      at(name, 'profile', `"${env.profile}" is not a built-in profile${close.length > 0 ? `; did you mean ${close.map((c) => `"${c}"`).join(' or ')}?` : ''}`
        + ' (`npx cdk-inferentia profiles list` lists them)');
    }
    if (isAwsRegion(env.region) && !catalog.regionsWithPrices(env.hosting).includes(env.region)) {
      at(name, 'region', `no ${env.hosting} prices for ${env.region} (priced: ${catalog.regionsWithPrices(env.hosting).join(', ')}); `
        + `fetch them with \`npx cdk-inferentia catalog refresh --regions ${env.region} --out prices.json\` and pass -c prices=prices.json`);
    }
    const peak = env.targets.peakThroughputRps;
    if (peak !== undefined && peak < env.targets.throughputRps) {
      at(name, 'targets.peakThroughputRps', `${peak} is below targets.throughputRps=${env.targets.throughputRps}; `
        + `the peak is the most autoscaling must serve: set it to ${env.targets.throughputRps} or more`);
    }
    const p99MaxMs = env.smoke.p99MaxMs;
    const loosest = env.targets.p99Ms + SMOKE_CLIENT_ALLOWANCE_MS;
    if (p99MaxMs !== undefined && p99MaxMs > loosest) {
      at(name, 'smoke.p99MaxMs', `${p99MaxMs} ms is looser than targets.p99Ms=${env.targets.p99Ms} ms plus the `
        + `${SMOKE_CLIENT_ALLOWANCE_MS} ms SageMaker Runtime round trip the smoke client adds, so a deployment that `
        + `misses its target would pass; set it to ${loosest} or less (or leave it out for that default)`);
    }
    if (production && env.availability.minInstances < 2 && env.availability.waiver === undefined) {
      at(name, 'availability.minInstances', `${env.availability.minInstances} in a production environment leaves one `
        + 'Availability Zone between users and an outage; set it to 2 or more (SageMaker spreads instances across AZs), '
        + 'or say why not in availability.waiver');
    }
    if (env.promotionRoleArn === undefined && promotionRoleName(input.application, name).length > MAX_ROLE_NAME) {
      at(name, 'name', `with application "${input.application}" makes the promotion role name `
        + `${promotionRoleName(input.application, name)} longer than IAM's ${MAX_ROLE_NAME} characters; shorten the `
        + 'application or environment name, or give promotionRoleArn');
    }
    if (env.promotionRoleArn !== undefined && env.promotionRoleArn.split(':')[4] !== env.account) {
      at(name, 'promotionRoleArn', `${env.promotionRoleArn} is not in the environment's account ${env.account}; name a role `
        + `in ${env.account} that promote may assume (its trust policy names the pipeline's or CI's role)`);
    }
    if (problems.length > before || profile === undefined) {
      return;
    }
    const generative = env.generative === undefined ? undefined
      : resolveGenerative(env.generative, env.region, catalog, (field, message) => at(name, `generative.${field}`, message));
    if (problems.length > before) {
      return;
    }
    const targets: PlanTargets = { throughputRps: env.targets.throughputRps, p99Ms: env.targets.p99Ms, peakThroughputRps: peak };
    let planned: Plan;
    try {
      planned = plan(profile, targets, { region: env.region, hosting: env.hosting, minInstances: env.availability.minInstances }, catalog);
    } catch (e) {
      if (e instanceof InfeasibleError || e instanceof InputError) {
        at(name, 'targets', `no ${env.hosting} deployment in ${env.region} meets ${targets.throughputRps} requests/s at `
          + `p99 ${targets.p99Ms} ms: ${e.message.split('\n').join(' ')}; relax the targets or pick a region with Inf2/Trn1`);
        return;
      }
      throw e;
    }
    environments.push({
      name,
      index,
      account: env.account,
      region: env.region,
      hosting: env.hosting,
      profileId: profile.id,
      targets,
      minInstances: env.availability.minInstances,
      ...(env.availability.waiver !== undefined ? { availabilityWaiver: env.availability.waiver } : {}),
      production,
      approval: env.approval ?? (production ? 'manual' : 'none'),
      gate: {
        ...(p99MaxMs !== undefined ? { p99MaxMs } : {}),
        maxErrorRate: env.smoke.maxErrorRate,
        maxReportAgeHours: env.smoke.maxReportAgeHours,
        capacityProofRequired: env.capacityProof.required,
      },
      repositoryName: env.repositoryName ?? `${input.application}/${name}`,
      ...(env.artifact !== undefined ? { artifact: env.artifact } : {}),
      promotionRoleArn: env.promotionRoleArn
        ?? `arn:${partitionOf(env.region)}:iam::${env.account}:role/${promotionRoleName(input.application, name)}`,
      plan: planned,
      ...(generative !== undefined ? { generative } : {}),
    });
  });
  const generativeEnvs = environments.filter((e) => e.generative !== undefined);
  const compiledFor = generativeEnvs[0]?.generative?.plan;
  for (const env of generativeEnvs.slice(1)) {
    // Everything the compile job compiles for (lib/compile/generative-check.ts): the layout, the buckets and the levers.
    const differs = compiledSettingsDifferences(compiledSettingsOf(env.generative!.plan), compiledSettingsOf(compiledFor!))
      .map((d) => `${d.key} ${d.mine} (${generativeEnvs[0].name}: ${d.theirs})`);
    if (env.generative!.plan.instance.family !== compiledFor!.instance.family) {
      differs.push(`instance family ${env.generative!.plan.instance.family} (${generativeEnvs[0].name}: ${compiledFor!.instance.family})`);
    }
    if (differs.length > 0) {
      at(env.name, 'generative.targets', `plan a different compile than ${generativeEnvs[0].name}, which compiles the `
        + `prefix every environment serves: ${differs.join(', ')}; give every environment targets whose plans compile `
        + 'the same replica (the same lengths and TTFT/TPOT targets, and a throughput that keeps the sequences and chip: '
        + 'compare them with `npx cdk-inferentia plan`); a replica compiled for other settings cannot be promoted');
    }
  }
  const repositories = new Map<string, string>();
  for (const env of environments) {
    const key = `${env.account}/${env.region}/${env.repositoryName}`;
    const other = repositories.get(key);
    if (other !== undefined) {
      at(env.name, 'repositoryName', `"${env.repositoryName}" is also environment "${other}"'s repository in `
        + `${env.account} ${env.region}; each stage creates its repository, so give each environment its own name `
        + '(or leave repositoryName out for <application>/<environment>)');
    }
    repositories.set(key, env.name);
  }
  if (input.pipeline?.region !== undefined && !isAwsRegion(input.pipeline.region)) {
    problems.push(`${source}: pipeline.region ${JSON.stringify(input.pipeline.region)} is not an AWS region code; use e.g. "us-east-1"`);
  }
  InputError.throwIfAny(problems);
  const first = input.environments[0];
  return {
    application: input.application,
    ...(input.imageDigest !== undefined ? { imageDigest: input.imageDigest } : {}),
    ...(input.artifactHash !== undefined ? { artifactHash: input.artifactHash } : {}),
    ...(input.generativeImageDigest !== undefined ? { generativeImageDigest: input.generativeImageDigest } : {}),
    pipeline: {
      account: input.pipeline?.account ?? first.account,
      region: input.pipeline?.region ?? first.region,
      ...(input.pipeline?.source !== undefined ? { source: input.pipeline.source } : {}),
    },
    environments,
  };
}

/**
 * The environment named `name`.
 *
 * @throws InputError naming the environments there are
 */
export function environmentNamed(config: EnvironmentsConfig, name: string, field = 'environment'): EnvironmentConfig {
  const env = config.environments.find((e) => e.name === name);
  if (env === undefined) {
    throw new InputError(`${field} "${name}" is not in the environments config; environments: `
      + config.environments.map((e) => e.name).join(', '));
  }
  return env;
}

/** The environment promoted into after `env`, or undefined for the last one. */
export function nextEnvironment(config: EnvironmentsConfig, env: EnvironmentConfig): EnvironmentConfig | undefined {
  return config.environments[env.index + 1];
}

type GenerativeInput = NonNullable<z.infer<ReturnType<typeof environmentsInputSchema>>['environments'][number]['generative']>;

/**
 * Every environment or none has a generative section, with one profile, and each has an `artifact` location when
 * there are several: the compiled prefix is promoted, not recompiled.
 */
function generativeLayoutProblems(source: string, envs: z.infer<ReturnType<typeof environmentsInputSchema>>['environments']): string[] {
  const withModel = envs.filter((e) => e.generative !== undefined);
  if (withModel.length === 0) {
    return [];
  }
  const first = withModel[0];
  const problems = envs.filter((e) => e.generative === undefined).map((e) => `${source}: environment "${e.name}" generative: `
    + `missing while "${first.name}" has one; the same generative model is promoted through every environment: give it a `
    + 'generative section (its own targets) or remove the others');
  for (const e of withModel.slice(1)) {
    if (e.generative!.profile !== first.generative!.profile) {
      problems.push(`${source}: environment "${e.name}" generative.profile: "${e.generative!.profile}" differs from `
        + `"${first.name}"'s "${first.generative!.profile}"; one model is promoted through every environment: give every `
        + 'environment the same generative.profile');
    }
  }
  if (envs.length > 1) {
    for (const e of envs.filter((env) => env.artifact === undefined && env.generative !== undefined)) {
      problems.push(`${source}: environment "${e.name}" artifact: missing, and its generative model is compiled once and `
        + 'promoted: add artifact { "bucket": "<bucket in its account and region>", "prefix": "compiled/<application>/" }, '
        + 'where its compiled prefix lives and promote copies it');
    }
  }
  return problems;
}

/** The generative section checked and planned for SageMaker in `region`; undefined after reporting a problem. */
function resolveGenerative(input: GenerativeInput, region: string, catalog: Catalog,
  at: (field: string, message: string) => void): GenerativeEnvironmentConfig | undefined {
  const profile = findGenerativeProfile(input.profile);
  let ok = true;
  if (profile === undefined) {
    at('profile', `"${input.profile}" is not a built-in generative profile; use one of `
      + `${builtInGenerativeProfiles().map((p) => `"${p.id}"`).join(', ')}`);
    ok = false;
  }
  const t = input.targets;
  if (t.peakRequestsPerSecond !== undefined && t.peakRequestsPerSecond < t.requestsPerSecond) {
    at('targets.peakRequestsPerSecond', `${t.peakRequestsPerSecond} is below targets.requestsPerSecond=${t.requestsPerSecond}; `
      + `the peak is the most autoscaling must serve: set it to ${t.requestsPerSecond} or more`);
    ok = false;
  }
  for (const key of ['inputTokens', 'outputTokens'] as const) {
    const { mean, p99 } = t[key];
    if (p99 !== undefined && p99 < mean) {
      at(`targets.${key}.p99`, `${p99} is below its mean ${mean}; the 99th percentile length is at least the mean: set it `
        + `to ${mean} or more, or leave it out for fixed lengths`);
      ok = false;
    }
  }
  if (!ok || profile === undefined) {
    return undefined;
  }
  const targets: GenerativeTargets = {
    requestsPerSecond: t.requestsPerSecond,
    inputTokens: t.inputTokens,
    outputTokens: t.outputTokens,
    ttftP99Ms: t.ttftP99Ms,
    tpotP99Ms: t.tpotP99Ms,
    ...(t.e2eP99Ms !== undefined ? { e2eP99Ms: t.e2eP99Ms } : {}),
    ...(t.peakRequestsPerSecond !== undefined ? { peakRequestsPerSecond: t.peakRequestsPerSecond } : {}),
  };
  try {
    return { profileId: profile.id, targets, plan: planGenerative(profile, targets, { region, hosting: 'sagemaker' }, catalog) };
  } catch (e) {
    if (e instanceof InfeasibleError || e instanceof InputError) {
      at('targets', `no SageMaker deployment of ${profile.id} in ${region} meets ${t.requestsPerSecond} requests/s at TTFT p99 `
        + `${t.ttftP99Ms} ms and TPOT p99 ${t.tpotP99Ms} ms: ${e.message.split('\n').join(' ')}; relax the targets or pick a `
        + 'region with Inf2/Trn1 SageMaker prices');
      return undefined;
    }
    throw e;
  }
}

/** `environments[1] ("staging").targets.p99Ms` for a zod path. */
function describeIssue(json: unknown, issue: z.core.$ZodIssue): string {
  const path = issue.path;
  let where = '';
  let current: unknown = json;
  for (const key of path) {
    current = (current as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey];
    if (typeof key === 'number') {
      const name = (current as { name?: unknown } | undefined)?.name;
      where += `[${key}]${typeof name === 'string' ? ` (environment "${name}")` : ''}`;
    } else {
      where += where === '' ? String(key) : `.${String(key)}`;
    }
  }
  if (issue.code === 'unrecognized_keys') {
    return `${where === '' ? '' : `${where}: `}unknown field${issue.keys.length > 1 ? 's' : ''} `
      + `${issue.keys.map((k) => `'${k}'`).join(', ')}; remove or rename ${issue.keys.length > 1 ? 'them' : 'it'}`;
  }
  if (where === '') {
    return `expected a JSON object with application and environments, got ${JSON.stringify(json)?.slice(0, 80)}`;
  }
  if (current === undefined) {
    return `${where}: missing; add it (see examples/environments.json)`;
  }
  return `${where}: ${issue.message}, got ${JSON.stringify(current)?.slice(0, 80)}`;
}
