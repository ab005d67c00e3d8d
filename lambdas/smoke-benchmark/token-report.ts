/**
 * The report of a proof in tokens: the JSON document CI reads (predicted beside measured), its CloudWatch metrics
 * (EMF) and the message that fails the deployment.
 */
import type { CopyCores, PluginStartup } from '../../lib/generative/plugin-metrics';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { GenerativeCalibrationRecord } from '../../lib/bench/token-calibration';
import type { GoldenPrompt, TokenCapacityConfig, TokenFigures, TokenMeasurement, TokenSmokeRun, TokenThresholdResult } from '../../lib/bench/token-proof';
import { SMOKE_DIMENSION, SMOKE_METRIC } from '../../lib/smoke/metrics';
import type { TokenSettings } from '../../lib/smoke/token-settings';
import type { GoldenResult } from '../../io/bench/token-proof-client';

/** The golden prompt's section: what was asked, what was expected, what came back. */
export interface GoldenSection {
  readonly prompt: GoldenPrompt;
  readonly passed: boolean;
  /** `expected ..., got ...`, or why the request failed. */
  readonly message: string;
  readonly answer?: Pick<GoldenResult, 'text' | 'outputTokens' | 'ttftMs' | 'tpotMs' | 'e2eMs' | 'status' | 'error'>;
}

/** A streamed run's section: the plan's figures beside the measured ones, and each limit. */
export interface TokenRunSection {
  readonly predicted: TokenFigures & { readonly rateRps?: number };
  readonly measured: TokenMeasurement;
  readonly thresholds: readonly TokenThresholdResult[];
  readonly passed: boolean;
}

/** The JSON document written to S3 for CI. */
export interface TokenReportDocument {
  readonly schemaVersion: 1;
  readonly kind: 'tokens';
  readonly name: string;
  readonly environment: string;
  readonly target: { readonly kind: 'sagemaker'; readonly endpointName: string; readonly inferenceComponentName?: string } | { readonly kind: 'http'; readonly url: string };
  readonly model: string;
  readonly api: TokenSettings['config']['api'];
  readonly fingerprint?: string;
  readonly stackId: string;
  readonly functionVersion?: string;
  readonly requestId?: string;
  readonly invokedAt: string;
  readonly passed: boolean;
  /** False when the short run was cut before its last request; such a run never passes. */
  readonly complete: boolean;
  /** One sentence per reason the proof failed; empty when it passed. */
  readonly failures: readonly string[];
  /**
   * The short run in the single-call report's terms, which the promotion gate reads (`lib/release` `SmokeReport`):
   * requests, error rate, requests/s and the end-to-end p99. All 0 when the golden prompt failed and nothing ran.
   */
  readonly report: {
    readonly requests: number;
    readonly errorRate: number;
    readonly throughputRps: number;
    readonly latencyMs: { readonly p99: number };
  };
  readonly golden: GoldenSection;
  readonly smoke:
    | (TokenRunSection & { readonly settings: Pick<TokenSmokeRun, 'requests' | 'concurrency' | 'rateRps' | 'inputTokens' | 'outputTokens' | 'timeoutMs'> })
    | { readonly skipped: string };
  /** @default - no capacity proof configured */
  readonly capacity?:
    | (TokenRunSection & {
        readonly settings: Pick<TokenCapacityConfig, 'rateRps' | 'workers' | 'streamsPerWorker' | 'durationMs' | 'warmupMs' | 'inputTokens' | 'outputTokens' | 'lengths' | 'lengthSeed' | 'arrivals'>;
        readonly workersAnswered: number;
        readonly failures: readonly string[];
        /** With the plan's basis in the settings: what `calibrate` reads. @default - no basis, no record */
        readonly calibration?: GenerativeCalibrationRecord;
      })
    | { readonly skipped: string };
  /**
   * What the engine says about its start (engines reached over HTTP): the vLLM Neuron plugin's compile, load and
   * startup seconds, the NeuronCores each copy saw, and the failures among them. @default - the engine exports none
   * of those series, or is not reachable
   */
  readonly engine?: TokenEngineSection;
}

/** The engine's section of the report. */
export interface TokenEngineSection {
  /** The vLLM Neuron plugin's start (Trn2/Trn3). @default - no `vllm_neuron:` series */
  readonly startup?: PluginStartup;
  /** The NeuronCores each copy that answered saw before its engine loaded (the cdk-inferentia launcher's series). */
  readonly copies?: readonly CopyCores[];
  /** Copies the plan puts behind the target, to read `copies` against. */
  readonly copiesPlanned?: number;
  /** A compile at serving time, a copy with fewer cores than it needs. */
  readonly failures: readonly string[];
  readonly error?: string;
}

/** Writes the proof's metrics as one EMF line, with the `EndpointName` and `Environment` dimensions. */
export function publishTokenMetrics(document: TokenReportDocument, namespace: string): void {
  const metrics = new Metrics({ namespace });
  metrics.clearDefaultDimensions();
  metrics.addDimensions({ [SMOKE_DIMENSION.endpoint]: document.name, [SMOKE_DIMENSION.environment]: document.environment });
  metrics.addMetric(SMOKE_METRIC.golden, MetricUnit.Count, document.golden.passed ? 1 : 0);
  const smoke = document.smoke;
  if ('measured' in smoke) {
    const m = smoke.measured;
    // Latency left out when nothing succeeded: a 0 ms p99 would read as a fast endpoint on a dashboard.
    if (m.requests > m.errors) {
      metrics.addMetric(SMOKE_METRIC.ttftP99, MetricUnit.Milliseconds, m.ttftMs.p99);
      metrics.addMetric(SMOKE_METRIC.tpotP99, MetricUnit.Milliseconds, m.tpotMs.p99);
      metrics.addMetric(SMOKE_METRIC.p99, MetricUnit.Milliseconds, m.e2eMs.p99);
    }
    metrics.addMetric(SMOKE_METRIC.outputTokens, MetricUnit.CountPerSecond, m.outputTokensPerSecond);
    metrics.addMetric(SMOKE_METRIC.throughput, MetricUnit.CountPerSecond, m.achievedRps);
    metrics.addMetric(SMOKE_METRIC.errorRate, MetricUnit.Percent, m.errorRate * 100);
    metrics.addMetric(SMOKE_METRIC.requests, MetricUnit.Count, m.requests);
    metrics.addMetric(SMOKE_METRIC.errors, MetricUnit.Count, m.errors);
  }
  const capacity = document.capacity;
  if (capacity !== undefined && 'measured' in capacity) {
    metrics.addMetric(SMOKE_METRIC.capacityRate, MetricUnit.CountPerSecond, capacity.measured.achievedRps);
    if (capacity.measured.requests > capacity.measured.errors) {
      metrics.addMetric(SMOKE_METRIC.capacityTtftP99, MetricUnit.Milliseconds, capacity.measured.ttftMs.p99);
      metrics.addMetric(SMOKE_METRIC.capacityTpotP99, MetricUnit.Milliseconds, capacity.measured.tpotMs.p99);
    }
  }
  metrics.addMetric(SMOKE_METRIC.passed, MetricUnit.Count, document.passed ? 1 : 0);
  metrics.publishStoredMetrics();
}

/** The error message that fails the deployment: every reason, the errors by kind, and where the report is. */
export function tokenFailureMessage(document: TokenReportDocument, reportUri: string): string {
  const kinds: string[] = [];
  for (const section of [document.smoke, document.capacity]) {
    if (section !== undefined && 'measured' in section) {
      for (const [kind, count] of Object.entries(section.measured.errorsByKind)) {
        if (count > 0) {
          kinds.push(`${kind} ${count}${section.measured.errorSamples[kind] ? ` (${section.measured.errorSamples[kind]})` : ''}`);
        }
      }
    }
  }
  const errors = kinds.length > 0 ? ` (errors by kind: ${kinds.join(', ')})` : '';
  return `proof in tokens of ${document.name} in ${document.environment} failed: ${document.failures.join('; ')}${errors}; report ${reportUri}`;
}

/** Predicted beside measured, one line per figure, for the log. */
export function predictedBesideMeasured(section: TokenRunSection): Record<string, string> {
  const m = section.measured;
  const p = section.predicted;
  return {
    ttftP99Ms: `${m.ttftMs.p99} (plan ${p.ttftP99Ms})`,
    tpotP99Ms: `${m.tpotMs.p99} (plan ${p.tpotP99Ms})`,
    e2eP99Ms: `${m.e2eMs.p99} (plan ${p.e2eP99Ms})`,
    outputTokensPerSecond: `${m.outputTokensPerSecond} (plan ${p.outputTokensPerSecond})`,
    ...(m.goodputRps !== undefined ? { goodputRps: `${m.goodputRps} (${m.goodRequests} of ${m.requests} requests within TTFT and TPOT limits together)` } : {}),
    ...(p.rateRps !== undefined ? { requestsPerSecond: `${m.achievedRps} (plan ${p.rateRps})` } : {}),
  };
}
