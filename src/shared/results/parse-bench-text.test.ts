import { describe, expect, it } from 'vitest';
import { formatProblem, importResults } from './import-results';
import { parseBenchText } from './parse-bench-text';

/** `"{:<40} {:<10}"`, as both clients print a result line. */
const row = (label: string, value: string) => `${label.padEnd(40)} ${value.padEnd(10)}`;
const HEADER = '============ Serving Benchmark Result ============';
const CLOSE = '='.repeat(50);

// SGLang 0.5.x bench_serving (python/sglang/bench_serving.py): blank line before the header, its own labels.
const SGLANG_BLOCK = [
  'Warmup completed with 1 sequences. Starting main benchmark run...',
  '',
  HEADER,
  row('Backend:', 'sglang'),
  row('Traffic request rate:', 'inf'),
  row('Max request concurrency:', 'not set'),
  row('Successful requests:', '200'),
  row('Benchmark duration (s):', '31.07'),
  row('Total input tokens:', '62470'),
  row('Total input text tokens:', '62470'),
  row('Total input vision tokens:', '0'),
  row('Total generated tokens:', '40219'),
  row('Total generated tokens (retokenized):', '40102'),
  row('Request throughput (req/s):', '6.44'),
  row('Input token throughput (tok/s):', '2010.62'),
  row('Output token throughput (tok/s):', '1294.46'),
  row('Total token throughput (tok/s):', '3305.08'),
  row('Concurrency:', '97.18'),
  row('Accept length:', '3.12'),
  '----------------End-to-End Latency----------------',
  row('Mean E2E Latency (ms):', '15097.41'),
  row('Median E2E Latency (ms):', '14811.09'),
  '---------------Time to First Token----------------',
  row('Mean TTFT (ms):', '4216.30'),
  row('Median TTFT (ms):', '3988.52'),
  row('P99 TTFT (ms):', '9410.77'),
  '---------------Inter-Token Latency----------------',
  row('Mean ITL (ms):', '54.31'),
  row('Median ITL (ms):', '41.26'),
  row('P95 ITL (ms):', '120.04'),
  row('P99 ITL (ms):', '201.55'),
  row('Max ITL (ms):', '1503.99'),
  CLOSE,
  '',
].join('\n');

// Labels of later vLLM versions (vllm/benchmarks/serve.py): Failed requests, a configured rate, goodput, lower-case
// "Total token", fractional percentiles, the E2EL section and the speculative decoding section.
const NEWER_VLLM_BLOCK = [
  HEADER,
  row('Successful requests:', '98'),
  row('Failed requests:', '2'),
  row('Maximum request concurrency:', '16'),
  row('Request rate configured (RPS):', '8.00'),
  row('Benchmark duration (s):', '12.50'),
  row('Total input tokens:', '12544'),
  row('Total generated tokens:', '12288'),
  row('Request throughput (req/s):', '7.84'),
  row('Request goodput (req/s):', '7.20'),
  row('Output token throughput (tok/s):', '983.04'),
  row('Peak output token throughput (tok/s):', '1210.00'),
  row('Peak concurrent requests:', '16.00'),
  row('Total token throughput (tok/s):', '1986.56'),
  '---------------Speculative Decoding---------------',
  row('Acceptance rate (%):', '61.20'),
  row('Acceptance length:', '2.84'),
  row('Per-position acceptance (%):', '[0.81, 0.62, 0.41]'),
  '---------------Time to First Token----------------',
  row('Mean TTFT (ms):', '41.10'),
  row('Median TTFT (ms):', '39.00'),
  row('P50 TTFT (ms):', '39.00'),
  row('P99.9 TTFT (ms):', '88.12'),
  '----------------End-to-end Latency----------------',
  row('Mean E2EL (ms):', '1520.50'),
  row('Median E2EL (ms):', '1490.00'),
  row('P99 E2EL (ms):', '2210.75'),
  CLOSE,
].join('\n');

describe('parseBenchText', () => {
  it('reads an SGLang bench_serving block under vLLM’s key names, its own numbers as extras', () => {
    const { records, errors, warnings } = importResults(SGLANG_BLOCK, 'sglang.txt');
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(records).toHaveLength(1);
    const r = records[0]!;
    expect(r.source).toEqual({ file: 'sglang.txt', format: 'sglang-text', index: 0, line: 3 });
    expect(r.metrics).toStrictEqual({
      completed: 200, max_concurrency: null, request_rate: null, duration: 31.07, total_input_tokens: 62470, total_output_tokens: 40219,
      request_throughput: 6.44, output_throughput: 1294.46, total_token_throughput: 3305.08,
      mean_ttft_ms: 4216.3, median_ttft_ms: 3988.52, p99_ttft_ms: 9410.77,
      mean_itl_ms: 54.31, median_itl_ms: 41.26, p95_itl_ms: 120.04, p99_itl_ms: 201.55,
      mean_e2el_ms: 15097.41, median_e2el_ms: 14811.09,
      mean_latency_s: 15.09741,
    });
    expect(r.extra).toStrictEqual({
      total_input_text_tokens: 62470, total_input_vision_tokens: 0, total_output_tokens_retokenized: 40102,
      input_throughput: 2010.62, concurrency: 97.18, accept_length: 3.12, max_itl_ms: 1503.99,
    });
    expect(r.provenance).toEqual({ client: { name: 'sglang.bench_serving', backend: 'sglang' }, workload: { requestRate: 'inf', maxConcurrency: null } });
  });

  it("reads every label of later vLLM versions, speculative decoding under vLLM's spec_decode_* keys", () => {
    const { records, errors, warnings } = importResults(NEWER_VLLM_BLOCK, 'new.txt');
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(records[0]!.source!.format).toBe('vllm-text');
    expect(records[0]!.metrics).toStrictEqual({
      completed: 98, failed: 2, max_concurrency: 16, request_rate: 8, duration: 12.5, total_input_tokens: 12544, total_output_tokens: 12288,
      request_throughput: 7.84, request_goodput: 7.2, output_throughput: 983.04, max_output_tokens_per_s: 1210, max_concurrent_requests: 16,
      total_token_throughput: 1986.56,
      mean_ttft_ms: 41.1, median_ttft_ms: 39, p50_ttft_ms: 39, 'p99.9_ttft_ms': 88.12,
      mean_e2el_ms: 1520.5, median_e2el_ms: 1490, p99_e2el_ms: 2210.75,
      spec_decode_acceptance_rate: 61.2, spec_decode_acceptance_length: 2.84,
      mean_latency_s: 1.5205,
    });
    expect(records[0]!.extra).toStrictEqual({});
    expect(records[0]!.provenance!.workload).toEqual({ requestRate: 8, maxConcurrency: 16 });
  });

  it('reads the older capital-T "Total Token throughput" and any case of a label', () => {
    const text = [HEADER, row('SUCCESSFUL REQUESTS:', '3'), row('Total Token throughput (tok/s):', '10.50'), row('mean ttft (ms):', '1.25'), CLOSE].join('\n');
    expect(importResults(text, 'x').records[0]!.metrics).toStrictEqual({ completed: 3, total_token_throughput: 10.5, mean_ttft_ms: 1.25 });
  });

  it('imports a block cut short and warns at its last line', () => {
    const cut = NEWER_VLLM_BLOCK.split('\n').slice(0, 7).join('\n');
    const { records, errors, warnings } = importResults(`${cut}\nTraceback (most recent call last):\n  File "x.py", line 1\n`, 'cut.txt');
    expect(errors).toEqual([]);
    expect(records[0]!.metrics).toStrictEqual({ completed: 98, failed: 2, max_concurrency: 16, request_rate: 8, duration: 12.5, total_input_tokens: 12544 });
    expect(warnings.map(formatProblem)).toEqual([
      'cut.txt:8: the result block that starts on line 1 is cut short after this line (no closing "=====" line); imported the values it has',
    ]);
    // At the end of the file, and when the next block starts before this one closed.
    const twice = importResults(`${cut}\n${NEWER_VLLM_BLOCK}`, 'twice.txt');
    expect(twice.records).toHaveLength(2);
    expect(twice.warnings.map((w) => w.line)).toEqual([7]);
    expect(importResults(cut, 'eof.txt').warnings.map((w) => w.line)).toEqual([7]);
  });

  it('does not guess unset rate and concurrency for a block cut before its duration line', () => {
    const cut = [HEADER, row('Successful requests:', '5')].join('\n');
    expect(importResults(cut, 'x').records[0]!.metrics).toStrictEqual({ completed: 5 });
  });

  it('names the file and line of a value that is not a number, and still imports the other blocks', () => {
    const lines = NEWER_VLLM_BLOCK.split('\n');
    const bad = lines.map((l) => (l.startsWith('Mean TTFT') ? 'Mean TTFT (ms):' : l)).join('\n');
    const garbled = lines.map((l) => (l.startsWith('Benchmark duration') ? row('Benchmark duration (s):', '12,50') : l)).join('\n');
    const { records, errors } = importResults(`${bad}\n${NEWER_VLLM_BLOCK}\n${garbled}\n`, 'results.txt');
    expect(errors.map(formatProblem)).toEqual([
      'results.txt:20: "Mean TTFT (ms):" has no number',
      `results.txt:${2 * lines.length + 6}: "Benchmark duration (s):" has no number (it says "12,50")`,
    ]);
    expect(records).toHaveLength(1);
    expect(records[0]!.source).toMatchObject({ index: 0, line: lines.length + 1 });
  });

  it('reports a file without any block, and a block without values', () => {
    expect(importResults('INFO starting\nTraffic request rate: inf\n', 'log.txt').errors.map(formatProblem)).toEqual([
      'log.txt: no benchmark result found (expected the "Serving Benchmark Result" block of vllm bench serve or sglang.bench_serving, or their JSON / JSON Lines result files)',
    ]);
    expect(importResults('', 'empty.txt').errors).toHaveLength(1);
    expect(importResults(`x\n${HEADER}\n${CLOSE}\n`, 'e.txt').errors.map(formatProblem)).toEqual(['e.txt:2: the result block has no values']);
  });

  it('rejects a count that is not a whole number through the schema', () => {
    const { records, errors } = importResults([HEADER, row('Successful requests:', '2.5'), CLOSE].join('\n'), 'c.txt');
    expect(records).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(formatProblem(errors[0]!)).toMatch(/^c\.txt:1: "completed": /);
  });

  it('keeps parsing after a block: headers in the middle of text start new blocks', () => {
    const { blocks } = parseBenchText(`a\n${SGLANG_BLOCK}b\n${NEWER_VLLM_BLOCK}\nc\n`);
    expect(blocks.map((b) => [b.line, b.client])).toEqual([[4, 'sglang'], [36, 'vllm']]);
  });
});

describe('content detection', () => {
  it('reads a log whose lines start with [ or { as text', () => {
    const block = NEWER_VLLM_BLOCK;
    const bracketed = importResults(`[2025-10-01 12:00:00] Starting warmup\n${block}\n`, 'sg.log');
    expect(bracketed.errors).toEqual([]);
    expect(bracketed.records[0]!.source).toMatchObject({ format: 'vllm-text', line: 2 });
    const braced = importResults(`{"event": "start"}\n${block}\n`, 'b.log');
    expect(braced.errors).toEqual([]);
    expect(braced.records[0]!.source).toMatchObject({ format: 'vllm-text', line: 2 });
  });
});
