// The latency example study end to end through the core's calls on the demo lab: it reaches the real study's
// recommendation, writes its report and CSV, and launches each distinct server config once per pass. At this scale its
// decisions hold beside another suite (vitest.config.ts); the throughput example runs alone
// (study-examples-demo-throughput.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createCore, type Core } from '../../src/core/create-core';
import { resolveSimboxBinDir } from '../../src/core/box/simbox-path';
import { EVENTS, type EventMessage } from '../../src/shared/contract';
import type { Trial } from '../../src/shared/study/study';
import { checkOutcome, EXAMPLES, runThroughCore, useStudyScratch } from '../helpers/study-runs';

// The demo's own time scale: much smaller ones let this machine's CPU load leak into the simulated timings.
const scratchDir = useStudyScratch('servelab-study-demo-', '0.01');

describe('the latency example study on the demo lab', () => {
  let core: Core;
  const events: EventMessage[] = [];
  beforeAll(async () => {
    core = await createCore({ dataDir: join(scratchDir.dir, 'demo-data'), userKnownHostsFiles: [], simboxBinDir: resolveSimboxBinDir() });
    core.events.subscribe((e) => {
      expect(EVENTS[e.name].safeParse(e.payload).success, e.name).toBe(true);
      events.push(e);
    });
  });
  afterAll(() => core?.close());

  it('lists the examples shipped with the app', async () => {
    const examples = (await core.call('studies:examples', {})) as { name: string; path: string }[];
    expect(examples.map((e) => e.path.split('/').at(-1)).sort()).toEqual([EXAMPLES.throughput.file, EXAMPLES.latency.file].sort());
  });

  it('Study A (Qwen3-8B latency, H100): SGLang FP8 + EAGLE3, the report and CSV', async () => {
    const path = join(scratchDir.dir, 'latency-demo.servelab');
    await core.call('studies:fromExample', { path, example: EXAMPLES.latency.file });
    const plan = (await core.call('studies:plan', { path })) as { trials: Trial[]; estimate: { gpuSeconds: number; launches: number } };
    expect(plan.trials.map((t) => t.engine)).toEqual(['vllm', 'sglang', 'trtllm']);
    expect(plan.estimate.gpuSeconds).toBeGreaterThan(0);
    const state = await runThroughCore(core, events, path);
    await checkOutcome(core, path, state, EXAMPLES.latency, scratchDir.dir);
    expect(state.decisions.find((d) => d.stageId === 'engine')?.reason).toMatch(/^SGLang 0\.5\.3\.post3 is best/);
    // Measured trials land in the results library too.
    expect(((await core.call('results:list', {})) as unknown[]).length).toBeGreaterThanOrEqual(state.trials.filter((t) => t.status === 'done').length);
  }, 600_000);
});

