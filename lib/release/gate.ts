/**
 * The promotion gate: may what an environment runs move on to the next one?
 *
 * Pure, so the `promote` command, the pipeline's gate step and tests apply the same rules.
 */
import type { GateSettings } from '../environments';
import type { DeploymentRecord, Evidence, SmokeReport } from './records';

/** What the gate looked at. */
export interface GateInput {
  /** The environment promoted from. */
  readonly environment: string;
  /** Its deployment record. */
  readonly deployment: DeploymentRecord;
  /** Its latest smoke report, undefined when there is none. */
  readonly report?: SmokeReport;
  /** `s3://bucket/key` of that report, for messages and the release record. */
  readonly reportUri: string;
  /** The environment's gate settings. */
  readonly settings: GateSettings;
  /** The digest the config rolls out, when it names one. */
  readonly expectedDigest?: string;
  readonly now: Date;
}

/** The gate's answer: the evidence to record, or every reason to refuse. */
export type GateVerdict =
  | { readonly passed: true; readonly evidence: Evidence }
  | { readonly passed: false; readonly reasons: readonly string[] };

/**
 * Applies the gate: the report exists, is for the deployment that runs now (same fingerprint), is recent, passed
 * (against the thresholds the stack gave its smoke benchmark), stays within the config's own limits, and carries a passed capacity proof when the environment asks for one;
 * the environment runs the digest the config rolls out.
 */
export function evaluateGate(input: GateInput): GateVerdict {
  const { environment: env, deployment, report, reportUri, settings } = input;
  const reasons: string[] = [];
  if (input.expectedDigest !== undefined && input.expectedDigest !== deployment.imageDigest) {
    reasons.push(`${env} runs image ${deployment.imageDigest}, not ${input.expectedDigest} that the environments config `
      + `rolls out; deploy ${env} with it first (npx cdk deploy '${env}/*') and let its smoke benchmark pass`);
  }
  if (report === undefined) {
    reasons.push(`${env} has no smoke report at ${reportUri}: its smoke benchmark has not run yet; deploy ${env} `
      + 'with its smoke benchmark and promote after it passes');
    return { passed: false, reasons };
  }
  if (report.fingerprint !== deployment.fingerprint) {
    reasons.push(`${env}'s latest smoke report (${report.invokedAt}) is stale: it is for deployment `
      + `${report.fingerprint ?? '(none)'}, but ${env} now runs ${deployment.fingerprint}; wait for the benchmark of `
      + 'the current deployment, or redeploy to run it');
  }
  const ageHours = (input.now.getTime() - Date.parse(report.invokedAt)) / 3_600_000;
  if (!(ageHours <= settings.maxReportAgeHours)) {
    reasons.push(`${env}'s latest smoke report is from ${report.invokedAt}, ${Number.isFinite(ageHours) ? `${Math.round(ageHours)} h` : 'an unknown time'} `
      + `ago, older than smoke.maxReportAgeHours=${settings.maxReportAgeHours}; rerun it by redeploying ${env}`);
  }
  if (!report.passed || !report.complete) {
    const why = report.failures.length > 0 ? report.failures.join('; ') : 'the run was incomplete';
    reasons.push(`${env}'s latest smoke report failed: ${why} (${reportUri})`);
  }
  if (settings.p99MaxMs !== undefined && report.report.latencyMs.p99 > settings.p99MaxMs) {
    reasons.push(`${env}'s smoke p99 ${report.report.latencyMs.p99} ms is above smoke.p99MaxMs=${settings.p99MaxMs} ms`);
  }
  if (report.report.errorRate > settings.maxErrorRate) {
    reasons.push(`${env}'s smoke error rate ${report.report.errorRate} is above smoke.maxErrorRate=${settings.maxErrorRate}`);
  }
  if (settings.capacityProofRequired) {
    if (report.capacity === undefined || 'skipped' in report.capacity) {
      const why = report.capacity === undefined ? 'has no capacity proof' : `skipped its capacity proof (${report.capacity.skipped})`;
      reasons.push(`${env}'s smoke report ${why}, which capacityProof.required asks for; enable the `
        + `capacity proof in ${env}'s smoke benchmark or set capacityProof.required to false`);
    } else if (!report.capacity.passed) {
      reasons.push(`${env}'s capacity proof failed: ${(report.capacity.failures ?? []).join('; ') || 'see the report'} (${reportUri})`);
    }
  }
  if (reasons.length > 0) {
    return { passed: false, reasons };
  }
  return {
    passed: true,
    evidence: {
      smoke: {
        reportUri,
        passed: report.passed,
        invokedAt: report.invokedAt,
        fingerprint: report.fingerprint ?? '',
        p99Ms: report.report.latencyMs.p99,
        errorRate: report.report.errorRate,
        throughputRps: report.report.throughputRps,
        requests: report.report.requests,
      },
      ...(report.capacity === undefined
        ? {}
        : 'skipped' in report.capacity
          ? { capacity: { passed: false, summary: `skipped: ${report.capacity.skipped}` } }
          : { capacity: { passed: report.capacity.passed, summary: report.capacity.passed ? 'passed' : 'failed' } }),
    },
  };
}

/** A promotion the gate or the source refused; nothing was written. The CLI exits 1. */
export class PromotionRefusedError extends Error {
  /** One sentence per reason. */
  readonly reasons: readonly string[];

  constructor(from: string, to: string | undefined, reasons: readonly string[]) {
    const what = to === undefined ? `gate of ${from}` : `promotion ${from} -> ${to}`;
    super(`${what} refused, nothing written:\n${reasons.map((r) => `- ${r}`).join('\n')}`);
    this.name = 'PromotionRefusedError';
    this.reasons = reasons;
  }
}
