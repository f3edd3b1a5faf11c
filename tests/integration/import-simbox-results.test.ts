// One `vllm bench serve` run on the simulated box, against a simulated vLLM server: the text it prints and the
// --save-result JSON it writes both import, and agree on every metric they share.
import { describe, it, expect } from 'vitest';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSimulatedVllmServer } from '../simbox/helpers';
import { importResultFiles } from '../../src/core/results/import-files';

const server = useSimulatedVllmServer();

describe('import of a simulated vllm bench serve run', () => {
  it('imports the printed block and the JSON of the same run, which agree', async () => {
    const resultDir = join(server.box.home, 'results');
    const r = server.box.run(join(server.bin, 'vllm'), [
      'bench', 'serve', '--model', 'Qwen/Qwen3-8B', '--dataset-name', 'random', '--random-input-len', '256', '--random-output-len', '32',
      '--num-prompts', '24', '--max-concurrency', '6', '--percentile-metrics', 'ttft,tpot,itl,e2el', '--metric-percentiles', '50,90,99',
      '--save-result', '--result-dir', resultDir, '--result-filename', 'run.json', '--port', String(server.port),
    ]);
    expect(r.code).toBe(0);
    // The whole console output, Namespace line and progress text included, as a user would save it.
    writeFileSync(join(server.box.home, 'console.txt'), r.stdout);
    expect(readdirSync(resultDir)).toEqual(['run.json']);

    const imported = await importResultFiles(['console.txt', 'results/run.json'], server.box.home);
    expect(imported.errors).toEqual([]);
    expect(imported.warnings).toEqual([]);
    expect(imported.records.map((rec) => rec.source)).toEqual([
      { file: 'console.txt', format: 'vllm-text', index: 0, line: expect.any(Number) },
      { file: 'results/run.json', format: 'vllm-json', index: 0, line: 1 },
    ]);
    const [text, json] = imported.records.map((rec) => rec.metrics) as [Record<string, number | null>, Record<string, number | null>];

    const stats = (m: string) => [`mean_${m}_ms`, `median_${m}_ms`, `p50_${m}_ms`, `p90_${m}_ms`, `p99_${m}_ms`];
    expect(Object.keys(text)).toEqual([
      'completed', 'max_concurrency', 'request_rate', 'duration', 'total_input_tokens', 'total_output_tokens', 'request_throughput',
      'output_throughput', 'max_output_tokens_per_s', 'max_concurrent_requests', 'total_token_throughput',
      ...stats('ttft'), ...stats('tpot'), ...stats('itl'), ...stats('e2el'), 'mean_latency_s',
    ]);
    // The JSON has everything the text has, plus std and failed (24 prompts − completed) and request_goodput (null).
    expect(Object.keys(json).sort()).toEqual([...Object.keys(text), 'failed', 'request_goodput', ...['ttft', 'tpot', 'itl', 'e2el'].map((m) => `std_${m}_ms`)].sort());
    expect(json).toMatchObject({ completed: 24, failed: 0, max_concurrency: 6, request_rate: null, request_goodput: null });
    expect(text).toMatchObject({ completed: 24, max_concurrency: 6, request_rate: null, total_input_tokens: json.total_input_tokens, total_output_tokens: json.total_output_tokens });

    // The text prints two decimals of the JSON's numbers: every shared metric within rounding.
    for (const key of Object.keys(text)) {
      const printed = text[key];
      const exact = json[key];
      if (printed === null || exact === null || printed === undefined || exact === undefined) {
        expect([key, printed]).toEqual([key, exact]);
        continue;
      }
      const tolerance = key === 'mean_latency_s' ? 0.000005 : 0.005 + 1e-9;
      expect(Math.abs(printed - exact), `${key}: text ${printed}, JSON ${exact}`).toBeLessThanOrEqual(tolerance);
    }
    expect(json.mean_tpot_ms!).toBeGreaterThan(1);
    expect(imported.records[1]!.provenance).toMatchObject({ model: 'Qwen/Qwen3-8B', client: { name: 'vllm bench serve', backend: 'openai' }, workload: { numPrompts: 24, requestRate: 'inf', burstiness: 1, maxConcurrency: 6 } });
  });
});
