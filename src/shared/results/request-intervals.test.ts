import { describe, expect, it } from 'vitest';
import { bootstrapInterval, quantileSorted, seededRandom } from '../stats';
import { INTERVAL_LEVEL } from '../study/noise';
import type { BenchMetrics, ResultIntervals } from './bench-result';
import { REQUEST_RESAMPLES, requestIntervals, requestSeed } from './request-intervals';
import type { RequestSamples } from './request-samples';

/** A run of n requests with spread-out lengths and latencies, from a seed. */
function run(n: number, seed: number): RequestSamples {
  const r = seededRandom(seed);
  const s: RequestSamples = { inputLens: [], outputLens: [], ttfts: [], itls: [] };
  for (let i = 0; i < n; i++) {
    const out = 1 + Math.floor(r() * 40);
    s.inputLens.push(50 + Math.floor(r() * 200));
    s.outputLens.push(out);
    s.ttfts.push(0.02 + 0.2 * r() ** 2);
    s.itls.push(Array.from({ length: out - 1 }, () => 0.005 + 0.01 * r() + (r() < 0.02 ? 0.1 : 0)));
  }
  return s;
}

interface Request {
  inLen: number;
  outLen: number;
  ttft: number;
  itl: number[];
}
const requestsOf = (s: RequestSamples): Request[] => s.ttfts.map((ttft, i) => ({ inLen: s.inputLens[i]!, outLen: s.outputLens[i]!, ttft, itl: s.itls[i]! }));
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: readonly number[]) => sum(xs) / xs.length;
const pct = (xs: readonly number[], q: number) => quantileSorted([...xs].sort((a, b) => a - b), q);

/** Each metric computed from a list of requests, as vLLM's calculate_metrics() does: the reference for the fast path. */
function direct(requests: readonly Request[], duration: number): Record<string, number> {
  const ttfts = requests.map((q) => q.ttft);
  const e2els = requests.map((q) => q.ttft + sum(q.itl));
  const tpots = requests.filter((q) => q.outLen > 1).map((q) => sum(q.itl) / (q.outLen - 1));
  const itls = requests.flatMap((q) => q.itl);
  const out: Record<string, number> = {};
  for (const [m, xs] of [['ttft', ttfts], ['tpot', tpots], ['itl', itls], ['e2el', e2els]] as const) {
    out[`mean_${m}_ms`] = mean(xs) * 1000;
    out[`median_${m}_ms`] = pct(xs, 0.5) * 1000;
    out[`p90_${m}_ms`] = pct(xs, 0.9) * 1000;
    out[`p99_${m}_ms`] = pct(xs, 0.99) * 1000;
  }
  out.mean_latency_s = mean(e2els);
  out.output_throughput = sum(requests.map((q) => q.outLen)) / duration;
  out.total_token_throughput = sum(requests.map((q) => q.inLen + q.outLen)) / duration;
  return out;
}

const DURATION = 12.5;
const metricsOf = (s: RequestSamples) => ({ ...direct(requestsOf(s), DURATION), duration: DURATION, std_ttft_ms: 1, completed: s.ttfts.length }) as BenchMetrics;

describe('requestIntervals', () => {
  const samples = run(150, 4);
  const metrics = metricsOf(samples);
  const intervals = requestIntervals(samples, metrics)!;

  it('gives every derivable metric an interval at the study level, and none to std or counts', () => {
    expect(intervals).toMatchObject({ level: INTERVAL_LEVEL, requests: 150, resamples: REQUEST_RESAMPLES });
    expect(Object.keys(intervals.values).sort()).toEqual(Object.keys(direct(requestsOf(samples), DURATION)).sort());
  });

  it('equals the plain bootstrap that recomputes each metric from the resampled requests, with the same draws', () => {
    const small = run(60, 8);
    const fast = requestIntervals(small, metricsOf(small))!;
    // One pass of bootstrapInterval's own draws, every metric recomputed from each resample's requests.
    const seen: Record<string, number[]> = {};
    bootstrapInterval(
      requestsOf(small),
      (resample) => {
        for (const [key, value] of Object.entries(direct(resample, DURATION))) (seen[key] ??= []).push(value);
        return 0;
      },
      { resamples: REQUEST_RESAMPLES, level: INTERVAL_LEVEL, seed: requestSeed(small) },
    );
    const alpha = (1 - INTERVAL_LEVEL) / 2;
    for (const [key, values] of Object.entries(seen)) {
      const sorted = values.sort((a, b) => a - b);
      // Equal to 1e-9 of the value: sums run in another order, and values within 2^-32 of each other may sort either way.
      const close = (a: number, b: number) => expect(Math.abs(a - b), key).toBeLessThanOrEqual(1e-9 * Math.abs(b) + 1e-12);
      close(fast.values[key]!.low, quantileSorted(sorted, alpha));
      close(fast.values[key]!.high, quantileSorted(sorted, 1 - alpha));
    }
  });

  it('contains the run’s own value of each metric', () => {
    for (const [key, { low, high }] of Object.entries(intervals.values)) {
      const value = metrics[key]!;
      expect(low, key).toBeLessThanOrEqual(value);
      expect(high, key).toBeGreaterThanOrEqual(value);
      expect(high, key).toBeGreaterThan(low);
    }
  });

  it('narrows with more requests', () => {
    const big = run(2400, 4);
    const wide = requestIntervals(big, metricsOf(big))!;
    for (const key of ['mean_ttft_ms', 'median_e2el_ms', 'mean_itl_ms', 'p90_tpot_ms', 'output_throughput']) {
      const relative = (r: ResultIntervals, m: BenchMetrics) => (r.values[key]!.high - r.values[key]!.low) / m[key]!;
      // 16 times the requests: about a quarter of the width, relative to the value (throughput grows with them).
      expect(relative(wide, metricsOf(big)) / relative(intervals, metrics), key).toBeLessThan(0.5);
    }
  });

  it('is the same for the same run and differs for another', () => {
    expect(requestIntervals(samples, metrics)).toEqual(intervals);
    const other = run(150, 5);
    expect(requestIntervals(other, metricsOf(other))!.values.mean_ttft_ms).not.toEqual(intervals.values.mean_ttft_ms);
  });

  it('leaves out metrics the result lacks or the requests cannot give, and gives null for no requests', () => {
    const oneToken: RequestSamples = { inputLens: [10, 10], outputLens: [1, 1], ttfts: [0.1, 0.2], itls: [[], []] };
    const partial = requestIntervals(oneToken, { mean_ttft_ms: 150, mean_tpot_ms: 0, mean_itl_ms: 0, p99_ttft_ms: 199, duration: 1 } as BenchMetrics)!;
    expect(Object.keys(partial.values).sort()).toEqual(['mean_ttft_ms', 'p99_ttft_ms']);
    expect(requestIntervals({ inputLens: [], outputLens: [], ttfts: [], itls: [] }, metrics)).toBeNull();
  });
});
