// Benchmarks over a real sshd with the simulated GPU box: datasets fetched on the box, uploaded and checked by
// SHA-256; `vllm bench serve` run as a detached job with progress; its JSON fetched; a killed client recorded as failed.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { launchReadyVllm, startSimboxOverSsh, type SimboxOverSsh } from '../helpers/simbox-ssh';
import { repoRoot } from '../helpers/repo';
import type { RunningServer } from '../../src/core/engines/server-launcher';
import { DatasetStore, SHAREGPT_FILE } from '../../src/core/bench/dataset-store';
import { runBenchmark, type BenchProgress } from '../../src/core/bench/bench-runner';
import { parseWorkload, workloadPreset } from '../../src/shared/bench/workload';
import { ServelabError } from '../../src/shared/contract';
import { measuredEntry } from '../../src/core/bench/measured-result';

const context = {
  host: 'bench-it',
  server: { engine: 'vllm' as const, version: '0.11.0', argv: ['vllm', 'serve', 'Qwen/Qwen3-8B'], envNames: [], model: 'Qwen/Qwen3-8B' },
  clientVersion: '0.11.0',
};

let lab: SimboxOverSsh;
let server: RunningServer;
let sharegptLocal: string;
let http: Server;
let httpPort: number;

beforeAll(async () => {
  lab = await startSimboxOverSsh({ hostId: 'bench-it', timeScale: 0.002 });
  sharegptLocal = join(lab.scratch, 'sharegpt.json');
  const made = spawnSync(process.execPath, [join(repoRoot, 'resources/simbox/bin/simbox'), 'make-sharegpt', sharegptLocal, '--count', '300'], { encoding: 'utf8' });
  expect(made.status, made.stderr).toBe(0);
  const body = await readFile(sharegptLocal);
  http = createServer((req, res) => {
    if (req.url === '/sharegpt.json') res.writeHead(200, { 'content-length': body.length }).end(body);
    else if (req.url === '/page.html') res.writeHead(200).end('<html>Sign in</html>');
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  httpPort = (http.address() as AddressInfo).port;

  server = await launchReadyVllm(lab.box);
}, 240_000);

afterAll(async () => {
  await server?.stop().catch(() => {});
  http?.close();
  await lab?.stop();
});

describe('dataset cache', () => {
  it('fetches ShareGPT on the box from a URL, with progress and its SHA-256', async () => {
    const store = new DatasetStore(lab.box);
    const progress: number[] = [];
    const record = await store.fetch(SHAREGPT_FILE, `http://127.0.0.1:${httpPort}/sharegpt.json`, { onProgress: (p) => progress.push(p.bytes) });
    const expected = spawnSync('sha256sum', [sharegptLocal], { encoding: 'utf8' }).stdout.slice(0, 64);
    expect(record).toMatchObject({ file: SHAREGPT_FILE, sha256: expected, source: 'url' });
    expect(progress.at(-1)).toBe(record.bytes);
    expect(await store.verify(SHAREGPT_FILE)).toEqual(record);
    expect((await store.list()).map((r) => r.file)).toContain(SHAREGPT_FILE);
  });

  it('refuses plain http from off the box without the SHA-256, and a file whose SHA-256 is not the one given (L10)', async () => {
    const store = new DatasetStore(lab.box);
    await expect(store.fetch('far.json', 'http://datasets.example.invalid/sharegpt.json')).rejects.toThrow(/plain http.*use https, or give the SHA-256/);
    const url = `http://127.0.0.1:${httpPort}/sharegpt.json`;
    const wrong = 'ab'.repeat(32);
    await expect(store.fetch('pinned.json', url, { sha256: wrong })).rejects.toThrow(new RegExp(`not the expected ${wrong}; the file was not kept`));
    await expect(store.verify('pinned.json')).rejects.toThrow(/not in the box's dataset cache/);
    const expected = spawnSync('sha256sum', [sharegptLocal], { encoding: 'utf8' }).stdout.slice(0, 64);
    expect((await store.fetch('pinned.json', url, { sha256: expected })).sha256).toBe(expected);
  });

  it('uploads a file from this machine, checked on both ends', async () => {
    const record = await new DatasetStore(lab.box).upload(sharegptLocal, 'uploaded.json');
    expect(record.source).toBe('upload');
    expect(record.sha256).toBe(spawnSync('sha256sum', [sharegptLocal], { encoding: 'utf8' }).stdout.slice(0, 64));
  });

  it('refuses a page that is not a dataset and keeps nothing', async () => {
    const store = new DatasetStore(lab.box);
    await expect(store.fetch('page.json', `http://127.0.0.1:${httpPort}/page.html`)).rejects.toThrow(/not a ShareGPT-format JSON array.*not kept/);
    await expect(store.verify('page.json')).rejects.toThrow(/not in the box's dataset cache/);
    await expect(store.fetch('missing.json', `http://127.0.0.1:${httpPort}/nope`)).rejects.toThrow(/Could not fetch .*404/);
  });

  it('catches a changed or missing file before any launch', async () => {
    const store = new DatasetStore(lab.box);
    const record = await store.upload(sharegptLocal, 'changed.json');
    await lab.box.run(`printf ' ' >> ${record.path}\n`, { timeoutSeconds: 10 });
    await expect(store.verify('changed.json')).rejects.toThrow(/has changed since it was stored/);
    await lab.box.run(`rm ${record.path}\n`, { timeoutSeconds: 10 });
    await expect(store.verify('changed.json')).rejects.toThrow(/is missing on the box/);
  });
});

describe('runBenchmark', () => {
  it('runs a ShareGPT workload against the server, with progress, and fetches its JSON', async () => {
    const dataset = await new DatasetStore(lab.box).verify(SHAREGPT_FILE);
    const progress: BenchProgress[] = [];
    const workload = parseWorkload({ ...workloadPreset('sharegpt-c4')!, numPrompts: 40 });
    const outcome = await runBenchmark(lab.box, {
      runId: 'run-ok',
      workload,
      server: { port: server.port, model: 'Qwen/Qwen3-8B' },
      clientVersion: '0.11.0',
      shareGptPath: dataset.path,
      localDir: join(lab.scratch, 'run-ok'),
      metadata: { trial: 't1' },
      onProgress: (p) => progress.push(p),
    });
    expect(outcome.failure, outcome.log.slice(-2000)).toBeUndefined();
    expect(outcome.exitCode).toBe(0);
    expect(outcome.log).toContain('============ Serving Benchmark Result ============');
    expect(progress.at(-1)).toEqual({ done: 40, total: 40 });
    const json = JSON.parse(outcome.json!) as Record<string, unknown>;
    expect(json).toMatchObject({ completed: 40, num_prompts: 40, max_concurrency: 4, servelab_run_id: 'run-ok', servelab_workload: 'sharegpt-c4', trial: 't1' });
    expect(json.mean_e2el_ms).toEqual(expect.any(Number));
    expect(json.p90_ttft_ms).toEqual(expect.any(Number));
    expect(await readFile(join(lab.scratch, 'run-ok', 'result.json'), 'utf8')).toBe(outcome.json);
    expect(outcome.command).toContain('bench serve --backend openai-chat --endpoint /v1/chat/completions');

    // The library entry: the client's own numbers under vLLM's keys, with where they came from.
    const entry = measuredEntry(outcome, { ...context, workload, dataset: { path: dataset.path, sha256: dataset.sha256 } });
    expect(entry.status).toBe('ok');
    expect(entry.result.metrics).toMatchObject({ completed: 40, failed: 0, max_concurrency: 4, mean_ttft_ms: json.mean_ttft_ms, p99_itl_ms: json.p99_itl_ms });
    expect(entry.result.metrics.mean_latency_s).toBeCloseTo((json.mean_e2el_ms as number) / 1000, 9);
    // --save-detailed: the run's own JSON keeps the per-request arrays; the entry keeps only the intervals they give.
    expect((json.ttfts as unknown[]).length).toBe(40);
    expect(entry.result.intervals).toMatchObject({ level: 0.95, requests: 40, resamples: 1000 });
    expect(entry.result.intervals!.values.p99_itl_ms!.high).toBeGreaterThanOrEqual(json.p99_itl_ms as number);
    expect(JSON.stringify(entry)).not.toContain('"ttfts"');
    expect(entry.result.provenance).toMatchObject({
      engine: 'vllm',
      engineVersion: '0.11.0',
      model: 'Qwen/Qwen3-8B',
      client: { name: 'vllm bench serve', version: '0.11.0', backend: 'openai-chat' },
      dataset: { name: 'sharegpt', sha256: dataset.sha256 },
      workload: { numPrompts: 40, maxConcurrency: 4 },
    });
  }, 120_000);

  it('records a client killed mid-run as failed, with its log', async () => {
    const workload = parseWorkload({ id: 'long', dataset: { kind: 'random', inputLen: 2000, outputLen: 2000 }, numPrompts: 100, maxConcurrency: 2, seed: 1 });
    const running = runBenchmark(lab.box, {
      runId: 'run-killed',
      workload,
      server: { port: server.port, model: 'Qwen/Qwen3-8B' },
      clientVersion: '0.11.0',
      localDir: join(lab.scratch, 'run-killed'),
      onProgress: (p) => {
        // Kill the client's whole process group once it is under way, as a crash or an OOM killer would.
        if (p.done >= 2 && !killed) {
          killed = true;
          killing = lab.box.run(`pgid=$(cat "$(dirname "$(grep -l run-killed ~/.servelab/jobs/*/command)")/pgid") && kill -s KILL -- "-$pgid"\n`, { timeoutSeconds: 10 });
        }
      },
    });
    let killed = false;
    let killing: Promise<{ code: number | null; stderr: string }> | undefined;
    const outcome = await running;
    expect(killed).toBe(true);
    const kill = await killing!;
    expect(kill.code, kill.stderr).toBe(0);
    expect(outcome.json).toBeUndefined();
    expect(outcome.failure).toMatch(/exited with status|was lost/);
    expect(outcome.log).toMatch(/\d+\/100 \[/);
    const entry = measuredEntry(outcome, { ...context, workload });
    expect(entry).toMatchObject({ status: 'failed', error: outcome.failure });
    expect(entry.result.metrics).toEqual({});
    expect(entry.logTail).toMatch(/\d+\/100 \[/);
  }, 120_000);

  it('fails with the real client error when the server is not there', async () => {
    const outcome = await runBenchmark(lab.box, {
      runId: 'run-down',
      workload: parseWorkload({ id: 'r', dataset: { kind: 'random', inputLen: 100, outputLen: 10 }, numPrompts: 5 }),
      server: { port: 1, model: 'Qwen/Qwen3-8B' },
      clientVersion: '0.11.0',
      localDir: join(lab.scratch, 'run-down'),
    });
    expect(outcome.exitCode).not.toBe(0);
    expect(outcome.failure).toMatch(/exited with status \d+: .*(Error|failed)/);
  }, 60_000);

  it('refuses a box without the client installed, before starting anything', async () => {
    const err = await runBenchmark(lab.box, {
      runId: 'run-noclient',
      workload: workloadPreset('random-128-4')!,
      server: { port: server.port, model: 'Qwen/Qwen3-8B' },
      clientVersion: '0.10.2',
      localDir: join(lab.scratch, 'x'),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServelabError);
    expect((err as ServelabError).message).toMatch(/needs vLLM 0\.10\.2 installed/);
  });
});

