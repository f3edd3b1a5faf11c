// A tiny study on the demo lab through the core's calls: the run monitor's data — server logs and benchmark output
// tagged with their server and trial, written beside the project and read back by studies:trialLogs, and GPU memory
// samples that show the memory a server held while it ran.
import { describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventPayload } from '../../src/shared/contract';
import type { GpuMemorySample } from '../../src/shared/study/gpu-memory';
import { runThroughCore, useDemoLabCore, useStudyScratch } from '../helpers/study-runs';

// Slow enough that a server lives across a few of the sampler's 2 s rounds, fast enough for a quick test.
const scratchDir = useStudyScratch('servelab-study-monitor-', '0.1');

const STUDY = {
  name: 'Monitor check',
  model: { id: 'Qwen/Qwen3-8B' },
  hosts: [{ hostId: 'demo-lab' }],
  demoLab: { gpu: 'h100' as const, count: 1 },
  goal: { kind: 'latency' as const },
  engines: [{ engine: 'vllm' as const, version: '0.11.0' }],
  workloads: { primary: { id: 'random-small', dataset: { kind: 'random' as const, inputLen: 256, outputLen: 64 }, numPrompts: 20, maxConcurrency: 2 } },
};

describe('the run monitor’s data on the demo lab', () => {
  const lab = useDemoLabCore(scratchDir, 'data');

  it('tags server and benchmark lines, keeps them beside the project, and samples GPU memory', async () => {
    const path = join(scratchDir.dir, 'monitor.servelab');
    await lab.core.call('studies:create', { path, study: STUDY });
    const state = await runThroughCore(lab.core, lab.events, path);
    expect(state.status, state.message).toBe('done');
    const trial = state.trials.find((t) => t.status === 'done' && t.stageId === 'engine');
    expect(trial?.serverId).toBeDefined();

    const logs = lab.events.filter((e) => e.name === 'studies:log').map((e) => e.payload as EventPayload<'studies:log'>);
    const serverLines = logs.filter((l) => l.source === 'server' && l.serverId === trial!.serverId);
    const benchLines = logs.filter((l) => l.source === 'bench' && l.trialId === trial!.id);
    expect(serverLines.map((l) => l.text).join('')).toMatch(/Application startup complete|Uvicorn running|Started server/);
    expect(benchLines.every((l) => l.serverId === trial!.serverId)).toBe(true);
    expect(benchLines.map((l) => l.text).join('')).toMatch(/Serving Benchmark Result/);
    // The runner's own lines stay untagged study lines, and no server or bench line is among them.
    const studyLines = logs.filter((l) => l.source === 'study');
    expect(studyLines.some((l) => /^Launching /.test(l.text))).toBe(true);
    expect(studyLines.some((l) => /Serving Benchmark Result/.test(l.text))).toBe(false);

    const files = await readdir(join(scratchDir.dir, 'monitor.servelab-data', 'logs'));
    expect(files.some((f) => f.endsWith('.server.log'))).toBe(true);
    expect(files.some((f) => f.endsWith('.bench.log'))).toBe(true);
    const read = (await lab.core.call('studies:trialLogs', { path, trialId: trial!.id })) as { server: string | null; bench: string | null; truncated: boolean };
    expect(read.truncated).toBe(false);
    expect(read.server).toBe(serverLines.map((l) => l.text).join(''));
    expect(read.bench).toBe(benchLines.map((l) => l.text).join(''));
    await expect(lab.core.call('studies:trialLogs', { path, trialId: 'no/such/trial' })).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const live = lab.events.filter((e) => e.name === 'studies:gpu').map((e) => e.payload as EventPayload<'studies:gpu'>);
    expect(live.length).toBeGreaterThan(0);
    expect(live.every((s) => s.path === path && s.hostId === 'demo-lab' && s.gpus.length === 1 && s.gpus[0]!.totalMiB === 81559)).toBe(true);
    const during = (s: { at: string }) => s.at >= trial!.startedAt! && s.at <= trial!.finishedAt!;
    expect(live.some((s) => during(s) && s.gpus[0]!.usedMiB > 1000)).toBe(true);
    const stored = (await lab.core.call('studies:gpuMemory', { path })) as GpuMemorySample[];
    expect(stored).toEqual(live.map(({ path: _p, ...sample }) => sample));
  }, 300_000);
});
