import { describe, expect, it } from 'vitest';
import { BenchResultSchema } from './bench-result';
import { metricInterval } from './metrics';

const result = BenchResultSchema.parse({
  schemaVersion: 1,
  metrics: { mean_ttft_ms: 50 },
  extra: {},
  intervals: { level: 0.95, requests: 100, resamples: 1000, values: { mean_ttft_ms: { low: 45, high: 55 } } },
});

describe('metricInterval', () => {
  it('reads the interval off a result and off a trial holding it', () => {
    expect(metricInterval({ result }, 'mean_ttft_ms')).toEqual({ low: 45, high: 55 });
    expect(metricInterval({ result: { result } }, 'mean_ttft_ms')).toEqual({ low: 45, high: 55 });
  });

  it('is null for a metric without one, a result without intervals, or no result', () => {
    expect(metricInterval({ result }, 'p99_ttft_ms')).toBeNull();
    expect(metricInterval({ result: { ...result, intervals: undefined } }, 'mean_ttft_ms')).toBeNull();
    expect(metricInterval({}, 'mean_ttft_ms')).toBeNull();
  });

  it('the schema refuses an interval under a key that is not a metric', () => {
    const bad = { ...result, intervals: { ...result.intervals!, values: { ttft_mean: { low: 1, high: 2 } } } };
    expect(BenchResultSchema.safeParse(bad).success).toBe(false);
  });
});
