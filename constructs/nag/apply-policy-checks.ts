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
  if (appsWithChecks.has(app)) {
    return;
  }
  appsWithChecks.add(app);
  const packProps = { verbose: props.verbose ?? true };
  // Loaded here, not on import: the pack and its rules are about 300 modules an app that never calls this skips.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { AwsSolutionsChecks } = require('cdk-nag/lib/packs/aws-solutions') as { AwsSolutionsChecks: typeof AwsSolutionsChecksType };
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, packProps), new NeuronChecks(app, packProps));
}
