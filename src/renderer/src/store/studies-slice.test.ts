import { describe, expect, it } from 'vitest';
import { PROJECT_SCHEMA_VERSION, StudyDefinitionSchema, type ProjectFile } from '../../../shared/study/study';
import { GPU_SAMPLES_PER_GPU_LIMIT } from '../../../shared/study/gpu-memory';
import { createFakeApi } from '../testing/fake-api';
import { createAppStore } from './index';
import type { LogBuffer } from '../logs/log-buffer';

const linesOf = (buffer: LogBuffer | undefined) => (buffer ? Array.from({ length: buffer.length }, (_, i) => buffer.line(i)) : []);

const PATH = '/data/s.servelab';
const PROJECT: ProjectFile = {
  schemaVersion: PROJECT_SCHEMA_VERSION,
  study: StudyDefinitionSchema.parse({
    name: 'S',
    model: { id: 'Qwen/Qwen3-8B' },
    hosts: [{ hostId: 'demo-lab' }],
    goal: { kind: 'latency' },
    engines: [{ engine: 'vllm', version: '0.11.0' }],
    workloads: { primary: { id: 'w', dataset: { kind: 'random', inputLen: 128, outputLen: 16 }, numPrompts: 10 } },
  }),
  state: { status: 'draft', trials: [], decisions: [] },
};
const at = (s: number) => new Date(Date.UTC(2026, 1, 1) + s * 1000).toISOString();
const sample = (s: number, used: number) => ({ hostId: 'demo-lab', at: at(s), gpus: [{ index: 0, usedMiB: used, totalMiB: 81559 }] });

async function openStore(stored: ReturnType<typeof sample>[] | Error) {
  const api = createFakeApi({
    'studies:open': () => PROJECT,
    'studies:gpuMemory': () => {
      if (stored instanceof Error) throw stored;
      return stored;
    },
  });
  const store = createAppStore(api, { storage: null, prefersDark: false });
  await store.getState().openStudyProject(PATH);
  await new Promise((r) => setTimeout(r, 0));
  return store;
}

describe('the open study’s monitor data', () => {
  it('keeps server lines per server and bench lines per trial, appending in place after the first', async () => {
    const store = await openStore([]);
    for (let i = 0; i < 520; i++) store.getState().applyStudyLog({ path: PATH, text: `s${i}\n`, source: 'server', serverId: 'srv-a' });
    const first = store.getState().openStudy!.serverLogs['srv-a'];
    store.getState().applyStudyLog({ path: PATH, text: 'b1\nb2\n', source: 'bench', serverId: 'srv-a', trialId: 't1' });
    store.getState().applyStudyLog({ path: '/other.servelab', text: 'elsewhere\n', source: 'bench', trialId: 't1' });
    store.getState().applyStudyLog({ path: PATH, text: 'installing vllm\n', source: 'study' });
    const open = store.getState().openStudy!;
    // Nothing is dropped (the pane holds 200,000 lines), and the same buffer keeps growing.
    expect(open.serverLogs['srv-a']).toBe(first);
    expect(open.serverLogs['srv-a']!.length).toBe(520);
    expect(open.serverLogs['srv-a']!.line(519)).toBe('s519');
    expect(Object.keys(open.benchLogs)).toEqual(['t1']);
    expect(linesOf(open.benchLogs.t1)).toEqual(['b1', 'b2']);
    expect(linesOf(open.log)).toEqual(['installing vllm']);
  });

  it('puts the stored samples before those streamed in meanwhile, without doubles, and keeps the newest per host', async () => {
    const store = await openStore([sample(0, 1), sample(2, 2)]);
    store.getState().applyStudyGpu({ path: PATH, ...sample(2, 2) });
    store.getState().applyStudyGpu({ path: PATH, ...sample(4, 3) });
    // Opening again (the same project) reads the file again and keeps what streamed after it.
    await store.getState().openStudyProject(PATH);
    await new Promise((r) => setTimeout(r, 0));
    expect(store.getState().openStudy!.gpuSamples['demo-lab']!.map((s) => s.gpus[0]!.usedMiB)).toEqual([1, 2, 3]);
    for (let i = 0; i < GPU_SAMPLES_PER_GPU_LIMIT + 5; i++) store.getState().applyStudyGpu({ path: PATH, ...sample(10 + i, i) });
    const kept = store.getState().openStudy!.gpuSamples['demo-lab']!;
    expect(kept).toHaveLength(GPU_SAMPLES_PER_GPU_LIMIT);
    expect(kept.at(-1)!.gpus[0]!.usedMiB).toBe(GPU_SAMPLES_PER_GPU_LIMIT + 4);
  });

  it('opens a project whose samples cannot be read, with none', async () => {
    const store = await openStore(new Error('unreadable'));
    expect(store.getState().openStudy!.gpuSamples).toEqual({});
  });
});

describe('opening projects', () => {
  it('shows the project asked for last when an earlier open answers after it', async () => {
    let answerFirst: (project: ProjectFile) => void = () => {};
    const api = createFakeApi({
      'studies:open': ({ path }) => (path === '/data/first.servelab' ? new Promise<ProjectFile>((resolve) => (answerFirst = resolve)) : PROJECT),
      'studies:gpuMemory': () => [],
    });
    const store = createAppStore(api, { storage: null, prefersDark: false });
    const first = store.getState().openStudyProject('/data/first.servelab');
    await store.getState().openStudyProject(PATH);
    answerFirst(PROJECT);
    await first;
    expect(store.getState().openStudy?.path).toBe(PATH);
  });
});
