import { describe, expect, it } from 'vitest';
import { parseWorkload } from '../../shared/bench/workload';
import { measuredEntry, type MeasuredRunContext } from './measured-result';
import { measuredTitle, workloadOfProvenance } from '../../shared/results/measured-title';
import type { BenchRunOutcome } from './bench-runner';

const context: MeasuredRunContext = {
  workload: parseWorkload({ id: 'w', dataset: { kind: 'random', inputLen: 10, outputLen: 3 }, numPrompts: 4 }),
  host: 'box',
  server: { engine: 'vllm', version: '0.11.0', argv: ['vllm', 'serve', 'm'], envNames: [], model: 'm' },
  clientVersion: '0.11.0',
};

/** A --save-detailed result of four requests, its statistics computed from them as vLLM does. */
const ttfts = [0.1, 0.2, 0.3, 0.4];
const itls = [[0.01, 0.01], [0.02, 0.02], [0.01, 0.03], [0.02, 0.04]];
const e2els = ttfts.map((t, i) => t + itls[i]!.reduce((a, b) => a + b, 0));
const detailed = {
  model_id: 'm',
  num_prompts: 4,
  duration: 2,
  completed: 4,
  failed: 0,
  total_input_tokens: 40,
  total_output_tokens: 12,
  output_throughput: 6,
  total_token_throughput: 26,
  input_lens: [10, 10, 10, 10],
  output_lens: [3, 3, 3, 3],
  ttfts,
  itls,
  generated_texts: ['abc', 'abc', 'abc', 'abc'],
  errors: ['', '', '', ''],
  mean_ttft_ms: 250,
  mean_e2el_ms: (e2els.reduce((a, b) => a + b, 0) / 4) * 1000,
};

const outcome = (json: string): BenchRunOutcome => ({ runId: 'r1', exitCode: 0, log: '', json, command: 'vllm bench serve', startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:00:02Z' });

describe('measuredEntry', () => {
  it('keeps the intervals the per-request arrays give, and not the arrays', () => {
    const entry = measuredEntry(outcome(JSON.stringify(detailed)), context);
    expect(entry.status).toBe('ok');
    expect(Object.keys(entry.result.intervals!.values).sort()).toEqual(['mean_e2el_ms', 'mean_latency_s', 'mean_ttft_ms', 'output_throughput', 'total_token_throughput']);
    expect(entry.result.intervals!.requests).toBe(4);
    const stored = JSON.stringify(entry);
    for (const key of ['input_lens', 'output_lens', 'ttfts', 'itls', 'generated_texts', 'errors']) expect(stored).not.toContain(`"${key}"`);
  });

  it('has no intervals without them', () => {
    const { input_lens: _a, output_lens: _b, ttfts: _c, itls: _d, generated_texts: _e, errors: _f, ...plain } = detailed;
    expect(measuredEntry(outcome(JSON.stringify(plain)), context).result.intervals).toBeUndefined();
  });

  it('records the workload in its provenance so that the title can be made again from it, in any language', () => {
    const workloads = [
      context.workload,
      parseWorkload({ id: 'c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 }),
      parseWorkload({ id: 'p', dataset: { kind: 'sharegpt' }, numPrompts: 200, requestRate: 8, burstiness: 0.5 }),
      parseWorkload({ id: 'r', dataset: { kind: 'random', inputLen: 1024, outputLen: 128 }, numPrompts: 50, rampUp: { strategy: 'linear', startRps: 1, endRps: 10 } }),
    ];
    for (const workload of workloads) {
      const ctx = { ...context, workload };
      const entry = measuredEntry(outcome(JSON.stringify(detailed)), ctx);
      const recorded = workloadOfProvenance(entry.result.provenance!);
      expect(recorded, workload.id).not.toBeNull();
      expect(measuredTitle({ workload: recorded!, engine: 'vllm', version: '0.11.0', model: 'm', host: 'box' }), workload.id).toBe(entry.title);
    }
  });
});
