/**
 * Proves a refactoring left the example app's templates as they were: synthesizes the app (offline, as `npx cdk
 * synth` does) and compares every `*.template.json` under the cloud assembly, stage assemblies included, with the
 * same file under a baseline assembly made the same way before the change.
 *
 *   npx cdk synth -q -o /tmp/before          # on the commit before the change
 *   npx tsx scripts/templates-unchanged.ts /tmp/before [--mask-assets]
 *
 * `--mask-assets` replaces asset hashes (and the function version ids derived from them) before comparing. Use it
 * only where the change moved source files a Lambda bundle is built from: the bundle's source map carries their
 * paths, so its hash changes while the template does not otherwise. It also masks other 64-hex values, such as a
 * deployment fingerprint: say in the change why one of those moved. Exit 0 when every template matches, 1 with the differing files listed otherwise.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

function templates(dir: string, base = dir): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith('asset.') ? [] : templates(full, base);
    return entry.name.endsWith('.template.json') ? [path.relative(base, full)] : [];
  });
}

function main(argv: string[]): number {
  const baseline = argv.find((a) => !a.startsWith('--'));
  if (!baseline || !fs.existsSync(baseline)) {
    process.stderr.write('usage: tsx scripts/templates-unchanged.ts BASELINE_CDK_OUT [--mask-assets]\n');
    return 2;
  }
  const mask = argv.includes('--mask-assets');
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'templates-'));
  execFileSync('npx', ['cdk', 'synth', '-q', '-o', out], { cwd: path.join(__dirname, '..'), stdio: ['ignore', 'ignore', 'inherit'] });
  // A function version's logical id ends in a hash of its code, so it follows the asset hash.
  const normalize = (text: string): string => (mask
    ? text.replace(/[0-9a-f]{64}/g, '<hash>').replace(/(CurrentVersion[0-9A-F]{8})[0-9a-f]{32}/g, '$1<hash>')
      // A pipeline's asset-publishing step names its destination by account, region and a hash of the asset.
      .replace(/(<hash>:\d{12}-[a-z0-9-]+-)[0-9a-f]{8}/g, '$1<hash>')
    : text);
  const before = templates(baseline);
  const after = new Set(templates(out));
  const problems: string[] = [];
  for (const file of before) {
    if (!after.has(file)) problems.push(`${file}: missing after the change`);
    else if (normalize(fs.readFileSync(path.join(baseline, file), 'utf8')) !== normalize(fs.readFileSync(path.join(out, file), 'utf8'))) {
      problems.push(`${file}: differs (diff ${path.join(baseline, file)} ${path.join(out, file)})`);
    }
    after.delete(file);
  }
  for (const file of after) problems.push(`${file}: new after the change`);
  process.stdout.write(`${before.length} templates compared${mask ? ' (asset hashes masked)' : ''}: `
    + `${problems.length === 0 ? 'all identical' : `${problems.length} differ`}\n`);
  for (const problem of problems) process.stdout.write(`  ${problem}\n`);
  return problems.length === 0 ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
