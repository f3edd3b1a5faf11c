// `servelab import` run in-process over real files: output forms, folders, exit codes and messages.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runImport } from '../../src/cli/commands/import';
import { runCli } from '../../src/cli/main';
import { runCaptured, type CliRun } from '../helpers/cli';
import { repoRoot } from '../helpers/repo';
import { BenchResultSchema, type BenchResult } from '../../src/shared/results';

const FIXTURES = join(repoRoot, 'tests', 'fixtures', 'vllm-bench-text');
const C4 = 'qwen3-8b_h100_vllm-0.11.0_sharegpt_c4.txt';
const UNBOUNDED = 'qwen3-32b_a100_vllm-0.11.0_sharegpt_unbounded.txt';
const SAVED_JSON = JSON.stringify({
  date: '20251002-141530', endpoint_type: 'openai', backend: 'openai', label: null, model_id: 'Qwen/Qwen3-8B', tokenizer_id: 'Qwen/Qwen3-8B',
  num_prompts: 50, request_rate: 'inf', burstiness: 1.0, max_concurrency: 8, duration: 10.0, completed: 48, total_input_tokens: 6144,
  total_output_tokens: 1536, request_throughput: 4.8, request_goodput: null, output_throughput: 153.6, total_token_throughput: 768.0,
  max_output_tokens_per_s: 201.0, max_concurrent_requests: 8, mean_ttft_ms: 35.5, median_ttft_ms: 33.0, std_ttft_ms: 4.0, p99_ttft_ms: 51.25,
  mean_e2el_ms: 1234.5,
});

let dir: string;
const run = (args: string[]): Promise<CliRun> => runCaptured((io) => runImport(args, io), {}, dir);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'servelab-import-'));
  mkdirSync(join(dir, 'runs', 'a'), { recursive: true });
  copyFileSync(join(FIXTURES, C4), join(dir, 'runs', 'b-c4.txt'));
  writeFileSync(join(dir, 'runs', 'a', 'z-saved.json'), SAVED_JSON);
  copyFileSync(join(FIXTURES, UNBOUNDED), join(dir, 'runs', 'a', 'y-unbounded.log'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('servelab import', () => {
  it('prints one table row per record, folders recursively in path order', async () => {
    const { code, stdout, stderr } = await run(['runs']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'result                    format     completed  duration s  output tok/s  total tok/s  mean TTFT ms  mean TPOT ms  mean E2EL ms',
        'runs/a/y-unbounded.log#0  vllm-text       1000      241.94        832.43      1730.98     105557.78        149.67             -',
        'runs/a/z-saved.json#0     vllm-json         48       10.00        153.60       768.00         35.50             -       1234.50',
        'runs/b-c4.txt#0           vllm-text        100       44.40        496.88      1020.76         64.00          7.38             -',
        '',
      ].join('\n'),
    );
  });

  it('prints a JSON array with --json and JSON Lines with --jsonl, every record valid against the schema', async () => {
    const json = await run(['runs/b-c4.txt', 'runs/a/z-saved.json', '--json']);
    expect(json.code).toBe(0);
    const records = JSON.parse(json.stdout) as BenchResult[];
    expect(records.map((r) => BenchResultSchema.parse(r))).toEqual(records);
    expect(records.map((r) => r.source)).toEqual([
      { file: 'runs/b-c4.txt', format: 'vllm-text', index: 0, line: 1 },
      { file: 'runs/a/z-saved.json', format: 'vllm-json', index: 0, line: 1 },
    ]);
    expect(records[0]!.metrics).toMatchObject({ completed: 100, max_concurrency: 4, duration: 44.4, mean_ttft_ms: 64, p99_itl_ms: 40.98 });
    expect(records[1]!.metrics).toMatchObject({ completed: 48, failed: 2, request_rate: null, mean_latency_s: 1.2345 });
    expect(records[1]!.provenance).toMatchObject({ model: 'Qwen/Qwen3-8B', timestamps: { clientDate: '20251002-141530' }, workload: { numPrompts: 50 } });

    const jsonl = await run(['--jsonl', 'runs/b-c4.txt', 'runs/a/z-saved.json']);
    expect(jsonl.code).toBe(0);
    const lines = jsonl.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.map((l) => JSON.parse(l))).toEqual(records);
  });

  it('reports a bad value by file and line, imports the other files, and exits 1', async () => {
    const text = readFileSync(join(FIXTURES, C4), 'utf8').replace(/^Mean TTFT \(ms\):.*$/m, 'Mean TTFT (ms):');
    writeFileSync(join(dir, 'results.txt'), `Starting initial single prompt test run...\n${text}`);
    const { code, stdout, stderr } = await run(['results.txt', 'runs/a/z-saved.json', '--json']);
    expect(code).toBe(1);
    expect(stderr).toBe('servelab import: results.txt:14: "Mean TTFT (ms):" has no number\n');
    expect((JSON.parse(stdout) as BenchResult[]).map((r) => r.source!.file)).toEqual(['runs/a/z-saved.json']);
  });

  it('says which file holds no result, is missing, too large or not text', async () => {
    writeFileSync(join(dir, 'notes.md'), '# Notes\nNothing measured yet.\n');
    writeFileSync(join(dir, 'blob.bin'), Buffer.from([0x7b, 0x00, 0x01, 0x02]));
    // Sparse: 65 MiB long without writing 65 MiB.
    writeFileSync(join(dir, 'huge.txt'), '');
    truncateSync(join(dir, 'huge.txt'), 65 * 1024 * 1024);
    const { code, stdout, stderr } = await run(['notes.md', 'missing.txt', 'huge.txt', 'blob.bin', 'runs/b-c4.txt']);
    expect(code).toBe(1);
    expect(stderr.split('\n')).toEqual([
      'servelab import: notes.md: no benchmark result found (expected the "Serving Benchmark Result" block of vllm bench serve or sglang.bench_serving, or their JSON / JSON Lines result files)',
      'servelab import: missing.txt: no such file or folder',
      'servelab import: huge.txt: 65 MiB is more than the 64 MiB a result file may have; import the benchmark\'s own output (the result block or its --save-result JSON), not a whole log or data set',
      'servelab import: blob.bin: is not a text file; import the text or JSON a benchmark client wrote',
      '',
    ]);
    expect(stdout.split('\n')[1]).toMatch(/^runs\/b-c4\.txt#0 +vllm-text +100 +44\.40 /);
  });

  it('imports a block cut short with a warning, and exits 0', async () => {
    const lines = readFileSync(join(FIXTURES, C4), 'utf8').split('\n');
    writeFileSync(join(dir, 'cut.txt'), `${lines.slice(0, 17).join('\n')}\nKilled\n`);
    const { code, stdout, stderr } = await run(['cut.txt', '--json']);
    expect(code).toBe(0);
    expect(stderr).toBe('servelab import: warning: cut.txt:17: the result block that starts on line 1 is cut short after this line (no closing "=====" line); imported the values it has\n');
    expect((JSON.parse(stdout) as BenchResult[])[0]!.metrics).toMatchObject({ completed: 100, mean_tpot_ms: 7.38 });
    expect((JSON.parse(stdout) as BenchResult[])[0]!.metrics.median_tpot_ms).toBeUndefined();
  });

  // Real files of the import corpus: https://github.com/vllm-project/speculators/issues/613 (a block and its quote)
  // and https://github.com/gpustack/gpustack/blob/47277d79/docs/performance-lab/deepseek-v3.2/h200.md (a block
  // without its header among 28 with one).
  it('imports quoted, speculative-decoding and headerless blocks of real files, warning without failing', async () => {
    const corpus = join(repoRoot, 'tests', 'fixtures', 'bench-import-corpus', 'dev');
    copyFileSync(join(corpus, 'speculators-issue-613.md'), join(dir, 'issue-613.md'));
    copyFileSync(join(corpus, 'gpustack-deepseek-v3.2-h200.md'), join(dir, 'h200.md'));
    const { code, stdout, stderr } = await run(['issue-613.md', 'h200.md', '--json']);
    expect(code).toBe(0);
    expect(stderr).toBe('servelab import: warning: h200.md:209: this result block has no "Serving Benchmark Result" header line; imported from its values\n');
    const records = JSON.parse(stdout) as BenchResult[];
    expect(records).toHaveLength(2 + 29);
    expect(records[0]!.metrics).toMatchObject({ spec_decode_acceptance_rate: 47.16, spec_decode_accepted_tokens: 1685779 });
    expect(records[1]!.metrics).toEqual(records[0]!.metrics);
    expect(records.find((r) => r.source!.file === 'h200.md' && r.source!.line === 209)!.metrics.completed).toBe(1000);
  });

  it('exits 2 on usage mistakes, 0 with --help, and is reachable from the servelab command', async () => {
    const none = await run([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^servelab import: name at least one result file or folder\.\n\nUsage: servelab import/);
    const unknown = await run(['--csv', 'x.txt']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--csv'");
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: servelab import <file \| folder>\.\.\. \[--json \| --jsonl\]/);
    const viaMain = await runCaptured((io) => runCli(['import', 'runs/b-c4.txt', '--jsonl'], io, ''), {}, dir);
    expect(viaMain.code).toBe(0);
    expect(JSON.parse(viaMain.stdout).metrics.completed).toBe(100);
    const usage = await runCaptured((io) => runCli(['--help'], io, ''), {}, dir);
    expect(usage.stdout).toContain('  import <file|folder>... [--json | --jsonl]');
  });
});
