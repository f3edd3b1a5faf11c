// Whole studies in virtual time (tests/helpers/virtual-study.ts on resources/simbox/lib/virtual-lab.mjs): the example
// studies reach the reference studies' recommendations under the simulated box's run-to-run noise, repeats of one
// configuration differ from launch to launch, and a virtual run measures what the live simulated server measures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GPU_MODELS, resolveModel } from '../../resources/simbox/lib/catalog.mjs';
import { buildProfile } from '../../resources/simbox/lib/perf-model.mjs';
import { simulateBenchmark } from '../../resources/simbox/lib/simulate.mjs';
import { launchVirtual, virtualBox, workloadRequests, type VirtualRun, type VirtualWorkload } from '../../resources/simbox/lib/virtual-lab.mjs';
import { METRIC_PERCENTILES, PERCENTILE_METRICS } from '../../src/shared/bench/bench-serve-argv';
import { ProjectFileSchema, type StudyDefinition } from '../../src/shared/study/study';
import { repoRoot } from '../helpers/repo';
import { EXAMPLES, type Example } from '../helpers/study-runs';
import { runVirtualStudy } from '../helpers/virtual-study';
import { envWith, freePort, makeBox, type Box } from './helpers';

const SEEDS = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765, 10946];

function exampleStudy(example: Example): StudyDefinition {
  return ProjectFileSchema.parse(JSON.parse(readFileSync(join(repoRoot, 'examples', example.file), 'utf8'))).study;
}

const C4: VirtualWorkload = { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4, backend: 'openai-chat' };
const metric = (run: VirtualRun, key: string): unknown => (run.ok ? run.metrics[key] : run.error);

function vllmServer(launch: number, noise = true) {
  const server = launchVirtual({ argv: ['vllm', 'serve', 'Qwen/Qwen3-8B'], version: '0.11.0', box: virtualBox({ gpu: 'h100' }), launch, noise, percentileMetrics: PERCENTILE_METRICS, metricPercentiles: METRIC_PERCENTILES });
  if (!server.ok) throw new Error(server.error);
  return server;
}

describe('example studies in virtual time', () => {
  for (const [name, example] of Object.entries(EXAMPLES)) {
    it(`the ${name} example reaches the reference recommendation in at least 19 of 20 seeded runs`, () => {
      const study = exampleStudy(example);
      const runs = SEEDS.map((seed) => runVirtualStudy(study, { seed, untilRecommendation: true }));
      const misses = runs.filter((r) => r.state.recommendation?.command !== example.recommended);
      const why = misses.map((r, i) => `seed ${SEEDS[runs.indexOf(r)] ?? i}: ${r.state.message ?? ''} ${r.state.decisions.map((d) => `${d.stageId}=${d.winner ?? '-'}`).join(' ')}`);
      expect(runs.length - misses.length, why.join('\n')).toBeGreaterThanOrEqual(19);
    }, 600_000);
  }
});

describe('a virtual server', () => {
  it('differs from launch to launch, repeats exactly for the same launch, and differs run to run on one server', () => {
    const a = vllmServer(0).run(C4);
    const b = vllmServer(1).run(C4);
    const again = vllmServer(0).run(C4);
    expect(metric(b, 'mean_e2el_ms')).not.toBe(metric(a, 'mean_e2el_ms'));
    expect(metric(b, 'total_token_throughput')).not.toBe(metric(a, 'total_token_throughput'));
    expect(again).toEqual(a);
    const server = vllmServer(0);
    const first = server.run(C4);
    const second = server.run(C4);
    expect(first).toEqual(a);
    expect(metric(second, 'mean_e2el_ms')).not.toBe(metric(first, 'mean_e2el_ms'));
  });

  it('without noise measures the calibrated model: the perf-model profile of the defaults, no server noise, the client test run first', () => {
    const virtual = vllmServer(0, false).run(C4);
    expect(vllmServer(7, false).run(C4)).toEqual(virtual);
    const model = resolveModel('Qwen/Qwen3-8B');
    if (!model) throw new Error('unknown model');
    const profile = buildProfile({ engine: 'vllm', version: '0.11.0', gpu: GPU_MODELS.h100, model, knobs: {} });
    const requests = workloadRequests(C4, profile);
    // The live server's engine seed: the box's seed and the server's --seed (server.mjs engineSeeds).
    const test = simulateBenchmark({ profile, requests: requests.slice(0, 1), maxConcurrency: 1, seed: '0:0' });
    const run = simulateBenchmark({ profile, requests, maxConcurrency: 4, seed: '0:0', engine: test.engine, startAt: test.endAt, percentiles: [50, 90, 99] });
    expect(metric(virtual, 'completed')).toBe(100);
    expect(metric(virtual, 'total_input_tokens')).toBe(run.metrics.totalInput);
    expect(metric(virtual, 'total_output_tokens')).toBe(run.metrics.totalOutput);
    expect(metric(virtual, 'mean_e2el_ms')).toBeCloseTo(run.metrics.e2el.mean, 9);
    expect(metric(virtual, 'total_token_throughput')).toBeCloseTo(run.metrics.totalTokenThroughput, 9);
    // and a noisy launch does not
    expect(metric(vllmServer(0).run(C4), 'mean_e2el_ms')).not.toBeCloseTo(run.metrics.e2el.mean, 3);
  });

  it('refuses what the engine refuses, with the engine\'s words', () => {
    const bad = launchVirtual({ argv: ['vllm', 'serve', 'Qwen/Qwen3-8B', '--no-such-flag'], version: '0.11.0', box: virtualBox({ gpu: 'h100' }) });
    expect(bad).toMatchObject({ ok: false, code: 2 });
    expect(bad.ok ? '' : bad.error).toContain('vllm: error: unrecognized arguments: --no-such-flag');
    const fp8 = launchVirtual({ argv: ['trtllm-serve', 'Qwen/Qwen3-32B-FP8'], version: '1.2.0rc1', box: virtualBox({ gpu: 'a100' }) });
    expect(fp8).toMatchObject({ ok: false, error: expect.stringContaining('RuntimeError: ') });
    // vLLM at the model's full context on one A100: the KV cache does not fit (tests/simbox/perf-model.test.ts).
    const long = launchVirtual({ argv: ['vllm', 'serve', 'Qwen/Qwen3-32B'], version: '0.11.0', box: virtualBox({ gpu: 'a100' }) });
    expect(long).toMatchObject({ ok: false, error: expect.stringMatching(/^ValueError: To serve at least one request with the models's max seq len \(40960\)/) });
  });
});

describe('virtual and live agree', () => {
  let box: Box;
  let bin: string;
  beforeAll(() => {
    box = makeBox({ gpu: 'h100', timeScale: 0.002 });
    bin = envWith(box, 'vllm-env', 'vllm==0.11.0');
  }, 60_000);
  afterAll(() => box?.cleanup());

  it('the first launch on a fresh box measures the same ShareGPT run as the virtual lab\'s launch 0', async () => {
    const port = await freePort();
    const data = join(box.home, 'sharegpt.json');
    expect(box.run('simbox', ['make-sharegpt', data, '--count', '1000']).code).toBe(0);
    const server = box.start(join(bin, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--port', String(port)], { pathPrefix: bin });
    await server.waitFor('Application startup complete.', 60_000);
    const resultDir = join(box.home, 'results');
    const r = box.run(join(bin, 'vllm'), [
      'bench', 'serve', '--model', 'Qwen/Qwen3-8B', '--backend', 'openai-chat', '--endpoint', '/v1/chat/completions',
      '--dataset-name', 'sharegpt', '--dataset-path', data, '--num-prompts', '40', '--max-concurrency', '4',
      '--percentile-metrics', 'ttft,tpot,itl,e2el', '--metric-percentiles', '50,90,99',
      '--save-result', '--result-dir', resultDir, '--result-filename', 'live.json', '--port', String(port),
    ]);
    server.child.kill('SIGTERM');
    await server.exited;
    expect(r.code, r.stderr).toBe(0);
    const live = JSON.parse(readFileSync(join(resultDir, 'live.json'), 'utf8')) as Record<string, number>;
    const virtualServer = vllmServer(0);
    const virtual = virtualServer.run({ ...C4, numPrompts: 40 });
    if (!virtual.ok) throw new Error(virtual.error);
    // The same server: the KV cache and context the live one logged.
    const log = server.output();
    expect(log).toContain(`GPU KV cache size: ${virtualServer.profile.kvTokens.toLocaleString('en-US')} tokens`);
    expect(log).toContain(`Using max model len ${virtualServer.profile.maxModelLen}`);
    // The same requests.
    for (const key of ['completed', 'total_input_tokens', 'total_output_tokens']) expect(virtual.metrics[key], key).toBe(live[key]);
    // The same times, up to float rounding, when the live client's requests reach the server within its hold grace
    // (seen on an idle machine); a machine too busy for that stretches the live run by a few percent, hence the bound.
    for (const key of ['mean_e2el_ms', 'mean_tpot_ms', 'median_ttft_ms', 'total_token_throughput']) {
      expect(Math.abs((virtual.metrics[key] as number) / (live[key] as number) - 1), key).toBeLessThan(0.1);
    }
  }, 120_000);
});
