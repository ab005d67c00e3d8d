/**
 * Reading cdk-nag findings in tests.
 *
 * cdk-nag 3 packs are policy validation plugins: they run at the end of `app.synth()`, a finding of level ERROR makes
 * synth throw (`ValidationFailed`, with the report as text), and the structured report is written to
 * `<outdir>/validation-report.json`. Nothing goes to Annotations any more, so `Annotations.fromStack(...)` sees no
 * findings at all. These helpers synthesize the app, swallow only that validation failure, and read the JSON report,
 * which is the same report `cdk synth` prints.
 *
 * Typical use:
 *
 * ```ts
 * const app = new App();
 * const stack = new InferenceStack(app, 'Inference', { ... });
 * applyPolicyChecks(app);
 * expect(nagFindings(app)).toEqual([]);                       // the stack is clean
 * expect(nagFindings(stack).map((f) => f.ruleId)).toContain('Neuron-EcrScanOnPush');
 * ```
 *
 * Notes:
 * - Register the packs (`applyPolicyChecks(app)`) before the first synth; `Template.fromStack` synthesizes too and
 *   throws the same `ValidationFailed` error while findings remain.
 * - The helpers throw when no cdk-nag pack is registered, because an empty list would then prove nothing, and when a
 *   pack crashed instead of reporting.
 * - Findings of every plugin in the report are returned, including aws-cdk-lib's own CloudFormation schema validation
 *   (`pluginName: 'CloudFormation Validate'`, warnings unless `@aws-cdk/core:validateAgainstDefaultRules` is true);
 *   pass `{ plugins: ['AwsSolutions', 'Neuron'] }` to narrow.
 * - Acknowledged findings are left out of {@link nagFindings}. Acknowledgements written with the plugin namespace
 *   (`Neuron::Neuron-EcrScanOnPush`) are listed with their reason by {@link nagReport}; plain ids
 *   (`Neuron-EcrScanOnPush`) are filtered inside cdk-nag and leave no trace in the report.
 */
import * as fs from 'fs';
import * as path from 'path';
import { App, Stage } from 'aws-cdk-lib';
import { Manifest, PolicyViolationJson, VALIDATION_REPORT_FILE } from 'aws-cdk-lib/cloud-assembly-schema';
import { NagPack } from 'cdk-nag';
import { IConstruct } from 'constructs';

/** One unacknowledged finding: one rule on one resource. */
export interface NagFinding {
  /** The rule id, e.g. `AwsSolutions-S10`, `AwsSolutions-IAM5[Resource::*]`, `Neuron-EcrScanOnPush`, `F3002`. */
  readonly ruleId: string;
  /** Construct path of the resource, e.g. `Inference/Repository/Resource`. */
  readonly resourcePath: string;
  /** The plugin that reported it: `AwsSolutions`, `Neuron`, `CloudFormation Validate`... */
  readonly pluginName: string;
  /** `error` fails synth; `warning` and `info` do not. */
  readonly severity: string;
  /** What the rule found (plus its explanation when the pack is verbose). */
  readonly description: string;
}

/** A finding that an acknowledgement with the plugin namespace suppressed. */
export interface AcknowledgedNagFinding extends NagFinding {
  /** The acknowledged id, e.g. `AwsSolutions::AwsSolutions-S1`. */
  readonly acknowledgedId: string;
  /** The reason given with the acknowledgement. */
  readonly reason?: string;
}

/** Everything the validation report says about the scope. */
export interface NagReport {
  /** Findings nobody acknowledged. */
  readonly findings: NagFinding[];
  /** Findings suppressed by a namespaced acknowledgement (`<Plugin>::<ruleId>`), with their reasons. */
  readonly acknowledged: AcknowledgedNagFinding[];
}

/** Options for {@link nagFindings} and {@link nagReport}. */
export interface NagFindingsOptions {
  /**
   * Keep only findings of these plugins (`'AwsSolutions'`, `'Neuron'`, `'CloudFormation Validate'`...).
   *
   * @default - every plugin in the report
   */
  readonly plugins?: readonly string[];
}

/**
 * The unacknowledged findings on the resources under `scope`, sorted by rule id then resource path.
 *
 * Synthesizes the app `scope` belongs to (once; a later call reuses the synthesized report) and reads its
 * validation report. Pass the app for every finding, or a stack or construct for those under it.
 *
 * @param scope the app, or any construct in it whose subtree to report on.
 * @param options which plugins to report.
 * @returns `[]` when the scope is clean.
 * @throws when no cdk-nag pack is registered on the app, when a pack crashed, or when synth fails for another reason.
 */
export function nagFindings(scope: IConstruct, options: NagFindingsOptions = {}): NagFinding[] {
  return nagReport(scope, options).findings;
}

/**
 * The unacknowledged and the acknowledged findings on the resources under `scope`; see {@link nagFindings}.
 *
 * @param scope the app, or any construct in it whose subtree to report on.
 * @param options which plugins to report.
 */
export function nagReport(scope: IConstruct, options: NagFindingsOptions = {}): NagReport {
  const app = scope.node.root;
  if (!App.isApp(app)) {
    throw new Error(`nagFindings: the root of '${scope.node.path}' is not an App; build the stack inside an App.`);
  }
  assertNagPackRegistered(app);
  synthesizeKeepingValidationFailures(app);

  const reportFile = path.join(app.outdir, VALIDATION_REPORT_FILE);
  if (!fs.existsSync(reportFile)) {
    throw new Error(`nagFindings: synth wrote no ${VALIDATION_REPORT_FILE} in ${app.outdir}; has the app a stack?`);
  }
  const report = Manifest.loadValidationReport(reportFile);

  const scopePath = scope.node.path;
  const inScope = (finding: NagFinding): boolean =>
    scope === app || finding.resourcePath === scopePath || finding.resourcePath.startsWith(`${scopePath}/`);
  const wanted = (pluginName: string): boolean => options.plugins?.includes(pluginName) ?? true;

  const findings: NagFinding[] = [];
  const acknowledged: AcknowledgedNagFinding[] = [];
  for (const plugin of report.pluginReports) {
    if (plugin.conclusion === 'failure' && plugin.violations.length === 0) {
      const detail = plugin.metadata?.error ?? 'no detail';
      throw new Error(`nagFindings: plugin '${plugin.pluginName}' failed instead of reporting: ${detail}`);
    }
    if (!wanted(plugin.pluginName)) {
      continue;
    }
    for (const violation of plugin.violations) {
      findings.push(...toFindings(plugin.pluginName, violation).filter(inScope));
    }
    for (const suppressed of plugin.suppressedViolations ?? []) {
      acknowledged.push(
        ...toFindings(plugin.pluginName, suppressed)
          .filter(inScope)
          .map((finding) => ({ ...finding, acknowledgedId: suppressed.acknowledgedId, reason: suppressed.reason })),
      );
    }
  }
  return { findings: sortFindings(findings), acknowledged: sortFindings(acknowledged) };
}

function toFindings(pluginName: string, violation: PolicyViolationJson): NagFinding[] {
  const { ruleName: ruleId, severity, description, violatingConstructs } = violation;
  // A violation that names no construct still counts: report it against the app rather than dropping it.
  const paths = violatingConstructs.length > 0 ? violatingConstructs.map((c) => c.constructPath) : [''];
  return paths.map((resourcePath) => ({ ruleId, resourcePath, pluginName, severity, description }));
}

function sortFindings<T extends NagFinding>(findings: T[]): T[] {
  return findings.sort((a, b) => a.ruleId.localeCompare(b.ruleId) || a.resourcePath.localeCompare(b.resourcePath));
}

/**
 * Synthesizes the app and swallows only the error that policy validation throws when it finds violations.
 *
 * aws-cdk-lib throws `ValidationFailed` after writing the report; any other synth error (a construct's own
 * validation, a bundling failure) is the test's real problem and propagates.
 */
function synthesizeKeepingValidationFailures(app: App): void {
  try {
    app.synth();
  } catch (error) {
    if (!(error instanceof Error && error.name === 'ValidationFailed')) {
      throw error;
    }
  }
}

function assertNagPackRegistered(app: App): void {
  const stages = app.node.findAll().filter((node): node is Stage => Stage.isStage(node));
  // `_validationPlugins` is aws-cdk-lib's internal list behind `Validations.of(stage).addPlugins()`; there is no public
  // reader, and the report omits plugins that found nothing, so this is the only way to tell "clean" from "unchecked".
  const registered = stages.some((stage) => stage._validationPlugins.some((plugin) => plugin instanceof NagPack));
  if (!registered) {
    throw new Error(
      'nagFindings: no cdk-nag pack is registered on this app, so an empty result would prove nothing. ' +
        'Call applyPolicyChecks(app) (or Validations.of(app).addPlugins(new AwsSolutionsChecks(app))) before synth.',
    );
  }
}

/** THEN no finding is left in `report`, and the acknowledged ones are exactly `acknowledged` (each matched on the fields given). */
export function expectAllAcknowledged(report: NagReport, ...acknowledged: Partial<AcknowledgedNagFinding>[]): void {
  expect(report.findings).toEqual([]);
  expect(report.acknowledged).toEqual(acknowledged.map((finding) => expect.objectContaining(finding)));
}
