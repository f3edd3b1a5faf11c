// Run-to-run noise and warm-up of the simulated servers against the published figures cited in lib/noise.mjs
// (pure, no processes): repeats of a 100-request run on one server and across launches, in virtual time.
import { describe, it, expect } from 'vitest';
import { GPU_MODELS, resolveModel } from '../../resources/simbox/lib/catalog.mjs';
import { buildProfile, type Knobs } from '../../resources/simbox/lib/perf-model.mjs';
import { sharegptLikeLengths, simulateBenchmark, type Metrics, type SimEngine } from '../../resources/simbox/lib/simulate.mjs';

const requests = sharegptLikeLengths(100, 0);
const EAGLE = { spec: { algorithm: 'EAGLE3', draftModel: 'Tengyunw/qwen3_8b_eagle3', steps: 3, topk: 1, draftTokens: 4 } };

function profile(engine: 'vllm' | 'sglang', knobs: Knobs = {}) {
  const model = resolveModel('Qwen/Qwen3-8B');
  if (!model) throw new Error('unknown model');
  return buildProfile({ engine, version: engine === 'vllm' ? '0.11.0' : '0.5.3.post3', gpu: GPU_MODELS.h100, model, knobs });
}

/** Per launch: a first run, then `repeats` runs on the same server, each continuing its virtual time. */
function launches(engine: 'vllm' | 'sglang', knobs: Knobs, concurrency: number, boxSeed: number, count: number, repeats: number) {
  const p = profile(engine, knobs);
  const out: { first: Metrics; runs: Metrics[] }[] = [];
  for (let launch = 0; launch < count; launch++) {
    let server: SimEngine | undefined;
    let startAt = 0;
    const all: Metrics[] = [];
    for (let r = 0; r <= repeats; r++) {
      const sim = simulateBenchmark({ profile: p, requests, maxConcurrency: concurrency, seed: r, noiseSeed: `${boxSeed}:launch:${launch}`, engine: server, startAt });
      server = sim.engine;
      startAt = sim.endAt;
      all.push(sim.metrics);
    }
    out.push({ first: at(all, 0), runs: all.slice(1) });
  }
  return out;
}

function at<T>(xs: readonly T[], i: number): T {
  const x = xs[i];
  if (x === undefined) throw new Error(`no element ${i}`);
  return x;
}
const cv = (xs: number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1)) / m;
};
const warm = (l: ReturnType<typeof launches>) => l.flatMap((x) => x.runs);

describe('run-to-run noise of the simulated box', () => {
  it('repeats exactly from the same seed, and differs with the launch counter', () => {
    const a = launches('vllm', {}, 4, 3, 2, 1);
    const b = launches('vllm', {}, 4, 3, 2, 1);
    const repeat = (l: typeof a, i: number) => at(at(l, i).runs, 0);
    expect(repeat(b, 0).outputThroughput).toBe(repeat(a, 0).outputThroughput);
    expect(at(b, 1).first.ttft.mean).toBe(at(a, 1).first.ttft.mean);
    expect(repeat(a, 1).outputThroughput).not.toBe(repeat(a, 0).outputThroughput);
    // a repeat on one server differs from the run before it
    expect(repeat(a, 0).tpot.mean).not.toBe(at(a, 0).first.tpot.mean);
  });

  it('without a noise seed the engine keeps its calibrated numbers', () => {
    const p = profile('vllm');
    const x = simulateBenchmark({ profile: p, requests, maxConcurrency: 4, seed: 0 }).metrics;
    const y = simulateBenchmark({ profile: p, requests, maxConcurrency: 4, seed: 0 }).metrics;
    expect(y.outputThroughput).toBe(x.outputThroughput);
  });

  it('means of a non-speculative run at concurrency 4 vary by about 0.3–1%, P99 TTFT by more', () => {
    for (const engine of ['vllm', 'sglang'] as const) {
      const runs = warm(launches(engine, {}, 4, 11, 3, 4));
      const thr = cv(runs.map((m) => m.outputThroughput));
      const tpot = cv(runs.map((m) => m.tpot.mean));
      expect(thr).toBeGreaterThan(0.002);
      expect(thr).toBeLessThan(0.01);
      expect(tpot).toBeGreaterThan(0.002);
      expect(tpot).toBeLessThan(0.01);
      const p99 = cv(runs.map((m) => at(m.ttft.percentiles, m.ttft.percentiles.length - 1)[1]));
      expect(p99).toBeGreaterThan(thr);
    }
  });

  it("vLLM's speculative decoding varies much more at concurrency 2 than at 16; SGLang's stays near its floor", () => {
    const c2 = cv(warm(launches('vllm', EAGLE, 2, 5, 3, 4)).map((m) => m.outputThroughput));
    const c16 = cv(warm(launches('vllm', EAGLE, 16, 5, 3, 4)).map((m) => m.outputThroughput));
    const sg = cv(warm(launches('sglang', EAGLE, 2, 5, 3, 4)).map((m) => m.outputThroughput));
    expect(c2).toBeGreaterThan(0.08);
    expect(c2).toBeLessThan(0.3);
    expect(c16).toBeLessThan(0.015);
    expect(sg).toBeLessThan(0.01);
  });

  it('the first run after a launch is slower than the next, mostly in TTFT', () => {
    const ls = launches('vllm', {}, 4, 2, 4, 1);
    for (const l of ls) {
      expect(l.first.ttft.median).toBeGreaterThan(at(l.runs, 0).ttft.median * 1.03);
      expect(l.first.outputThroughput).toBeLessThan(at(l.runs, 0).outputThroughput * 1.01);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const tput = mean(ls.map((l) => l.first.outputThroughput)) / mean(ls.map((l) => at(l.runs, 0).outputThroughput)) - 1;
    expect(tput).toBeLessThan(0);
    expect(tput).toBeGreaterThan(-0.03);
  });
});
