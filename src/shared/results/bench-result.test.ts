import { describe, expect, it } from 'vitest';
import { BenchResultSchema, isBenchMetricKey, orderMetrics, ResultProvenanceSchema, withDerivedMetrics } from './bench-result';

describe('BenchResultSchema', () => {
  const base = { schemaVersion: 1, metrics: { completed: 10, p99_ttft_ms: 5, 'p99.9_itl_ms': null }, extra: { concurrency: 3.5 } };

  it('accepts vLLM metric names, percentiles of any precision and null for "no number"', () => {
    expect(BenchResultSchema.parse(base).metrics).toEqual(base.metrics);
    expect(['p50_e2el_ms', 'p99.9_tpot_ms', 'mean_latency_s', 'max_concurrent_requests'].every(isBenchMetricKey)).toBe(true);
    expect(['p99_ttfb_ms', 'mean_e2e_latency_ms', 'concurrency', 'p_ttft_ms'].some(isBenchMetricKey)).toBe(false);
  });

  it('rejects an unknown metric key, a fractional count, Infinity and another schema version', () => {
    const issues = (value: unknown) => BenchResultSchema.safeParse(value).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ ...base, metrics: { concurrency: 2 } })).toEqual(['metrics.concurrency: "concurrency" is not a benchmark metric; put it in "extra".']);
    expect(issues({ ...base, metrics: { completed: 2.5 } })?.[0]).toMatch(/^metrics\.completed: /);
    expect(issues({ ...base, metrics: { duration: Infinity } })?.[0]).toMatch(/^metrics\.duration: /);
    expect(issues({ ...base, schemaVersion: 2 })?.[0]).toMatch(/^schemaVersion: /);
  });

  it('types a measured run’s complete provenance, environment variables by name', () => {
    const full = {
      engine: 'vllm', engineVersion: '0.11.0', serverArgv: ['vllm', 'serve', 'Qwen/Qwen3-8B', '--max-num-seqs', '64'], serverEnvNames: ['HF_TOKEN'],
      model: 'Qwen/Qwen3-8B', modelRevision: 'b968826d9c46dd6066d109eabc6255188de91218', tokenizer: 'Qwen/Qwen3-8B',
      gpu: { model: 'NVIDIA H100 80GB HBM3', count: 1, driver: '570.86.15', cuda: '12.8' }, host: 'gpu1',
      client: { name: 'vllm bench serve', version: '0.11.0', backend: 'openai-chat', endpoint: '/v1/chat/completions' },
      dataset: { name: 'sharegpt', path: 'ShareGPT_V3_unfiltered_cleaned_split.json', sha256: 'a'.repeat(64) },
      workload: { numPrompts: 100, requestRate: 'inf', burstiness: 1, maxConcurrency: 4 },
      timestamps: { clientDate: '20251002-141530', startedAt: '2025-10-02T14:15:30Z', finishedAt: '2025-10-02T14:16:14+02:00' },
    };
    expect(ResultProvenanceSchema.parse(full)).toEqual(full);
    expect(ResultProvenanceSchema.safeParse({ ...full, engine: 'tgi' }).success).toBe(false);
    expect(ResultProvenanceSchema.safeParse({ ...full, timestamps: { startedAt: 'yesterday' } }).success).toBe(false);
  });
});

describe('withDerivedMetrics and orderMetrics', () => {
  it('derives failed from prompts and mean latency from mean E2EL, never over a measured value', () => {
    expect(withDerivedMetrics({ completed: 7, mean_e2el_ms: 2500 }, 10)).toEqual({ completed: 7, failed: 3, mean_e2el_ms: 2500, mean_latency_s: 2.5 });
    expect(withDerivedMetrics({ completed: 7, failed: 1 }, 10)).toEqual({ completed: 7, failed: 1 });
    expect(withDerivedMetrics({ completed: 7, mean_e2el_ms: null })).toEqual({ completed: 7, mean_e2el_ms: null });
  });

  it('orders run metrics first, then each latency metric with its percentiles in numeric order', () => {
    const ordered = orderMetrics({ p99_itl_ms: 1, 'p99.9_ttft_ms': 2, p9_ttft_ms: 3, mean_itl_ms: 4, mean_latency_s: 5, duration: 6, mean_ttft_ms: 7, completed: 8 });
    expect(Object.keys(ordered)).toEqual(['completed', 'duration', 'mean_ttft_ms', 'p9_ttft_ms', 'p99.9_ttft_ms', 'mean_itl_ms', 'p99_itl_ms', 'mean_latency_s']);
  });
});
