/**
 * The hook's side of the capacity proof: invokes the load workers in parallel, merges what they return and judges
 * the merged run against the plan.
 */
import type { PoolLimits } from '../../lib/bench/pools';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { workerRequests, type CapacityConfig, type LoadWorkerResult } from '../../lib/smoke/capacity';
import { judgeCapacity, type CapacityMeasurement, type CapacityVerdict } from '../../lib/smoke/capacity-verdict';
import { mergeWorkerResults } from '../../lib/smoke/capacity-merge';
import { calibrationRecord, type CalibrationRecord } from '../../lib/bench/calibration-record';
import type { ArrivalProcess } from '../../lib/traffic/types';

/** The capacity section of the report: predicted beside measured, and the verdict. */
export interface CapacityReport {
  readonly predicted: CapacityConfig['predicted'];
  readonly settings: Pick<CapacityConfig, 'rateRps' | 'workers' | 'durationMs' | 'warmupMs' | 'timeoutMs' | 'thresholds'> & {
    /**
     * How the load arrived: `poisson`, each worker a seeded Poisson process at its share of the rate (their merge is
     * one Poisson process at `rateRps`), the traffic the plan's p99 assumes unless it says otherwise; or the plan's
     * arrival process (a log's burstiness), which the workers sent together, each its share.
     */
    readonly arrivals: 'poisson' | ArrivalProcess;
  };
  readonly measured: CapacityMeasurement;
  readonly thresholds: CapacityVerdict['thresholds'];
  readonly failures: CapacityVerdict['failures'];
  readonly passed: boolean;
  /** What `cdk-inferentia calibrate` reads. @default - none: the SmokeBenchmark was given no plan */
  readonly calibration?: CalibrationRecord;
}

/**
 * Runs the capacity proof.
 *
 * Every worker is invoked at once (RequestResponse); a worker whose invocation fails (a function error, a throttle
 * because the account's concurrency is used up, the deadline) is counted as failed, and its share of the load is
 * missing from the achieved rate, so the proof fails rather than passing on less load.
 *
 * @param deadlineMs how long the invocations may take in all before they are abandoned.
 */
export async function runCapacityProof(
  lambda: LambdaClient,
  workerFunction: string,
  config: CapacityConfig,
  deadlineMs: number,
  pools: readonly PoolLimits[] = [],
): Promise<CapacityReport> {
  // The workers start together and measure after their warm-up: close enough to date the calibration record.
  const measuredFrom = new Date(Date.now() + config.warmupMs).toISOString();
  const { results, failed } = await invokeWorkers<LoadWorkerResult>(lambda, workerFunction, workerRequests(config), deadlineMs);
  const measured = mergeWorkerResults(results, failed);
  const verdict = judgeCapacity(measured, config, pools);
  return {
    predicted: config.predicted,
    settings: {
      rateRps: config.rateRps,
      arrivals: config.arrivals ?? 'poisson',
      workers: config.workers,
      durationMs: config.durationMs,
      warmupMs: config.warmupMs,
      timeoutMs: config.timeoutMs,
      thresholds: config.thresholds,
    },
    measured,
    thresholds: verdict.thresholds,
    failures: verdict.failures,
    passed: verdict.failures.length === 0,
    ...(config.plan !== undefined
      ? {
          calibration: calibrationRecord('capacity-proof', config.plan, {
            ...measured,
            startedAt: measuredFrom,
            offeredRps: config.rateRps,
            loadProblem: measured.workersAnswered < config.workers ? measured.errorSamples['worker-failed'] ?? 'a load worker returned no result' : undefined,
          }),
        }
      : {}),
  };
}

/**
 * Invokes every worker at once (RequestResponse) and collects what they return; a worker whose invocation fails (a
 * function error, a throttle, the deadline) is named in `failed` with its cause.
 */
export async function invokeWorkers<Result>(
  lambda: LambdaClient,
  workerFunction: string,
  requests: readonly { readonly worker: number }[],
  deadlineMs: number,
): Promise<{ results: Result[]; failed: Record<string, string> }> {
  const signal = AbortSignal.timeout(deadlineMs);
  const failed: Record<string, string> = {};
  const results: Result[] = [];
  await Promise.all(
    requests.map(async (request) => {
      try {
        const output = await lambda.send(
          new InvokeCommand({ FunctionName: workerFunction, InvocationType: 'RequestResponse', Payload: JSON.stringify(request) }),
          { abortSignal: signal },
        );
        const text = output.Payload ? new TextDecoder().decode(output.Payload) : '';
        if (output.FunctionError !== undefined) {
          failed[String(request.worker)] = `worker ${request.worker} failed: ${workerErrorText(text)}`;
          return;
        }
        results.push(JSON.parse(text) as Result);
      } catch (err) {
        const e = err as Error;
        const cause = signal.aborted ? `no answer within ${deadlineMs} ms` : `${e.name}: ${e.message}`;
        failed[String(request.worker)] = `invoking worker ${request.worker} (${workerFunction}) failed: ${cause}`;
      }
    }),
  );
  return { results, failed };
}

/** `errorType: errorMessage` of a Lambda function error payload, or the payload itself. */
function workerErrorText(payload: string): string {
  try {
    const error = JSON.parse(payload) as { errorType?: string; errorMessage?: string };
    if (typeof error.errorMessage === 'string') {
      return `${error.errorType ?? 'Error'}: ${error.errorMessage}`.slice(0, 300);
    }
  } catch {
    // not JSON: quote it
  }
  return payload.slice(0, 300);
}
