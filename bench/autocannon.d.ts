/**
 * The part of autocannon's programmatic API that bench/loadgen.ts uses (autocannon 9 ships no type declarations).
 *
 * @see node_modules/autocannon/lib/aggregateResult.js for the result shape
 */
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
  }
  interface Histogram {
    average: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    total: number;
  }
  interface Result {
    /** Seconds actually run. */
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    /** Milliseconds, 2xx answers only. */
    latency: Histogram;
    /** Per-second samples; `total` is every completed request. */
    requests: Histogram;
  }
  function autocannon(options: Options): Promise<Result>;
  export = autocannon;
}
