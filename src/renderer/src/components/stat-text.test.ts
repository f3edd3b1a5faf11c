import { describe, expect, it } from 'vitest';
import { intervalText, statText, warmupNote } from './stat-text';

describe('stat text', () => {
  it('states a value with its interval in the metric’s decimals, the value alone without one', () => {
    expect(statText('mean_ttft_ms', { value: 82, low: 77.031, high: 86.969, basis: 'runs', runs: 3 })).toBe('82.00 [77.03, 86.97]');
    expect(statText('mean_ttft_ms', { value: 82, low: null, high: null, basis: null, runs: 1 })).toBe('82.00');
    expect(intervalText('mean_ttft_ms', null)).toBeNull();
  });

  it('notes a warm-up with or without its duration, and none without a warm-up', () => {
    expect(warmupNote({ warmup: { requests: 4 } })).toBe('warm-up: 4 requests');
    expect(warmupNote({ warmup: { requests: 4, seconds: 3 } })).toBe('warm-up: 4 requests, 3.0 s');
    expect(warmupNote({})).toBeNull();
  });
});
