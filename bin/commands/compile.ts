/**
 * `cdk-inferentia compile --spec FILE`: the compile job outside CloudFormation, for CI and for compiles longer than a
 * custom resource may wait. Same spec, hash, compile host, boot script and state machine as `NeuronCompileJob`, so
 * a stack consumes the artifact by its hash (`ModelData.fromBucket(bucket, '<prefix><hash>/')`).
 */
import * as fs from 'fs';
import * as path from 'path';
import { EC2Client } from '@aws-sdk/client-ec2';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SSMClient } from '@aws-sdk/client-ssm';
import { Command } from 'commander';
import {
  artifactPrefixOf,
  compileHash,
  compileHostTypes,
  DLAMI_PARAMETERS,
  parseCompileSpec,
  sha256Hex,
  type CompileManifest,
  chipOfFamily,
  type CompileSpec,
} from '../../lib/compile';
import { BUILT_IN_INSTANCES, isAwsRegion } from '../../lib/catalog';
import {
  bucketNameProblem, instanceProfileArnProblem, securityGroupIdProblem, subnetIdProblem,
} from '../../lib/aws-names';
import {
  checkCompileJob,
  startCompileJob,
  type CompileJobClients,
  type CompileJobConfig,
  type CompileJobState,
} from '../../io/compile/job';
import { InputError } from '../../lib/errors';
import type { CliIo } from './io';
import { once, onceParsed } from './once';
import { list, positiveInteger, positiveNumber } from './parse';

export interface CompileFlags {
  readonly spec: string;
  readonly bucket: string;
  readonly prefix?: string;
  readonly region: string;
  readonly instanceProfile: string;
  readonly subnets: string[];
  readonly securityGroups: string[];
  readonly instanceTypes?: string[];
  readonly modelSizeGib?: number;
  readonly timeoutMinutes?: number;
  readonly pollSeconds?: number;
  readonly wait?: boolean;
  readonly json?: boolean;
}

/** Makes the AWS clients of one region; tests pass clients stubbed with aws-sdk-client-mock. */
export type CompileClientFactory = (region: string) => CompileJobClients;

const defaultClients: CompileClientFactory = (region) => ({
  ec2: new EC2Client({ region }),
  s3: new S3Client({ region }),
  ssm: new SSMClient({ region }),
  sagemaker: new SageMakerClient({ region }),
});

/** compile.py beside the sources (this repository) or beside `dist/` (the package). */
function readCompileScript(): Buffer {
  const candidates = [
    path.join(__dirname, '..', '..', 'serving', 'compile', 'compile.py'),
    path.join(__dirname, '..', '..', '..', 'serving', 'compile', 'compile.py'),
  ];
  const found = candidates.find((p) => fs.existsSync(p));
  if (found === undefined) {
    throw new InputError(`the compile script serving/compile/compile.py is not in ${candidates.join(' or ')}; reinstall the package`);
  }
  return fs.readFileSync(found);
}

function readSpecFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`--spec ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)}); pass the path of a compile spec JSON file`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InputError(`--spec ${file}: not valid JSON (${(e as Error).message}); see docs/compile.md for the format`);
  }
}

function summary(manifest: CompileManifest, artifactUri: string, cached: boolean): string {
  const lines = [
    `${cached ? 'cached' : 'compiled'}: ${manifest.model} for ${manifest.chip} (NeuronCore-${manifest.coreVersion}), `
      + `${manifest.coresPerProcess} core(s) per process, batch ${manifest.batchSizes.join(', ')}`,
    `artifact: ${artifactUri}`,
    `hash: ${manifest.hash}`,
    `compiler ${manifest.versions.compiler}, runtime ${manifest.versions.runtime}, Neuron SDK ${manifest.versions.neuronSdk}, `
      + `on ${manifest.hostInstanceType} in ${manifest.compileSeconds} s`,
    `accuracy: max |neuron - cpu| ${manifest.accuracy.maxAbsError} (tolerance ${manifest.accuracy.tolerance})`,
    manifest.profile ? `profile: ${artifactUri}${manifest.profile} (cdk-inferentia plan --profile)` : 'profile: none (compiled off the chip)',
  ];
  return `${lines.join('\n')}\n`;
}

function elapsed(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * Every flag checked before any AWS call: the compile launches a billed instance, so a bad flag must not reach EC2.
 *
 * @throws InputError listing every problem, each naming the flag, the value and the fix
 */
export function checkCompileFlags(flags: CompileFlags): { spec: CompileSpec; prefix: string; instanceTypes: string[] } {
  const problems: string[] = [];
  const flagProblem = (flag: string, value: string, problem: string | undefined): void => {
    if (problem !== undefined) {
      problems.push(`${flag} ${JSON.stringify(value)}: ${problem}`);
    }
  };
  if (!isAwsRegion(flags.region)) {
    flagProblem('--region', flags.region, 'not an AWS region code; e.g. --region us-east-1');
  }
  flagProblem('--bucket', flags.bucket, bucketNameProblem(flags.bucket));
  const prefix = flags.prefix ?? 'compiled/';
  if (prefix !== '' && (!prefix.endsWith('/') || prefix.startsWith('/'))) {
    flagProblem('--prefix', prefix, "must end with '/' and not start with '/', e.g. compiled/");
  }
  flagProblem('--instance-profile', flags.instanceProfile, instanceProfileArnProblem(flags.instanceProfile));
  for (const [flag, ids, check] of [['--subnets', flags.subnets, subnetIdProblem], ['--security-groups', flags.securityGroups, securityGroupIdProblem]] as const) {
    if (ids.length === 0) {
      problems.push(`${flag}: names none; give at least one ID, comma-separated`);
    }
    for (const id of ids) {
      flagProblem(flag, id, check(id));
    }
  }
  let spec: CompileSpec | undefined;
  try {
    spec = parseCompileSpec(readSpecFile(flags.spec), flags.spec);
  } catch (e) {
    if (!(e instanceof InputError)) {
      throw e;
    }
    problems.push(...e.problems.map((p) => (p.startsWith('--spec') ? p : `--spec ${p}`)));
  }
  if (spec !== undefined) {
    const hosts = BUILT_IN_INSTANCES.filter((i) => chipOfFamily(i.family) === spec.chip).map((i) => i.name);
    for (const type of flags.instanceTypes ?? []) {
      if (!hosts.includes(type)) {
        flagProblem('--instance-types', type, `not an instance type with the spec's ${spec.chip} chip, which the compile `
          + `measures the artifact on; use one of ${hosts.join(', ')}`);
      }
    }
    if (flags.instanceTypes !== undefined && flags.instanceTypes.length === 0) {
      problems.push('--instance-types: names none; leave it out to size the host from --model-size-gib');
    }
  }
  InputError.throwIfAny(problems);
  const checked = spec as CompileSpec;
  const instanceTypes = compileHostTypes(checked, flags.modelSizeGib ?? 1, flags.instanceTypes);
  if (instanceTypes.length === 0) {
    throw new InputError(`--model-size-gib ${flags.modelSizeGib}: no ${checked.chip} instance has the RAM to compile it; pass --instance-types`);
  }
  return { spec: checked, prefix, instanceTypes };
}

/** Registers `compile` on the program. */
export function registerCompileCommand(program: Command, io: CliIo, clientsFor: CompileClientFactory = defaultClients,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms))): void {
  program
    .command('compile')
    .description('Compile a model for its Neuron chip on a compile instance (the same job NeuronCompileJob runs), cached by content hash')
    .requiredOption('--spec <file>', 'the compile spec JSON (docs/compile.md)', once('--spec'))
    .requiredOption('--bucket <name>', 'bucket the artifacts go to, under <prefix><hash>/', once('--bucket'))
    .option('--prefix <prefix>', "key prefix of the artifacts, ending with '/' (default compiled/)", once('--prefix'))
    .requiredOption('--region <region>', 'AWS region of the bucket and the compile instance', once('--region'))
    .requiredOption('--instance-profile <arn>', 'instance profile whose role reads the source and writes the artifact prefix', once('--instance-profile'))
    .requiredOption('--subnets <list>', 'subnets to launch in, comma-separated; each is a capacity fallback', onceParsed('--subnets', list))
    .requiredOption('--security-groups <list>', 'security groups of the compile instance, comma-separated', onceParsed('--security-groups', list))
    .option('--instance-types <list>', 'compile instance types, tried in order (default: sized from --model-size-gib)', onceParsed('--instance-types', list))
    .option('--model-size-gib <n>', 'size of the model weights, which sizes the host RAM (default 1)', onceParsed('--model-size-gib', positiveNumber))
    .option('--timeout-minutes <n>', 'longest the compile may run (default 120)', onceParsed('--timeout-minutes', positiveInteger))
    .option('--poll-seconds <n>', 'time between checks with --wait (default 30)', onceParsed('--poll-seconds', positiveInteger))
    .option('--wait', 'follow the compile until its manifest or failure')
    .option('--json', 'print the manifest (or, without --wait, the started job) as JSON')
    .action(async (flags: CompileFlags) => {
      const { spec, prefix, instanceTypes } = checkCompileFlags(flags);
      const script = readCompileScript();
      const hash = compileHash(spec, [{ name: 'compile.py', content: script }]);
      const clients = clientsFor(flags.region);
      const scriptKey = `${prefix}scripts/${sha256Hex(script)}.py`;
      const config: CompileJobConfig = {
        spec, hash, region: flags.region, bucket: flags.bucket, prefix,
        timeoutSeconds: (flags.timeoutMinutes ?? 120) * 60,
        backend: 'instance',
        instance: {
          instanceTypes,
          subnetIds: flags.subnets,
          securityGroupIds: flags.securityGroups,
          instanceProfileArn: flags.instanceProfile,
          amiParameter: DLAMI_PARAMETERS[spec.chip],
          extraVolumeGiB: Math.ceil(20 + 4 * (flags.modelSizeGib ?? 1)),
          scriptS3Uri: `s3://${flags.bucket}/${scriptKey}`,
          scriptSha256: sha256Hex(script),
        },
      };
      const artifactUri = `s3://${flags.bucket}/${artifactPrefixOf(prefix, hash)}`;
      io.stderr(`hash ${hash}: ${artifactUri}\n`);
      // Uploaded before the lookup so an adopted or new compile host always finds the script it was made with.
      await clients.s3.send(new PutObjectCommand({ Bucket: flags.bucket, Key: scriptKey, Body: script }));
      const state: CompileJobState = await startCompileJob(config, clients);
      if (state.status === 'cached' && state.manifest) {
        io.stdout(flags.json ? `${JSON.stringify({ cached: true, artifactS3Uri: artifactUri, manifest: state.manifest }, null, 2)}\n` : summary(state.manifest, artifactUri, true));
        return;
      }
      for (const skipped of state.skipped) {
        io.stderr(`no capacity: ${skipped}\n`);
      }
      io.stderr(`${state.status === 'adopted' ? 'following the running compile' : 'launched'} ${state.instanceId} (${state.instanceType})\n`);
      if (!flags.wait) {
        const started = { cached: false, artifactS3Uri: artifactUri, hash, instanceId: state.instanceId, instanceType: state.instanceType, attemptId: state.attemptId };
        io.stdout(flags.json ? `${JSON.stringify(started, null, 2)}\n` : `started: ${state.instanceId} on ${state.instanceType}; `
          + 'run the same command with --wait to follow it\n');
        return;
      }
      for (;;) {
        const manifest = await checkCompileJob(config, state, clients);
        if (manifest !== undefined) {
          io.stdout(flags.json ? `${JSON.stringify({ cached: false, artifactS3Uri: artifactUri, manifest }, null, 2)}\n` : summary(manifest, artifactUri, false));
          return;
        }
        io.stderr(`compiling on ${state.instanceType} (${state.instanceId}): ${elapsed(Date.now() - state.startedAt)}\n`);
        await sleep((flags.pollSeconds ?? 30) * 1000);
      }
    });
}
