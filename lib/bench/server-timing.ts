/**
 * The model server's own account of each request: its time in the server and the device call it rode in, read from
 * the `X-Amzn-SageMaker-Custom-Attributes` header `serving/frontend.py` sets (InvokeEndpoint returns it as
 * `CustomAttributes`).
 *
 * With it a run can judge the server-side p99 against the plan directly, without guessing what the network and the
 * SageMaker router add, and report the mean batch size the server formed under the run's load.
 */
import { LatencyRecorder } from './latency';
import type { EncodedHistograms, ServerTimingReport } from './types';

/** The response header the model server puts its timing in; SageMaker passes it on as `CustomAttributes`. */
export const SERVER_TIMING_HEADER = 'x-amzn-sagemaker-custom-attributes';

/** One answer's server-side figures. */
export interface ServerTiming {
  /** From the arrival of the whole request body to the answer. */
  readonly serverMs: number;
  /** Requests in the device call that answered it; absent when no device call did (deadline, worker died). */
  readonly batchRequests?: number;
  /** Inputs in that device call. */
  readonly batchInputs?: number;
  /** How long that device call took. */
  readonly deviceMs?: number;
}

/**
 * Parses the header value, e.g. `server-ms=12.5,batch-requests=3,batch-inputs=3,device-ms=9.1`.
 *
 * @returns `undefined` when the value is missing or carries no `server-ms` (another server, or a user's own custom
 *   attributes): such answers are simply not counted.
 */
export function parseServerTiming(value: string | undefined): ServerTiming | undefined {
  if (value === undefined || value === '') {
    return undefined;
  }
  const fields: Record<string, number> = {};
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) {
      const number = Number(part.slice(eq + 1).trim());
      if (Number.isFinite(number) && number >= 0) {
        fields[part.slice(0, eq).trim()] = number;
      }
    }
  }
  if (fields['server-ms'] === undefined) {
    return undefined;
  }
  return {
    serverMs: fields['server-ms'],
    batchRequests: fields['batch-requests'],
    batchInputs: fields['batch-inputs'],
    deviceMs: fields['device-ms'],
  };
}

/** Collects the server timing of a run's successful answers. */
export class ServerTimingRecorder {
  readonly latency = new LatencyRecorder();
  /** Sum over answers of the requests in the batch each rode in (so sum / answers is the request-weighted mean). */
  batchRequestsSum = 0;
  batchInputsSum = 0;
  /** Answers that named their batch. */
  batched = 0;
  /** Device time of the call that answered each request, for answers that carried `device-ms` (calibration). */
  readonly device = new LatencyRecorder();
  /**
   * `server-ms - device-ms` of each such answer: what the server spent on a request besides its device call (queue
   * wait, batch formation, host work), the measured side of the plan's host work (calibration).
   */
  readonly overhead = new LatencyRecorder();

  /** Records one answer's header value; ignores answers without one. */
  record(headerValue: string | undefined): void {
    const timing = parseServerTiming(headerValue);
    if (timing === undefined) {
      return;
    }
    this.latency.record(timing.serverMs);
    if (timing.batchRequests !== undefined && timing.batchInputs !== undefined) {
      this.batched++;
      this.batchRequestsSum += timing.batchRequests;
      this.batchInputsSum += timing.batchInputs;
    }
    if (timing.deviceMs !== undefined) {
      this.device.record(timing.deviceMs);
      this.overhead.record(Math.max(0, timing.serverMs - timing.deviceMs));
    }
  }

  /** Adds another recorder's counts (a load worker's, decoded). */
  add(other: NonNullable<EncodedHistograms['server']>): void {
    this.latency.addEncoded(other.latency);
    if (other.device !== undefined && other.overhead !== undefined) {
      this.device.addEncoded(other.device);
      this.overhead.addEncoded(other.overhead);
    }
    this.batched += other.batched;
    this.batchRequestsSum += other.batchRequestsSum;
    this.batchInputsSum += other.batchInputsSum;
  }

  /** The report section, or `undefined` when no answer carried the header. */
  report(): ServerTimingReport | undefined {
    if (this.latency.count === 0) {
      return undefined;
    }
    return {
      answers: this.latency.count,
      latencyMs: this.latency.percentiles(),
      meanBatchRequests: this.batched > 0 ? round(this.batchRequestsSum / this.batched) : undefined,
      meanBatchInputs: this.batched > 0 ? round(this.batchInputsSum / this.batched) : undefined,
      ...(this.device.count > 0 ? { deviceMs: this.device.percentiles(), overheadMs: { p5: this.overhead.percentile(5), ...this.overhead.percentiles() } } : {}),
    };
  }

  /** The counts and histograms another process merges with {@link add}. */
  encode(): NonNullable<EncodedHistograms['server']> {
    return {
      latency: this.latency.encode(),
      batched: this.batched,
      batchRequestsSum: this.batchRequestsSum,
      batchInputsSum: this.batchInputsSum,
      ...(this.device.count > 0 ? { device: this.device.encode(), overhead: this.overhead.encode() } : {}),
    };
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
