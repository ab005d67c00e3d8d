/**
 * `npm run docs:examples`: runs every offline `cdk-inferentia` command of README.md and docs/*.md as written, in this
 * process, and checks the pages against what the commands print (test/scripts/docs-examples.test.ts runs the same
 * check in `npm test`). With `--write` it regenerates the blocks marked `<!-- docs:output ... -->`.
 *
 * The markers (invisible on GitHub):
 * - `<!-- docs:figures -->` before a paragraph: each figure of it (a price, a number with decimals or thousands, an
 *   integer of 100 or more) is printed about the chosen plan by the page's last command run before it;
 *   `<!-- docs:figures: cdk-inferentia plan ...; cdk-inferentia plan ... -->` names the commands instead, and
 *   `docs:figures all` also takes figures from the alternatives and rejections;
 * - `<!-- docs:output rows="instance type, cost" -->` before a fenced block: the block is the heading and the named
 *   summary rows of the page's last command run before it.
 *
 * Commands that call AWS (bench, preflight, promote, compile, catalog refresh, calibrate from S3) are not run, nor are
 * templates with named placeholders (`<digest>`, `FILE`) or commands that read what such a command writes; an
 * offline command elided with `...` is refused. Exit code 0 when the pages hold, 1 when not.
 */
import * as fs from 'fs';
import * as path from 'path';
import { checkDocsExamples } from './docs-examples/check';

const ROOT = path.join(__dirname, '..');

async function main(): Promise<number> {
  const write = process.argv.includes('--write');
  const started = Date.now();
  const report = await checkDocsExamples(ROOT);
  for (const c of report.commands) {
    process.stdout.write(`${c.where}: ${c.outcome}: ${c.command}\n`);
  }
  if (write) {
    for (const [file, text] of report.regenerated) {
      fs.writeFileSync(path.join(ROOT, file), text);
      process.stdout.write(`docs:examples: regenerated the output blocks of ${file}\n`);
    }
  }
  const left = write ? report.problems.filter((p) => !p.message.includes('npm run docs:examples -- --write')) : report.problems;
  for (const p of left) {
    process.stderr.write(`\n${p.where}: ${p.message}\n`);
  }
  const ran = report.commands.filter((c) => c.outcome.startsWith('ran')).length;
  process.stdout.write(`docs:examples: ${ran} of ${report.commands.length} commands run in ${((Date.now() - started) / 1000).toFixed(1)} s, `
    + `${left.length} problem(s)\n`);
  return left.length === 0 ? 0 : 1;
}

main().then((code) => {
  process.exitCode = code;
}, (e: unknown) => {
  process.stderr.write(`docs:examples: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 2;
});
