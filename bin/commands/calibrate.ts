/**
 * `cdk-inferentia calibrate`: turns a measured run (the capacity proof's report, or `bench --plan --json` output)
 * into a calibrated profile that `plan --profile` plans from.
 */
import { existsSync, statSync, writeFileSync } from 'fs';
import { dirname } from 'path';
import type { Command } from 'commander';
import { readS3Report, reportClient } from '../../io/calibration';
import { s3UriProblem } from '../../lib/aws-names';
import { isAwsRegion } from '../../lib/catalog';
import { calibrateProfile, readCalibrationRecord } from '../../lib/calibration';
import { calibrateGenerativeProfile, isGenerativeCalibration, readGenerativeCalibrationRecord } from '../../lib/calibration/generative';
import { findGenerativeProfile, parseGenerativeProfile } from '../../lib/generative';
import type { GenerativeProfile } from '../../lib/generative';
import { InputError } from '../../lib/errors';
import { profileKindOf } from '../../lib/generative/schema';
import { findProfile, parseProfile } from '../../lib/profiles';
import type { ModelProfile } from '../../lib/profiles';
import { messageOf, readJsonFile } from './files';
import type { CliIo } from './io';
import { addOnceOptions } from './once';

/** The flags as commander hands them over. */
export interface CalibrateFlags {
  readonly report?: string;
  readonly out?: string;
  readonly profile?: string;
  readonly region?: string;
  readonly json?: boolean;
}

/** What the command reads the report with; tests pass their own. */
export interface CalibrateCommandOptions {
  /** Reads an `s3://` report. @default - GetObject with the SDK's credential chain */
  readonly readS3?: (uri: string, region: string | undefined) => Promise<string>;
  /** The calibration's date. @default - now */
  readonly now?: () => Date;
}

const EXAMPLE_URI = 's3://my-reports/smoke-benchmarks/bert-staging/latest.json';

/**
 * Registers `calibrate` on the program.
 *
 * Every flag is checked before the report is read, and an `s3://` report is the only AWS call: a local file needs no
 * credentials. Bad input throws `InputError` (exit 2); a report that cannot calibrate says why, also with exit 2.
 */
export function registerCalibrateCommand(program: Command, io: CliIo, options: CalibrateCommandOptions = {}): Command {
  return addOnceOptions(program.command('calibrate'), [
    ['--report <uri|file>', `the report: an s3:// URI (e.g. ${EXAMPLE_URI}) or a local file`],
    ['--out <file>', 'where to write the calibrated profile (JSON)'],
    ['--profile <file>', 'the profile the plan was made from, when it is not the built-in one the report names'],
    ['--region <region>', 'region of the S3 client for an s3:// report (default: the SDK chain; the bucket\'s own is followed)'],
  ])
    .description(
      'turn a measured run into a calibrated profile: the capacity proof\'s report (s3:// URI or file) or bench --plan --json ' +
        'output, against the profile the plan was made from; then plan --profile OUT plans from what the deployment did',
    )
    .option('--json', 'print { profile, warnings } as JSON instead of the summary')
    .action(async (flags: CalibrateFlags) => {
      checkFlags(flags);
      const report = flags.report as string;
      const out = flags.out as string;
      const text = report.startsWith('s3://')
        ? await (options.readS3 ?? defaultReadS3)(report, flags.region)
        : undefined;
      const json = text !== undefined ? parseJson(report, text) : readJsonFile('--report', report);
      if (isGenerativeCalibration(json)) {
        calibrateGenerative(json, flags, io);
        return;
      }
      const record = readCalibrationRecord(json, report);
      const original = originalProfile(flags.profile, record.plan.profileId);
      const calibratedAt = (options.now ?? (() => new Date()))().toISOString();
      const { profile, warnings } = calibrateProfile(record, original, { source: report, calibratedAt });
      try {
        writeFileSync(out, `${JSON.stringify(profile, null, 2)}\n`);
      } catch (e) {
        throw new InputError(`--out ${out}: cannot write the file (${messageOf(e)})`);
      }
      if (flags.json === true) {
        io.stdout(`${JSON.stringify({ profile, warnings }, null, 2)}\n`);
        return;
      }
      io.stdout(summary(profile, out));
      for (const warning of warnings) {
        io.stderr(`warning: ${warning}\n`);
      }
    });
}

/** Every flag problem at once, before any file or AWS call. */
function checkFlags(flags: CalibrateFlags): void {
  const problems: string[] = [];
  if (flags.report === undefined) {
    problems.push(`give --report: the capacity proof's report (e.g. --report ${EXAMPLE_URI}) or a file`);
  } else if (flags.report.startsWith('s3://')) {
    const problem = s3UriProblem(flags.report, EXAMPLE_URI);
    if (problem !== undefined || flags.report.endsWith('/')) {
      problems.push(`--report ${flags.report}: ${problem ?? `names a prefix, not an object; e.g. ${EXAMPLE_URI}`}`);
    }
  } else if (!existsSync(flags.report)) {
    problems.push(`--report ${flags.report}: no such file; give a file or an s3:// URI such as ${EXAMPLE_URI}`);
  }
  if (flags.region !== undefined && !isAwsRegion(flags.region)) {
    problems.push(`--region ${flags.region}: not an AWS region code; e.g. --region us-east-1`);
  }
  if (flags.region !== undefined && flags.report !== undefined && !flags.report.startsWith('s3://')) {
    problems.push(`--region ${flags.region}: only applies to an s3:// report`);
  }
  if (flags.out === undefined) {
    problems.push('give --out FILE: where to write the calibrated profile, e.g. --out profile.json');
  } else {
    const dir = dirname(flags.out);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      problems.push(`--out ${flags.out}: the folder ${dir} does not exist; create it or write elsewhere`);
    } else if (existsSync(flags.out) && statSync(flags.out).isDirectory()) {
      problems.push(`--out ${flags.out}: is a folder; name a file, e.g. ${flags.out.replace(/\/$/, '')}/profile.json`);
    }
  }
  if (flags.profile !== undefined && !existsSync(flags.profile)) {
    problems.push(`--profile ${flags.profile}: no such file; leave it out to calibrate the built-in profile the report names`);
  }
  InputError.throwIfAny(problems);
}

async function defaultReadS3(uri: string, region: string | undefined): Promise<string> {
  // followRegionRedirects finds the bucket's region; the client only needs one to start from.
  return readS3Report(reportClient(region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1'), uri);
}

function parseJson(origin: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new InputError(`--report ${origin}: not valid JSON (${messageOf(e)})`);
  }
}

/** `--profile FILE`, or the built-in profile the report's plan was made from. */
function originalProfile(file: string | undefined, reportedId: string): ModelProfile {
  if (file !== undefined) {
    const json = readJsonFile('--profile', file);
    if (profileKindOf(json, `--profile ${file}`) === 'generative') {
      const id = (json as { id?: unknown }).id;
      throw new InputError(`--profile ${file}: a generative profile${typeof id === 'string' ? ` (${id})` : ''}; generative calibration ` +
        'comes from token-proof reports (the generative stacks\' smokeBenchmark.tokens proof, docs/calibration.md), and this ' +
        'report is a single-call calibration record: give the single-call profile its plan was made from');
    }
    return parseProfile(json, file);
  }
  const builtIn = findProfile(reportedId);
  if (builtIn === undefined) {
    throw new InputError(
      `the report measured ${reportedId}, which is not a built-in profile: give the profile the plan was made from with --profile FILE`,
    );
  }
  return builtIn;
}

/** A proof in tokens' report: the deployed configuration's measured row, written into the generative profile. */
function calibrateGenerative(json: unknown, flags: CalibrateFlags, io: CliIo): void {
  const source = flags.report as string;
  const record = readGenerativeCalibrationRecord(json, source);
  const original = flags.profile !== undefined ? generativeProfileFile(flags.profile, record.plan.profileId) : findGenerativeProfile(record.plan.profileId);
  if (original === undefined) {
    throw new InputError(`the report measured ${record.plan.profileId}, which is not a built-in generative profile: give the profile the plan was made from with --profile FILE`);
  }
  const { profile, row, replaced, warnings } = calibrateGenerativeProfile(record, original, { source });
  try {
    writeFileSync(flags.out as string, `${JSON.stringify(profile, null, 2)}\n`);
  } catch (e) {
    throw new InputError(`--out ${flags.out}: cannot write the file (${messageOf(e)})`);
  }
  if (flags.json === true) {
    io.stdout(`${JSON.stringify({ profile, row, replaced, warnings }, null, 2)}\n`);
    return;
  }
  io.stdout(
    [
      `Calibrated ${profile.id} from ${source}: ${replaced ? 'replaced' : 'added'} the measured row ${row.instanceType} tp=${row.tensorParallelDegree} ` +
        `seqs=${row.batchSize} ${row.inputTokens}/${row.outputTokens} tokens: TTFT p50 ${row.ttftP50Ms} p99 ${row.ttftP99Ms} ms, TPOT p50 ${row.tpotP50Ms} p99 ${row.tpotP99Ms} ms.`,
      `Wrote ${flags.out}. Plan from it: cdk-inferentia plan --profile ${flags.out} --throughput <requests/s> --input-tokens <n> --output-tokens <n> ...`,
      '',
    ].join('\n'),
  );
  for (const warning of warnings) {
    io.stderr(`warning: ${warning}\n`);
  }
}

/** `--profile FILE` for a proof in tokens: a generative profile, or one message saying the file is the other kind. */
function generativeProfileFile(file: string, reportedId: string): GenerativeProfile {
  const json = readJsonFile('--profile', file);
  if (profileKindOf(json, `--profile ${file}`) === 'single-call') {
    const id = (json as { id?: unknown } | null)?.id;
    throw new InputError(`--profile ${file}: a single-call profile${typeof id === 'string' ? ` (${id})` : ''}, and this report is a proof in `
      + `tokens of the generative model ${reportedId}: give the generative profile its plan was made from, or leave --profile out for the built-in one`);
  }
  return parseGenerativeProfile(json, file);
}

function summary(profile: ModelProfile, out: string): string {
  const c = profile.calibration!;
  return [
    `Calibrated ${profile.id} from ${c.source} (measured ${c.measuredAt}, ${c.plan.instanceCount} x ${c.plan.instanceType} at ` +
      `${c.plan.offeredRps} requests/s):`,
    ...c.changes.map((change) => `- ${change}`),
    `Wrote ${out}. Plan from it: cdk-inferentia plan --profile ${out} --throughput <requests/s> --p99 <ms> --region <region> --hosting <hosting>`,
    '',
  ].join('\n');
}
