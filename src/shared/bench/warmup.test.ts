import { describe, expect, it } from 'vitest';
import { warmupRequests, warmupWorkload } from './warmup';
import { workloadPreset, WorkloadSchema } from './workload';

describe('warm-up', () => {
  it('is two batches of the workload, between 16 and 64 requests, never more than the workload', () => {
    expect(warmupRequests(workloadPreset('sharegpt-c1')!)).toBe(16);
    expect(warmupRequests(workloadPreset('sharegpt-c8')!)).toBe(16);
    expect(warmupRequests({ ...workloadPreset('sharegpt-c8')!, maxConcurrency: 24 })).toBe(48);
    expect(warmupRequests(workloadPreset('sharegpt-1000-unbounded')!)).toBe(64);
    expect(warmupRequests({ ...workloadPreset('sharegpt-c4')!, numPrompts: 5 })).toBe(5);
  });

  it('keeps the concurrency cap and rate, and draws other prompts', () => {
    const measured = { ...workloadPreset('random-2000-100')!, maxConcurrency: 4, requestRate: 2 };
    const warm = warmupWorkload(measured);
    expect(warm).toMatchObject({ maxConcurrency: 4, requestRate: 2, dataset: measured.dataset, backend: measured.backend });
    expect(warm.seed).not.toBe(measured.seed);
    expect(WorkloadSchema.parse(warm)).toEqual(warm);
  });
});
