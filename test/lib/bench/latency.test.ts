import { LatencyRecorder } from '../../../lib/bench';

describe('LatencyRecorder summarises latencies through an HDR histogram', () => {
  test('GIVEN nothing recorded WHEN summarised THEN percentiles are 0 and there is no bucket', () => {
    const recorder = new LatencyRecorder();
    expect(recorder.percentiles()).toEqual({ p50: 0, p90: 0, p99: 0, max: 0 });
    expect(recorder.buckets()).toEqual([]);
  });

  test('GIVEN 1..1000 ms recorded once each WHEN summarised THEN percentiles are within 0.1 % and never above the max', () => {
    const recorder = new LatencyRecorder();
    for (let ms = 1; ms <= 1000; ms++) {
      recorder.record(ms);
    }
    const { p50, p90, p99, max } = recorder.percentiles();
    expect(p50).toBeCloseTo(500, -0.3);
    expect(p90).toBeCloseTo(900, -0.3);
    expect(p99).toBeCloseTo(990, -0.3);
    expect(max).toBeCloseTo(1000, -0.3);
    expect(p99).toBeLessThanOrEqual(max);
    expect(recorder.count).toBe(1000);
  });

  test('GIVEN sub-millisecond latencies WHEN summarised THEN microseconds are kept', () => {
    const recorder = new LatencyRecorder();
    recorder.record(0.25);
    recorder.record(0.0001);
    expect(recorder.percentiles().max).toBe(0.25);
    expect(recorder.percentiles().p50).toBe(0.001);
  });

  test('GIVEN a bimodal distribution WHEN bucketed THEN buckets are equal-width, ordered, and hold every value', () => {
    const recorder = new LatencyRecorder();
    for (let i = 0; i < 800; i++) recorder.record(5 + (i % 10) / 10);
    for (let i = 0; i < 200; i++) recorder.record(40 + (i % 10) / 10);
    const buckets = recorder.buckets();
    expect(buckets.reduce((sum, b) => sum + b.count, 0)).toBe(1000);
    const widths = buckets.slice(1).map((b, i) => +(b.upToMs - buckets[i].upToMs).toFixed(3));
    expect(new Set(widths).size).toBe(1);
    expect([1, 2, 2.5, 5]).toContain(widths[0]);
    expect(buckets.filter((b) => b.upToMs <= 10).reduce((sum, b) => sum + b.count, 0)).toBe(800);
    expect(buckets.filter((b) => b.upToMs > 30).reduce((sum, b) => sum + b.count, 0)).toBe(200);
    expect(buckets.length).toBeGreaterThanOrEqual(10);
    expect(buckets.length).toBeLessThanOrEqual(21);
  });

  test('GIVEN one huge outlier WHEN bucketed THEN it sits alone in a last bucket ending at the max', () => {
    const recorder = new LatencyRecorder();
    for (let i = 0; i < 2000; i++) recorder.record(1 + (i % 100) / 100);
    recorder.record(10_000);
    const buckets = recorder.buckets();
    const last = buckets[buckets.length - 1];
    expect(last).toEqual({ upToMs: expect.closeTo(10_000, -1), count: 1 });
    expect(buckets[buckets.length - 2].upToMs).toBeLessThan(5);
    expect(buckets.reduce((sum, b) => sum + b.count, 0)).toBe(2001);
  });

  test('GIVEN a single value WHEN bucketed THEN there is one non-empty bucket that contains it', () => {
    const recorder = new LatencyRecorder();
    recorder.record(7);
    recorder.record(7);
    const buckets = recorder.buckets();
    expect(buckets.filter((b) => b.count > 0)).toEqual([{ upToMs: expect.any(Number), count: 2 }]);
    expect(buckets.find((b) => b.count > 0)!.upToMs).toBeGreaterThanOrEqual(7);
  });
});
