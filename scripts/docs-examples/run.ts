/**
 * Runs the pages' offline commands in-process (bin/cli.ts `runCli`, no process per command) and says which it did not
 * run and why: a command that calls AWS, a template with placeholders, or one that reads what such a command writes.
 */
import * as fs from 'fs';
import * as path from 'path';
import { runCli } from '../../bin/cli';
import type { Page, PageCommand } from './pages';

/** What a command printed. */
export interface CommandRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Why a command was not run, or its run. */
export type Outcome = { readonly run: CommandRun } | { readonly skipped: string } | { readonly problem: string };

/** The subcommands that need no AWS call (calibrate only from a local report). */
export function needsAws(argv: readonly string[]): string | undefined {
  const [command, sub] = argv;
  if (command === 'plan' || command === 'profiles') return undefined;
  if (command === 'catalog') return sub === 'refresh' ? 'catalog refresh reads AWS prices' : undefined;
  if (command === 'calibrate') {
    const report = argv[argv.indexOf('--report') + 1] ?? '';
    return report.startsWith('s3://') ? 'calibrate reads its report from S3' : undefined;
  }
  return `${command} calls AWS`;
}

/**
 * The placeholders of a template (`<digest>`, `FILE`, `REGION`), or an elision (`...`), which a page may not leave in
 * an offline command: such a command is written out so that it runs, or shown with named placeholders.
 */
export function placeholders(argv: readonly string[]): { named: string[]; elided: boolean } {
  return {
    named: argv.filter((a) => /<[^>]*>/.test(a) || /^[A-Z][A-Z0-9_]*$/.test(a) || /(^|[./@])[A-Z]{2,}(?=[./@]|$)/.test(a)),
    elided: argv.some((a) => a.includes('...') || a === '…'),
  };
}

/**
 * Runs commands, each distinct one once (the same plan is shown on several pages). Files a command writes (`--out`,
 * `> file`) go to `scratch`, where the page's later commands read them.
 */
export class CommandRunner {
  private readonly cache = new Map<string, Promise<CommandRun>>();

  constructor(private readonly scratch: string) {}

  /** What each command of the page did, in page order. */
  async runPage(page: Page): Promise<Map<PageCommand, Outcome>> {
    const outcomes = new Map<PageCommand, Outcome>();
    // Files the page's commands write: those a skipped command writes are not there for the commands after it.
    const written = new Map<string, boolean>();
    for (const item of page.items) {
      if (!('command' in item)) continue;
      const command = item.command;
      const outputs = [...outputsOf(command)];
      const aws = needsAws(command.argv);
      const { named, elided } = placeholders(command.argv);
      const missing = command.argv.find((a) => written.get(a) === false);
      let outcome: Outcome;
      if (aws !== undefined) {
        outcome = { skipped: aws };
      } else if (elided) {
        outcome = { problem: 'elides part of the command with "...": write it out (this test runs it), or name what the reader fills in as a <placeholder>' };
      } else if (named.length > 0) {
        outcome = { skipped: `a template (${named.join(', ')})` };
      } else if (missing !== undefined) {
        outcome = { skipped: `reads ${missing}, which a command above writes where this test cannot run it` };
      } else {
        outcome = { run: await this.run(command.argv.map((a) => (written.get(a) ? this.file(a) : a)), command.stdoutTo) };
      }
      const ran = 'run' in outcome && outcome.run.code === 0;
      for (const file of outputs) written.set(file, ran);
      outcomes.set(command, outcome);
    }
    return outcomes;
  }

  /** Runs `argv` (each distinct one once), its `--out` files and stdout redirect kept in the scratch folder. */
  run(argv: readonly string[], stdoutTo?: string): Promise<CommandRun> {
    const out = argv.indexOf('--out');
    const args = out < 0 ? [...argv] : argv.map((a, i) => (i === out + 1 ? this.file(a) : a));
    const key = JSON.stringify(args);
    let run = this.cache.get(key);
    if (run === undefined) {
      run = runCommand(args);
      this.cache.set(key, run);
    }
    return run.then((r) => {
      if (stdoutTo !== undefined) {
        fs.writeFileSync(this.file(stdoutTo), r.stdout);
      }
      return r;
    });
  }

  private file(name: string): string {
    return path.join(this.scratch, name.replace(/[/\\]/g, '_'));
  }
}

function* outputsOf(command: PageCommand): Iterable<string> {
  const out = command.argv.indexOf('--out');
  if (out >= 0 && command.argv[out + 1] !== undefined) yield command.argv[out + 1];
  if (command.stdoutTo !== undefined) yield command.stdoutTo;
}

/** Runs the CLI in this process, as `cdk-inferentia` would with stderr not a terminal. */
async function runCommand(argv: readonly string[]): Promise<CommandRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => { stdout += s; }, stderr: (s) => { stderr += s; } });
  return { code, stdout, stderr };
}
