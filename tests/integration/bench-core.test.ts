// Benchmarks and the results library through the core's calls on the demo lab: a workload run against a launched
// server ends as a library entry with full provenance; imported files land beside it; every event fits the contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../../src/core/create-core';
import { resolveSimboxBinDir } from '../../src/core/box/simbox-path';
import { EVENTS, type EventMessage } from '../../src/shared/contract';
import { DEMO_LAB_HOST_ID } from '../../src/shared/model/host';
import { workloadPreset } from '../../src/shared/bench/workload';
import type { ResultEntry } from '../../src/shared/results/result-entry';
import { repoRoot } from '../helpers/repo';

let scratch: string;
let core: Core;
const events: EventMessage[] = [];

function ok<T>(envelope: { ok: boolean; data?: unknown; error?: { code: string; message: string } }): T {
  if (!envelope.ok) throw new Error(`${envelope.error!.code}: ${envelope.error!.message}`);
  return envelope.data as T;
}

async function until<T>(what: string, find: () => T | undefined, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let serverId: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'servelab-bench-core-'));
  core = await createCore({ dataDir: join(scratch, 'data'), userKnownHostsFiles: [], env: { HOME: scratch, USER: 'tester' }, simboxBinDir: resolveSimboxBinDir() });
  core.events.subscribe((e) => events.push(e));
  const { jobId } = ok<{ jobId: string }>(await core.dispatch('engines:install', { hostId: DEMO_LAB_HOST_ID, engine: 'vllm', version: '0.11.0' }));
  const done = await until('the install', () => events.find((e) => e.name === 'engines:done' && e.payload.jobId === jobId));
  expect(done.payload).toMatchObject({ ok: true });
  ({ serverId } = ok<{ serverId: string }>(
    await core.dispatch('servers:launch', { hostId: DEMO_LAB_HOST_ID, engine: 'vllm', version: '0.11.0', config: { model: 'Qwen/Qwen3-8B' } }),
  ));
  await until('the server to be ready', () => events.find((e) => e.name === 'servers:state' && e.payload.serverId === serverId && e.payload.state === 'ready'));
}, 180_000);

afterAll(async () => {
  if (serverId) await core.dispatch('servers:stop', { serverId });
  await core?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('bench:run on the demo lab', () => {
  it('measures a ShareGPT workload and keeps the result with its provenance', async () => {
    const workload = { ...workloadPreset('sharegpt-c4')!, numPrompts: 20 };
    const { runId } = ok<{ runId: string }>(await core.dispatch('bench:run', { hostId: DEMO_LAB_HOST_ID, serverId, workload }));
    const done = await until('the run', () => events.find((e) => e.name === 'bench:done' && e.payload.runId === runId));
    expect(done.payload, JSON.stringify(done.payload)).toMatchObject({ ok: true, entryId: expect.any(String) });
    expect(events.filter((e) => e.name === 'bench:progress' && e.payload.runId === runId).at(-1)?.payload).toMatchObject({ done: 20, total: 20 });
    expect(events.some((e) => e.name === 'bench:log' && e.payload.runId === runId && e.payload.text.includes('Serving Benchmark Result'))).toBe(true);

    const entries = ok<ResultEntry[]>(await core.dispatch('results:list', {}));
    const entry = entries.find((e) => e.id === (done.payload as { entryId: string }).entryId)!;
    expect(entry).toMatchObject({ kind: 'measured', status: 'ok' });
    expect(entry.result.metrics).toMatchObject({ completed: 20, failed: 0, max_concurrency: 4 });
    expect(entry.result.metrics.mean_latency_s).toBeGreaterThan(0);
    expect(entry.result.provenance).toMatchObject({
      engine: 'vllm',
      engineVersion: '0.11.0',
      model: 'Qwen/Qwen3-8B',
      host: 'Demo lab (simulated H100 box)',
      simulated: true,
      gpu: { model: 'NVIDIA H100 80GB HBM3', count: 1, driver: '580.159.04', cuda: '13.0' },
      client: { name: 'vllm bench serve', version: '0.11.0', backend: 'openai-chat' },
      dataset: { name: 'sharegpt', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      workload: { numPrompts: 20, maxConcurrency: 4 },
      timestamps: { startedAt: expect.any(String), finishedAt: expect.any(String) },
    });
    expect(entry.result.provenance?.serverArgv?.join(' ')).toMatch(/vllm serve Qwen\/Qwen3-8B --host 127\.0\.0\.1 --port \d+/);
    // Kept on disk, so the library survives a restart.
    expect(JSON.parse(await readFile(join(scratch, 'data', 'results', 'library.json'), 'utf8')).entries).toHaveLength(entries.length);
  }, 120_000);

  it('refuses an unknown server before running anything', async () => {
    const envelope = await core.dispatch('bench:run', { hostId: DEMO_LAB_HOST_ID, serverId: 'srv-abc-0123abcd', workload: workloadPreset('random-128-4')! });
    expect(envelope).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: expect.stringMatching(/No server srv-abc-0123abcd/) } });
  });
});

describe('results:import', () => {
  it('adds every block of the dropped files and reports what it could not read by file and line', async () => {
    const fixture = 'qwen3-8b_h100_vllm-0.11.0_sharegpt_c4.txt';
    const text = await readFile(join(repoRoot, 'tests', 'fixtures', 'vllm-bench-text', fixture), 'utf8');
    const out = ok<{ added: ResultEntry[]; errors: string[] }>(
      await core.dispatch('results:import', {
        files: [
          { name: fixture, text },
          { name: 'broken.txt', text: '============ Serving Benchmark Result ============\nSuccessful requests:                     100\nMean TTFT (ms):\n' },
        ],
      }),
    );
    expect(out.added).toHaveLength(1);
    expect(out.added[0]).toMatchObject({ kind: 'imported', status: 'ok', result: { source: { file: fixture, format: 'vllm-text', index: 0 } } });
    expect(out.errors).toEqual([expect.stringMatching(/^broken\.txt:3: /)]);
    const ids = out.added.map((e) => e.id);
    expect(ok<{ removed: number }>(await core.dispatch('results:remove', { ids }))).toEqual({ removed: 1 });
  });

  it('sent only events the contract allows', () => {
    for (const event of events) expect(EVENTS[event.name].safeParse(event.payload).success, event.name).toBe(true);
  });
});
