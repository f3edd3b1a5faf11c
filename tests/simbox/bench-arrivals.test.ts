// How the simulated `vllm bench serve` spaces its requests, against vLLM's get_request formula
// (vllm/benchmarks/serve.py at v0.11.0 and v0.11.1+): the statistics of its schedule, then a constant-rate and a
// ramped workload built by the product run end to end through the simulated client and imported back.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { arrivalSchedule, ArrivalError, rpsChangeEvents, type ArrivalArgs } from '../../resources/simbox/lib/arrivals.mjs';
import { buildBenchServeArgv } from '../../src/shared/bench/bench-serve-argv';
import { gapCv, rampRateAt } from '../../src/shared/bench/arrival';
import { parseWorkload } from '../../src/shared/bench/workload';
import { importResults } from '../../src/shared/results';
import { envWith, freePort, makeBox, type Box } from './helpers';

const args = (over: Partial<ArrivalArgs>): ArrivalArgs => ({ request_rate: Infinity, burstiness: 1, ramp_up_strategy: null, ramp_up_start_rps: null, ramp_up_end_rps: null, ...over });
const schedule = (over: Partial<ArrivalArgs>, n: number, version = '0.11.1', seed = 0) => arrivalSchedule(args(over), n, { version, seed });
const gapsOf = (delays: number[]) => delays.map((d, i) => d - (i === 0 ? 0 : (delays[i - 1] as number)));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const cv = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2))) / m;
};

describe('the simulated client’s arrival schedule', () => {
  it('draws Gamma gaps whose CV is 1/√burstiness, the last request at exactly N/rate', () => {
    const n = 20_000;
    for (const burstiness of [0.25, 1, 4, 100]) {
      const { delays } = schedule({ request_rate: 8, burstiness }, n);
      expect(delays.at(-1)).toBeCloseTo(n / 8, 9);
      const measured = cv(gapsOf(delays));
      expect(Math.abs(measured / gapCv(burstiness) - 1), `burstiness ${burstiness}: CV ${measured}`).toBeLessThan(0.05);
    }
    // Seeded: the same seed gives the same schedule, another seed another one.
    expect(schedule({ request_rate: 8 }, 50, '0.11.1', 7).delays).toEqual(schedule({ request_rate: 8 }, 50, '0.11.1', 7).delays);
    expect(schedule({ request_rate: 8 }, 50, '0.11.1', 8).delays).not.toEqual(schedule({ request_rate: 8 }, 50, '0.11.1', 7).delays);
  });

  it('sends --burstiness inf at exactly 1/rate from 0.11.1 on, and all at once on 0.11.0 (NaN delays)', () => {
    expect(schedule({ request_rate: 8, burstiness: Infinity }, 5).delays).toEqual([0.125, 0.25, 0.375, 0.5, 0.625]);
    expect(schedule({ request_rate: 8, burstiness: Infinity }, 5, '0.11.0').delays).toEqual([0, 0, 0, 0, 0]);
    expect(schedule({}, 3).delays).toEqual([0, 0, 0]);
  });

  it('ramps the rate from start to end, without rescaling', () => {
    const n = 4001;
    for (const strategy of ['linear', 'exponential'] as const) {
      const ramp = { ramp_up_strategy: strategy, ramp_up_start_rps: 1, ramp_up_end_rps: 16 };
      const { delays, rates } = schedule(ramp, n);
      expect([rates[0], rates.at(-1)]).toEqual([1, 16]);
      const gaps = gapsOf(delays);
      // The measured rate over the first and last 400 requests, against the formula's mean gap there.
      const expectedGap = (from: number, to: number) => mean(Array.from({ length: to - from }, (_, k) => 1 / rampRateAt({ strategy, startRps: 1, endRps: 16 }, from + k, n)));
      expect(mean(gaps.slice(0, 400)) / expectedGap(0, 400)).toBeCloseTo(1, 1);
      expect(mean(gaps.slice(-400)) / expectedGap(n - 400, n)).toBeCloseTo(1, 1);
      expect(1 / mean(gaps.slice(-400))).toBeGreaterThan(12);
      expect(delays.at(-1)! / (expectedGap(0, n) * n)).toBeCloseTo(1, 1);
    }
  });

  it('fails where the client fails: a linear ramp from 0 divides by zero on 0.11.0 and trips the assertion after', () => {
    const fromZero = { ramp_up_strategy: 'linear' as const, ramp_up_start_rps: 0, ramp_up_end_rps: 4 };
    expect(() => schedule(fromZero, 10, '0.11.0')).toThrow(new ArrivalError('get_request', 'ZeroDivisionError: float division by zero'));
    expect(() => schedule(fromZero, 10, '0.11.1')).toThrow('AssertionError: Obtained non-positive request rate 0.0.');
    expect(() => schedule({ request_rate: 4, burstiness: 0 }, 10)).toThrow('AssertionError: A positive burstiness factor is expected, but given 0.0.');
  });

  it('records each whole rate the ramp reaches, as benchmark() does', () => {
    const ramp = args({ ramp_up_strategy: 'linear', ramp_up_start_rps: 1, ramp_up_end_rps: 4 });
    const { rates } = arrivalSchedule(ramp, 7, { version: '0.11.1', seed: 0 });
    expect(rates).toEqual([1, 1.5, 2, 2.5, 3, 3.5, 4]);
    expect(rpsChangeEvents(ramp, rates, (i) => `t${i}`)).toEqual([
      { rps: 1, timestamp: 't-1' },
      { rps: 2, timestamp: 't2' },
      { rps: 3, timestamp: 't4' },
      { rps: 4, timestamp: 't6' },
    ]);
  });
});

describe('request-rate workloads through the simulated client (vLLM 0.11.1)', () => {
  let box: Box;
  let bin: string;
  let port: number;
  beforeAll(async () => {
    // 1 virtual second = 20 ms: slow enough that the client's pacing dominates its own overhead.
    box = makeBox({ gpu: 'h100', timeScale: 0.02 });
    bin = envWith(box, 'vllm-env', 'vllm==0.11.1');
    port = await freePort();
    const server = box.start(join(bin, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--port', String(port)], { pathPrefix: bin });
    await server.waitFor('Application startup complete.');
  }, 60_000);
  afterAll(() => box?.cleanup());

  const run = (workload: object, file: string) => {
    const w = parseWorkload({ id: 'w', dataset: { kind: 'random', inputLen: 64, outputLen: 8 }, numPrompts: 24, seed: 1, ...workload });
    const argv = buildBenchServeArgv(w, { model: 'Qwen/Qwen3-8B', port, resultDir: join(box.home, 'results'), resultFilename: file }, '0.11.1');
    const r = box.run(join(bin, 'vllm'), argv.slice(1));
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(join(box.home, 'results', file), 'utf8');
    return { stdout: r.stdout, text, json: JSON.parse(text.replace(/\bInfinity\b/g, '"Infinity"')) as Record<string, unknown> };
  };

  it('sends a constant 8 req/s and says so in its output, its JSON and the imported result', () => {
    const { stdout, text, json } = run({ requestRate: 8, burstiness: 'inf' }, 'constant.json');
    expect(stdout).toContain('Traffic request rate: 8.0\nBurstiness factor: inf (Gamma distribution)\nMaximum request concurrency: None\n');
    expect(stdout).toContain('Request rate configured (RPS):           8.00      \n');
    expect(text).toContain('"request_rate": 8.0, "burstiness": Infinity, "max_concurrency": null, "duration": ');
    // 24 requests 1/8 s apart: the last is sent 2.875 s after the first (all at once they take ~0.3 s). A request
    // that reaches a busy server arrives at its scheduled time, however far the server's clock runs behind.
    expect(json.duration as number).toBeGreaterThan(2.875);
    expect(json.duration as number).toBeLessThan(3.5);
    expect(json.completed).toBe(24);
    const imported = importResults(text, 'constant.json');
    expect(imported.errors).toEqual([]);
    expect(imported.records[0]?.provenance?.workload).toMatchObject({ numPrompts: 24, requestRate: 8, burstiness: 'inf' });
  });

  it('ramps 2 → 8 req/s: the ramp lines, the ramp keys and the whole-rate steps', () => {
    const { stdout, text, json } = run({ rampUp: { strategy: 'linear', startRps: 2, endRps: 8 } }, 'ramp.json');
    expect(stdout).toContain('Traffic ramp-up strategy: linear.\nWill increase RPS from 2 to 8 RPS over the duration of the benchmark.\nBurstiness factor: 1.0 (Poisson process)\n');
    expect(stdout).not.toContain('Request rate configured');
    expect(text).toContain('"request_rate": "inf", "burstiness": 1.0, "max_concurrency": null, "ramp_up_strategy": "linear", "ramp_up_start_rps": 2, "ramp_up_end_rps": 8, "duration": ');
    expect((json.rps_change_events as { rps: number }[]).map((e) => e.rps)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(Object.keys(json).indexOf('rps_change_events')).toBe(Object.keys(json).indexOf('max_concurrent_requests') + 1);
    expect(importResults(text, 'ramp.json').records[0]?.provenance?.workload?.rampUp).toEqual({ strategy: 'linear', startRps: 2, endRps: 8 });
  });
});
