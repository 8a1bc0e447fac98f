import { describe, expect, it } from '@jest/globals';
import { sampleOf } from '../../../src/soak/soak-sampler.js';
import { resolveSoakOptions } from '../../../src/soak/soak-options.js';

// prom-client's default metrics, as a service's `/metrics` serves them (abridged).
const METRICS = [
  '# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.',
  '# TYPE process_start_time_seconds gauge',
  'process_start_time_seconds 1765087200',
  'process_resident_memory_bytes 183500800',
  'nodejs_eventloop_lag_p90_seconds 0.011',
  'nodejs_eventloop_lag_p99_seconds 0.0421',
  'nodejs_heap_size_total_bytes 70000000',
  'nodejs_heap_size_used_bytes 52428800',
  'nodejs_gc_duration_seconds_count{kind="minor"} 310',
  'nodejs_gc_duration_seconds_count{kind="major"} 4',
  'http_requests_total{method="POST",route="/v1/payments",status="201"} 12',
  '',
].join('\n');

describe("a sample from a service's /metrics", () => {
  it('reads RSS, heap used, event-loop delay p99 (in ms), full GCs and the start time', () => {
    expect(sampleOf(METRICS, 30)).toEqual({
      at: 30,
      rssBytes: 183_500_800,
      heapUsedBytes: 52_428_800,
      eventLoopP99Ms: 42.1,
      majorGcs: 4,
      startedAt: 1_765_087_200,
    });
  });

  it('is none when a default metric is missing (not a sample of 0)', () => {
    const withoutHeap = METRICS.split('\n').filter((line) => !line.startsWith('nodejs_heap_size_used_bytes'));

    expect(sampleOf(withoutHeap.join('\n'), 30)).toBeUndefined();
  });
});

describe('the options', () => {
  it('default to 10 minutes at 3 orders/s, a sample every 10 s, a warm-up of 60 s', () => {
    expect(resolveSoakOptions({})).toEqual({
      minutes: 10,
      rate: 3,
      sampleSeconds: 10,
      warmupSeconds: 60,
      maxInFlight: 32,
    });
  });

  it('refuse a rate, duration or period that is not positive (a warm-up of 0 is allowed)', () => {
    expect(() => resolveSoakOptions({ rate: 0 })).toThrow('rate must be a positive number, got 0');
    expect(() => resolveSoakOptions({ minutes: Number.NaN })).toThrow(
      'minutes must be a positive number, got NaN',
    );
    expect(resolveSoakOptions({ warmupSeconds: 0 }).warmupSeconds).toBe(0);
  });
});
