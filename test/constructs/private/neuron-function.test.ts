import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { HANDLER_BUNDLES_DIR, NeuronFunction, prebuiltHandler } from '../../../constructs/private/neuron-function';
import { InputError } from '../../../lib/errors';

const REPO = path.join(__dirname, '..', '..', '..');
const SMOKE_ENTRY = path.join(REPO, 'lambdas', 'smoke-benchmark', 'index.ts');
/** What the compiled smoke-benchmark construct passes as entry from the installed package: no such file exists. */
const PACKAGED_ENTRY = path.join(REPO, 'dist', 'lambdas', 'smoke-benchmark', 'index.ts');

const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'neuron-function-'));
  tempDirs.push(dir);
  return dir;
}

function bundlesDirWith(hook: string, code: string): string {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, hook));
  fs.writeFileSync(path.join(dir, hook, 'index.js'), code);
  return dir;
}

describe('NeuronFunction deploys the prebuilt handler bundle when the package ships one', () => {
  test('in this repository, the bundles folder does not exist, so handlers bundle from source', () => {
    // GIVEN the sources, as jest and `npx cdk synth` run them
    // WHEN the bundle of the smoke benchmark is looked up
    // THEN none is found: the construct file is not under dist/
    expect(fs.existsSync(HANDLER_BUNDLES_DIR)).toBe(false);
    expect(prebuiltHandler(SMOKE_ENTRY)).toBeUndefined();
  });

  test('a bundle in the bundles folder is the function code, without esbuild or the handler source', () => {
    // GIVEN a bundles folder holding smoke-benchmark/index.js, and an entry that does not exist (the package case)
    const code = 'exports.handler = async () => "prebuilt";\n';
    const bundlesDir = bundlesDirWith('smoke-benchmark', code);
    const app = new App();
    const stack = new Stack(app, 'Stack');

    // WHEN the function is defined
    new NeuronFunction(stack, 'Function', { entry: PACKAGED_ENTRY, bundlesDir });

    // THEN it runs index.handler from an asset holding exactly that bundle
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.handler',
      Runtime: NeuronFunction.RUNTIME.name,
    });
    const assembly = app.synth();
    const staged = fs.readdirSync(assembly.directory).filter((f) => f.startsWith('asset.'));
    expect(staged).toHaveLength(1);
    expect(fs.readdirSync(path.join(assembly.directory, staged[0]))).toEqual(['index.js']);
    expect(fs.readFileSync(path.join(assembly.directory, staged[0], 'index.js'), 'utf8')).toBe(code);
  });

  test('a bundle of another handler is not used', () => {
    // GIVEN a bundles folder with another hook's bundle only
    const bundlesDir = bundlesDirWith('other-hook', 'exports.handler = async () => 1;\n');

    // WHEN the smoke benchmark's bundle is looked up
    // THEN there is none
    expect(prebuiltHandler(PACKAGED_ENTRY, bundlesDir)).toBeUndefined();
    expect(prebuiltHandler(SMOKE_ENTRY, bundlesDir)).toBeUndefined();
  });

  test('neither a bundle nor the source: one InputError naming both and the fix, and nothing defined', () => {
    // GIVEN an empty bundles folder and an entry that does not exist (a package installed without its build)
    const bundlesDir = tempDir();
    const stack = new Stack(new App(), 'Stack');

    // WHEN the function is defined
    const define = () => new NeuronFunction(stack, 'Function', { entry: PACKAGED_ENTRY, bundlesDir });

    // THEN it throws before the log group and the role exist
    expect(define).toThrow(InputError);
    expect(define).toThrow(`the handler bundle smoke-benchmark/index.js is not in ${bundlesDir} and its source `
      + `${PACKAGED_ENTRY} is not there to bundle`);
    expect(define).toThrow('run `npm run build` in its clone');
    expect(stack.node.children).toHaveLength(0);
  });
});
