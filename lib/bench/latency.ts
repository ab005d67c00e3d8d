/**
 * Latency recording in an HDR histogram, and the buckets a report charts.
 */
import { decodeFromCompressedBase64, encodeIntoCompressedBase64, Int32Histogram, type JsHistogram } from 'hdr-histogram-js';
import type { BenchReport } from './types';

/** Microseconds per millisecond: the histogram counts whole microseconds. */
const US_PER_MS = 1000;

/**
 * Records latencies of successful requests and summarises them.
 *
 * Values are kept in whole microseconds with 3 significant digits (0.1 % resolution), from 1 µs up to one hour
 * before the histogram resizes itself.
 */
export class LatencyRecorder {
  private readonly histogram = new Int32Histogram(1, 3_600_000_000, 3);

  constructor() {
    this.histogram.autoResize = true;
  }

  /** Records one latency in milliseconds (fractions kept to the microsecond). */
  record(latencyMs: number): void {
    this.histogram.recordValue(Math.max(1, Math.round(latencyMs * US_PER_MS)));
  }

  /**
   * The histogram in HdrHistogram's compressed base64 form, so another process (a load worker Lambda) can send its
   * whole distribution and the receiver can merge it exactly: percentiles of merged percentiles would be wrong.
   */
  encode(): string {
    return encodeIntoCompressedBase64(this.histogram);
  }

  /** Adds the latencies of an {@link encode}d histogram to this one. */
  addEncoded(encoded: string): void {
    // Decoded without WebAssembly, so it is a JsHistogram, the only kind a JsHistogram adds.
    const other = decodeFromCompressedBase64(encoded, 32, false) as JsHistogram;
    try {
      this.histogram.add(other);
    } finally {
      other.destroy();
    }
  }

  /** How many latencies were recorded. */
  get count(): number {
    return this.histogram.totalCount;
  }

  /** p50, p90, p99 and max in milliseconds; all 0 when nothing was recorded. */
  percentiles(): BenchReport['latencyMs'] {
    if (this.histogram.totalCount === 0) {
      return { p50: 0, p90: 0, p99: 0, max: 0 };
    }
    // A percentile is the top of its HDR bucket (within 0.1 %), which can pass the largest value actually seen.
    const max = this.histogram.maxValue;
    const at = (p: number): number => toMs(Math.min(this.histogram.getValueAtPercentile(p), max));
    return { p50: at(50), p90: at(90), p99: at(99), max: toMs(max) };
  }

  /** The latency at one percentile (0-100) in milliseconds; 0 when nothing was recorded. */
  percentile(percent: number): number {
    if (this.histogram.totalCount === 0) {
      return 0;
    }
    return toMs(Math.min(this.histogram.getValueAtPercentile(percent), this.histogram.maxValue));
  }

  /**
   * Equal-width buckets for a chart, with "nice" widths (1, 2, 2.5 or 5 times a power of ten) spanning the fastest
   * answer to the p99.9; slower outliers share one last bucket ending at the max, so one stall does not squash the
   * rest of the chart into a single bar.
   *
   * @param target about how many equal-width buckets to make.
   */
  buckets(target = 20): BenchReport['histogram'] {
    const h = this.histogram;
    if (h.totalCount === 0) {
      return [];
    }
    const min = h.minNonZeroValue;
    const high = Math.max(h.getValueAtPercentile(99.9), min + 1);
    const width = niceWidth((high - min) / target);
    const start = Math.floor(min / width) * width;
    const count = Math.max(1, Math.ceil((high - start) / width));
    const lastEqual = start + count * width;
    const counts = new Array<number>(count + (h.maxValue > lastEqual ? 1 : 0)).fill(0);

    // Each step reports its bucket's highest equivalent value, which may sit a hair above the recorded max.
    let top = h.maxValue;
    const iterator = h.recordedValuesIterator;
    iterator.reset();
    while (iterator.hasNext()) {
      const step = iterator.next();
      const value = step.valueIteratedTo;
      top = Math.max(top, value);
      const index = value > lastEqual ? count : Math.min(count - 1, Math.max(0, Math.ceil((value - start) / width) - 1));
      counts[index] += step.countAtValueIteratedTo;
    }
    return counts.map((n, i) => ({ upToMs: toMs(i < count ? start + (i + 1) * width : top), count: n }));
  }
}

function toMs(us: number): number {
  return Math.round(us) / US_PER_MS;
}

/** The smallest width of 1, 2, 2.5 or 5 times a power of ten (in µs, at least 1) not below `raw`. */
function niceWidth(raw: number): number {
  if (raw <= 1) {
    return 1;
  }
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const factor of [1, 2, 2.5, 5, 10]) {
    if (factor * power >= raw) {
      return Math.max(1, Math.round(factor * power));
    }
  }
  return 10 * power;
}
