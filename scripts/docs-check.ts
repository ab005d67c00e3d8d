/**
 * Fails when the committed API reference (docs/api/) is not what the TSDoc generates today, or when a relative link of
 * the reference or of the hand-written pages leads nowhere.
 *
 * `npm run docs` regenerates the reference (typedoc with typedoc-plugin-markdown and scripts/typedoc-cdk.mjs,
 * typedoc.json: a page per class, interface, function and type, `@default` as text, aws-cdk-lib types linked to the
 * AWS CDK reference); `npm run docs:check`, part of `npm test`, generates it into a temporary folder and compares, so
 * the reference the README links to cannot go stale. The links are checked in the generated pages and in README.md,
 * SOURCES.md, CHANGELOG.md, docs/, serving/ and examples/ (scripts/docs-links.ts).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { brokenLinks, markdownFiles } from './docs-links';

const ROOT = path.join(__dirname, '..');
const COMMITTED = path.join(ROOT, 'docs', 'api');

/** The hand-written pages whose links are checked (docs/api/ is checked as generated). */
function handWrittenPages(): string[] {
  return [
    ...['README.md', 'SOURCES.md', 'CHANGELOG.md'].filter((f) => fs.existsSync(path.join(ROOT, f))),
    ...markdownFiles(ROOT, 'docs').filter((f) => !f.startsWith(path.join('docs', 'api') + path.sep)),
    ...markdownFiles(ROOT, 'serving'),
    ...markdownFiles(ROOT, 'examples'),
  ];
}

/** Every file under `dir`, relative, sorted. */
function files(dir: string): string[] {
  if (!fs.existsSync(dir)) {
    return [];
  }
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .sort();
}

function main(): number {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-inferentia-docs-'));
  try {
    const bin = path.join(path.dirname(require.resolve('typedoc/package.json')), 'bin', 'typedoc');
    const typedoc = spawnSync(process.execPath, [bin, '--out', out, '--logLevel', 'Error'], { cwd: ROOT, stdio: 'inherit' });
    if (typedoc.status !== 0) {
      process.stderr.write(`docs:check: typedoc failed with exit code ${typedoc.status}\n`);
      return 1;
    }
    const broken = [
      ...brokenLinks(out, files(out).filter((f) => f.endsWith('.md'))).map((b) => ({ ...b, page: path.join('docs', 'api', b.page) })),
      ...brokenLinks(ROOT, handWrittenPages()),
    ];
    for (const b of broken) {
      process.stderr.write(`docs:check: ${b.page}:${b.line}: broken link ${b.link}: ${b.problem}\n`);
    }
    const generated = files(out);
    const committed = files(COMMITTED);
    const stale = [...new Set([...generated, ...committed])].filter((f) => !generated.includes(f)
      || !committed.includes(f)
      || !fs.readFileSync(path.join(out, f)).equals(fs.readFileSync(path.join(COMMITTED, f))));
    if (stale.length > 0) {
      const shown = stale.length > 20 ? [...stale.slice(0, 20), `and ${stale.length - 20} more`] : stale;
      process.stderr.write(`docs:check: docs/api/ is not what the TSDoc generates (${shown.join(', ')}); run \`npm run `
        + 'docs` and commit docs/api/\n');
    }
    if (stale.length > 0 || broken.length > 0) {
      return 1;
    }
    process.stdout.write(`docs:check: docs/api/ is current (${generated.length} pages); no broken relative link in it or the pages\n`);
    return 0;
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

process.exitCode = main();
