// A whole `vllm bench serve` run in virtual time, without HTTP: the same engine scheduler as the live server, a
// client with the real one's concurrency semaphore / arrival process and its chunk-level timing. Used by the
// calibration tests and the README's calibration table; live runs must agree with it.

import { arrivalSchedule } from './arrivals.mjs';
import { calculateMetrics, renderResult } from './bench-metrics.mjs';
import { createEngine } from './engine-core.mjs';
import { makeRng } from './rng.mjs';
import { makeText } from './text.mjs';

/**
 * @param {{profile: object, requests: {input: number, output: number}[], maxConcurrency?: number|null,
 *   requestRate?: number, burstiness?: number, rampUp?: {strategy: string, startRps: number, endRps: number},
 *   version?: string, seed?: number|string, chat?: boolean, noise?: number, noiseSeed?: number|string|null,
 *   engine?: EngineCore, startAt?: number}} run
 *   version: the client's, for how it spaces requests (arrivals.mjs; 0.11.0 when absent). Throws ArrivalError
 *   where that client raises.
 *   noiseSeed: a new engine gets the live server's run-to-run drift and warm-up; engine + startAt: run on an
 *   existing engine (from an earlier run's result) from virtual time startAt (its `endAt`), as repeats against one
 *   server do.
 */
export function simulateBenchmark(run) {
  const engine = run.engine ?? createEngine(run.profile, { seed: run.seed ?? 0, noise: run.noise, noiseSeed: run.noiseSeed });
  const n = run.requests.length;
  const limit = run.maxConcurrency ?? Infinity;
  const chat = run.chat ?? true;

  // Intended send times: the client's schedule (vLLM's get_request), drawn before the first request.
  const arrivals = {
    request_rate: run.requestRate ?? Infinity,
    burstiness: run.burstiness ?? 1,
    ramp_up_strategy: run.rampUp?.strategy ?? null,
    ramp_up_start_rps: run.rampUp?.startRps ?? null,
    ramp_up_end_rps: run.rampUp?.endRps ?? null,
  };
  const startAt = run.startAt ?? 0;
  const schedule = arrivalSchedule(arrivals, n, { version: run.version ?? '0.11.0', seed: run.seed ?? 0 });
  const scheduled = schedule.delays.map((d) => startAt + d);

  // promptLen: the client's count of the prompt (its totals use it); input: what the server counts and prefills.
  const outputs = run.requests.map((r) => ({ success: false, promptLen: r.promptLen ?? r.input, outputTokens: null, ttft: 0, itl: [], latency: 0, startTime: 0, last: 0, error: '' }));
  let next = 0;
  let inFlight = 0;
  let now = startAt;
  const send = (time) => {
    const i = next++;
    outputs[i].startTime = time;
    // A request the server refuses (HTTP 400, longer than its context) fails at once and holds no slot.
    if (run.requests[i].refused) {
      outputs[i].error = run.requests[i].refused;
      return;
    }
    inFlight++;
    engine.add({ id: i, promptTokens: run.requests[i].input, maxTokens: run.requests[i].output, arrival: time });
  };
  for (;;) {
    while (next < n && inFlight < limit && scheduled[next] <= now) send(Math.max(scheduled[next], now));
    const step = engine.step(now);
    if (step) {
      // Open-loop arrivals during this iteration queue up and join the next one.
      while (next < n && inFlight < limit && scheduled[next] < step.end) send(Math.max(scheduled[next], now));
      for (const e of step.emissions) {
        const o = outputs[e.id];
        if (e.first) {
          o.ttft = step.end - o.startTime;
          if (chat) o.itl.push(0); // the role chunk and the first content chunk leave together
        } else {
          o.itl.push(step.end - o.last);
        }
        o.last = step.end;
        if (e.done) {
          o.success = true;
          o.outputTokens = run.requests[e.id].output;
          o.latency = step.end - o.startTime;
          inFlight--;
        }
      }
      now = step.end;
      continue;
    }
    const ready = engine.nextReadyAt();
    const nextSend = next < n && inFlight < limit ? scheduled[next] : null;
    const candidates = [ready, nextSend].filter((x) => x !== null && x !== undefined && x > now);
    if (candidates.length === 0) {
      if (ready !== null && ready <= now) {
        now += 1e-6; // a request too big for this engine's batch can never run: leave it failed
        if (engine.waiting.every((r) => r.readyAt <= now - 1)) break;
        continue;
      }
      break;
    }
    now = Math.min(...candidates);
  }
  const startMin = Math.min(...outputs.filter((o) => o.success).map((o) => o.startTime));
  const endMax = Math.max(...outputs.filter((o) => o.success).map((o) => o.startTime + o.latency));
  const durationS = endMax - startMin;
  const metrics = calculateMetrics(outputs, durationS, { selectedPercentiles: run.percentiles ?? [50, 90, 99] });
  return { outputs, durationS, metrics, engine, endAt: now, rates: schedule.rates };
}

/** The printed block for a simulated run (same renderer as the live client). */
export function renderSimulated(sim, opts) {
  return renderResult(sim.metrics, sim.outputs, { version: '0.11.0', maxConcurrency: opts.maxConcurrency ?? null, requestRate: opts.requestRate ?? Infinity, durationS: sim.durationS, selectedMetrics: opts.selectedMetrics ?? ['ttft', 'tpot', 'itl', 'e2el'], goodput: false });
}

/**
 * Prompt/output token lengths with ShareGPT's shape after vLLM's filters (prompt ≤ 1024, total ≤ 2048, both ≥ 4):
 * log-normal, about 220 input and 210 output tokens per conversation on average.
 */
export function sharegptLikeLengths(count, seed = 0) {
  const rng = makeRng('sharegpt-lengths', seed);
  const out = [];
  while (out.length < count) {
    const input = Math.round(Math.exp(5.15 + 1.0 * rng.normal()));
    const output = Math.round(Math.exp(4.95 + 0.95 * rng.normal()));
    if (input < 4 || output < 4 || input > 1024 || input + output > 2048) continue;
    out.push({ input, output });
  }
  return out;
}

/** Fixed-length requests like `--dataset-name random` with range ratio 0. */
export function randomLengths(count, input, output) {
  return Array.from({ length: count }, () => ({ input, output }));
}

/** The conversations of `simbox make-sharegpt` (the demo lab's ShareGPT file): ShareGPT-like lengths, generated text. */
export function syntheticShareGpt(count, seed = 0) {
  const lengths = sharegptLikeLengths(count, seed);
  const rng = makeRng('sharegpt-ids', seed);
  return lengths.map((l, i) => ({
    id: `sim${rng.int(100000, 999999)}_${i}`,
    conversations: [
      { from: 'human', value: makeText(l.input, 'sg-h', seed, i).trimStart() },
      { from: 'gpt', value: makeText(l.output, 'sg-g', seed, i).trimStart() },
    ],
  }));
}
