/**
 * Post-deploy smoke benchmark: measures the endpoint just deployed against its targets and fails the deployment
 * (so CloudFormation rolls it back) when it falls short.
 *
 * Invoked synchronously by an `aws-cdk-lib/triggers` Trigger after the endpoint is in service. It reads its
 * settings from the environment, stands aside during a rollback, runs the shared load engine within the time the
 * invocation has left, writes the report as CloudWatch metrics (EMF) and as JSON in S3, and throws with every
 * breached threshold and its measured value.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import type { Context } from 'aws-lambda';
import { runBenchmark } from '../../io/bench/engine';
import type { BenchOptions, BenchReport } from '../../lib/bench/types';
import { planRunBudget, STOP_GRACE_MS } from '../../lib/smoke/budget';
import { capacityStageMs, MAX_FAN_OUT } from '../../lib/smoke/capacity';
import { MAX_IN_FLIGHT, readSettings, SMOKE_ENV, type SmokeSettings } from '../../lib/smoke/config';
import { isTokenProofConfig } from '../../lib/bench/token-proof';
import { tokenProofClient } from '../../io/bench/token-proof-client';
import { runTokenGate } from './tokens';
import { runCapacityProof, type CapacityReport } from './capacity';
import { cloudFormationClient, s3Client } from './clients';
import { failureMessage, publishMetrics, reportDocument, reportKeys, writeReport, type SmokeReportDocument } from './report';
import { standAsideForRollback } from './stack-status';

// Retries would hide throttling and model errors and stretch the measured latency, so the benchmark's client
// makes one attempt per request. Region, credentials and endpoint come from the SDK's standard chain
// (AWS_REGION in Lambda; AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME in tests).
const sageMaker = new SageMakerRuntimeClient({
  maxAttempts: 1,
  requestHandler: {
    httpAgent: new http.Agent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT }),
    httpsAgent: new https.Agent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT }),
  },
});
const s3 = s3Client();
const cloudFormation = cloudFormationClient();
// The capacity proof's workers: one attempt each (a retried worker would start late and apply its load out of step
// with the others) and a socket per worker, above the SDK's default of 50, so none waits for another to finish.
const lambda = new LambdaClient({
  maxAttempts: 1,
  requestHandler: { connectionTimeout: 2_000, httpsAgent: new https.Agent({ keepAlive: true, maxSockets: MAX_FAN_OUT }) },
});

/** The part of the Lambda context the handler uses. */
export type SmokeContext = Pick<Context, 'getRemainingTimeInMillis'> &
  Partial<Pick<Context, 'functionVersion' | 'awsRequestId'>>;

/** What a successful invocation returns (the Trigger provider logs it). */
export type SmokeOutcome =
  | {
      readonly outcome: 'passed';
      readonly name: string;
      /** `s3://bucket/key` of this run's report; absent when it could not be written (see `reportError`). */
      readonly report?: string;
      /** Why the report could not be written, naming the bucket and key. @default - it was written */
      readonly reportError?: string;
      readonly thresholds: readonly string[];
    }
  | {
      readonly outcome: 'skipped';
      readonly name: string;
      /** Why nothing was measured. */
      readonly reason: string;
    };

/** Thrown when the endpoint misses a threshold or the run is cut short: the message names each reason. */
export class SmokeBenchmarkFailedError extends Error {
  constructor(
    message: string,
    /** The document written to S3. */
    readonly document: SmokeReportDocument,
  ) {
    super(message);
    this.name = 'SmokeBenchmarkFailedError';
  }
}

/**
 * Runs the smoke benchmark.
 *
 * The event is ignored: the Trigger provider sends none, and everything the run needs is in the function version's
 * environment. A repeated invocation measures again and gives the same verdict for the same endpoint behaviour;
 * it writes a new timestamped report and overwrites `latest.json`.
 *
 * A `SMOKE_CONFIG` of `kind: 'tokens'` (a generative plan) runs the proof in tokens instead (`./tokens`).
 *
 * @throws SmokeBenchmarkFailedError when a threshold is breached or the run was cut at its time budget
 * @throws TokenProofFailedError when a proof in tokens misses (wrong golden answer, TTFT, TPOT, rate, errors)
 * @throws Error when the settings are invalid or the configured run cannot fit in the time left
 */
export async function handler(_event: unknown, context: SmokeContext): Promise<SmokeOutcome> {
  if (isTokenProofConfig(process.env[SMOKE_ENV.config])) {
    return runTokenGate(process.env, () => context.getRemainingTimeInMillis(), { cloudFormation, s3, lambda, client: tokenProofClient }, {
      functionVersion: context.functionVersion,
      requestId: context.awsRequestId,
    });
  }
  const invokedAt = new Date();
  const settings = readSettings(process.env);

  const skipped = await standAsideForRollback(cloudFormation, settings, log);
  if (skipped !== undefined) {
    return skipped;
  }

  const capacityConfig = settings.config.capacity;
  const capacityMs = capacityConfig !== undefined ? capacityStageMs(capacityConfig) : 0;
  const budget = planRunBudget(context.getRemainingTimeInMillis() - capacityMs, settings.config);
  if (!budget.fits) {
    throw new Error(`smoke benchmark of ${settings.name} cannot run: ${budget.reason}`);
  }

  const { report, complete } = await runWithin(budget.runMs, benchOptions(settings), settings.name);
  let capacity: CapacityReport | { skipped: string } | undefined;
  if (capacityConfig !== undefined && settings.workerFunction !== undefined) {
    if (complete && report.passed) {
      capacity = await runCapacityProof(lambda, settings.workerFunction, capacityConfig, capacityMs, settings.config.pools);
      log('capacity proof', { name: settings.name, passed: capacity.passed, measured: capacity.measured, predicted: capacity.predicted });
    } else {
      capacity = { skipped: 'the smoke run failed, so the endpoint was not driven at the planned rate' };
    }
  }
  const document = reportDocument(settings, report, {
    invokedAt,
    complete,
    capacity,
    functionVersion: context.functionVersion,
    requestId: context.awsRequestId,
  });
  publishMetrics(document, settings.config.metricNamespace);

  const keys = reportKeys(settings.config.reportPrefix, settings.name, invokedAt, settings.config.fingerprint);
  const uri = `s3://${settings.reportBucket}/${keys.run}`;
  const reportError = await writeReport(s3, settings.reportBucket, [keys.run, keys.latest], JSON.stringify(document, null, 2));
  log(document.passed ? 'passed' : 'failed', {
    name: settings.name,
    report: reportError === undefined ? uri : undefined,
    reportError,
    failures: document.failures,
  });

  if (!document.passed) {
    const where = reportError === undefined ? uri : `not written (${reportError})`;
    throw new SmokeBenchmarkFailedError(failureMessage(document, where), document);
  }
  if (reportError !== undefined && settings.config.failOnReportError === true) {
    throw new Error(
      `smoke benchmark of ${settings.name} passed, but ${reportError}; failing because failOnReportError is set ` +
        '(unset it to keep a healthy deployment when only the report is lost)',
    );
  }
  return {
    outcome: 'passed',
    name: settings.name,
    ...(reportError === undefined ? { report: uri } : { reportError }),
    thresholds: report.thresholds.map((t) => `${t.name} ${t.measured} (limit ${t.limit})`),
  };
}

function benchOptions(settings: SmokeSettings): BenchOptions {
  const { config } = settings;
  return {
    target:
      config.target.kind === 'sagemaker'
        ? { kind: 'sagemaker', endpointName: settings.target, targetVariant: config.target.targetVariant }
        : { kind: 'http', url: settings.target, method: config.target.method, headers: config.target.headers },
    body: config.request.body,
    contentType: config.request.contentType,
    mode: config.mode,
    stop: config.stop,
    warmupMs: config.warmupMs,
    timeoutMs: config.timeoutMs,
    expectStatus: config.expectStatus,
    expect: config.expect,
    thresholds: config.thresholds,
    // The timing header also names each answer's instance pool, which a pooled endpoint's run is judged by.
    ...(config.pools !== undefined ? { serverTiming: true } : {}),
  };
}

/**
 * Runs the engine, aborting it when the budget is spent, and gives up on it if it has not returned
 * {@link STOP_GRACE_MS} later, so the handler always has its report reserve left.
 */
async function runWithin(
  budgetMs: number,
  options: BenchOptions,
  name: string,
): Promise<{ report: BenchReport; complete: boolean }> {
  const controller = new AbortController();
  const abortTimer = setTimeout(() => controller.abort(), budgetMs);
  let giveUpTimer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<never>((_, reject) => {
    giveUpTimer = setTimeout(
      () =>
        reject(
          new Error(
            `smoke benchmark of ${name} did not stop within ${STOP_GRACE_MS} ms of its ${budgetMs} ms time budget; ` +
              'failing now so the Lambda answers before its timeout',
          ),
        ),
      budgetMs + STOP_GRACE_MS,
    );
  });
  try {
    const report = await Promise.race([
      runBenchmark({ ...options, signal: controller.signal }, { sageMakerClient: sageMaker }),
      gaveUp,
    ]);
    return { report, complete: !controller.signal.aborted };
  } finally {
    clearTimeout(abortTimer);
    clearTimeout(giveUpTimer);
  }
}

function log(message: string, fields: Record<string, unknown>): void {
  console.log(JSON.stringify({ level: 'INFO', message: `smoke benchmark ${message}`, ...fields }));
}
