import { App, Validations } from 'aws-cdk-lib';
import type { AwsSolutionsChecks as AwsSolutionsChecksType } from 'cdk-nag/lib/packs/aws-solutions';
import { NeuronChecks } from './neuron-checks';

/** Options for {@link applyPolicyChecks}. */
export interface PolicyChecksProps {
  /**
   * Add each rule's explanation and fix to its finding, not only the one-line summary.
   *
   * @default true - a finding without its fix sends the reader searching
   */
  readonly verbose?: boolean;

  /**
   * Which resources the Neuron rules check: only those cdk-inferentia's constructs created, or every resource of the
   * app (its own ECR repositories and SageMaker endpoints too). AwsSolutions always checks every resource.
   *
   * @default 'package-resources' - the app's unrelated resources are not failed by rules it did not ask for
   */
  readonly neuronRules?: 'package-resources' | 'all-resources';
}

/**
 * Fails when the app was made with another copy of aws-cdk-lib than the one this package (and cdk-nag) loaded.
 *
 * cdk-nag's rules test `instanceof CfnResource` of their own copy: with two copies (the package installed by a
 * `file:` link or `npm link`, which keeps its own node_modules) no resource of the app matches, the pack reports
 * nothing, and the synth passes as if the app were clean.
 */
function refuseSecondCdkLibrary(app: App): void {
  if (app instanceof App || !App.isApp(app)) {
    return;
  }
  const where = (from: string): string => {
    try {
      return require.resolve('aws-cdk-lib/package.json', { paths: [from] }).replace(/[/\\]package\.json$/, '');
    } catch {
      return 'an unknown place';
    }
  };
  throw new Error('applyPolicyChecks: the app was made with another copy of aws-cdk-lib than cdk-inferentia loads '
    + `(the app's is probably ${where(process.cwd())}, cdk-inferentia's ${where(__dirname)}), so cdk-nag would `
    + 'check nothing. This happens when cdk-inferentia is installed by a file: link or npm link, which keep its own '
    + 'node_modules. Install it from its tarball (npm pack, then npm install ./cdk-inferentia-<version>.tgz), or put '
    + 'install-links=true in your app\'s .npmrc and run npm install, so it uses your app\'s aws-cdk-lib (a one-off '
    + 'npm install --install-links is undone by the next plain npm install; the .npmrc line keeps it).');
}

/** Apps that already carry the checks, so a second call cannot report every finding twice. */
const appsWithChecks = new WeakSet<App>();

/**
 * Runs cdk-nag's AwsSolutions pack and our {@link NeuronChecks} over every stack of the app.
 *
 * Both packs are registered as policy validation plugins (`Validations.of(app).addPlugins(...)`): at synth they walk
 * the construct tree, any finding fails synthesis, and the report goes to `<outdir>/validation-report.json`.
 * Acknowledge a finding where it cannot be fixed with
 * `Validations.of(scope).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason: '...' })` on the resource or
 * one of its parents. Calling it again on the same app does nothing.
 *
 * @param app the app whose stacks are checked (plugins can only be registered on an App or Stage).
 * @param props pack options.
 */
export function applyPolicyChecks(app: App, props: PolicyChecksProps = {}): void {
  refuseSecondCdkLibrary(app);
  if (appsWithChecks.has(app)) {
    return;
  }
  appsWithChecks.add(app);
  const packProps = { verbose: props.verbose ?? true };
  // Loaded here, not on import: the pack and its rules are about 300 modules an app that never calls this skips.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { AwsSolutionsChecks } = require('cdk-nag/lib/packs/aws-solutions') as { AwsSolutionsChecks: typeof AwsSolutionsChecksType };
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, packProps), new NeuronChecks(app, {
    ...packProps, resources: props.neuronRules === 'all-resources' ? 'all' : 'package',
  }));
}
