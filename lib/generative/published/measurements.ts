/**
 * From published rows to the planner's measured rows (`GenerativeMeasurement`), so a built-in profile's measurements
 * are the published rows, not a second copy of their figures.
 *
 * The planner times a compiled configuration from a row's decode step (its TPOT at the compiled batch, the graph being
 * padded to it) and, where the row prefilled one request, its TTFT (`continuous-batching.ts` `engineTiming`). A row
 * stands for that (`plannerUsable`) when it ran the model as the planner deploys it: no speculation or prefix caching
 * (their figures time another engine), sampling not moved off the device, weights in the model's own precision, and a
 * load that leaves the decode step alone (static batches, or a closed loop of at most the compiled batch); and when it
 * states a time per output token: a TPOT read off the source, a TPOT derived from its end-to-end latency, or a
 * "latency per token" over input and output tokens (the encoder-decoder tables), which the planner spreads over the
 * output tokens (`latencyCounts: 'input-and-output'`).
 */
import type { GenerativeMeasurement } from '../types';
import { PUBLISHED_MODELS } from './models';
import type { LatencyStatistics, PublishedRow } from './types';

/** The median a statistic stands for: the p50, else the mean, else (only a tail stated) the p99, a conservative stand-in. */
function central(s: LatencyStatistics | undefined): number | undefined {
  return s?.p50 ?? s?.mean ?? s?.p99;
}

/** Why a row cannot stand for a configuration the planner deploys, or undefined when it can. */
export function plannerUnusableReason(row: PublishedRow): string | undefined {
  const model = PUBLISHED_MODELS[row.model];
  if (row.levers.speculation) {
    return 'ran speculative decoding';
  }
  if (row.levers.prefixCaching) {
    return 'ran prefix caching';
  }
  if (row.levers.onDeviceSampling === false) {
    return 'sampled on the host';
  }
  if (model && row.weightDtype !== model.dtype && !(row.weightDtype === 'fp16' && model.dtype === 'bf16') && !(row.weightDtype === 'bf16' && model.dtype === 'fp16')) {
    return `weights in ${row.weightDtype}, not the model's ${model.dtype}`;
  }
  if (row.load === 'rate' || row.load === 'saturation' || (row.concurrency ?? 1) > row.batchSize) {
    return 'loaded with more than one request per compiled slot or an open loop: its TPOT includes prefills and queueing';
  }
  if (central(row.tpot) === undefined && central(row.derived?.tpot) === undefined && row.latencyPerToken?.counts !== 'input-and-output') {
    return 'states no time per output token';
  }
  return undefined;
}

/** True when the row can stand for a configuration the planner deploys (`plannerUnusableReason`). */
export function plannerUsable(row: PublishedRow): boolean {
  return plannerUnusableReason(row) === undefined;
}

/** A row's citation in one line: repository @ commit path (or URL), date, locator; UNVERIFIED when third-party. */
export function describeSource(row: PublishedRow): string {
  const s = row.source;
  const where = s.repository ? `${s.repository} @ ${s.commit} ${s.path}` : s.url;
  return `${row.unverified ? 'UNVERIFIED (not AWS-authored): ' : ''}${where} (${s.date}): ${s.locator}`;
}

function figures(row: PublishedRow, m: Pick<GenerativeMeasurement, 'ttftP50Ms' | 'tpotP50Ms' | 'tokensPerSecond'>): string {
  const tpot = row.tpot ? 'TPOT' : row.derived?.tpot ? `TPOT derived ${row.derived.how}` : 'latency per token over input and output tokens';
  return [
    `${row.stack}, Neuron ${row.neuronSdkVersion}, ${row.instanceType} TP ${row.tensorParallelDegree}${row.dataParallel ? ` x DP ${row.dataParallel}` : ''}, batch ${row.batchSize}`,
    `${row.inputTokens} in / ${row.outputTokens} out`,
    ...(m.ttftP50Ms !== undefined ? [`TTFT ${m.ttftP50Ms} ms`] : []),
    `${tpot} ${m.tpotP50Ms} ms`,
    ...(m.tokensPerSecond !== undefined ? [`${m.tokensPerSecond} tokens/s`] : []),
  ].join(', ');
}

/**
 * The planner's row for a published row, with the same meaning the hand-copied rows had: the median (or the mean,
 * where the source states means) of TTFT and TPOT, their p99 where stated, the source's tokens per second and which
 * tokens it counts.
 *
 * @throws Error when the row is not `plannerUsable` (the message says why)
 */
export function toMeasurement(row: PublishedRow): GenerativeMeasurement {
  const reason = plannerUnusableReason(row);
  if (reason) {
    throw new Error(`published row ${row.model} on ${row.instanceType} (${describeSource(row)}) cannot be a planner measurement: it ${reason}`);
  }
  const ttft = row.ttftCovers === 'batch' && row.batchSize > 1 ? undefined : row.ttft ?? row.derived?.ttft;
  const tpot = row.tpot ?? row.derived?.tpot;
  const perToken = tpot ? undefined : row.latencyPerToken;
  const tpotStats = tpot ?? perToken;
  const tokens = row.outputTokensPerSecond !== undefined
    ? { tokensPerSecond: row.outputTokensPerSecond, throughputCounts: 'output' as const }
    : row.totalTokensPerSecond !== undefined ? { tokensPerSecond: row.totalTokensPerSecond, throughputCounts: 'input-and-output' as const } : {};
  const measurement: Omit<GenerativeMeasurement, 'source'> = {
    instanceType: row.instanceType,
    tensorParallelDegree: row.tensorParallelDegree,
    batchSize: row.batchSize,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    ...(row.sequenceLength !== undefined ? { sequenceLength: row.sequenceLength } : {}),
    neuronSdkVersion: row.neuronSdkVersion,
    ...(central(ttft) !== undefined ? { ttftP50Ms: central(ttft) } : {}),
    ...(ttft?.p99 !== undefined ? { ttftP99Ms: ttft.p99 } : {}),
    tpotP50Ms: central(tpotStats) as number,
    ...(tpotStats?.p99 !== undefined ? { tpotP99Ms: tpotStats.p99 } : {}),
    ...(perToken ? { latencyCounts: 'input-and-output' as const } : {}),
    ...tokens,
    ...(row.levers.chunkedPrefill ? { chunkedPrefill: true } : {}),
    ...(row.unverified ? { unverified: true } : {}),
  };
  return { ...measurement, source: `${describeSource(row)}; ${figures(row, measurement)}` };
}

/**
 * Which published rows a built-in profile plans from: rows of one of `models` matching the pattern's fields (`path`
 * matches the end of the source path, `batchSizes` any of them). Patterns are taken in order, each one's rows in data
 * order, so a profile's measurements keep a stable order.
 */
export interface RowPattern {
  readonly stack?: PublishedRow['stack'];
  readonly instanceType?: string;
  readonly neuronSdkVersion?: string;
  readonly inputTokens?: number;
  readonly run?: string;
  readonly path?: string;
  readonly batchSizes?: readonly number[];
}

function matches(row: PublishedRow, p: RowPattern): boolean {
  return (p.stack === undefined || row.stack === p.stack)
    && (p.instanceType === undefined || row.instanceType === p.instanceType)
    && (p.neuronSdkVersion === undefined || row.neuronSdkVersion === p.neuronSdkVersion)
    && (p.inputTokens === undefined || row.inputTokens === p.inputTokens)
    && (p.run === undefined || row.run === p.run)
    && (p.path === undefined || (row.source.path ?? '').endsWith(p.path))
    && (p.batchSizes === undefined || p.batchSizes.includes(row.batchSize));
}

/** The planner measurements of the usable rows of `models` that match `patterns`, pattern by pattern. */
export function measurementsOf(rows: readonly PublishedRow[], models: readonly string[], patterns: readonly RowPattern[]): GenerativeMeasurement[] {
  const usable = rows.filter((r) => models.includes(r.model) && plannerUsable(r));
  return patterns.flatMap((p) => usable.filter((r) => matches(r, p)).map(toMeasurement));
}
