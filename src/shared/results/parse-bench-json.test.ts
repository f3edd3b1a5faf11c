import { describe, expect, it } from 'vitest';
import { BenchResultSchema } from './bench-result';
import { formatProblem, importResults } from './import-results';
import { parseLenientJson } from './parse-bench-json';

const STATS = ['ttft', 'tpot', 'itl', 'e2el'].flatMap((m, i) => {
  const base = 10 * (i + 1);
  return [
    [`mean_${m}_ms`, base + 0.5],
    [`median_${m}_ms`, base + 0.25],
    [`std_${m}_ms`, base / 10],
    [`p50_${m}_ms`, base + 0.3],
    [`p90_${m}_ms`, base + 4.75],
    [`p95_${m}_ms`, base + 6.125],
    [`p99_${m}_ms`, base + 8.5],
    [`p99.9_${m}_ms`, base + 9.875],
  ] as const;
});

/** Every key of vLLM 0.11's --save-result JSON (vllm/benchmarks/serve.py), in its order, detailed fields and a metadata entry included. */
const VLLM_JSON = {
  date: '20251002-141530',
  endpoint_type: 'openai-chat',
  backend: 'openai-chat',
  label: 'c16-run',
  model_id: 'Qwen/Qwen3-8B',
  tokenizer_id: 'Qwen/Qwen3-8B',
  num_prompts: 200,
  gpu_note: 'H100 SXM',
  request_rate: 4.0,
  burstiness: 1.0,
  max_concurrency: 16,
  ramp_up_strategy: 'linear',
  ramp_up_start_rps: 1,
  ramp_up_end_rps: 8,
  duration: 50.125,
  completed: 197,
  total_input_tokens: 25216,
  total_output_tokens: 25088,
  request_throughput: 3.930174563591022,
  request_goodput: 3.5,
  output_throughput: 500.5087281795511,
  total_token_throughput: 1003.5710723192021,
  input_lens: [128, 128],
  output_lens: [128, 0],
  ttfts: [0.04, 0.0],
  itls: [[0.007], []],
  generated_texts: ['a', ''],
  errors: ['', 'Bad Request'],
  max_output_tokens_per_s: 612.0,
  max_concurrent_requests: 16,
  rps_change_events: [{ rps: 1, timestamp: '2025-10-02T14:15:30' }],
  ...Object.fromEntries(STATS),
};
const METRIC_KEYS_OF_JSON = [
  'completed', 'max_concurrency', 'request_rate', 'duration', 'total_input_tokens', 'total_output_tokens', 'request_throughput',
  'request_goodput', 'output_throughput', 'max_output_tokens_per_s', 'max_concurrent_requests', 'total_token_throughput',
  ...STATS.map(([k]) => k),
];

describe('vLLM --save-result JSON', () => {
  it('round-trips every key: each metric under its own name, the rest as provenance', () => {
    const { records, errors, warnings } = importResults(JSON.stringify(VLLM_JSON), 'run.json');
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(records).toHaveLength(1);
    const r = records[0]!;
    expect(r.source).toEqual({ file: 'run.json', format: 'vllm-json', index: 0, line: 1 });
    const json = VLLM_JSON as Record<string, unknown>;
    for (const key of METRIC_KEYS_OF_JSON) expect([key, r.metrics[key]]).toEqual([key, json[key]]);
    // Derived: no "failed" in 0.11's JSON, so prompts − completed; mean latency from mean E2EL.
    expect(r.metrics.failed).toBe(3);
    expect(r.metrics.mean_latency_s).toBe(0.0405);
    expect(Object.keys(r.metrics).sort()).toEqual([...METRIC_KEYS_OF_JSON, 'failed', 'mean_latency_s'].sort());
    expect(r.extra).toEqual({});
    expect(r.provenance).toEqual({
      client: { name: 'vllm bench serve', backend: 'openai-chat', label: 'c16-run' },
      model: 'Qwen/Qwen3-8B',
      tokenizer: 'Qwen/Qwen3-8B',
      timestamps: { clientDate: '20251002-141530' },
      workload: { numPrompts: 200, requestRate: 4, burstiness: 1, maxConcurrency: 16, rampUp: { strategy: 'linear', startRps: 1, endRps: 8 } },
      metadata: { gpu_note: 'H100 SXM' },
    });
    expect(BenchResultSchema.parse(JSON.parse(JSON.stringify(r)))).toEqual(r);
  });

  it('reads "inf" and null as no number, keeps a later version’s "failed" and unknown numbers', () => {
    const json = { ...VLLM_JSON, request_rate: 'inf', max_concurrency: null, request_goodput: null, failed: 1, rtfx: 2.5, spec_decode_acceptance_length: null };
    const r = importResults(JSON.stringify(json), 'x.json').records[0]!;
    expect(r.metrics).toMatchObject({ request_rate: null, max_concurrency: null, request_goodput: null, failed: 1, spec_decode_acceptance_length: null });
    expect(r.provenance!.workload).toMatchObject({ requestRate: 'inf', maxConcurrency: null });
    expect(r.extra).toEqual({ rtfx: 2.5 });
  });

  it('reads --append-result JSON Lines: one record per line', () => {
    const lines = [JSON.stringify({ ...VLLM_JSON, completed: 10 }), JSON.stringify({ ...VLLM_JSON, completed: 20 })].join('\n');
    const { records, errors } = importResults(`${lines}\n`, 'runs.jsonl');
    expect(errors).toEqual([]);
    expect(records.map((r) => [r.source!.format, r.source!.index, r.source!.line, r.metrics.completed])).toEqual([
      ['vllm-jsonl', 0, 1, 10],
      ['vllm-jsonl', 1, 2, 20],
    ]);
  });
});

describe('SGLang bench_serving JSONL', () => {
  // 0.5.3 first, then 0.5.5 (tag first, server_info after random_range_ratio), as Python's json.dumps writes them.
  const OLD = '{"backend": "sglang", "dataset_name": "sharegpt", "request_rate": 8.0, "max_concurrency": 64, "sharegpt_output_len": null, "random_input_len": 1024, "random_output_len": 1024, "random_range_ratio": 0.0, "duration": 40.0, "completed": 500, "total_input_tokens": 100000, "total_input_text_tokens": 100000, "total_input_vision_tokens": 0, "total_output_tokens": 90000, "total_output_tokens_retokenized": 89990, "request_throughput": 12.5, "input_throughput": 2500.0, "output_throughput": 2250.0, "mean_e2e_latency_ms": 900.0, "median_e2e_latency_ms": 850.0, "std_e2e_latency_ms": 100.0, "p99_e2e_latency_ms": 1500.0, "mean_ttft_ms": 60.0, "median_ttft_ms": 55.0, "std_ttft_ms": 9.0, "p99_ttft_ms": 140.0, "mean_tpot_ms": 4.7, "median_tpot_ms": 4.6, "std_tpot_ms": 0.4, "p99_tpot_ms": 6.1, "mean_itl_ms": 4.8, "median_itl_ms": 4.5, "std_itl_ms": 2.2, "p95_itl_ms": 7.9, "p99_itl_ms": 12.3, "concurrency": 11.25, "accept_length": null}';
  const LAST = '{"tag": "fp8-eagle", "backend": "sglang-oai", "dataset_name": "random", "request_rate": Infinity, "max_concurrency": null, "sharegpt_output_len": null, "random_input_len": 1024, "random_output_len": 256, "random_range_ratio": 0.0, "server_info": {"version": "0.5.5", "max_total_num_tokens": 400000}, "duration": 21.377, "completed": 300, "total_input_tokens": 307200, "total_input_text_tokens": 307200, "total_input_vision_tokens": 0, "total_output_tokens": 76800, "total_output_tokens_retokenized": 76790, "request_throughput": 14.0337746, "input_throughput": 14370.5852084, "output_throughput": 3592.6463020, "mean_e2e_latency_ms": 10512.25, "median_e2e_latency_ms": 10880.5, "std_e2e_latency_ms": 3012.75, "p99_e2e_latency_ms": 17410.0, "mean_ttft_ms": 6120.5, "median_ttft_ms": 6250.25, "std_ttft_ms": 2900.125, "p99_ttft_ms": 11800.0, "mean_tpot_ms": 17.22, "median_tpot_ms": 17.5, "std_tpot_ms": 1.75, "p99_tpot_ms": 21.0, "mean_itl_ms": 17.3, "median_itl_ms": 15.75, "std_itl_ms": 9.5, "p95_itl_ms": 30.25, "p99_itl_ms": 61.5, "concurrency": 245.9, "accept_length": NaN}';

  it('imports every line; the last line (the latest run) with Infinity and NaN', () => {
    const { records, errors, warnings } = importResults(`${OLD}\n${LAST}\n`, 'sglang_1002_300_random.jsonl');
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(records.map((r) => r.source)).toEqual([
      { file: 'sglang_1002_300_random.jsonl', format: 'sglang-jsonl', index: 0, line: 1 },
      { file: 'sglang_1002_300_random.jsonl', format: 'sglang-jsonl', index: 1, line: 2 },
    ]);
    const last = records[1]!;
    expect(last.metrics).toStrictEqual({
      completed: 300, max_concurrency: null, request_rate: null, duration: 21.377, total_input_tokens: 307200, total_output_tokens: 76800,
      request_throughput: 14.0337746, output_throughput: 3592.6463020,
      mean_ttft_ms: 6120.5, median_ttft_ms: 6250.25, std_ttft_ms: 2900.125, p99_ttft_ms: 11800,
      mean_tpot_ms: 17.22, median_tpot_ms: 17.5, std_tpot_ms: 1.75, p99_tpot_ms: 21,
      mean_itl_ms: 17.3, median_itl_ms: 15.75, std_itl_ms: 9.5, p95_itl_ms: 30.25, p99_itl_ms: 61.5,
      mean_e2el_ms: 10512.25, median_e2el_ms: 10880.5, std_e2el_ms: 3012.75, p99_e2el_ms: 17410,
      mean_latency_s: 10.51225,
    });
    expect(last.extra).toStrictEqual({
      total_input_text_tokens: 307200, total_input_vision_tokens: 0, total_output_tokens_retokenized: 76790,
      input_throughput: 14370.5852084, concurrency: 245.9, accept_length: null,
    });
    expect(last.provenance).toEqual({
      client: { name: 'sglang.bench_serving', label: 'fp8-eagle', backend: 'sglang-oai' },
      dataset: { name: 'random' },
      workload: { requestRate: 'inf', maxConcurrency: null, sharegptOutputLen: null, randomInputLen: 1024, randomOutputLen: 256, randomRangeRatio: 0 },
    });
    expect(records[0]!.metrics).toMatchObject({ request_rate: 8, max_concurrency: 64, mean_e2el_ms: 900, p99_e2el_ms: 1500 });
  });

  it('reads one line as SGLang JSONL too, and leaves Infinity inside strings alone', () => {
    const r = importResults(LAST.replace('"fp8-eagle"', '"Infinity NaN"'), 'one.jsonl').records[0]!;
    expect(r.source!.format).toBe('sglang-jsonl');
    expect(r.provenance!.client!.label).toBe('Infinity NaN');
    expect(parseLenientJson('{"a": -Infinity, "b": [NaN, "x\\"Infinity"]}')).toEqual({ a: -Infinity, b: [null, 'x"Infinity'] });
  });
});

describe('bad JSON input', () => {
  it('names the file and line of each broken or foreign object and imports the rest', () => {
    const good = JSON.stringify({ ...VLLM_JSON, completed: 5 });
    const text = [good, good.slice(0, 40), '', JSON.stringify({ ...VLLM_JSON, mean_ttft_ms: 'fast' }), '{"name": "servelab", "version": "0.1.0"}', '[1, 2]', good].join('\n');
    const { records, errors } = importResults(text, 'runs.jsonl');
    expect(records.map((r) => [r.source!.index, r.source!.line])).toEqual([[0, 1], [1, 7]]);
    expect(errors.map(formatProblem)).toEqual([
      expect.stringMatching(/^runs\.jsonl:2: not valid JSON \(.+\)$/),
      'runs.jsonl:4: "mean_ttft_ms" is not a number ("fast")',
      'runs.jsonl:5: this JSON object has no "completed" count, so it is not a vllm bench serve or sglang.bench_serving result',
      'runs.jsonl:6: this JSON line is not an object; a benchmark result is one object per run',
    ]);
  });

  it('rejects a JSON document that is neither an object nor an array of objects', () => {
    expect(importResults('[{"completed": 1}, 2]', 'a.json').errors.map(formatProblem)).toEqual(['a.json:1: this JSON is not an object or an array of objects; a benchmark result is one object per run']);
  });
});
