/**
 * What importing the package costs: builds it (tsconfig.build.json) into a temporary directory, then, in fresh Node
 * processes, requires `cdk-inferentia/planner` (dist/lib/index.js) and the package root (dist/index.js) and prints
 * the modules each loads (its own and its dependencies', AWS SDK, undici and zod counted apart) and the time, median
 * of five runs. Budgets: the planner loads no AWS SDK or HTTP client; neither entry loads zod (schemas are built on
 * first parse); the root at most 210 modules and no SDK client (checked again by the consumer test on the packed
 * package).
 *
 *   npm run bench:import
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..');
const RUNS = 5;

interface Load {
  readonly modules: number;
  readonly sdk: number;
  readonly undici: number;
  readonly zod: number;
  readonly ms: number;
}

function measure(entry: string, cwd: string): Load {
  const script = `const t = process.hrtime.bigint(); require(${JSON.stringify(entry)});`
    + 'const ms = Number(process.hrtime.bigint() - t) / 1e6; const files = Object.keys(require.cache);'
    + "console.log(JSON.stringify({ modules: files.length, sdk: files.filter((f) => f.includes('/node_modules/@aws-sdk/')).length,"
    + " undici: files.filter((f) => f.includes('/node_modules/undici/')).length,"
    + " zod: files.filter((f) => f.includes('/node_modules/zod/')).length, ms }));";
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd, encoding: 'utf8' })) as Load;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function main(): void {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-import-'));
  process.stderr.write(`building into ${out} ...\n`);
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', path.join(out, 'dist')],
    { cwd: ROOT, stdio: 'inherit' });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(out, 'node_modules'));
  for (const [name, entry] of [['cdk-inferentia/planner', './dist/lib/index.js'], ['cdk-inferentia', './dist/index.js']]) {
    const runs = Array.from({ length: RUNS }, () => measure(entry, out));
    const { modules, sdk, undici, zod } = runs[0];
    process.stdout.write(`${name}: ${modules} modules (@aws-sdk ${sdk}, undici ${undici}, zod ${zod}), `
      + `${median(runs.map((r) => r.ms)).toFixed(0)} ms median of ${RUNS}\n`);
  }
  fs.rmSync(out, { recursive: true, force: true });
}

main();
