/**
 * What importing a package entry loads at run time, not what its files name: zod is required by the schemas in
 * lib/ the first time one parses (lib/lazy-schema.ts), so neither `cdk-inferentia` nor `cdk-inferentia/planner`
 * loads it on import. A schema built at module level again would load zod's 95 modules with the entry.
 */
import { execFileSync } from 'child_process';
import * as path from 'path';
import { ROOT } from './source-graph';

/** The packages (under node_modules) a fresh Node process has loaded after `require(entry)` and then `after`. */
function loadedPackages(entry: string, after = ''): string[] {
  const script = `require(${JSON.stringify(path.join(ROOT, entry))});${after}`
    + "const names = Object.keys(require.cache).filter((f) => f.includes('/node_modules/'))"
    + ".map((f) => f.slice(f.lastIndexOf('/node_modules/') + 14).split('/').slice(0, 1).join('/'));"
    + 'console.log(JSON.stringify([...new Set(names)]));';
  // tsx compiles the TypeScript sources on require, and loads no package but itself and esbuild.
  const out = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out) as string[];
}

describe('the package entries at run time', () => {
  test.each(['lib/index.ts', 'index.ts'])('GIVEN %s WHEN it is required THEN no zod module is loaded', (entry) => {
    expect(loadedPackages(entry)).not.toContain('zod');
  });

  test('GIVEN the planner entry WHEN a price file is parsed THEN zod is loaded then, and the file still validated', () => {
    // The probe sees zod once a schema is used: the test above would fail if an entry loaded it.
    const parse = "const { parsePriceFile } = require(require('path').join(process.cwd(), 'lib/index.ts'));"
      + "try { parsePriceFile({ prices: [] , extra: 1 }, 'p.json'); process.exit(3); } catch (e) {"
      + " if (!String(e.message).includes('unknown field \"extra\"')) { console.error(e.message); process.exit(4); } }";
    expect(loadedPackages('lib/index.ts', parse)).toContain('zod');
  });
});
