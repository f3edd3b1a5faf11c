// The latency example study end to end through the core's calls on the demo lab: it reaches the real study's
// recommendation, writes its report and CSV, and launches each distinct server config once per pass. At this scale its
// decisions hold beside another suite (vitest.config.ts); the throughput example runs alone
// (study-examples-demo-throughput.test.ts).
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Trial } from '../../src/shared/study/study';
import { checkOutcome, EXAMPLES, runThroughCore, useDemoLabCore, useStudyScratch } from '../helpers/study-runs';

// The demo's own time scale: much smaller ones let this machine's CPU load leak into the simulated timings.
const scratchDir = useStudyScratch('servelab-study-demo-', '0.01');

describe('the latency example study on the demo lab', () => {
  const lab = useDemoLabCore(scratchDir, 'demo-data');

  it('lists the examples shipped with the app', async () => {
    const examples = (await lab.core.call('studies:examples', {})) as { name: string; path: string; translations?: Record<string, { name?: string }> }[];
    expect(examples.map((e) => e.path.split('/').at(-1)).sort()).toEqual(Object.values(EXAMPLES).map((e) => e.file).sort());
    // With the name each gives itself in Turkish (its translations), for the list in a Turkish UI.
    const latency = examples.find((e) => e.path.endsWith(EXAMPLES.latency.file));
    expect(latency?.translations?.tr?.name).toBe('Qwen3-8B, tek bir H100’de en düşük gecikme');
  });

  it('Study A (Qwen3-8B latency, H100): SGLang FP8 + EAGLE3, the report and CSV', async () => {
    const path = join(scratchDir.dir, 'latency-demo.servelab');
    await lab.core.call('studies:fromExample', { path, example: EXAMPLES.latency.file });
    const plan = (await lab.core.call('studies:plan', { path })) as { trials: Trial[]; estimate: { gpuSeconds: number; launches: number } };
    expect(plan.trials.map((t) => t.engine)).toEqual(['vllm', 'sglang', 'trtllm']);
    expect(plan.estimate.gpuSeconds).toBeGreaterThan(0);
    const state = await runThroughCore(lab.core, lab.events, path);
    await checkOutcome(lab.core, path, state, EXAMPLES.latency, scratchDir.dir);
    expect(state.decisions.find((d) => d.stageId === 'engine')?.reason).toMatch(/^SGLang 0\.5\.3\.post3 is best/);
    // Measured trials land in the results library too.
    expect(((await lab.core.call('results:list', {})) as unknown[]).length).toBeGreaterThanOrEqual(state.trials.filter((t) => t.status === 'done').length);
  }, 600_000);
});

