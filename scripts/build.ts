/**
 * The package build (`npm run build`, also run by `npm pack` and `npm publish` through `prepack`):
 * 1. compiles the library, its declarations and the CLI into `dist/` (tsconfig.build.json);
 * 2. bundles every Lambda handler `lambdas/<hook>/index.ts` into `dist/handlers/<hook>/index.js`, with the same
 *    esbuild settings NeuronFunction uses from source, so an installed package deploys its handlers without esbuild
 *    or TypeScript.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { buildSync } from 'esbuild';
import { HANDLER_BUNDLING, NeuronFunction } from '../constructs/private/neuron-function';

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const LAMBDAS = path.join(ROOT, 'lambdas');

/** `nodejs24.x` -> `node24`: the target NodejsFunction derives from the runtime. */
function esbuildTarget(runtimeName: string): string {
  const match = /^nodejs(\d+)/.exec(runtimeName);
  if (!match) {
    throw new Error(`build: cannot derive an esbuild target from runtime ${runtimeName}`);
  }
  return `node${match[1]}`;
}

function compile(): void {
  fs.rmSync(DIST, { recursive: true, force: true });
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (tsc.status !== 0) {
    throw new Error(`build: tsc -p tsconfig.build.json failed with exit code ${tsc.status}`);
  }
}

function bundleHandlers(): string[] {
  const hooks = fs.readdirSync(LAMBDAS).filter((hook) => fs.existsSync(path.join(LAMBDAS, hook, 'index.ts'))).sort();
  for (const hook of hooks) {
    buildSync({
      entryPoints: [path.join(LAMBDAS, hook, 'index.ts')],
      outfile: path.join(DIST, 'handlers', hook, 'index.js'),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: esbuildTarget(NeuronFunction.RUNTIME.name),
      minify: HANDLER_BUNDLING.minify,
      sourcemap: HANDLER_BUNDLING.sourceMap,
      sourcesContent: HANDLER_BUNDLING.sourcesContent,
      external: [...HANDLER_BUNDLING.externalModules],
      logLevel: 'warning',
    });
  }
  return hooks;
}

try {
  compile();
  const hooks = bundleHandlers();
  process.stdout.write(`build: dist/ compiled; handlers bundled: ${hooks.join(', ')}\n`);
} catch (e) {
  // A failed build must fail `npm pack`; the compiler or esbuild has already printed the details.
  process.stderr.write(`${(e as Error).message}\n`);
  process.exitCode = 1;
}
