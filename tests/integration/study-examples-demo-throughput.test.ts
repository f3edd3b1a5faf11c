// The throughput example study end to end through the core's calls on the demo lab: it reaches the real study's
// recommendation, refuses FP8 before launch, records the AWQ failure, flags the regression, and launches each distinct
// server config once per pass. Its decision rests on a 13% margin measured in wall time, so it runs alone, after every
// other suite (vitest.config.ts).
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { checkOutcome, EXAMPLES, runThroughCore, useDemoLabCore, useStudyScratch } from '../helpers/study-runs';

// The simulated box keeps time by the wall clock, so a busy machine is a slower GPU: at 1000 requests with no
// concurrency cap and the demo's own scale (0.01), a slow machine once cost TensorRT-LLM more than its 13% lead over
// vLLM (noise-free model). Twice as slow keeps the GPU model in charge.
const scratchDir = useStudyScratch('servelab-study-demo-throughput-', '0.02');

describe('the throughput example study on the demo lab', () => {
  const lab = useDemoLabCore(scratchDir, 'demo-data');

  it('Study B (Qwen3-32B throughput, A100): TensorRT-LLM, FP8 refused before launch, AWQ failure recorded, regression flagged', async () => {
    const path = join(scratchDir.dir, 'throughput-demo.servelab');
    await lab.core.call('studies:fromExample', { path, example: EXAMPLES.throughput.file });
    const state = await runThroughCore(lab.core, lab.events, path);
    await checkOutcome(lab.core, path, state, EXAMPLES.throughput, scratchDir.dir);
    const fp8 = state.trials.find((t) => t.stageId === 'quantization' && t.candidateId === 'fp8');
    expect(fp8).toMatchObject({ status: 'rejected', rejectReason: expect.stringMatching(/sm 8\.0/) });
    expect(fp8?.serverId).toBeUndefined();
    expect(state.trials.find((t) => t.stageId === 'quantization' && t.candidateId === 'awq')).toMatchObject({ status: 'failed', error: expect.stringContaining("KeyError: 'weight'") });
    const md = ((await lab.core.call('studies:report', { path, format: 'md' })) as { text: string }).text;
    expect(md).toMatch(/REGRESSION −\d+\.\d%/);
  }, 600_000);
});
