/**
 * The consumer test (`npm run test:consumer`, the last step of `npm test`): the package used the way another CDK app
 * uses it, from its tarball, with none of this repository's toolchain.
 *
 * 1. The README's "Use it in your app" block is test/consumer/app.ts, character for character.
 * 2. `npm pack` (which builds through `prepack`); the tarball holds the build and nothing else.
 * 3. A temporary app installs the tarball, aws-cdk-lib, constructs, typescript, ts-node and @types/node OFFLINE from
 *    the npm cache `npm install` filled, pinned by a lock file cut from this repository's lock: the versions the
 *    suite ran with, and no registry metadata needed.
 * 4. It synthesizes test/consumer/app.ts through the CDK CLI (`npx cdk synth`, cdk.json running ts-node) under the
 *    tsconfig `cdk init` wrote for ts-node apps (CommonJS, no skipLibCheck, so every shipped declaration is
 *    type-checked), with our policy checks applied, and
 *    the same app as plain JavaScript (app.js, made from app.ts here) with plain Node, without them; and
 *    type-checks app.ts under today's `cdk init` tsconfig
 *    (NodeNext, which resolves through `exports`).
 * 5. The assemblies hold the consumer's stack as written (a bert endpoint and a Llama 3.1 8B generative endpoint),
 *    each hosting's rollback alarms hold the alarm the consumer added to it (`addRollbackAlarm`) and page the
 *    consumer's topic, the smoke benchmark Lambda deploys the handler bundle from the package (the app has no
 *    esbuild), and the policy checks ran and found nothing.
 * 6. The installed CLI, the ESM import and the CDK-free `cdk-inferentia/planner` entry work with plain Node.
 *
 * On failure the temporary app is kept and its path printed.
 */
import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as ts from 'typescript';
import { check, checkAssembly, type Template } from './consumer-checks';

const ROOT = path.join(__dirname, '..');
const FIXTURE = path.join(ROOT, 'test', 'consumer');
const STACK = 'Search';

/** What the consumer app installs next to the package, as `cdk init` apps do. */
const CONSUMER_DEPENDENCIES = ['aws-cdk-lib', 'constructs'];
const CONSUMER_DEV_DEPENDENCIES = ['typescript', 'ts-node', '@types/node', 'aws-cdk'];

/** Files a tarball may hold: the manifest, README, licence, the build and the CLI shim. */
const ALLOWED_FILES = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICEN[CS]E(\.\w+)?$/,
  /^CHANGELOG\.md$/,
  /^bin\/cdk-inferentia\.js$/,
  /^dist\/(?!handlers\/).+\.(js|d\.ts)$/,
  /^dist\/handlers\/[a-z0-9-]+\/index\.js(\.map)?$/,
  // The model server's build context (ModelImage.fromServer), without its tests (serving/.npmignore).
  /^serving\/(?!tests\/)[\w/]+\.(py|sh|md)$/,
  /^serving\/(Dockerfile|\.dockerignore)$/,
  // The vLLM wrapper image's build context (ModelImage.fromNeuronVllm).
  /^serving\/vllm\/Dockerfile$/,
];
/** Files the package cannot work without. */
const REQUIRED_FILES = [
  'LICENSE', 'CHANGELOG.md',
  'dist/index.js', 'dist/index.d.ts', 'dist/lib/index.js', 'dist/lib/index.d.ts', 'dist/bin/cli.js',
  'dist/handlers/smoke-benchmark/index.js', 'serving/Dockerfile', 'serving/entrypoint.sh', 'serving/frontend.py',
  'serving/vllm/Dockerfile', 'serving/vllm/launch.py', 'serving/vllm/engine_metrics.py', 'serving/compile/compile_generative.py',
];

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}

let stepStarted = Date.now();

/** Prints a step, with the seconds the one before it took (what to shorten when CI nears its 10 minutes). */
function step(message: string): void {
  const now = Date.now();
  process.stdout.write(`consumer-test: (${((now - stepStarted) / 1000).toFixed(1)} s) ${message}\n`);
  stepStarted = now;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    return execFileSync(command, args, {
      cwd,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
  }
}


/** The first ```ts block after the README heading "Use it in your app". */
function readmeApp(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## Use it in your app$/m)[1];
  const block = section === undefined ? undefined : /```ts\n([\s\S]*?)```/.exec(section);
  if (block === null || block === undefined) {
    throw new Error('README.md has no ```ts block under "## Use it in your app"; it must show test/consumer/app.ts');
  }
  return block[1];
}

function checkReadme(): void {
  const fixture = fs.readFileSync(path.join(FIXTURE, 'app.ts'), 'utf8');
  check(readmeApp() === fixture, 'README.md "Use it in your app" differs from test/consumer/app.ts, which this test '
    + 'runs; copy the fixture into the README block so the README runs as written');
}

function pack(destination: string): PackResult {
  const output = run('npm', ['pack', '--json', '--pack-destination', destination], ROOT);
  // The build that prepack runs may print before npm's JSON.
  const json = output.slice(output.search(/^\[/m));
  const [result] = JSON.parse(json) as PackResult[];
  const files = result.files.map((f) => f.path);
  const stray = files.filter((f) => !ALLOWED_FILES.some((pattern) => pattern.test(f)));
  check(stray.length === 0, `the tarball holds files a consumer does not need: ${stray.join(', ')}; narrow "files" `
    + 'in package.json or the build (tsconfig.build.json)');
  const missing = REQUIRED_FILES.filter((f) => !files.includes(f));
  check(missing.length === 0, `the tarball lacks ${missing.join(', ')}; did the build (npm run build) run?`);
  return result;
}

/** Where `name` resolves from the package at `from` in a lock file's `packages` map (Node's lookup, upwards). */
function resolveInLock(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dir.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, '')) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (packages[candidate] !== undefined) {
      return candidate;
    }
    if (dir === '') {
      return undefined;
    }
  }
}

/**
 * A lock file for the consumer: the entries of this repository's lock that the consumer's dependencies and the
 * package's own dependencies reach, at the same paths, so npm installs exactly those versions from its cache.
 */
function consumerLock(manifest: Record<string, unknown>, tarball: string, ourManifest: Record<string, unknown>,
  rootDependencies: Record<string, string>): object {
  const ours = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const packages: Record<string, LockEntry> = {};
  const registry = run('npm', ['config', 'get', 'registry'], ROOT).trim().replace(/\/?$/, '/');
  const visit = (from: string, name: string, optional: boolean): void => {
    const at = resolveInLock(ours.packages, from, name);
    if (at === undefined) {
      check(optional, `package-lock.json has no ${name} (needed by ${from || 'the consumer'}); run npm install`);
      return;
    }
    if (packages[at] !== undefined) {
      return;
    }
    // npm recomputes the dev/optional/peer flags for the consumer's tree.
    const entry: LockEntry = { ...ours.packages[at] };
    delete entry.dev;
    delete entry.devOptional;
    delete entry.peer;
    // This repository's lock may omit tarball URLs (npm's omit-lockfile-registry-resolved); without one npm asks
    // the registry where the tarball is, which offline it cannot. The integrity then finds it in the cache.
    if (entry.resolved === undefined && entry.inBundle !== true && entry.version !== undefined) {
      const name = at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length);
      entry.resolved = `${registry}${name}/-/${name.split('/').pop()}-${entry.version}.tgz`;
    }
    packages[at] = entry;
    const meta = entry.peerDependenciesMeta ?? {};
    for (const dep of Object.keys(entry.dependencies ?? {})) {
      visit(at, dep, false);
    }
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
      visit(at, dep, true);
    }
    for (const dep of Object.keys(entry.peerDependencies ?? {})) {
      visit(at, dep, meta[dep]?.optional === true);
    }
  };
  for (const name of Object.keys(rootDependencies)) {
    visit('', name, false);
  }
  const ourDependencies = {
    ...(ourManifest.dependencies as Record<string, string>),
    ...(ourManifest.peerDependencies as Record<string, string>),
  };
  for (const name of Object.keys(ourDependencies)) {
    visit('', name, false);
  }
  packages['node_modules/cdk-inferentia'] = {
    version: ourManifest.version as string,
    resolved: `file:${path.basename(tarball)}`,
    integrity: `sha512-${crypto.createHash('sha512').update(fs.readFileSync(tarball)).digest('base64')}`,
    dependencies: ourManifest.dependencies as Record<string, string>,
    peerDependencies: ourManifest.peerDependencies as Record<string, string>,
    bin: ourManifest.bin,
  };
  return {
    name: manifest.name,
    version: manifest.version,
    lockfileVersion: 3,
    requires: true,
    packages: { '': manifest, ...packages },
  };
}

function createApp(dir: string, tarball: string): void {
  const ourManifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  const ours = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const pinned = (names: string[]): Record<string, string> => Object.fromEntries(names.map((n) => {
    const version = ours.packages[`node_modules/${n}`]?.version;
    check(version !== undefined, `package-lock.json has no ${n}; run npm install`);
    return [n, version as string];
  }));
  const dependencies = { ...pinned(CONSUMER_DEPENDENCIES), 'cdk-inferentia': `file:${path.basename(tarball)}` };
  const devDependencies = pinned(CONSUMER_DEV_DEPENDENCIES);
  const manifest = { name: 'search-app', version: '0.1.0', private: true, dependencies, devDependencies };

  fs.copyFileSync(tarball, path.join(dir, path.basename(tarball)));
  for (const file of ['app.ts', 'tsconfig.json', 'tsconfig.nodenext.json', 'cdk.json']) {
    fs.copyFileSync(path.join(FIXTURE, file), path.join(dir, file));
  }
  fs.writeFileSync(path.join(dir, 'app.js'), plainJavaScriptApp(fs.readFileSync(path.join(FIXTURE, 'app.ts'), 'utf8')));
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const lock = consumerLock(manifest, path.join(dir, path.basename(tarball)), ourManifest,
    { ...pinned(CONSUMER_DEPENDENCIES), ...devDependencies });
  fs.writeFileSync(path.join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
}

/** The lines of app.ts that apply the policy checks or answer them; app.js goes without. */
const POLICY_LINES = [/^ *Validations\.of\(.*\);\n/m, /^\/\/ cdk-nag .*\n/m, /^applyPolicyChecks\(app\);\n/m];

/**
 * app.ts as the plain JavaScript a user without TypeScript would write: the same stack, without the policy checks,
 * so the synth proves the package needs neither. TypeScript only strips the types (unused imports go with them);
 * the result runs with plain Node.
 */
function plainJavaScriptApp(appTs: string): string {
  const withoutChecks = POLICY_LINES.reduce((text, line) => {
    check(line.test(text), `test/consumer/app.ts has no line matching ${line}; update POLICY_LINES in ${path.basename(__filename)}`);
    return text.replace(line, '');
  }, appTs);
  const js = ts.transpileModule(withoutChecks, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  check(!/applyPolicyChecks|Validations/.test(js), 'app.js made from app.ts still applies or answers the policy checks');
  return js;
}


function synth(dir: string, outdir: string, command: string, args: string[]): Template {
  run(command, args, dir, { CDK_OUTDIR: path.join(dir, outdir) });
  const file = path.join(dir, outdir, `${STACK}.template.json`);
  check(fs.existsSync(file), `${command} ${args.join(' ')} wrote no ${outdir}/${STACK}.template.json`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Template;
}

interface ValidationReport {
  pluginReports: { pluginName: string; conclusion: string; violations: unknown[] }[];
}

/**
 * The policy checks ran over app.ts and found nothing. The report lists only plugins with something to say, so a
 * clean report alone proves nothing: a control app in the same install must fail both packs.
 */
function checkPolicyReport(dir: string, outdir: string): void {
  const file = path.join(dir, outdir, 'validation-report.json');
  if (fs.existsSync(file)) {
    const report = JSON.parse(fs.readFileSync(file, 'utf8')) as ValidationReport;
    const failed = report.pluginReports.filter((r) => r.conclusion !== 'success' || r.violations.length > 0);
    check(failed.length === 0, `${outdir}: policy findings: ${JSON.stringify(failed, null, 2)}`);
  }
  const control = [
    "const { App, Stack } = require('aws-cdk-lib');",
    "const { Repository } = require('aws-cdk-lib/aws-ecr');",
    "const { Bucket } = require('aws-cdk-lib/aws-s3');",
    "const { applyPolicyChecks } = require('cdk-inferentia');",
    "const app = new App({ outdir: 'cdk.out.control' });",
    "const stack = new Stack(app, 'Control');",
    "new Repository(stack, 'Images');",
    "new Bucket(stack, 'Data');",
    "applyPolicyChecks(app, { neuronRules: 'all-resources' });",
    'try { app.synth(); } catch { process.exit(0); }',
    "console.error('synth passed'); process.exit(1);",
  ].join('\n');
  run('node', ['-e', control], dir);
  const output = fs.readFileSync(path.join(dir, 'cdk.out.control', 'validation-report.json'), 'utf8');
  for (const finding of ['AwsSolutions-S1', 'Neuron-EcrScanOnPush']) {
    check(output.includes(finding), `applyPolicyChecks in the consumer app did not report ${finding} on a default `
      + `s3.Bucket and ecr.Repository; the checks are not live:\n${output}`);
  }
}

function checkPlainNode(dir: string): void {
  const version = run('node', [path.join('node_modules', '.bin', 'cdk-inferentia'), '--version'], dir).trim();
  const ourVersion = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  check(version === ourVersion, `the installed CLI printed version ${JSON.stringify(version)}, not ${ourVersion}`);
  const planned = JSON.parse(run('node', [path.join('node_modules', '.bin', 'cdk-inferentia'), 'plan', '--model',
    'bert-base-uncased', '--throughput', '2000', '--p99', '10', '--region', 'us-east-1', '--hosting', 'sagemaker',
    '--json'], dir)) as { chosen?: { instanceType?: string } };
  check(planned.chosen?.instanceType?.startsWith('ml.') === true, 'the installed CLI planned no SageMaker instance');

  run('node', ['--input-type=module', '-e',
    "import { plan, NeuronSageMakerEndpoint } from 'cdk-inferentia';"
    + "if (typeof plan !== 'function' || typeof NeuronSageMakerEndpoint !== 'function') process.exit(1);"], dir);
  run('node', ['-e',
    "const { plan, requireProfile } = require('cdk-inferentia/planner');"
    + "plan(requireProfile('bert-base-uncased'), { throughputRps: 100, p99Ms: 10 }, { region: 'us-east-1', hosting: 'ec2' });"
    + "const cdk = Object.keys(require.cache).filter((f) => f.includes('/node_modules/aws-cdk-lib/'));"
    + "if (cdk.length > 0) { console.error('cdk-inferentia/planner loaded ' + cdk[0]); process.exit(1); }"], dir);

  // What importing costs a script or an app (issue budgets; `npm run bench:import` prints the same with times): the
  // planner loads no AWS SDK or HTTP client, the root no SDK client and at most ROOT_MODULE_BUDGET modules, and
  // neither loads zod (its schemas are built on first parse).
  const loaded = (entry: string): string[] => JSON.parse(run('node', ['-e',
    `require(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(require.cache)))`], dir)) as string[];
  const edge = (files: string[]) => files.filter((f) => /\/node_modules\/(@aws-sdk\/|undici\/|zod\/)/.test(f));
  const planner = loaded('cdk-inferentia/planner');
  check(edge(planner).length === 0, `cdk-inferentia/planner loaded ${edge(planner).slice(0, 3).join(', ')}`);
  const root = loaded('cdk-inferentia');
  check(edge(root).length === 0, `cdk-inferentia loaded ${edge(root).slice(0, 3).join(', ')}`);
  check(root.length <= ROOT_MODULE_BUDGET, `cdk-inferentia loaded ${root.length} modules, over ${ROOT_MODULE_BUDGET}`);
}

/**
 * The package is publishable: `npm publish --dry-run` accepts the manifest (not private, metadata, files) without
 * building again, and CHANGELOG.md has a section for the version being published.
 */
function checkPublishable(): void {
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const changelog = fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
  check(new RegExp(`^## ${version.replace(/\./g, '\\.')}$`, 'm').test(changelog),
    `CHANGELOG.md has no "## ${version}" section; add one (docs/release.md)`);
  run('npm', ['publish', '--dry-run', '--ignore-scripts'], ROOT);
}

/** The environment of a user with no AWS credentials and no network: nothing the CDK CLI could call. */
const OFFLINE_ENV: NodeJS.ProcessEnv = {
  AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_SESSION_TOKEN: '', AWS_PROFILE: '',
  AWS_CONFIG_FILE: '/nonexistent/aws-config', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws-credentials',
  AWS_EC2_METADATA_DISABLED: 'true', CDK_DISABLE_CLI_TELEMETRY: 'true', CDK_DISABLE_VERSION_CHECK: 'true',
};

/**
 * `npx cdk synth` as a user runs it (cdk.json `app` is ts-node, as `cdk init` writes it): the CLI fails on any
 * context lookup it would have to make with credentials, which running the app with Node alone never shows.
 */
function synthWithCdkCli(dir: string): void {
  const out = path.join(dir, 'cdk.out.cli');
  run('node', [path.join('node_modules', 'aws-cdk', 'bin', 'cdk'), 'synth', '--no-notices', '--quiet', '--output', out],
    dir, OFFLINE_ENV);
  const template = JSON.parse(fs.readFileSync(path.join(out, `${STACK}.template.json`), 'utf8')) as Template;
  checkAssembly(dir, 'cdk.out.cli', template);
  checkPolicyReport(dir, 'cdk.out.cli');
}

/**
 * The package installed by a `file:` link, as `npm link` and a monorepo do: it keeps this repository's node_modules,
 * so the app and the package load two copies of aws-cdk-lib, and cdk-nag would check nothing. applyPolicyChecks
 * must refuse with the fix.
 */
function checkLinkedInstall(dir: string): void {
  const app = path.join(dir, 'linked');
  fs.mkdirSync(path.join(app, 'node_modules'), { recursive: true });
  // The app's own copies are the consumer app's; cdk-inferentia is this repository, with its node_modules.
  for (const name of ['aws-cdk-lib', 'constructs']) {
    fs.symlinkSync(path.join(dir, 'app', 'node_modules', name), path.join(app, 'node_modules', name), 'dir');
  }
  fs.symlinkSync(ROOT, path.join(app, 'node_modules', 'cdk-inferentia'), 'dir');
  const script = [
    "const { App, Stack } = require('aws-cdk-lib');",
    "const { Bucket } = require('aws-cdk-lib/aws-s3');",
    "const { applyPolicyChecks } = require('cdk-inferentia');",
    "const app = new App({ outdir: 'cdk.out' });",
    "new Bucket(new Stack(app, 'Control'), 'Data');",
    'try { applyPolicyChecks(app); } catch (e) { console.log(e.message); process.exit(0); }',
    'try { app.synth(); } catch { process.exit(0); }',
    "console.error('a linked install synthesized a non-compliant bucket with no finding'); process.exit(1);",
  ].join('\n');
  const output = run('node', ['-e', script], app);
  check(output.includes('another copy of aws-cdk-lib') && output.includes('install-links=true') && output.includes('.npmrc'),
    `applyPolicyChecks under a linked install did not refuse with the fix; it said: ${output || 'nothing'}`);
}

/**
 * Modules `require('cdk-inferentia')` may load, its own and its dependencies' (aws-cdk-lib, zod, cdk-nag): 778 before
 * lib/ was made pure (no SDK client on a synth), 321 once generative hosting joined; 299 since aws-cdk-lib's
 * implementations (VPC endpoints, Lambda runtimes, CloudWatch units) load when a construct is built rather than at
 * import, and handler-only code left the constructs' imports; 207 since zod (95 modules) loads when a schema first
 * parses (lib/lazy-schema.ts) rather than with the entry; 210 once the generative model's files split by idea
 * (simulate.ts, engine-timing.ts, capacity-knowledge.ts); 275 with the fitted performance model (lib/generative/model/,
 * 9 modules), the published rows it is fitted to (lib/generative/published/, 13 modules, one per source), traffic
 * (lib/traffic/, 8), lever evidence, choice and sensitivity, fallback pools, the TPOT tail's own module and the plan
 * memo: about 295 ms median to import on the 2-core CI machine (`npm run bench:import`); 276 with the one definition
 * of "the same compile" the hostings, pools and environments share (lib/compile/generative-check.ts). No margin: a
 * module added must pay for itself.
 */
const ROOT_MODULE_BUDGET = 276;

function main(): void {
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-inferentia-consumer-'));
  try {
    checkReadme();
    step('npm pack (builds through prepack)');
    const packed = pack(dir);
    const tarball = path.join(dir, packed.filename);
    step(`${packed.filename}: ${packed.entryCount} files, ${(packed.size / 1024).toFixed(0)} KiB packed, `
      + `${(packed.unpackedSize / 1024).toFixed(0)} KiB unpacked`);
    checkPublishable();

    const app = path.join(dir, 'app');
    fs.mkdirSync(app);
    createApp(app, tarball);
    step('npm install --offline in a new app');
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], app);
    check(!fs.existsSync(path.join(app, 'node_modules', 'esbuild')) && !fs.existsSync(path.join(app, 'node_modules', 'tsx')),
      'the consumer app got esbuild or tsx installed; the package must not need them');

    // app.ts with ts-node and the policy checks is synthesized once, by the CDK CLI below (cdk.json runs ts-node):
    // a second synth with ts-node called directly took 36 s of CI's 10 minutes and checked the same assembly.
    step('synth app.js with node, without the policy checks');
    const jsTemplate = synth(app, 'cdk.out.js', 'node', ['app.js']);
    checkAssembly(app, 'cdk.out.js', jsTemplate);
    const jsReport = path.join(app, 'cdk.out.js', 'validation-report.json');
    const jsPlugins = fs.existsSync(jsReport)
      ? (JSON.parse(fs.readFileSync(jsReport, 'utf8')) as ValidationReport).pluginReports.map((r) => r.pluginName)
      : [];
    check(!jsPlugins.includes('AwsSolutions') && !jsPlugins.includes('Neuron'),
      `cdk.out.js: the policy checks ran (${jsPlugins.join(', ')}) although app.js does not apply them`);

    step('type-check app.ts under the CommonJS tsconfig cdk init wrote (no esModuleInterop, no skipLibCheck)');
    run('node', [path.join('node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noEmit'], app);

    step('npx cdk synth of the README app through the CDK CLI, offline, no credentials');
    synthWithCdkCli(app);

    step('type-check app.ts under NodeNext (today\'s cdk init tsconfig)');
    run('node', [path.join('node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.nodenext.json'], app);

    step('CLI, ESM import and cdk-inferentia/planner with plain node');
    checkPlainNode(app);

    step('a linked install (file: link, own node_modules): applyPolicyChecks refuses, never checks nothing');
    checkLinkedInstall(dir);

    fs.rmSync(dir, { recursive: true, force: true });
    step(`passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } catch (e) {
    process.stderr.write(`consumer-test: FAILED: ${(e as Error).message}\nconsumer-test: the app is kept in ${dir}\n`);
    process.exitCode = 1;
  }
}

main();
