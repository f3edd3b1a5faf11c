// A user's path on the simulated box: venv + pip install vllm==0.11.0, vllm serve, readiness, /health,
// /v1/models, vllm bench serve with the real output format and --save-result JSON, SIGTERM, GPU memory back.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseComputeApps, parseGpuQueryCsv } from '../../src/core/inventory/nvidia-smi';
import { repoRoot } from '../helpers/repo';
import { envWith, freePort, get, makeBox, post, type Box, type Started } from './helpers';

// A real `vllm bench serve` block, captured on an H100 (tests/fixtures/vllm-bench-text/README.md).
const FIXTURE = join(repoRoot, 'tests', 'fixtures', 'vllm-bench-text', 'qwen3-8b_h100_vllm-0.11.0_sharegpt_c4.txt');
const fixturePath = () => readFileSync(FIXTURE, 'utf8');

let box: Box;
let bin: string;
let port: number;
let server: Started;

beforeAll(async () => {
  box = makeBox({ gpu: 'h100', timeScale: 0.002 });
  bin = envWith(box, 'vllm-env', 'vllm==0.11.0');
  port = await freePort();
}, 60_000);
afterAll(() => box?.cleanup());

/**
 * Label and value kind of each line of a result block; headers kept as they are. `padded`: the value column is
 * `{:<10}` as in vLLM's source (the stored fixtures lost those trailing spaces when they were copied).
 */
function shape(block: string, padded: boolean): string[] {
  return block
    .trimEnd()
    .split('\n')
    .map((line) => {
      const m = /^(.{40}) (\S+)( *)$/.exec(line);
      if (!m) return line;
      const value = m[2] ?? '';
      if (padded) expect(value.length + (m[3] ?? '').length).toBeGreaterThanOrEqual(10);
      return `${(m[1] ?? '').trimEnd()} <${/^\d+$/.test(value) ? 'int' : /^-?\d+\.\d\d$/.test(value) ? 'float' : value}>`;
    });
}

describe('vLLM 0.11.0 on the simulated box', () => {
  it('installs into a venv with the vllm entry point and reports its version', () => {
    expect(readdirSync(bin)).toEqual(expect.arrayContaining(['python', 'python3', 'pip', 'vllm', 'activate']));
    expect(box.run(join(bin, 'vllm'), ['--version']).stdout).toBe('0.11.0\n');
    expect(box.run(join(bin, 'python'), ['-c', 'import vllm; print(vllm.__version__)']).stdout).toBe('0.11.0\n');
  });

  it('rejects an unknown flag like argparse (exit 2)', () => {
    const r = box.run(join(bin, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--no-such-flag', '3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('usage: vllm [-h] [-v] {chat,complete,serve,bench,collect-env,run-batch} ...');
    expect(r.stderr).toContain('vllm: error: unrecognized arguments: --no-such-flag 3');
    const bad = box.run(join(bin, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--port', 'abc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("vllm serve: error: argument --port: invalid int value: 'abc'");
  });

  it('serves: readiness line, /health 200, /v1/models, streaming chat, GPU memory held', async () => {
    server = box.start(join(bin, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--port', String(port)], { pathPrefix: bin });
    await server.waitFor('vLLM API server version 0.11.0');
    // The port is bound before the model loads, but nothing answers yet.
    expect((await get(port, '/health')).status).toBe(-1);
    await server.waitFor('Application startup complete.');
    const out = server.output();
    expect(out).toContain('SERVELAB-SIMULATED');
    for (const line of ['Starting to load model Qwen/Qwen3-8B...', 'Model loading took', 'GPU KV cache size:', 'Maximum concurrency for 40,960 tokens per request:', 'Started server process', 'Waiting for application startup.']) {
      expect(out).toContain(line);
    }
    expect(out.indexOf('Model loading took')).toBeLessThan(out.indexOf('Application startup complete.'));
    expect(out).not.toContain('Uvicorn running on');
    const health = await get(port, '/health');
    expect(health.status).toBe(200);
    expect(health.headers['x-servelab-simulated']).toBe('1');
    const models = JSON.parse((await get(port, '/v1/models')).body);
    expect(models.data.map((m: { id: string }) => m.id)).toEqual(['Qwen/Qwen3-8B']);
    const chat = await post(port, '/v1/chat/completions', { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 5, stream: true, stream_options: { include_usage: true } });
    expect(chat.status).toBe(200);
    const events = chat.body.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(JSON.parse(events.at(-2)!.slice(6)).usage.completion_tokens).toBe(5);
    const wrong = await post(port, '/v1/completions', { model: 'nope', prompt: 'hi', max_tokens: 2 });
    expect(wrong.status).toBe(404);
    const apps = parseComputeApps(box.run('nvidia-smi', ['--query-compute-apps=gpu_uuid,pid,process_name,used_memory', '--format=csv,noheader,nounits']).stdout);
    expect(apps).toEqual([expect.objectContaining({ pid: server.child.pid, usedMemoryMiB: expect.any(Number) })]);
    expect(apps[0]!.usedMemoryMiB!).toBeGreaterThan(0.9 * 81559);
  });

  it('benchmarks with vllm bench serve: the real block format and --save-result JSON', () => {
    const resultDir = join(box.home, 'results');
    const r = box.run(join(bin, 'vllm'), [
      'bench', 'serve', '--model', 'Qwen/Qwen3-8B', '--backend', 'openai-chat', '--endpoint', '/v1/chat/completions',
      '--dataset-name', 'random', '--random-input-len', '128', '--random-output-len', '16', '--num-prompts', '20',
      '--max-concurrency', '4', '--percentile-metrics', 'ttft,tpot,itl,e2el', '--metric-percentiles', '50,90,99',
      '--save-result', '--result-dir', resultDir, '--port', String(port),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Namespace\(subparser='bench', bench_type='serve', /);
    expect(r.stdout).toContain('Initial test run completed. Starting main benchmark run...');
    expect(r.stdout).toContain('Maximum request concurrency: 4\n');
    expect(r.stderr).toMatch(/100%\|██████████\| 20\/20 \[/);
    const block = r.stdout.slice(r.stdout.indexOf('============ Serving Benchmark Result ============'));
    // The real fixture's lines, with P50/P90 added per section and the E2EL section this command asks for.
    const fixture = fixturePath();
    expect(fixture).not.toBeNull();
    const expected: string[] = [];
    for (const line of shape(fixture!, false)) {
      if (/^P99 (\w+) \(ms\): <float>$/.test(line)) {
        const name = line.split(' ')[1];
        expected.push(`P50 ${name} (ms): <float>`, `P90 ${name} (ms): <float>`);
      }
      if (line === '='.repeat(50)) expected.push('----------------End-to-end Latency----------------', 'Mean E2EL (ms): <float>', 'Median E2EL (ms): <float>', 'P50 E2EL (ms): <float>', 'P90 E2EL (ms): <float>', 'P99 E2EL (ms): <float>');
      expected.push(line);
    }
    expect(shape(block, true)).toEqual(expected);
    for (const line of block.trimEnd().split('\n')) if (line.includes(':')) expect(line.length).toBeGreaterThanOrEqual(51);
    expect(block).toContain('Successful requests:                     20        \n');
    expect(block).toContain('Total input tokens:                      2560      \n');
    expect(block).toContain('Total generated tokens:                  320       \n');

    const files = readdirSync(resultDir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^openai-chat-infqps-concurrency4-Qwen3-8B-\d{8}-\d{6}\.json$/);
    const text = readFileSync(join(resultDir, files[0]!), 'utf8');
    expect(text).toContain('"burstiness": 1.0, "max_concurrency": 4');
    const json = JSON.parse(text);
    const stats = (m: string) => [`mean_${m}_ms`, `median_${m}_ms`, `std_${m}_ms`, `p50_${m}_ms`, `p90_${m}_ms`, `p99_${m}_ms`];
    expect(Object.keys(json)).toEqual([
      'date', 'endpoint_type', 'backend', 'label', 'model_id', 'tokenizer_id', 'num_prompts', 'request_rate', 'burstiness', 'max_concurrency',
      'duration', 'completed', 'total_input_tokens', 'total_output_tokens', 'request_throughput', 'request_goodput', 'output_throughput',
      'total_token_throughput', 'max_output_tokens_per_s', 'max_concurrent_requests',
      ...stats('ttft'), ...stats('tpot'), ...stats('itl'), ...stats('e2el'),
    ]);
    expect(json).toMatchObject({ endpoint_type: 'openai-chat', backend: 'openai-chat', label: null, model_id: 'Qwen/Qwen3-8B', num_prompts: 20, request_rate: 'inf', max_concurrency: 4, completed: 20, total_input_tokens: 2560, total_output_tokens: 320 });
    // Numbers are in real-GPU units and agree with the performance model (H100, 8B: a few ms per token).
    expect(json.mean_tpot_ms).toBeGreaterThan(5);
    expect(json.mean_tpot_ms).toBeLessThan(10);
    expect(json.mean_ttft_ms).toBeGreaterThan(30);
    expect(json.mean_ttft_ms).toBeLessThan(150);
    expect(json.duration).toBeGreaterThan(0.5);
    expect(json.duration).toBeLessThan(2);
  });

  it('fails like the real client when the model name is wrong', () => {
    const r = box.run(join(bin, 'vllm'), ['bench', 'serve', '--model', 'Qwen/Qwen3-8B', '--served-model-name', 'wrong', '--port', String(port), '--num-prompts', '2', '--ready-check-timeout-sec', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ValueError: Initial test run failed - Please make sure benchmark arguments are correctly specified. Error: Not Found');
  });

  it('stops on SIGTERM and releases its GPU memory', async () => {
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const gpus = parseGpuQueryCsv(box.run('nvidia-smi', ['--query-gpu=index,name,uuid,memory.total,memory.used,memory.free,utilization.gpu,temperature.gpu,power.draw,power.limit,driver_version,compute_cap,pci.bus_id,clocks.max.sm', '--format=csv,noheader,nounits']).stdout);
    expect(gpus[0]?.memoryUsedMiB).toBe(0);
    expect(box.run('nvidia-smi', []).stdout).toContain('No running processes found');
    expect((await get(port, '/health')).status).toBe(-1);
  });

  it('fails like the real client when the server is down', () => {
    const r = box.run(join(bin, 'vllm'), ['bench', 'serve', '--model', 'Qwen/Qwen3-8B', '--port', String(port), '--num-prompts', '2', '--ready-check-timeout-sec', '5']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ValueError: Initial test run failed - Please make sure benchmark arguments are correctly specified. Error: ');
    expect(r.stderr).toContain(`Cannot connect to host 127.0.0.1:${port}`);
  });
});
