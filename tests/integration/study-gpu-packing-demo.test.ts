// A grid of TP1, TP2, TP4 and TP8 servers on an 8-GPU demo lab: each server gets as many GPUs as its layout needs,
// the smaller ones run side by side on disjoint GPUs, and no GPU ever holds two servers.
import { describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ProjectFileSchema, type Trial } from '../../src/shared/study/study';
import { runThroughCore, useDemoLabCore, useStudyScratch } from '../helpers/study-runs';

const scratchDir = useStudyScratch('servelab-study-packing-', '0.05');

// Qwen/Qwen3-8B has 32 attention heads and 8 KV heads (config.json on its Hugging Face page), so TP8 divides both.
const STUDY = {
  name: 'GPU packing check',
  model: { id: 'Qwen/Qwen3-8B' },
  hosts: [{ hostId: 'demo-lab' }],
  demoLab: { gpu: 'h100' as const, count: 8 },
  goal: { kind: 'throughput' as const },
  engines: [{ engine: 'vllm' as const, version: '0.11.0' }],
  stages: [{ id: 'tp', label: 'Tensor parallelism', candidates: [2, 4, 8].map((n) => ({ id: `tp${n}`, label: `TP${n}`, config: { tensorParallelSize: n } })) }],
  strategy: 'grid' as const,
  workloads: { primary: { id: 'random-small', dataset: { kind: 'random' as const, inputLen: 256, outputLen: 64 }, numPrompts: 40, maxConcurrency: 4 } },
};

interface Held {
  serverKey: string;
  hostId: string;
  gpus: string[];
  /** Journal lines from the launch's start to the server's stop: the span it held its GPUs. */
  from: number;
  to: number;
}

/** Each server's hold on its GPUs, from the project's journal: `launching` (GPUs taken) to `server-stopped`. */
async function heldSpans(journalPath: string): Promise<Held[]> {
  const lines = (await readFile(journalPath, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const spans: Held[] = [];
  const open = new Map<string, Held>();
  lines.forEach((line, at) => {
    if (line.event === 'launching') spans.push({ serverKey: line.serverKey as string, hostId: line.hostId as string, gpus: line.gpus as string[], from: at, to: Number.POSITIVE_INFINITY });
    if (line.event === 'server-launched') open.set(line.serverId as string, spans.findLast((s) => s.serverKey === line.serverKey)!);
    if (line.event === 'server-stopped') open.get(line.serverId as string)!.to = at;
  });
  return spans;
}

const overlaps = (a: { from: number; to: number }, b: { from: number; to: number }) => a.from < b.to && b.from < a.to;
const sharesGpu = (a: { hostId?: string; gpus?: string[] }, b: { hostId?: string; gpus?: string[] }) => a.hostId === b.hostId && (a.gpus ?? []).some((g) => (b.gpus ?? []).includes(g));
const timeSpan = (t: Trial) => ({ from: Date.parse(t.startedAt!), to: Date.parse(t.finishedAt!) });

describe('GPU packing on the demo lab', () => {
  const lab = useDemoLabCore(scratchDir, 'data');

  it('runs TP2 and TP4 servers side by side on disjoint GPUs after the TP8 one, never two on a GPU', async () => {
    const path = join(scratchDir.dir, 'packing.servelab');
    await lab.core.call('studies:create', { path, study: STUDY });

    const plan = (await lab.core.call('studies:plan', { path })) as { trials: Trial[]; estimate: { wallSeconds?: number; peakGpus?: number; gpuSeconds: number } };
    expect(plan.trials.map((t) => t.gpuCount)).toEqual([1, 2, 4, 8]);
    expect(plan.estimate.peakGpus).toBe(8);
    expect(plan.estimate.wallSeconds).toBeGreaterThan(0);

    const state = await runThroughCore(lab.core, lab.events, path);
    expect(state.status, state.message).toBe('done');
    const ran = state.trials.filter((t) => t.serverId !== undefined);
    expect(ran.every((t) => t.status === 'done' && t.gpus?.length === t.gpuCount && t.hostId === 'demo-lab')).toBe(true);
    expect(new Set(ran.map((t) => t.gpuCount))).toEqual(new Set([1, 2, 4, 8]));

    // Trials of different sizes ran at the same time, on GPUs of their own.
    const together = ran.flatMap((a) => ran.filter((b) => a.gpuCount! < b.gpuCount! && overlaps(timeSpan(a), timeSpan(b))).map((b) => [a, b] as const));
    expect(together.length).toBeGreaterThan(0);
    expect(together.some(([a, b]) => a.gpuCount === 2 && b.gpuCount === 4)).toBe(true);
    for (const [a, b] of together) expect(sharesGpu(a, b), `${a.id} and ${b.id}`).toBe(false);

    // No GPU held by two servers at once, from the first GPU taken to the stop, by the journal's order.
    const spans = await heldSpans(join(scratchDir.dir, 'packing.servelab-data', 'journal.jsonl'));
    expect(spans.length).toBe(new Set(ran.map((t) => t.serverId)).size);
    expect(spans.every((s) => Number.isFinite(s.to))).toBe(true);
    for (const a of spans) for (const b of spans) if (a !== b && overlaps(a, b)) expect(sharesGpu(a, b), `${a.serverKey} / ${b.serverKey}`).toBe(false);
    expect(spans.filter((s) => s.gpus.length === 8).every((big) => spans.every((s) => s === big || !overlaps(s, big)))).toBe(true);
  }, 480_000);

  it('fails a server no host can hold, with the reason, instead of waiting for GPUs that never come', async () => {
    // Trials planned for eight GPUs, resumed on a lab of four (pre-flight would refuse them on four): an edge case
    // the runner must end, not wait on.
    const path = join(scratchDir.dir, 'shrunk.servelab');
    await lab.core.call('studies:create', { path, study: STUDY });
    const plan = (await lab.core.call('studies:plan', { path })) as { trials: Trial[] };
    const file = ProjectFileSchema.parse(JSON.parse(await readFile(path, 'utf8')));
    const shrunk = { ...file, study: { ...file.study, demoLab: { gpu: 'h100' as const, count: 4 } }, state: { ...file.state, status: 'running' as const, trials: plan.trials } };
    await writeFile(path, JSON.stringify(ProjectFileSchema.parse(shrunk)));

    const state = await runThroughCore(lab.core, lab.events, path);
    const big = state.trials.find((t) => t.gpuCount === 8)!;
    expect(big).toMatchObject({ status: 'failed', failure: { code: 'launch-refused', detail: 'A server of 8 GPUs fits on no host of the study: the largest has 4.' } });
    expect(big.serverId).toBeUndefined();
    expect(state.trials.filter((t) => t !== big).every((t) => t.status === 'done' && t.gpus!.length === t.gpuCount && t.gpus!.every((g) => Number(g) < 4))).toBe(true);
    expect(state.status, state.message).toBe('done');
  }, 480_000);

  it('spreads a study over two demo boxes of four GPUs, each a box of its own with its own host entry', async () => {
    const path = join(scratchDir.dir, 'two-boxes.servelab');
    const study = {
      ...STUDY,
      name: 'Two boxes',
      hosts: [{ hostId: 'demo-lab' }, { hostId: 'demo-lab-2' }],
      demoLab: { gpu: 'h100' as const, count: 4 },
      stages: [{ id: 'tp', label: 'Tensor parallelism', candidates: [2, 4].map((n) => ({ id: `tp${n}`, label: `TP${n}`, config: { tensorParallelSize: n } })) }],
    };
    await lab.core.call('studies:create', { path, study });
    const state = await runThroughCore(lab.core, lab.events, path);
    expect(state.status, state.message).toBe('done');
    const ran = state.trials.filter((t) => t.serverId !== undefined && t.stageId !== 'generalisation');
    expect(ran.every((t) => t.status === 'done' && t.gpus!.length === t.gpuCount && t.gpus!.every((g) => Number(g) < 4))).toBe(true);
    // The TP4 server fills one box, so the other trials ran on the other box beside it.
    const tp4 = ran.find((t) => t.gpuCount === 4)!;
    expect(ran.some((t) => t.hostId !== tp4.hostId && overlaps(timeSpan(t), timeSpan(tp4)))).toBe(true);
    expect(new Set(ran.map((t) => t.hostId))).toEqual(new Set(['demo-lab', 'demo-lab-2']));

    const list = (await lab.core.call('hosts:list', {})) as { id: string; kind: string }[];
    expect(list.filter((h) => h.kind === 'demo').map((h) => h.id).sort()).toEqual(['demo-lab', 'demo-lab-2']);
    // Each box keeps its own simulated state: the second box's GPUs and processes are not the first one's.
    const second = JSON.parse(await readFile(join(scratchDir.dir, 'data', 'demo-lab-2', 'simbox', 'simbox.json'), 'utf8')) as { count: number; gpu: string };
    expect(second).toMatchObject({ gpu: 'h100', count: 4 });
  }, 480_000);
});
