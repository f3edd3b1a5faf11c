import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchHandlers } from './bench-handlers';
import { EventBus } from '../dispatch/event-bus';
import { ResultsLibrary } from '../results/results-library';
import { metricOf } from '../../shared/results/metrics';
import { repoRoot } from '../../../tests/helpers/repo';

let scratch: string | undefined;
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

async function handlers() {
  scratch = await mkdtemp(join(tmpdir(), 'servelab-bench-handlers-'));
  const results = await ResultsLibrary.open(join(scratch, 'library.json'));
  const bench = benchHandlers({
    events: new EventBus(),
    box: () => Promise.reject(new Error('no box in this test')),
    results,
    runsDir: join(scratch, 'runs'),
    isDemo: () => false,
    hostLabel: (id) => id,
  });
  return { bench, results };
}

describe('results:import', () => {
  const fixture = 'qwen3-32b_a100_vllm-0.11.0_sharegpt_unbounded.txt';

  it('keeps the GPU count the user gave, so the imported results have per-GPU throughputs', async () => {
    const text = await readFile(join(repoRoot, 'tests', 'fixtures', 'vllm-bench-text', fixture), 'utf8');
    const { bench, results } = await handlers();
    const { added } = await bench['results:import']({ files: [{ name: fixture, text }], gpuCount: 2 });
    expect(added).toHaveLength(1);
    const [entry] = results.list();
    expect(entry?.gpuCount).toBe(2);
    const total = metricOf(entry!, 'total_token_throughput') as number;
    expect(total).toBeGreaterThan(0);
    expect(metricOf(entry!, 'total_token_throughput_per_gpu')).toBeCloseTo(total / 2, 9);
  });

  it('leaves it out when the user did not say: a result file has no GPU count, so no per-GPU numbers', async () => {
    const text = await readFile(join(repoRoot, 'tests', 'fixtures', 'vllm-bench-text', fixture), 'utf8');
    const { bench, results } = await handlers();
    await bench['results:import']({ files: [{ name: fixture, text }] });
    const [entry] = results.list();
    expect(entry).not.toHaveProperty('gpuCount');
    expect(metricOf(entry!, 'total_token_throughput_per_gpu')).toBeNull();
  });
});
