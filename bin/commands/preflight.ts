/**
 * `cdk-inferentia preflight`: before the first deploy, checks with the user's credentials that it can start.
 */
import { existsSync, statSync } from 'fs';
import { join } from 'path';
import { EC2Client } from '@aws-sdk/client-ec2';
import { ECRClient } from '@aws-sdk/client-ecr';
import { S3Client } from '@aws-sdk/client-s3';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import Table from 'cli-table3';
import { Command } from 'commander';
import { AwsCallError, describeAwsError } from '../../lib/aws-errors';
import { ECR_IMAGE_URI, endpointNameProblem, imageUriProblem, s3UriProblem } from '../../lib/aws-names';
import { isAwsRegion } from '../../lib/catalog';
import { InputError } from '../../lib/errors';
import {
  CHECK_IDS,
  PreflightFailedError,
  runPreflight,
  targetFromPlan,
  targetsFromTemplate,
  type CheckId,
  type PreflightClients,
  type PreflightReport,
  type PreflightTarget,
} from '../../io/preflight/index';
import type { ExpressionScope } from '../../io/preflight/expression';
import { readJsonFile } from './files';
import type { CliIo } from './io';
import { addOnceOptions } from './once';
import { list } from './parse';

/** The flags as commander hands them over. */
export interface PreflightFlags {
  readonly plan?: string;
  readonly stack?: string;
  readonly stackName?: string;
  readonly region?: string;
  readonly image?: string;
  readonly modelData?: string;
  readonly endpointName?: string;
  readonly skip?: string;
  readonly json?: boolean;
}

/** Makes the AWS clients of one region; tests pass clients stubbed with aws-sdk-client-mock. */
export type PreflightClientFactory = (region: string) => PreflightClients;

/** The SDK clients with the user's credentials from the standard chain (AWS_PROFILE, environment, SSO...). */
export const defaultClients: PreflightClientFactory = (region) => {
  const ecr = new Map<string, ECRClient>();
  return {
    ec2: new EC2Client({ region }),
    serviceQuotas: new ServiceQuotasClient({ region }),
    sageMaker: new SageMakerClient({ region }),
    s3: new S3Client({ region, followRegionRedirects: true }),
    ecr: (imageRegion) => {
      let client = ecr.get(imageRegion);
      if (client === undefined) {
        client = new ECRClient({ region: imageRegion });
        ecr.set(imageRegion, client);
      }
      return client;
    },
  };
};

/**
 * Registers `preflight` on the program.
 *
 * Prints one table of checks per deployment (or JSON with `--json`), then throws `PreflightFailedError` (exit 1)
 * when a check failed. Bad flags or files throw `InputError` (exit 2) before any AWS call; no credentials at all
 * throws `AwsCallError` (exit 1, one line with the fix) before any check.
 */
export function registerPreflightCommand(program: Command, io: CliIo, clients: PreflightClientFactory = defaultClients): Command {
  return addOnceOptions(program.command('preflight'), [
    ['--plan <file>', 'a plan written by `cdk-inferentia plan ... --json > plan.json`'],
    ['--stack <path>', 'a synthesized stack: a cdk.out directory or a *.template.json file'],
    ['--stack-name <name>', 'with a cdk.out holding several stacks, the one to check'],
    ['--region <region>', 'region of a --stack template file (a cdk.out names its own)'],
    ['--image <uri>', 'with --plan: the image to deploy, <account>.dkr.ecr.<region>.amazonaws.com/<repo>@sha256:...'],
    ['--model-data <s3-uri>', 'with --plan: the model data, s3://bucket/prefix/ or s3://bucket/model.tar.gz'],
    ['--endpoint-name <name>', 'with --plan: the SageMaker endpoint name the deploy will create'],
    ['--skip <checks>', `checks not to run, comma-separated: ${CHECK_IDS.join(', ')}`],
  ])
    .description(
      'Before a deploy, check with your AWS credentials that it can start: instance type offered in 2+ zones, quota for ' +
        'the planned count (and every fallback instance pool\'s), image digest and model data readable, endpoint name free; exits 1 when a check fails',
    )
    .option('--json', 'print the reports as JSON')
    .action(async (flags: PreflightFlags) => {
      const { targets, skip } = targetsFromFlags(flags);
      const reports: PreflightReport[] = [];
      for (const target of targets) {
        const regional = clients(target.region);
        if (reports.length === 0) {
          // Once, before any check: with no credentials every check would fail with the same five-line fix.
          try {
            await regional.ec2.config.credentials();
          } catch (e) {
            const error = new AwsCallError('preflight: reading AWS credentials', e);
            if (flags.json === true) {
              // A script reading --json gets a document even when no check could run.
              io.stdout(`${JSON.stringify({ passed: false, error: describeAwsError(error), reports: [] }, null, 2)}\n`);
            }
            throw error;
          }
        }
        reports.push(await runPreflight(target, regional, { skip }));
      }
      const passed = reports.every((r) => r.passed);
      io.stdout(flags.json === true ? `${JSON.stringify({ passed, reports }, null, 2)}\n` : reports.map(formatReport).join('\n'));
      if (!passed) {
        throw new PreflightFailedError(reports);
      }
    });
}

/**
 * The deployments to check and the checks to skip.
 *
 * @throws InputError listing every problem with the flags and files
 */
export function targetsFromFlags(flags: PreflightFlags): { targets: PreflightTarget[]; skip: CheckId[] } {
  const problems: string[] = [];
  if ((flags.plan === undefined) === (flags.stack === undefined)) {
    problems.push('give one of --plan plan.json (from `cdk-inferentia plan ... --json`) or --stack cdk.out');
  }
  if (flags.region !== undefined && !isAwsRegion(flags.region)) {
    problems.push(`--region ${flags.region}: not an AWS region code; e.g. --region us-east-1`);
  }
  if (flags.stack !== undefined) {
    for (const [flag, value] of [['--image', flags.image], ['--model-data', flags.modelData], ['--endpoint-name', flags.endpointName]] as const) {
      if (value !== undefined) {
        problems.push(`${flag}: applies to --plan; a stack names its own (synthesize again to change it)`);
      }
    }
  }
  const flagProblem = (flag: string, value: string | undefined, check: (v: string) => string | undefined): void => {
    const problem = value !== undefined ? check(value) : undefined;
    if (problem !== undefined) {
      problems.push(`${flag} ${JSON.stringify(value)}: ${problem}`);
    }
  };
  flagProblem('--endpoint-name', flags.endpointName, endpointNameProblem);
  flagProblem('--model-data', flags.modelData, (v) => s3UriProblem(v, 's3://my-bucket/models/bert/ or s3://my-bucket/model.tar.gz'));
  if (flags.plan !== undefined && flags.stackName !== undefined) {
    problems.push('--stack-name: applies to --stack');
  }
  const skip = flags.skip !== undefined ? list(flags.skip) : [];
  for (const id of skip) {
    if (!(CHECK_IDS as readonly string[]).includes(id)) {
      problems.push(`--skip ${id}: not a check; the checks are ${CHECK_IDS.join(', ')}`);
    }
  }
  let target: PreflightTarget | undefined;
  if (flags.plan !== undefined) {
    try {
      target = targetFromPlan(readJsonFile('--plan', flags.plan), flags.plan, {
        image: flags.image,
        modelDataUri: flags.modelData,
        endpointName: flags.endpointName,
      });
    } catch (e) {
      if (!(e instanceof InputError)) {
        throw e;
      }
      problems.push(...e.problems);
    }
  }
  // SageMaker pulls only from ECR; ECS on EC2 pulls from any registry.
  flagProblem('--image', flags.image, (v) => imageUriProblem(v, target?.hosting === 'sagemaker'));
  const imageRegion = flags.image !== undefined ? ECR_IMAGE_URI.exec(flags.image)?.[2] : undefined;
  if (target?.hosting === 'sagemaker' && imageRegion !== undefined && imageRegion !== target.region) {
    // "The Docker image for inference container in Amazon EC2 Container Registry must be in the same region as the
    // model or endpoint you are creating" (SageMaker API reference, ContainerDefinition.Image:
    // https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ContainerDefinition.html).
    problems.push(`--image ${JSON.stringify(flags.image)}: its repository is in ${imageRegion}, the plan's endpoint in ${target.region}; `
      + `SageMaker pulls only from ECR in the endpoint's region: copy the image to ${target.region} (or plan for ${imageRegion})`);
  }
  if (target !== undefined && flags.region !== undefined && isAwsRegion(flags.region) && flags.region !== target.region) {
    problems.push(`--region ${flags.region}: the plan is for ${target.region}; plan again for ${flags.region}`);
  }
  InputError.throwIfAny(problems);
  if (target !== undefined) {
    return { targets: [target], skip: skip as CheckId[] };
  }
  return { targets: stackTargets(flags.stack as string, flags.stackName, flags.region), skip: skip as CheckId[] };
}

/** A stack of a cloud assembly, nested stage assemblies included. */
interface AssemblyStack {
  readonly id: string;
  readonly displayName: string;
  readonly environment?: string;
  readonly templateFile: string;
  readonly template: { Resources?: Record<string, { Type?: string; Properties?: Record<string, unknown> }>; Outputs?: Record<string, unknown> };
}

/** Every stack of the assembly in `dir`, with the stacks of its stages (`cdk:cloud-assembly` artifacts). */
function assemblyStacks(dir: string, depth = 0): AssemblyStack[] {
  const manifestFile = join(dir, 'manifest.json');
  const manifest = readJsonFile('--stack', manifestFile) as { artifacts?: Record<string, StackArtifact> };
  const stacks: AssemblyStack[] = [];
  for (const [id, artifact] of Object.entries(manifest.artifacts ?? {})) {
    if (artifact.type === 'aws:cloudformation:stack') {
      const templateFile = join(dir, artifact.properties?.templateFile ?? `${id}.template.json`);
      stacks.push({ id, displayName: artifact.displayName ?? id, environment: artifact.environment, templateFile,
        template: readJsonFile('--stack', templateFile) as AssemblyStack['template'] });
    } else if (artifact.type === 'cdk:cloud-assembly' && artifact.properties?.directoryName !== undefined && depth < 4) {
      stacks.push(...assemblyStacks(join(dir, artifact.properties.directoryName), depth + 1));
    }
  }
  return stacks;
}

const HOSTING_TYPES = ['AWS::SageMaker::Endpoint', 'AWS::ECS::Service'];

/**
 * Every SageMaker endpoint and ECS service of the stack(s) at `path`: a template file, or a cdk.out directory with
 * its stage assemblies (dev/Inference, ...). Images joined from another stack's exported repository are resolved.
 */
function stackTargets(path: string, stackName: string | undefined, region: string | undefined): PreflightTarget[] {
  if (!existsSync(path)) {
    throw new InputError(`--stack ${path}: no such file or directory; run \`npx cdk synth\` first`);
  }
  if (!statSync(path).isDirectory()) {
    if (region === undefined) {
      throw new InputError(`--stack ${path}: a template file does not say its region; add --region, or give the cdk.out directory`);
    }
    return targetsFromTemplate(readJsonFile('--stack', path), path, region);
  }
  const stacks = assemblyStacks(path);
  const chosen = stackName !== undefined ? stacks.filter((s) => s.id === stackName || s.displayName === stackName) : stacks;
  if (chosen.length === 0) {
    throw new InputError(
      stackName !== undefined
        ? `--stack-name ${stackName}: not in ${path}; stacks: ${stacks.map((s) => s.displayName).join(', ') || 'none'}`
        : `--stack ${path}: ${join(path, 'manifest.json')} lists no stack; run \`npx cdk synth\``,
    );
  }
  const environmentOf = (s: AssemblyStack) => /^aws:\/\/(\d{12}|[^/]+)\/([a-z0-9-]+)$/.exec(s.environment ?? '');
  const exports = new Map<string, { value: unknown; scope: ExpressionScope }>();
  for (const s of stacks) {
    const env = environmentOf(s);
    if (env === null || !/^\d{12}$/.test(env[1])) {
      continue;
    }
    const scope: ExpressionScope = { account: env[1], region: env[2], resources: s.template.Resources ?? {}, exports };
    for (const output of Object.values(s.template.Outputs ?? {}) as { Value?: unknown; Export?: { Name?: unknown } }[]) {
      if (typeof output?.Export?.Name === 'string') {
        exports.set(output.Export.Name, { value: output.Value, scope });
      }
    }
  }
  const targets: PreflightTarget[] = [];
  const problems: string[] = [];
  for (const s of chosen) {
    const hosts = Object.values(s.template.Resources ?? {}).some((r) => HOSTING_TYPES.includes(r?.Type ?? ''));
    if (!hosts) {
      continue;
    }
    const env = environmentOf(s);
    const stackRegion = env !== null && isAwsRegion(env[2]) ? env[2] : region;
    if (stackRegion === undefined) {
      problems.push(`stack ${s.displayName} is environment-agnostic (${s.environment ?? 'no environment'}): add --region`);
      continue;
    }
    const account = env !== null && /^\d{12}$/.test(env[1]) ? env[1] : undefined;
    targets.push(...targetsFromTemplate(s.template, `${s.displayName}: ${s.templateFile}`, stackRegion, { account, exports }));
  }
  InputError.throwIfAny(problems);
  if (targets.length === 0) {
    throw new InputError(`--stack ${path}: no stack with a SageMaker endpoint or an ECS service; preflight reads the stacks `
      + 'NeuronSageMakerEndpoint and NeuronEcsService make');
  }
  return targets;
}

interface StackArtifact {
  readonly type?: string;
  readonly environment?: string;
  readonly displayName?: string;
  readonly properties?: { readonly templateFile?: string; readonly directoryName?: string };
}

// Plain borders and no colours: the output is read in CI logs as often as in a terminal.
const TABLE_STYLE = { head: [], border: [] };

/** One deployment's checks as a table, with a heading naming what was checked. */
export function formatReport(report: PreflightReport): string {
  const t = report.target;
  const heading =
    `Preflight of ${t.source}: ${t.instanceCount} x ${t.instanceType} (up to ${t.maxInstanceCount}) on ${t.hosting} in ${t.region}`;
  const table = new Table({ head: ['check', 'result', 'found', 'fix'], style: TABLE_STYLE, colWidths: [19, 8, 60, 60], wordWrap: true });
  for (const c of report.checks) {
    table.push([c.id, c.status.toUpperCase(), c.detail, c.fix ?? '']);
  }
  const failed = report.checks.filter((c) => c.status === 'fail').length;
  const verdict = failed === 0 ? 'All checks pass.' : `${failed} check${failed === 1 ? '' : 's'} failed: fix ${failed === 1 ? 'it' : 'them'} before deploying.`;
  return `${heading}\n${table.toString()}\n${verdict}\n`;
}
