// `vllm bench serve --save-detailed` on the simulated box: its per-request arrays give every metric of the run an
// interval, they agree with the run's own statistics, and the library entry of a measured run keeps the intervals
// but not the arrays.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importResults, type BenchResult } from '../../src/shared/results';
import { latencyValues, readRequestSamples, type RequestSamples } from '../../src/shared/results/request-samples';
import { measuredEntry } from '../../src/core/bench/measured-result';
import { parseWorkload } from '../../src/shared/bench/workload';
import { useSimulatedVllmServer } from './helpers';

const server = useSimulatedVllmServer();

/** One detailed run of `prompts` requests with output lengths spread ±50%; its JSON text. */
function detailedRun(prompts: number, name: string): string {
  const resultDir = join(server.box.home, 'results');
  const r = server.box.run(join(server.bin, 'vllm'), [
    'bench', 'serve', '--model', 'Qwen/Qwen3-8B', '--dataset-name', 'random', '--random-input-len', '256', '--random-output-len', '32',
    '--random-range-ratio', '0.5', '--num-prompts', String(prompts), '--max-concurrency', '8', '--percentile-metrics', 'ttft,tpot,itl,e2el',
    '--metric-percentiles', '50,90,99', '--save-result', '--save-detailed', '--result-dir', resultDir, '--result-filename', name, '--port', String(server.port),
  ]);
  expect(r.code, r.stderr).toBe(0);
  return readFileSync(join(resultDir, name), 'utf8');
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const width = (result: BenchResult, key: string) => {
  const i = result.intervals!.values[key]!;
  return (i.high - i.low) / result.metrics[key]!;
};

describe('--save-detailed runs on the simulated box', () => {
  let small: { text: string; result: BenchResult; samples: RequestSamples };

  it('gives every mean, median, percentile and throughput an interval that contains the run’s value', () => {
    const text = detailedRun(40, 'small.json');
    const json = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(expect.arrayContaining(['input_lens', 'output_lens', 'ttfts', 'itls', 'generated_texts', 'errors']));
    const imported = importResults(text, 'small.json');
    expect(imported.errors).toEqual([]);
    const result = imported.records[0]!;
    small = { text, result, samples: readRequestSamples(json)! };
    const expected = ['ttft', 'tpot', 'itl', 'e2el'].flatMap((m) => ['mean', 'median', 'p50', 'p90', 'p99'].map((s) => `${s}_${m}_ms`));
    expect(Object.keys(result.intervals!.values).sort()).toEqual([...expected, 'mean_latency_s', 'output_throughput', 'total_token_throughput'].sort());
    expect(result.intervals).toMatchObject({ level: 0.95, requests: 40, resamples: 1000 });
    for (const [key, { low, high }] of Object.entries(result.intervals!.values)) {
      expect(low, key).toBeLessThanOrEqual(result.metrics[key]!);
      expect(high, key).toBeGreaterThanOrEqual(result.metrics[key]!);
    }
  });

  it('per request, TTFT + ΣITL is the E2EL whose mean the client reports', () => {
    const e2els = latencyValues(small.samples, 'e2el').map(([v]) => v! * 1000);
    expect(Math.abs(mean(e2els) - small.result.metrics.mean_e2el_ms!)).toBeLessThan(1e-6 * small.result.metrics.mean_e2el_ms!);
    const tpots = latencyValues(small.samples, 'tpot').flat().map((v) => v * 1000);
    expect(Math.abs(mean(tpots) - small.result.metrics.mean_tpot_ms!)).toBeLessThan(1e-6 * small.result.metrics.mean_tpot_ms!);
    expect(mean(small.samples.itls.flat()) * 1000).toBeCloseTo(small.result.metrics.mean_itl_ms!, 6);
  });

  it('narrows with more requests', () => {
    const big = importResults(detailedRun(400, 'big.json'), 'big.json').records[0]!;
    for (const key of ['mean_ttft_ms', 'mean_tpot_ms', 'mean_e2el_ms', 'mean_itl_ms', 'output_throughput']) {
      expect(width(big, key) / width(small.result, key), key).toBeLessThan(0.6);
    }
  }, 60_000);

  it('a measured run’s library entry keeps the intervals, not the per-request arrays', () => {
    const workload = parseWorkload({ id: 'w', dataset: { kind: 'random', inputLen: 256, outputLen: 32, rangeRatio: 0.5 }, numPrompts: 40, maxConcurrency: 8 });
    const entry = measuredEntry(
      { runId: 'r1', exitCode: 0, log: '', json: small.text, command: 'vllm bench serve …', startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:01:00Z' },
      { workload, host: 'box', server: { engine: 'vllm', version: '0.11.0', argv: [], envNames: [], model: 'Qwen/Qwen3-8B' }, clientVersion: '0.11.0' },
    );
    expect(entry.status).toBe('ok');
    expect(entry.result.intervals).toEqual(small.result.intervals);
    const stored = JSON.stringify(entry);
    for (const key of ['input_lens', 'output_lens', 'ttfts', 'itls', 'generated_texts', 'errors']) expect(stored).not.toContain(`"${key}"`);
  });
});
