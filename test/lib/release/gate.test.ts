import { evaluateGate } from '../../../lib/release';
import type { DeploymentRecord, GateInput, SmokeReport } from '../../../lib/release';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const NOW = new Date('2026-11-23T12:00:00Z');

const deployment: DeploymentRecord = {
  schemaVersion: 1, application: 'bert', environment: 'staging', account: '222222222222', region: 'us-east-1',
  repositoryName: 'bert', imageDigest: DIGEST, fingerprint: 'fp', hosting: 'sagemaker', target: 'ep',
  report: { bucket: 'b', key: 'k' },
  plan: { profileId: 'p', instanceType: 'ml.inf2.xlarge', instanceCount: 2, maxInstanceCount: 4, serving: 'stock', batchSize: 1, capacityRps: 600, predictedP99Ms: 7, hourlyCostUsd: 1.5 },
};

const report: SmokeReport = {
  schemaVersion: 1, name: 'ep', environment: 'staging', fingerprint: 'fp', invokedAt: '2026-11-23T11:00:00Z', complete: true,
  passed: true, failures: [], report: { requests: 100, errorRate: 0, throughputRps: 20, latencyMs: { p99: 8 } },
  capacity: { passed: true },
};

function input(overrides: Partial<GateInput> = {}): GateInput {
  return {
    environment: 'staging', deployment, report, reportUri: 's3://b/k', expectedDigest: DIGEST, now: NOW,
    settings: { maxErrorRate: 0.01, maxReportAgeHours: 24, capacityProofRequired: true },
    ...overrides,
  };
}

describe('the promotion gate passes only a current, passed report of the deployment that runs', () => {
  test('GIVEN a passed report of this deployment with a passed capacity proof WHEN evaluated THEN it passes with its evidence', () => {
    const verdict = evaluateGate(input());
    expect(verdict).toEqual({
      passed: true,
      evidence: {
        smoke: { reportUri: 's3://b/k', passed: true, invokedAt: '2026-11-23T11:00:00Z', fingerprint: 'fp', p99Ms: 8, errorRate: 0, throughputRps: 20, requests: 100 },
        capacity: { passed: true, summary: 'passed' },
      },
    });
  });

  test('GIVEN an old report, a failed capacity proof and a p99 over the config limit WHEN evaluated THEN every reason is given', () => {
    const verdict = evaluateGate(input({
      report: { ...report, invokedAt: '2026-11-20T12:00:00Z', capacity: { passed: false, failures: ['held 410 of 600 requests/s'] } },
      settings: { p99MaxMs: 5, maxErrorRate: 0.01, maxReportAgeHours: 24, capacityProofRequired: true },
    }));
    expect(verdict.passed).toBe(false);
    expect(!verdict.passed && verdict.reasons).toEqual([
      expect.stringContaining('from 2026-11-20T12:00:00Z, 72 h ago, older than smoke.maxReportAgeHours=24'),
      "staging's smoke p99 8 ms is above smoke.p99MaxMs=5 ms",
      "staging's capacity proof failed: held 410 of 600 requests/s (s3://b/k)",
    ]);
  });

  test('GIVEN a report without the capacity proof the environment requires WHEN evaluated THEN refused with the setting to change', () => {
    const verdict = evaluateGate(input({ report: { ...report, capacity: undefined } }));
    expect(!verdict.passed && verdict.reasons).toEqual([
      expect.stringContaining("staging's smoke report has no capacity proof, which capacityProof.required asks for"),
    ]);
    expect(!verdict.passed && evaluateGate(input({ report: { ...report, capacity: { skipped: 'no plan' } } }))).toMatchObject({
      reasons: [expect.stringContaining("staging's smoke report skipped its capacity proof (no plan)")],
    });
    expect(evaluateGate(input({ report: { ...report, capacity: undefined }, settings: { maxErrorRate: 0.01, maxReportAgeHours: 24, capacityProofRequired: false } })).passed).toBe(true);
  });
});
