/**
 * Fails when the committed API reference (docs/api/) is not what the TSDoc generates today.
 *
 * `npm run docs` regenerates it (typedoc with typedoc-plugin-markdown, typedoc.json); `npm run docs:check`, part of
 * `npm test`, generates into a temporary folder and compares, so the reference the README links to cannot go stale.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '..');
const COMMITTED = path.join(ROOT, 'docs', 'api');

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
    const generated = files(out);
    const committed = files(COMMITTED);
    const stale = [...new Set([...generated, ...committed])].filter((f) => !generated.includes(f)
      || !committed.includes(f)
      || !fs.readFileSync(path.join(out, f)).equals(fs.readFileSync(path.join(COMMITTED, f))));
    if (stale.length > 0) {
      process.stderr.write(`docs:check: docs/api/ is not what the TSDoc generates (${stale.join(', ')}); run \`npm run `
        + 'docs` and commit docs/api/\n');
      return 1;
    }
    process.stdout.write('docs:check: docs/api/ is current\n');
    return 0;
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

process.exitCode = main();
