/**
 * The `cdk-inferentia` command line: plan, catalog, profiles, bench, preflight, promote and compile.
 *
 * Exit codes: 0 success, 1 when no plan fits, a benchmark or preflight check or a compile fails or AWS refuses a call, 2 on bad usage.
 * Results go to stdout, messages to stderr.
 */
import { Command, CommanderError } from 'commander';
import { version } from './version';
import { BenchFailedError } from '../lib/bench';
import { AwsCallError, awsProblemOf, describeAwsError } from '../lib/aws-errors';
import { CompileJobFailedError } from '../io/compile/job';
import { InfeasibleError, InputError } from '../lib/errors';
import { PreflightFailedError } from '../io/preflight/index';
import { registerBenchCommand } from './commands/bench';
import { registerCalibrateCommand } from './commands/calibrate';
import { registerCatalogCommand } from './commands/catalog';
import { registerCompileCommand } from './commands/compile';
import type { CliIo } from './commands/io';
import { registerPlanCommand } from './commands/plan';
import { registerPreflightCommand } from './commands/preflight';
import { registerProfilesCommand } from './commands/profiles';
import { registerPromoteCommand } from './commands/promote';
import { PromotionRefusedError } from '../lib/release';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** The program with every command registered; `exitOverride` so errors come back to `runCli`. */
export function buildProgram(io: CliIo, options: { isTTY?: boolean } = {}): Command {
  const program = new Command('cdk-inferentia')
    .description('Plan, deploy and prove ML inference on AWS Inferentia and Trainium at the lowest cost that meets its targets')
    .version(version)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(add --help for usage)');
  registerPlanCommand(program, io, { isTTY: options.isTTY ?? false });
  registerCatalogCommand(program, io);
  registerProfilesCommand(program, io);
  registerBenchCommand(program, io, { isTTY: options.isTTY ?? false });
  registerCalibrateCommand(program, io);
  registerPreflightCommand(program, io);
  registerPromoteCommand(program, io);
  registerCompileCommand(program, io);
  for (const command of program.commands) {
    command.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  }
  return program;
}

/** Runs the CLI on `argv` (without node and script) and returns the exit code; never calls process.exit. */
export async function runCli(argv: readonly string[], io: CliIo, options: { isTTY?: boolean } = {}): Promise<number> {
  try {
    await buildProgram(io, options).parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version exit through here with code 0; commander has already printed its message.
      return e.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (e instanceof InputError) {
      io.stderr(`error: ${e.message}\n`);
      return EXIT_USAGE;
    }
    if (e instanceof InfeasibleError) {
      io.stderr(`error: ${e.message}\n`);
      return EXIT_FAILED;
    }
    if (e instanceof BenchFailedError || e instanceof PreflightFailedError || e instanceof PromotionRefusedError
      || e instanceof CompileJobFailedError) {
      io.stderr(`error: ${e.message}\n`);
      return EXIT_FAILED;
    }
    if (e instanceof AwsCallError || awsProblemOf(e) !== undefined) {
      // Missing credentials, a region not enabled, an API refusal: the user's environment, not our bug.
      io.stderr(`error: ${describeAwsError(e)}\n`);
      return EXIT_FAILED;
    }
    throw e;
  }
}

/**
 * Turns off the AWS SDK's eight-line warning that its releases after January 2027 need Node 22, which it prints on
 * the first client of every command, before a usage error or an answer. It is about SDK versions this package has
 * not installed: the SDK it ships runs on Node 20 (package.json `engines`), and the README says when Node 22 is
 * needed. A user who sets the variable keeps their value.
 *
 * @see https://github.com/aws/aws-sdk-js-v3/issues/7983
 */
export function quietAwsSdkNodeWarning(env: NodeJS.ProcessEnv): void {
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}

/** Entry point of the `cdk-inferentia` executable (bin/cdk-inferentia.js). */
export function main(): void {
  quietAwsSdkNodeWarning(process.env);
  const io: CliIo = { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) };
  runCli(process.argv.slice(2), io, { isTTY: process.stderr.isTTY === true })
    .then((code) => {
      process.exitCode = code;
    })
    .catch((e: unknown) => {
      process.stderr.write(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 3;
    });
}
