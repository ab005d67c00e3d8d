/**
 * What a traffic file's numbers say: each count's mean, p99 and quantile table, how prompts and outputs move together,
 * and how bursty the arrivals are.
 *
 * Arrivals. The plan is for a steady rate (`--throughput`); what it needs of the timestamps is how irregular the gaps
 * are at that rate. A gap is measured against the mean gap of the minute around it ({@link ARRIVAL_WINDOW_SECONDS}),
 * so a rate that drifts over the day (load, which autoscaling and `--peak` size for) does not read as burstiness,
 * and the squared coefficient of variation (SCV) of those relative gaps is what the queueing model takes. Timestamps
 * of whole seconds (OpenAI's `created`) or milliseconds put many arrivals on one instant: those are spread evenly at
 * random over their second (or millisecond), which keeps Poisson arrivals Poisson.
 */
import { random } from '../planner/simulate';
import { quantileTable, significant, sortedQuantile } from './quantiles';
import type { ArrivalSummary, CountSummary, TrafficFormat, TrafficSummary } from './types';
import { ARRIVAL_WINDOW_SECONDS, MIN_ARRIVAL_GAPS } from './types';

/** What the parser hands over: the file's numbers, one column each. */
export interface TrafficColumns {
  readonly file: string;
  readonly format: TrafficFormat;
  readonly input?: Float64Array;
  readonly output?: Float64Array;
  /** Arrival times, seconds, in file order. */
  readonly times?: Float64Array;
  readonly timeField?: string;
  readonly skipped: TrafficSummary['skipped'];
}

/** The summary of a file's columns. */
export function summarize(columns: TrafficColumns): TrafficSummary {
  const { input, output, times } = columns;
  const rows = Math.max(input?.length ?? 0, times?.length ?? 0);
  const lengths = input !== undefined && output !== undefined && input.length > 0
    ? {
        input: countSummary(input),
        output: countSummary(output),
        total: countSummary(input.map((v, i) => v + output[i])),
        rankCorrelation: round(spearman(input, output), 3),
      }
    : {};
  const arrivals = times !== undefined && times.length > MIN_ARRIVAL_GAPS ? arrivalSummary(times, columns.timeField ?? 'timestamps') : undefined;
  return {
    source: `${columns.file} (${columns.format}, ${rows.toLocaleString('en-US')} requests)`,
    file: columns.file,
    format: columns.format,
    requests: rows,
    skipped: columns.skipped,
    ...lengths,
    ...(arrivals !== undefined ? { arrivals } : {}),
  };
}

/** Mean, p50, p99, maximum, SCV and quantile table of whole token counts. */
export function countSummary(values: ArrayLike<number>): CountSummary {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  let sum = 0;
  let squares = 0;
  for (let i = 0; i < n; i++) {
    sum += sorted[i];
    squares += sorted[i] * sorted[i];
  }
  const mean = sum / n;
  return {
    mean: round(mean, 1),
    p50: sortedQuantile(sorted, 0.5),
    p99: sortedQuantile(sorted, 0.99),
    max: sorted[n - 1],
    scv: mean > 0 ? round(Math.max(0, squares / n / (mean * mean) - 1), 4) : 0,
    quantiles: quantileTable(sorted, Math.round),
  };
}

/** Spearman's rank correlation (ties share their mean rank); 0 when either column is constant. */
export function spearman(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const n = ra.length;
  const mean = (n + 1) / 2;
  let cov = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < n; i++) {
    const x = ra[i] - mean;
    const y = rb[i] - mean;
    cov += x * y;
    va += x * x;
    vb += y * y;
  }
  return va > 0 && vb > 0 ? cov / Math.sqrt(va * vb) : 0;
}

/** Ranks from 1, ties given their mean rank. */
function ranks(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const order = sortedIndexes(values);
  const out = new Float64Array(n);
  for (let start = 0; start < n;) {
    let end = start + 1;
    while (end < n && values[order[end]] === values[order[start]]) {
      end++;
    }
    const rank = (start + 1 + end) / 2;
    for (let k = start; k < end; k++) {
      out[order[k]] = rank;
    }
    start = end;
  }
  return out;
}

/**
 * The indexes of `values` in ascending order of value. Whole counts below 2^31 over at most 2^22 rows sort as one
 * number each (value x 2^22 + index, exact in a double), a typed-array sort without a comparator: a million rows in a
 * fraction of a second.
 */
function sortedIndexes(values: ArrayLike<number>): Uint32Array {
  const n = values.length;
  let packable = n <= 1 << 22;
  for (let i = 0; packable && i < n; i++) {
    packable = Number.isInteger(values[i]) && values[i] >= 0 && values[i] < 2 ** 31;
  }
  if (!packable) {
    return Uint32Array.from({ length: n }, (_, i) => i).sort((x, y) => values[x] - values[y]);
  }
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    keys[i] = values[i] * 2 ** 22 + i;
  }
  keys.sort();
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    order[i] = keys[i] % 2 ** 22;
  }
  return order;
}

/**
 * The arrivals of sorted-or-not timestamps: rate, SCV of the gaps against their minute's mean gap, its range over
 * the file, the gaps' table, the busiest minute.
 */
export function arrivalSummary(raw: Float64Array, field: string): ArrivalSummary | undefined {
  const times = Float64Array.from(raw).sort();
  const spread = spreadTies(times);
  const n = times.length;
  const duration = times[n - 1] - times[0];
  if (!(duration > 0)) {
    return undefined;
  }
  const relative = relativeGaps(times, duration);
  const scv = scvOf(relative, 0, relative.length);
  const tenth = Math.floor(relative.length / 10);
  const batches = Array.from({ length: 10 }, (_, k) => scvOf(relative, k * tenth, (k + 1) * tenth));
  const mean = relative.reduce((s, g) => s + g, 0) / relative.length;
  const normalized = relative.map((g) => g / mean).sort();
  const meanRps = (n - 1) / duration;
  const minutes = Math.floor(duration / 60);
  let busiest: number | undefined;
  if (minutes >= 2) {
    const counts = new Float64Array(minutes);
    for (const t of times) {
      const m = Math.floor((t - times[0]) / 60);
      if (m < minutes) {
        counts[m]++;
      }
    }
    busiest = round(Math.max(...counts) / (meanRps * 60), 2);
  }
  return {
    scv: round(scv, 3),
    scvRange: [round(Math.min(...batches), 3), round(Math.max(...batches), 3)],
    gapQuantiles: quantileTable(normalized, (v) => significant(v, 4)),
    meanRps: significant(meanRps, 4),
    durationSeconds: round(duration, 1),
    ...(busiest !== undefined ? { busiestMinuteOverMean: busiest } : {}),
    timestamps: n,
    field,
    ...(spread !== undefined ? { spreadOver: spread } : {}),
  };
}

/**
 * Spreads arrivals that share a timestamp over its resolution (a second, or a millisecond), evenly at random and
 * seeded, and sorts again; returns the resolution spread over, or undefined when the times have a finer one.
 */
function spreadTies(times: Float64Array): string | undefined {
  const whole = (scale: number) => times.every((t) => Math.abs(t * scale - Math.round(t * scale)) < 1e-3);
  const resolution = whole(1) ? 1 : whole(1000) ? 0.001 : undefined;
  if (resolution === undefined) {
    return undefined;
  }
  const next = random(20231116);
  for (let i = 0; i < times.length; i++) {
    times[i] += next() * resolution;
  }
  times.sort();
  return resolution === 1 ? 'a second' : 'a millisecond';
}

/** Each gap over the mean gap of the window of {@link ARRIVAL_WINDOW_SECONDS} centred on it (the whole file when shorter). */
function relativeGaps(times: Float64Array, duration: number): Float64Array {
  const n = times.length;
  const gaps = new Float64Array(n - 1);
  if (duration <= ARRIVAL_WINDOW_SECONDS) {
    const meanGap = duration / (n - 1);
    for (let i = 0; i + 1 < n; i++) {
      gaps[i] = (times[i + 1] - times[i]) / meanGap;
    }
    return gaps;
  }
  const half = ARRIVAL_WINDOW_SECONDS / 2;
  let lo = 0;
  let hi = 0;
  for (let i = 0; i + 1 < n; i++) {
    const mid = (times[i] + times[i + 1]) / 2;
    // The window slides with the gaps: [mid - half, mid + half], cut to the file's span.
    const from = Math.max(times[0], mid - half);
    const to = Math.min(times[n - 1], mid + half);
    while (lo < n && times[lo] < from) lo++;
    while (hi < n && times[hi] <= to) hi++;
    // k arrivals over a span: a mean gap of span / k (a Poisson count's mean is the rate x the span).
    const meanGap = (to - from) / Math.max(1, hi - lo);
    gaps[i] = meanGap > 0 ? (times[i + 1] - times[i]) / meanGap : 1;
  }
  return gaps;
}

function scvOf(values: Float64Array, from: number, to: number): number {
  let sum = 0;
  let squares = 0;
  for (let i = from; i < to; i++) {
    sum += values[i];
    squares += values[i] * values[i];
  }
  const count = to - from;
  const mean = sum / count;
  return mean > 0 ? Math.max(0, squares / count / (mean * mean) - 1) : 0;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
