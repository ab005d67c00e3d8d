/**
 * The smoke gate of a generative deployment, in tokens: the golden prompt (greedy, streamed, answer checked), a
 * short streamed run judged on TTFT, TPOT and output tokens/s, then, when configured, the capacity proof fanned out
 * over load workers at the plan's request rate. Any miss fails the deployment with predicted beside measured.
 */
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { S3Client } from '@aws-sdk/client-s3';
import type { TokenProofClient, TokenEndpoint } from '../../io/bench/token-proof-client';
import { mergeTokenRuns, tokenWorkerRequests, type TokenWorkerResult } from '../../lib/bench/token-merge';
import { generativeCalibrationRecord } from '../../lib/bench/token-calibration';
import { checkGoldenAnswer, judgeTokenRun, tokenCapacityStageMs, tokenSmokeStageMs } from '../../lib/bench/token-proof';
import { judgeTokenPools } from '../../lib/bench/token-pools';
import { REPORT_RESERVE_MS, STOP_GRACE_MS } from '../../lib/smoke/budget';
import { readTokenSettings, type TokenSettings } from '../../lib/smoke/token-settings';
import { judgeCopyCores, judgePluginStartup, parseCopyCores, parsePluginStartup, type CopyCores } from '../../lib/generative/plugin-metrics';
import { invokeWorkers } from './capacity';
import { reportKeys, writeReport } from './report';
import { standAsideForRollback } from './stack-status';
import {
  predictedBesideMeasured,
  publishTokenMetrics,
  tokenFailureMessage,
  type GoldenSection,
  type TokenEngineSection,
  type TokenReportDocument,
} from './token-report';

/** What the gate needs from outside: the control plane, the workers' function client, the token client. */
export interface TokenGateDependencies {
  readonly cloudFormation: CloudFormationClient;
  readonly s3: S3Client;
  readonly lambda: LambdaClient;
  readonly client: TokenProofClient;
}

/** Most `/metrics` reads spent looking for every copy behind the target (the load balancer picks one per read). */
const MAX_METRICS_READS = 16;

/**
 * What the engine says about its start: the vLLM Neuron plugin's compile, load and startup seconds, with the failure of
 * a compile at serving time, and the NeuronCores each copy saw before it loaded (the cdk-inferentia launcher's series).
 * The target's `/metrics` is read until every planned copy answered, or twice as many reads as copies (at most
 * {@link MAX_METRICS_READS}): the load balancer sends each read to one copy. Undefined for an engine or a target
 * without those series. A metrics read that fails is recorded, not fatal: the proof's verdict rests on the tokens.
 */
async function readEngineStartup(client: TokenProofClient, endpoint: TokenEndpoint, copiesPlanned: number | undefined): Promise<TokenReportDocument['engine']> {
  if (!client.engineMetrics) return undefined;
  const reads = Math.min(MAX_METRICS_READS, 2 * (copiesPlanned ?? 1));
  let startup: TokenEngineSection['startup'];
  const copies = new Map<string, CopyCores>();
  for (let i = 0; i < reads && copies.size < (copiesPlanned ?? 1); i++) {
    let text: string | undefined;
    try {
      text = await client.engineMetrics(endpoint, AbortSignal.timeout(10_000));
    } catch (error) {
      if (i === 0) return { error: `reading ${endpoint.target}/metrics failed: ${error instanceof Error ? error.message : String(error)}`, failures: [] };
      break;
    }
    if (text === undefined) break;
    startup ??= parsePluginStartup(text);
    const seen = parseCopyCores(text);
    if (i === 0 && seen.length === 0) break; // an engine without the launcher's series: one read says so
    for (const copy of seen) copies.set(copy.copy, copy);
  }
  if (!startup && copies.size === 0) return undefined;
  const copyList = [...copies.values()];
  const failures = [...(startup ? judgePluginStartup(startup) : []), ...judgeCopyCores(copyList)];
  const section: TokenEngineSection = {
    ...(startup ? { startup } : {}),
    ...(copyList.length > 0 ? { copies: copyList, ...(copiesPlanned !== undefined ? { copiesPlanned } : {}) } : {}),
    failures,
  };
  log('engine startup', { ...startup, copies: copyList, passed: failures.length === 0 });
  return section;
}

/** What a passed or skipped proof returns (the Trigger provider logs it). */
export type TokenOutcome =
  | { readonly outcome: 'passed'; readonly name: string; readonly report?: string; readonly reportError?: string; readonly thresholds: readonly string[] }
  | { readonly outcome: 'skipped'; readonly name: string; readonly reason: string };

/** Thrown when the proof in tokens misses: the message names each reason, expected vs got for the golden answer. */
export class TokenProofFailedError extends Error {
  constructor(
    message: string,
    /** The document written to S3. */
    readonly document: TokenReportDocument,
  ) {
    super(message);
    this.name = 'TokenProofFailedError';
  }
}

/**
 * Runs the proof in tokens.
 *
 * @throws TokenProofFailedError when the golden answer is wrong or a limit is missed
 * @throws Error when the settings are invalid or the proof cannot fit in the time left
 */
export async function runTokenGate(
  env: Readonly<Record<string, string | undefined>>,
  remainingMs: () => number,
  deps: TokenGateDependencies,
  invocation: { readonly functionVersion?: string; readonly requestId?: string } = {},
): Promise<TokenOutcome> {
  const invokedAt = new Date();
  const settings = readTokenSettings(env);
  const { config } = settings;
  const skipped = await standAsideForRollback(deps.cloudFormation, settings, log);
  if (skipped !== undefined) {
    return skipped;
  }
  const capacityMs = config.capacity !== undefined ? tokenCapacityStageMs(config.capacity) : 0;
  const needsMs = tokenSmokeStageMs(config.smoke) + capacityMs + STOP_GRACE_MS + REPORT_RESERVE_MS;
  if (remainingMs() < needsMs) {
    throw new Error(
      `proof in tokens of ${settings.name} cannot run: it needs ${Math.ceil(needsMs / 1000)} s and the Lambda has ` +
        `${Math.floor(remainingMs() / 1000)} s left; raise the SmokeBenchmark \`timeout\``,
    );
  }
  const endpoint: TokenEndpoint = { target: settings.target, config: config.target, api: config.api, model: config.model };
  const failures: string[] = [];

  const golden = await sendGolden(deps.client, endpoint, settings);
  if (!golden.passed) {
    failures.push(`golden prompt: ${golden.message}`);
  }
  const copiesPlanned = config.plan !== undefined ? config.plan.instanceCount * config.plan.replicasPerInstance : undefined;
  const engine = await readEngineStartup(deps.client, endpoint, copiesPlanned);
  failures.push(...(engine?.failures ?? []));

  let smoke: TokenReportDocument['smoke'] = { skipped: 'the golden prompt failed, so the latency of a wrong model was not measured' };
  if (golden.passed) {
    const run = config.smoke;
    const result = await deps.client.runClosed(endpoint, {
      requests: run.requests,
      concurrency: run.concurrency,
      inputTokens: run.inputTokens,
      outputTokens: run.outputTokens,
      timeoutMs: run.timeoutMs,
      signal: AbortSignal.timeout(tokenSmokeStageMs(run)),
      goodput: { ttftMs: run.thresholds.ttftP99MaxMs, tpotMs: run.thresholds.tpotP99MaxMs },
    });
    const measured = mergeTokenRuns([result]);
    const label = `smoke run of ${measured.requests} streamed requests`;
    const verdict = judgeTokenRun(measured, run.thresholds, run.predicted, label);
    const poolFailures = judgeTokenPools(measured.pools, config.pools ?? [], label);
    failures.push(...verdict.failures, ...poolFailures);
    smoke = {
      settings: { requests: run.requests, concurrency: run.concurrency, rateRps: run.rateRps, inputTokens: run.inputTokens, outputTokens: run.outputTokens, timeoutMs: run.timeoutMs },
      predicted: run.predicted,
      measured,
      thresholds: verdict.thresholds,
      passed: verdict.failures.length === 0 && poolFailures.length === 0,
    };
    log('smoke run', { name: settings.name, passed: smoke.passed, ...predictedBesideMeasured(smoke) });
  }

  let capacity: TokenReportDocument['capacity'];
  if (config.capacity !== undefined && settings.workerFunction !== undefined) {
    if (failures.length > 0) {
      capacity = { skipped: 'the smoke gate failed, so the endpoint was not driven at the planned rate' };
    } else {
      const c = config.capacity;
      const { results, failed } = await invokeWorkers<TokenWorkerResult>(deps.lambda, settings.workerFunction, tokenWorkerRequests(c), capacityMs);
      const measured = mergeTokenRuns(results, failed);
      const label = `capacity proof at ${c.rateRps} requests/s`;
      const verdict = judgeTokenRun(measured, c.thresholds, c.predicted, label);
      failures.push(...verdict.failures, ...judgeTokenPools(measured.pools, config.pools ?? [], label));
      if (results.length < c.workers) {
        failures.push(
          `${label}: ${c.workers - results.length} of ${c.workers} load workers returned no result ` +
            `(${measured.errorSamples['worker-failed'] ?? 'unknown cause'}), so only part of the planned rate was applied`,
        );
      }
      capacity = {
        settings: { rateRps: c.rateRps, workers: c.workers, streamsPerWorker: c.streamsPerWorker, durationMs: c.durationMs, warmupMs: c.warmupMs, inputTokens: c.inputTokens, outputTokens: c.outputTokens,
          // The distributions and the seed the workers drew each request's lengths with, and the arrivals they sent.
          ...(c.lengths !== undefined ? { lengths: c.lengths, lengthSeed: c.lengthSeed ?? 1 } : {}),
          ...(c.arrivals !== undefined ? { arrivals: c.arrivals } : {}) },
        workersAnswered: results.length,
        // Only the capacity proof's: it runs only when the earlier stages left no failure.
        failures: failures.slice(),
        predicted: c.predicted,
        measured,
        thresholds: verdict.thresholds,
        passed: verdict.failures.length === 0 && results.length === c.workers,
        // What `cdk-inferentia calibrate` turns into the deployed configuration's measured row.
        ...(config.plan !== undefined ? { calibration: generativeCalibrationRecord(config.plan, measured, invokedAt.toISOString(), results.length === c.workers) } : {}),
      };
      log('capacity proof', { name: settings.name, passed: capacity.passed, ...predictedBesideMeasured(capacity) });
    }
  }

  const document: TokenReportDocument = {
    schemaVersion: 1,
    kind: 'tokens',
    name: settings.name,
    environment: settings.environment,
    target:
      config.target.kind === 'sagemaker'
        ? { kind: 'sagemaker', endpointName: settings.target, ...(config.target.inferenceComponentName !== undefined ? { inferenceComponentName: config.target.inferenceComponentName } : {}) }
        : { kind: 'http', url: settings.target },
    model: config.model,
    api: config.api,
    fingerprint: config.fingerprint,
    ...(engine !== undefined ? { engine } : {}),
    stackId: settings.stackId,
    functionVersion: invocation.functionVersion,
    requestId: invocation.requestId,
    invokedAt: invokedAt.toISOString(),
    passed: failures.length === 0,
    complete: !('measured' in smoke) || smoke.measured.requests >= config.smoke.requests,
    failures,
    report:
      'measured' in smoke
        ? { requests: smoke.measured.requests, errorRate: smoke.measured.errorRate, throughputRps: smoke.measured.achievedRps, latencyMs: { p99: smoke.measured.e2eMs.p99 } }
        : { requests: 0, errorRate: 0, throughputRps: 0, latencyMs: { p99: 0 } },
    golden,
    smoke,
    ...(capacity !== undefined ? { capacity } : {}),
  };
  publishTokenMetrics(document, config.metricNamespace);
  const keys = reportKeys(config.reportPrefix, settings.name, invokedAt, config.fingerprint);
  const uri = `s3://${settings.reportBucket}/${keys.run}`;
  const reportError = await writeReport(deps.s3, settings.reportBucket, [keys.run, keys.latest], JSON.stringify(document, null, 2));
  log(document.passed ? 'passed' : 'failed', { name: settings.name, report: reportError === undefined ? uri : undefined, reportError, failures });
  if (!document.passed) {
    throw new TokenProofFailedError(tokenFailureMessage(document, reportError === undefined ? uri : `not written (${reportError})`), document);
  }
  if (reportError !== undefined && config.failOnReportError === true) {
    throw new Error(`proof in tokens of ${settings.name} passed, but ${reportError}; failing because failOnReportError is set`);
  }
  const thresholds = [smoke, capacity].flatMap((section) =>
    section !== undefined && 'thresholds' in section ? section.thresholds.map((t) => `${t.name} ${t.measured} (limit ${t.limit})`) : [],
  );
  return { outcome: 'passed', name: settings.name, ...(reportError === undefined ? { report: uri } : { reportError }), thresholds };
}

async function sendGolden(client: TokenProofClient, endpoint: TokenEndpoint, settings: TokenSettings): Promise<GoldenSection> {
  const { golden, smoke } = settings.config;
  try {
    const answer = await client.sendGolden(endpoint, golden, AbortSignal.timeout(smoke.timeoutMs));
    if (!answer.ok) {
      const why = answer.status !== undefined ? `status ${answer.status}` : 'no answer';
      return { prompt: golden, passed: false, message: `the request failed (${why}: ${answer.error ?? 'no detail'})`, answer };
    }
    const verdict = checkGoldenAnswer(golden.expect, answer.text);
    return { prompt: golden, passed: verdict.passed, message: verdict.message, answer };
  } catch (err) {
    const e = err as Error;
    return { prompt: golden, passed: false, message: `the request failed (${e.name}: ${e.message})` };
  }
}

function log(message: string, fields: Record<string, unknown>): void {
  console.log(JSON.stringify({ level: 'INFO', message: `proof in tokens ${message}`, ...fields }));
}
