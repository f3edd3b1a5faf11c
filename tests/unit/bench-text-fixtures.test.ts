// Every real `vllm bench serve` block in tests/fixtures/vllm-bench-text/ imports to exactly the numbers it prints,
// as stored (no trailing spaces) and as vLLM prints it (label in 40 columns, value in 10, so trailing spaces).
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/repo';
import { importResults } from '../../src/shared/results';

const DIR = join(repoRoot, 'tests', 'fixtures', 'vllm-bench-text');

/** Written out from reading each file. Absent lines are absent keys; no "Maximum request concurrency" and no
 * "Request rate configured" line before the duration mean unset (null). */
const EXPECTED: Record<string, Record<string, number | null>> = {
  'qwen3-32b_a100_vllm-0.11.0_random-128-4.txt': {
    completed: 1000, max_concurrency: null, request_rate: null, duration: 49.57, total_input_tokens: 127698, total_output_tokens: 4000,
    request_throughput: 20.17, output_throughput: 80.69, max_output_tokens_per_s: 200, max_concurrent_requests: 1000, total_token_throughput: 2656.71,
    mean_ttft_ms: 31177.64, median_ttft_ms: 31073.76, p99_ttft_ms: 48960.57,
    mean_tpot_ms: 528.57, median_tpot_ms: 544.55, p99_tpot_ms: 547.31,
    mean_itl_ms: 396.42, median_itl_ms: 543.22, p99_itl_ms: 554.84,
  },
  'qwen3-32b_a100_vllm-0.11.0_sharegpt_unbounded.txt': {
    completed: 1000, max_concurrency: null, request_rate: null, duration: 241.94, total_input_tokens: 217393, total_output_tokens: 201396,
    request_throughput: 4.13, output_throughput: 832.43, max_output_tokens_per_s: 1950, max_concurrent_requests: 1000, total_token_throughput: 1730.98,
    mean_ttft_ms: 105557.78, median_ttft_ms: 105990.93, p99_ttft_ms: 209863.5,
    mean_tpot_ms: 149.67, median_tpot_ms: 123.31, p99_tpot_ms: 563.16,
    mean_itl_ms: 117.98, median_itl_ms: 61.18, p99_itl_ms: 572.34,
  },
  'qwen3-8b-fp8_h100_sglang-0.5.3_eagle3_sharegpt_c4.txt': {
    completed: 100, max_concurrency: 4, request_rate: null, duration: 22.53, total_input_tokens: 23260, total_output_tokens: 22061,
    request_throughput: 4.44, output_throughput: 979.24, max_output_tokens_per_s: 393, max_concurrent_requests: 15, total_token_throughput: 2011.7,
    mean_ttft_ms: 50.7, median_ttft_ms: 43.71, p99_ttft_ms: 368.54,
    mean_tpot_ms: 3.75, median_tpot_ms: 3.32, p99_tpot_ms: 9.63,
    mean_itl_ms: 11.05, median_itl_ms: 9.86, p99_itl_ms: 38.76,
  },
  'qwen3-8b-fp8_h100_sglang-0.5.3_flashinfer_sharegpt_c4.txt': {
    completed: 100, max_concurrency: 4, request_rate: null, duration: 39.63, total_input_tokens: 23260, total_output_tokens: 22061,
    request_throughput: 2.52, output_throughput: 556.61, max_output_tokens_per_s: 728, max_concurrent_requests: 11, total_token_throughput: 1143.47,
    mean_ttft_ms: 269.33, median_ttft_ms: 40.7, p99_ttft_ms: 5700.99,
    mean_tpot_ms: 5.71, median_tpot_ms: 5.63, p99_tpot_ms: 7.44,
    mean_itl_ms: 5.65, median_itl_ms: 5.4, p99_itl_ms: 28.71,
  },
  'qwen3-8b_h100_vllm-0.11.0_sharegpt_c4.txt': {
    completed: 100, max_concurrency: 4, request_rate: null, duration: 44.4, total_input_tokens: 23260, total_output_tokens: 22061,
    request_throughput: 2.25, output_throughput: 496.88, max_output_tokens_per_s: 540, max_concurrent_requests: 13, total_token_throughput: 1020.76,
    mean_ttft_ms: 64, median_ttft_ms: 60.26, p99_ttft_ms: 98.59,
    mean_tpot_ms: 7.38, median_tpot_ms: 7.4, p99_tpot_ms: 7.96,
    mean_itl_ms: 7.78, median_itl_ms: 7.37, p99_itl_ms: 40.98,
  },
};

const fixtures = readdirSync(DIR).filter((name) => name.endsWith('.txt')).sort();

/** vLLM's `"{:<40} {:<10}"`: the label padded to 40 columns, the value to 10. */
function withVllmPadding(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const m = /^([^:]+:)\s+(\S+)$/.exec(line);
      return m ? `${(m[1] ?? '').padEnd(40)} ${(m[2] ?? '').padEnd(10)}` : line;
    })
    .join('\n');
}

describe('real vllm bench serve blocks', () => {
  it('has an expected object for every fixture and a fixture for every expected object', () => {
    expect(fixtures).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(fixtures)('%s imports to exactly its printed values', (name) => {
    const text = readFileSync(join(DIR, name), 'utf8');
    const { records, errors, warnings } = importResults(text, name);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(records).toHaveLength(1);
    expect(records[0]!.source).toEqual({ file: name, format: 'vllm-text', index: 0, line: 1 });
    expect(records[0]!.metrics).toStrictEqual(EXPECTED[name]);
    expect(records[0]!.extra).toEqual({});
    // No E2EL section in these blocks, so no mean latency either.
    expect(records[0]!.metrics.mean_latency_s).toBeUndefined();
  });

  it.each(fixtures)('%s with vLLM’s trailing spaces imports the same', (name) => {
    const text = readFileSync(join(DIR, name), 'utf8');
    const padded = withVllmPadding(text);
    expect(padded).not.toBe(text);
    expect(padded).toContain('Successful requests:                     ');
    expect(padded.split('\n').find((l) => l.startsWith('Mean TTFT'))).toMatch(/^Mean TTFT \(ms\): {26}\S+ +$/);
    const { records, errors, warnings } = importResults(padded, name);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(records.map((r) => r.metrics)).toStrictEqual([EXPECTED[name]]);
  });

  it('imports every fixture from one file with log text around and between the blocks, with CRLF line ends', () => {
    const parts = fixtures.map((name, i) => `INFO 10-02 14:15:${10 + i} [serve.py:1] run ${i}\nMaximum request concurrency: None\n${readFileSync(join(DIR, name), 'utf8')}tip: install termplotlib and gnuplot to plot the metrics\n`);
    const { records, errors, warnings } = importResults(parts.join('\n').replace(/\n/g, '\r\n'), 'all.log');
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(records.map((r) => r.source?.index)).toEqual(fixtures.map((_, i) => i));
    expect(records.map((r) => r.metrics)).toStrictEqual(fixtures.map((name) => EXPECTED[name]));
    // Two log lines, the first block (23 lines), the tip, a blank line, two log lines: the second header is line 30.
    expect(records[1]!.source!.line).toBe(30);
  });
});
