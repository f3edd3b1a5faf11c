// The mixture-of-experts example end to end through the core's calls on an eight-GPU demo lab: layouts of 1, 2, 4
// and 8 GPUs run side by side on disjoint GPUs, a TP4×PP2 server gets eight GPUs, and the decision, the recommendation
// and the report compare the layouts on the study's budget of eight GPUs (replicas of the smaller ones), as the
// published study compared them per GPU.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { checkOutcome, EXAMPLES, runThroughCore, useDemoLabCore, useStudyScratch } from '../helpers/study-runs';
import type { Trial } from '../../src/shared/study/study';

// Twice the demo's time scale, as for the throughput example: the simulated GPUs' time, not the machine's two cores,
// decides between layouts measured side by side.
const scratchDir = useStudyScratch('servelab-study-demo-moe-', '0.02');

const span = (t: Trial) => ({ from: Date.parse(t.startedAt as string), to: Date.parse(t.finishedAt as string) });
const overlap = (a: Trial, b: Trial) => span(a).from < span(b).to && span(b).from < span(a).to;
const disjoint = (a: Trial, b: Trial) => !(a.gpus ?? []).some((g) => (b.gpus ?? []).includes(g));

describe('the mixture-of-experts example study on the demo lab', () => {
  const lab = useDemoLabCore(scratchDir, 'demo-data');

  it('gpt-oss-120b on 8 × H100: layouts of 2, 4 and 8 GPUs side by side, compared on a budget of eight GPUs', async () => {
    const path = join(scratchDir.dir, 'moe-demo.servelab');
    await lab.core.call('studies:fromExample', { path, example: EXAMPLES.moe.file });
    const state = await runThroughCore(lab.core, lab.events, path);
    const decided = state.decisions.map((d) => `${d.stageId}: ${d.reason}`).join('\n');
    const measured = state.trials.map((t) => `${t.id} ${t.status} ${t.gpus?.join(',') ?? ''} ${t.startedAt ?? ''}–${t.finishedAt ?? ''} ${t.error ?? ''}`).join('\n');
    expect(state.recommendation?.command, `${decided}\n${measured}`).toBe(EXAMPLES.moe.recommended);
    await checkOutcome(lab.core, path, state, EXAMPLES.moe, scratchDir.dir);

    const layouts = state.trials.filter((t) => t.stageId === 'parallelism');
    expect(layouts.every((t) => t.status === 'done'), JSON.stringify(layouts.map((t) => [t.candidateId, t.status, t.error]))).toBe(true);
    // Each server holds the GPUs its layout needs: TP×PP×DP on vLLM.
    const gpusOf = Object.fromEntries(layouts.map((t) => [t.candidateId, t.gpus?.length]));
    expect(gpusOf).toEqual({ tp2: 2, pp2: 2, tp4: 4, 'tp4-ep4': 4, 'tp2-dp2': 4, 'tp4-pp2': 8, tp8: 8 });
    expect(layouts.every((t) => t.gpuCount === t.gpus?.length)).toBe(true);

    // No GPU ever ran two servers: trials of different servers that overlap in time hold disjoint GPUs.
    const ran = state.trials.filter((t) => t.startedAt && t.finishedAt && t.serverId);
    for (const a of ran) for (const b of ran) if (a.serverId !== b.serverId && overlap(a, b)) expect(disjoint(a, b), `${a.id} and ${b.id}`).toBe(true);
    // Small layouts were placed beside larger ones: a 2-GPU and a 4-GPU server measured at the same time.
    const pairs = layouts.filter((a) => a.gpuCount === 2).flatMap((a) => layouts.filter((b) => b.gpuCount === 4 && overlap(a, b)));
    expect(pairs.length, 'no 2-GPU layout overlapped a 4-GPU one').toBeGreaterThan(0);

    // The decision and the recommendation compare on the budget: four TP2 servers against one TP8.
    const decision = state.decisions.find((d) => d.stageId === 'parallelism');
    expect(decision).toMatchObject({ winner: 'tp2' });
    expect(decision?.reason).toMatch(/4 × TP2/);
    expect(decision?.reason).toMatch(/on 8 GPUs/);
    const md = ((await lab.core.call('studies:report', { path, format: 'md' })) as { text: string }).text;
    expect(md).toContain('On the budget of 8 GPUs: 4 × this server, 2 GPUs each.');
    expect(md).toContain('Compared on a budget of 8 GPUs');
    expect(md).toMatch(/per GPU/);
    const tr = ((await lab.core.call('studies:report', { path, format: 'md', lang: 'tr' })) as { text: string }).text;
    expect(tr).toMatch(/GPU başına/);
    expect(tr).toContain('8 GPU bütçesinde: bu sunucudan 4 kopya, her biri 2 GPU.');
  }, 600_000);
});
