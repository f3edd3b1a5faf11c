// One test per kind of result the importer used to get wrong, each on a real file of the corpus
// (tests/fixtures/bench-import-corpus/dev, its source URL beside it in the test name's comment). Cases no public file
// showed are built from a real block and marked "edge case" in their names.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/repo';
import { importResults, parseBenchText, type BenchResult } from '../../src/shared/results';

const DEV = join(repoRoot, 'tests', 'fixtures', 'bench-import-corpus', 'dev');
const read = (name: string): string => readFileSync(join(DEV, name), 'utf8');

function only(records: BenchResult[], line: number): BenchResult {
  const record = records.find((r) => r.source!.line === line);
  if (!record) throw new Error(`no record at line ${line}`);
  return record;
}

describe('old vLLM blocks', () => {
  // https://github.com/yiliu30/vllm-fork/blob/dabdb2528a13dd871cfd8b70ec468732c3146f62/scripts/pp_local_test_res.sh
  it('leave the rate and the concurrency unknown when the block does not print them', () => {
    const { records, errors } = importResults(read('yiliu30-vllm-fork-pp_local_test_res.sh'), 'pp.sh');
    expect(errors).toEqual([]);
    expect(records).toHaveLength(2);
    for (const record of records) {
      expect(record.metrics).not.toHaveProperty('request_rate');
      expect(record.metrics).not.toHaveProperty('max_concurrency');
      expect(record.provenance!.workload).toBeUndefined();
    }
  });

  // shared/guides/qwen3-32b-a100-throughput.tr.txt: vLLM 0.11, whose layout prints both lines whenever they are set.
  it('still read an absent rate and concurrency as unset in the newer layout', () => {
    const record = importResults(read('guide-qwen3-32b-a100-throughput.tr.txt'), 'guide.txt').records[0]!;
    expect(record.metrics.request_rate).toBeNull();
    expect(record.metrics.max_concurrency).toBeNull();
    expect(record.provenance!.workload).toEqual({ requestRate: 'inf', maxConcurrency: null });
  });

  // https://github.com/vllm-project/vllm/issues/4803
  it('with "Input token throughput" stay vLLM blocks', () => {
    const { records } = importResults(read('vllm-issue-4803.md'), '4803.md');
    expect(records).toHaveLength(1);
    expect(records[0]!.source!.format).toBe('vllm-text');
    expect(records[0]!.provenance!.client!.name).toBe('vllm bench serve');
    expect(records[0]!.extra).toEqual({ input_throughput: 183.14 });
  });
});

describe("SGLang's total throughput", () => {
  // https://github.com/WILLIAM-qmul/SGLang-dLoRA/blob/fa9e37a3eb53cfb8ab79bfb56abfc3146e79b28d/sglang+dLoRA/lora/migration_ilp/dlora_results.md
  // and dlora/dlora_rate2.jsonl beside it: the text and the JSONL line of one run.
  it('lands under total_token_throughput in the text and the JSONL of one run alike', () => {
    const text = importResults(read('sglang-dlora-results.md'), 'results.md').records[0]!;
    const jsonl = importResults(read('sglang-dlora-dlora_rate2.jsonl'), 'rate2.jsonl').records[0]!;
    expect(text.source!.format).toBe('sglang-text');
    expect(jsonl.source!.format).toBe('sglang-jsonl');
    expect(text.metrics.total_token_throughput).toBe(2121.89);
    expect(jsonl.metrics.total_token_throughput).toBeCloseTo(2121.89, 2);
    expect(text.extra).not.toHaveProperty('Total throughput (tok/s)');
    expect(jsonl.extra).not.toHaveProperty('total_throughput');
    // The other numbers both print agree the same way.
    for (const key of ['completed', 'total_input_tokens', 'total_output_tokens', 'request_throughput', 'output_throughput', 'mean_e2el_ms', 'median_ttft_ms'] as const) {
      expect(jsonl.metrics[key]).toBeCloseTo(text.metrics[key] as number, 2);
    }
  });
});

describe('speculative decoding', () => {
  // https://github.com/vllm-project/speculators/issues/613
  it("lands under vLLM's spec_decode_* keys, per-position rates as the JSON's fractions, and does not cut the block", () => {
    const { records, warnings } = importResults(read('speculators-issue-613.md'), '613.md');
    expect(warnings).toEqual([]);
    const record = records[0]!;
    expect(record.metrics).toMatchObject({
      spec_decode_acceptance_rate: 47.16,
      spec_decode_acceptance_length: 4.77,
      spec_decode_num_drafts: 446819,
      spec_decode_draft_tokens: 3574552,
      spec_decode_accepted_tokens: 1685779,
    });
    expect(record.extra).toEqual({
      'spec_decode_per_position_acceptance_rates.0': 0.8227,
      'spec_decode_per_position_acceptance_rates.1': 0.6616,
      'spec_decode_per_position_acceptance_rates.2': 0.5424,
      'spec_decode_per_position_acceptance_rates.3': 0.4565,
      'spec_decode_per_position_acceptance_rates.4': 0.3899,
      'spec_decode_per_position_acceptance_rates.5': 0.3389,
      'spec_decode_per_position_acceptance_rates.6': 0.2975,
      'spec_decode_per_position_acceptance_rates.7': 0.2634,
    });
  });

  // vllm/benchmarks/serve.py writes spec_decode_per_position_acceptance_rates as a list of fractions (edge case: the
  // block's numbers put into the JSON keys serve.py writes).
  it('reads the per-position list of the JSON to the same extras as the text (edge case)', () => {
    const json = {
      date: '20260616-000000', model_id: 'RedHatAI/Qwen3.6-35B-A3B-NVFP4', completed: 640, duration: 733.86,
      spec_decode_acceptance_rate: 47.16, spec_decode_acceptance_length: 4.77, spec_decode_num_drafts: 446819,
      spec_decode_draft_tokens: 3574552, spec_decode_accepted_tokens: 1685779,
      spec_decode_per_position_acceptance_rates: [0.8227, 0.6616, 0.5424, 0.4565, 0.3899, 0.3389, 0.2975, 0.2634],
    };
    const fromJson = importResults(JSON.stringify(json), 'r.json').records[0]!;
    const fromText = importResults(read('speculators-issue-613.md'), '613.md').records[0]!;
    expect(fromJson.extra).toEqual(fromText.extra);
    expect(fromJson.metrics.spec_decode_accepted_tokens).toBe(fromText.metrics.spec_decode_accepted_tokens);
  });
});

describe('prefixed blocks', () => {
  // https://github.com/vllm-project/speculators/issues/613: the reply quotes the block with "> " on every line.
  it('import a Markdown-quoted block exactly like the block it quotes', () => {
    const { records, warnings } = importResults(read('speculators-issue-613.md'), '613.md');
    expect(warnings).toEqual([]);
    expect(records).toHaveLength(2);
    expect(records[1]!.metrics).toEqual(records[0]!.metrics);
    expect(records[1]!.extra).toEqual(records[0]!.extra);
  });

  // https://github.com/yiliu30/vllm-fork/blob/dabdb2528a13dd871cfd8b70ec468732c3146f62/scripts/pp_local_test_res.sh
  it('import blocks kept as shell comments', () => {
    const record = importResults(read('yiliu30-vllm-fork-pp_local_test_res.sh'), 'pp.sh').records[0]!;
    expect(record.metrics).toMatchObject({ completed: 32, duration: 150.87, total_token_throughput: 868.8, p99_itl_ms: 72.47 });
  });

  // The first block of shared/guides/qwen3-32b-a100-throughput.tr.txt behind a vLLM logger prefix whose time stamp
  // changes from line to line, and behind an API server's process prefix (edge case: no public file showed a result
  // block logged this way).
  it.each([
    ['a logger prefix with changing time stamps', (i: number) => `INFO 06-01 12:00:${String(i % 60).padStart(2, '0')} [serve.py:12] `],
    ['an API server prefix', () => '(APIServer pid=1) '],
  ])('import a block behind %s (edge case)', (_, prefix) => {
    const guide = read('guide-qwen3-32b-a100-throughput.tr.txt').split('\n');
    const block = guide.slice(81, 104);
    const plain = importResults(block.join('\n'), 'plain.txt').records[0]!;
    const prefixed = importResults(block.map((line, i) => prefix(i) + line).join('\n'), 'logged.txt');
    expect(prefixed.warnings).toEqual([]);
    expect(prefixed.records).toHaveLength(1);
    expect(prefixed.records[0]!.metrics).toEqual(plain.metrics);
  });
});

describe('values a block cannot give', () => {
  // https://github.com/gpustack/gpustack/blob/47277d79/docs/performance-lab/qwen3.5-9b/h100.md (24 blocks, 21 with N/A)
  it('keep a block with an N/A value, that value unknown, with a warning at its line', () => {
    const { records, errors, warnings } = importResults(read('gpustack-qwen3.5-9b-h100.md'), 'h100.md');
    expect(errors).toEqual([]);
    expect(records).toHaveLength(24);
    const record = only(records, 117);
    expect(record.metrics).not.toHaveProperty('p95_ttft_ms');
    expect(record.metrics.p99_ttft_ms).toBe(5737.27);
    expect(warnings).toContainEqual({ file: 'h100.md', line: 135, message: '"P95 TTFT (ms):" says "N/A"; imported the block without this value' });
  });

  // The first block of shared/guides/qwen3-8b-h100-latency.tr.txt with a stray character after one value (edge case:
  // built from the real block; the stray characters are the ones Markdown tables and code spans leave).
  it.each(['`', '|', '*'])('read a value with a stray "%s" after it, with a warning (edge case)', (stray) => {
    const guide = read('guide-qwen3-8b-h100-latency.tr.txt').split('\n');
    const start = guide.findIndex((line) => line.includes('Serving Benchmark Result'));
    const end = guide.findIndex((line, i) => i > start && /^={20,}$/.test(line));
    const block = guide.slice(start, end + 1);
    const at = block.findIndex((line) => line.startsWith('Benchmark duration'));
    const plain = importResults(block.join('\n'), 'plain.txt').records[0]!;
    const edited = [...block];
    edited[at] = `${edited[at]}${stray}`;
    const { records, warnings } = importResults(edited.join('\n'), 'stray.txt');
    expect(records[0]!.metrics).toEqual(plain.metrics);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.line).toBe(at + 1);
  });
});

describe('blocks without their header', () => {
  // https://github.com/gpustack/gpustack/blob/47277d79/docs/performance-lab/deepseek-v3.2/h200.md, line 209
  it('import a block pasted from its "Successful requests" line, with a warning that names the line', () => {
    const { records, warnings } = importResults(read('gpustack-deepseek-v3.2-h200.md'), 'h200.md');
    const record = only(records, 209);
    expect(record.metrics).toMatchObject({ completed: 1000, duration: 65.62, total_token_throughput: 6343.1, p99_itl_ms: 1239.62 });
    expect(warnings).toEqual([{ file: 'h200.md', line: 209, message: 'this result block has no "Serving Benchmark Result" header line; imported from its values' }]);
  });

  // A "Successful requests" line with too little after it to be a block (edge case: the real first two lines of that block).
  it('warn, without importing, at a lone "Successful requests" line (edge case)', () => {
    const lines = read('gpustack-deepseek-v3.2-h200.md').split('\n').slice(208, 210);
    const { records, warnings } = importResults(`${lines.join('\n')}\nsome other text\n`, 'x.md');
    expect(records).toEqual([]);
    expect(warnings.map((w) => w.line)).toEqual([1]);
  });
});

describe('runners that print vLLM layout', () => {
  // https://github.com/gpustack/gpustack/blob/47277d79/docs/performance-lab/qwen3.5-9b/h100.md
  it('give mean_latency_s from their "Mean Latency(s)" line, and leave the rate they never print unknown', () => {
    const record = only(importResults(read('gpustack-qwen3.5-9b-h100.md'), 'h100.md').records, 117);
    expect(record.metrics.mean_latency_s).toBe(24.11);
    expect(record.metrics).not.toHaveProperty('request_rate');
    expect(record.extra).toMatchObject({ 'Median Latency(s)': 21.9, 'P99 Latency(s)': 51.16 });
  });
});

describe('line numbers', () => {
  // The block of https://github.com/vllm-project/vllm/issues/4803, with its progress bar redrawn by bare carriage
  // returns as tqdm draws it on a terminal (edge case: the stored copy kept only the bar's last state).
  it("count tqdm's bare carriage returns as no line break (edge case)", () => {
    const file = read('vllm-issue-4803.md');
    const redrawn = file.replace('100%|', ' 50%|#####     | 50/100\r 99%|#########9| 99/100\r100%|');
    const plain = parseBenchText(file);
    const withBar = parseBenchText(redrawn);
    expect(withBar.blocks.map((b) => b.line)).toEqual(plain.blocks.map((b) => b.line));
    expect(withBar.warnings).toEqual(plain.warnings);
    // The file ends inside the block: the warning points at its last line, 18.
    expect(plain.warnings.map((w) => w.line)).toEqual([18]);
  });
});

describe('vllm bench sweep and older JSON keys', () => {
  // vllm/benchmarks/sweep/serve.py (vllm-project/vllm) writes summary.json as a JSON array of the runs' --save-result
  // objects, each with run_number and the swept parameters (edge case: the objects hold the numbers of the two blocks
  // of yiliu30/vllm-fork's pp_local_test_res.sh, as --save-result names them).
  it('import every run of a summary.json array, each at its own line (edge case)', () => {
    const runs = importResults(read('yiliu30-vllm-fork-pp_local_test_res.sh'), 'pp.sh').records;
    const summary = runs.map((r, i) => ({ date: '20250101-000000', backend: 'vllm', model_id: 'm', num_prompts: 32, max_concurrency: 32, ...r.metrics, run_number: i, max_num_seqs: 32 }));
    const text = JSON.stringify(summary, null, 4);
    const { records, errors } = importResults(text, 'summary.json');
    expect(errors).toEqual([]);
    expect(records.map((r) => r.source!.line)).toEqual([2, text.split('\n').findIndex((line, i) => i > 1 && line === '    {') + 1]);
    expect(records.map((r) => r.metrics.total_token_throughput)).toEqual(runs.map((r) => r.metrics.total_token_throughput));
    expect(records[1]!.extra).toMatchObject({ run_number: 1, max_num_seqs: 32 });
  });

  // vLLM 0.8–0.9's benchmark_serving.py wrote "request_goodput:" (with the colon; vllm-project/vllm#20274 asked to
  // remove it) (edge case: a --save-result object of those versions' keys).
  it('map the "request_goodput:" key of vLLM 0.8-0.9 (edge case)', () => {
    const json = { date: '20250601-000000', backend: 'vllm', model_id: 'm', num_prompts: 100, request_rate: 'inf', burstiness: 1.0, max_concurrency: null,
      duration: 12.5, completed: 100, total_input_tokens: 1000, total_output_tokens: 2000, request_throughput: 8, 'request_goodput:': 7.5,
      output_throughput: 160, total_token_throughput: 240 };
    const record = importResults(JSON.stringify(json), 'r.json').records[0]!;
    expect(record.metrics.request_goodput).toBe(7.5);
    expect(record.extra).not.toHaveProperty('request_goodput:');
  });
});

describe("the Turkish guides' pasted blocks", () => {
  // shared/guides/qwen3-32b-a100-throughput.tr.txt and qwen3-8b-h100-latency.tr.txt (copied into the corpus): blocks
  // after code-viewer line-number lines and "# --flag" notes, vLLM, SGLang and TensorRT-LLM servers alike.
  it.each([
    ['guide-qwen3-32b-a100-throughput.tr.txt', 15],
    ['guide-qwen3-8b-h100-latency.tr.txt', 25],
  ])('%s: every block imported, no error or warning', (name, blocks) => {
    const { records, errors, warnings } = importResults(read(name), name);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(records).toHaveLength(blocks);
    expect(new Set(records.map((r) => r.source!.format))).toEqual(new Set(['vllm-text']));
  });
});
