// The decision rule on the demo lab, through the core: a setting that changes nothing at the workload's concurrency
// is called "no difference" after repeats (and not kept), a real gain is kept with its interval, and every launch
// is warmed up before it is measured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createCore, type Core } from '../../src/core/create-core';
import { resolveSimboxBinDir } from '../../src/core/box/simbox-path';
import type { EventMessage } from '../../src/shared/contract';
import { StudyDefinitionSchema } from '../../src/shared/study/study';
import { runThroughCore, useStudyScratch } from '../helpers/study-runs';

const scratchDir = useStudyScratch('servelab-verdicts-', '0.01');

const study = StudyDefinitionSchema.parse({
  name: 'Verdicts on the demo lab',
  model: { id: 'Qwen/Qwen3-8B', variants: [{ id: 'fp8', model: 'Qwen/Qwen3-8B-FP8', precision: 'fp8', fp8BlockScaled: true }] },
  hosts: [{ hostId: 'demo-lab' }],
  demoLab: { gpu: 'h100', count: 1 },
  goal: { kind: 'latency', marginPct: 2 },
  engines: [{ engine: 'sglang', version: '0.5.3.post3' }],
  stages: [
    // At concurrency 4 the server never holds more than 4 requests: a cap of 64 changes nothing.
    { id: 'running-cap', label: 'Running-request cap', candidates: [{ id: 'cap64', label: '--max-running-requests 64', config: { maxRunningRequests: 64 } }] },
    { id: 'quantization', label: 'Quantization', candidates: [{ id: 'fp8', label: 'FP8 checkpoint', variant: 'fp8' }] },
  ],
  workloads: { primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 60, maxConcurrency: 4 }, generalisation: [] },
});

describe('verdicts on the demo lab', () => {
  let core: Core;
  const events: EventMessage[] = [];
  beforeAll(async () => {
    core = await createCore({ dataDir: join(scratchDir.dir, 'data'), userKnownHostsFiles: [], simboxBinDir: resolveSimboxBinDir() });
    core.events.subscribe((e) => events.push(e));
  });
  afterAll(() => core?.close());

  it('calls an effect inside the margin "no difference", keeps a real gain with its interval, and warms every launch up', async () => {
    const path = join(scratchDir.dir, 'verdicts.servelab');
    await core.call('studies:create', { path, study });
    const state = await runThroughCore(core, events, path);
    expect(state.status, state.message).toBe('done');

    const cap = state.decisions.find((d) => d.stageId === 'running-cap');
    expect(cap, JSON.stringify(state.decisions)).toMatchObject({ winner: null, verdict: 'no-difference', compared: 'cap64' });
    expect(cap?.change && cap.change.low >= -2 && cap.change.high <= 2).toBe(true);
    expect(cap?.reason).toMatch(/^--max-running-requests 64: [−+]\d\.\d% \[[−+]\d\.\d, [−+]\d\.\d\] mean latency .*no difference within ±2%/);

    const quant = state.decisions.find((d) => d.stageId === 'quantization');
    expect(quant).toMatchObject({ winner: 'fp8', verdict: 'kept' });
    expect(quant?.change && quant.change.high < -2).toBe(true);
    expect(quant?.reason).toMatch(/^FP8 checkpoint: −\d+\.\d% \[−\d+\.\d, −\d+\.\d\] mean latency .*, kept/);
    expect(state.recommendation?.path).toEqual(['sglang-0.5.3.post3', 'fp8']);

    // Every launch measured its first trial after a warm-up, and repeats of one configuration differ.
    const measured = state.trials.filter((t) => t.status === 'done');
    const launches = new Map<string, typeof measured>();
    for (const t of measured) launches.set(t.serverId as string, [...(launches.get(t.serverId as string) ?? []), t]);
    for (const group of launches.values()) expect(group[0]?.warmup, group[0]?.id).toMatchObject({ requests: 16 });
    const base = measured.filter((t) => t.serverKey === measured[0]?.serverKey && t.stageId !== 'generalisation').map((t) => t.result?.result.metrics.mean_e2el_ms);
    expect(base.length).toBeGreaterThan(1);
    expect(new Set(base).size).toBe(base.length);
  }, 600_000);
});
