// Confidence intervals from the requests within one run: the run's requests are resampled with replacement and each
// metric recomputed from the resample as vLLM computes it from the run (request-samples.ts), so an interval says how
// much the number depends on which requests this run happened to draw. It cannot see run-to-run noise (the server's
// state, the GPU's clocks): repeats between runs measure that.
//
// Cost: each resample is a count per request, and every statistic is read from the counts in a few passes over the
// requests — a quantile from a grid of per-request counts over its presorted pool, then a walk shorter than one grid
// step — so the cost grows with requests × metrics × resamples, not with the number of ITLs.
import { bootstrapCountIntervals } from '../stats';
import { INTERVAL_LEVEL } from '../study/noise';
import { parsePercentileKey, type BenchMetrics, type LatencyMetric, type ResultIntervals } from './bench-result';
import { latencyValues, type RequestSamples } from './request-samples';

/** Resamples per run: enough for the 2.5% and 97.5% quantiles to settle to well under the metrics' two decimals' worth of noise. */
export const REQUEST_RESAMPLES = 1000;

type Statistic = (counts: Int32Array) => number;

/** Grid marks per pool for quantiles: the walk between two marks is at most 1/GRID_MARKS of the pool. */
const GRID_MARKS = 256;

/**
 * One latency metric's values, each owned by a request (one per request, or a request's every ITL), sorted once.
 * A resample weighs each value by how often its request was drawn.
 */
class WeightedPool {
  private readonly sorted: Float64Array;
  private readonly owner: Int32Array;
  private readonly sums: Float64Array;
  private readonly sizes: Int32Array;

  constructor(perRequest: readonly (readonly number[])[]) {
    const n = perRequest.length;
    this.sums = new Float64Array(n);
    this.sizes = new Int32Array(n);
    const pairs: [number, number][] = [];
    perRequest.forEach((values, i) => {
      this.sizes[i] = values.length;
      let sum = 0;
      for (const v of values) {
        sum += v;
        pairs.push([v, i]);
      }
      this.sums[i] = sum;
    });
    pairs.sort((a, b) => a[0] - b[0]);
    this.sorted = Float64Array.from(pairs, (p) => p[0]);
    this.owner = Int32Array.from(pairs, (p) => p[1]);
  }

  get size(): number {
    return this.sorted.length;
  }

  mean(): Statistic {
    return (w) => {
      let sum = 0;
      let count = 0;
      for (let i = 0; i < w.length; i++) {
        sum += w[i]! * this.sums[i]!;
        count += w[i]! * this.sizes[i]!;
      }
      return count > 0 ? sum / count : NaN;
    };
  }

  /**
   * How many values of each request lie below each grid mark (every `step`-th index of the sorted pool), built on
   * first use: a resample's weight below a mark is then one pass over the requests.
   */
  private grid?: { step: number; marks: number; below: Int32Array };

  private gridOf(): { step: number; marks: number; below: Int32Array } {
    if (this.grid) return this.grid;
    const n = this.sizes.length;
    const step = Math.max(1, Math.ceil(this.sorted.length / GRID_MARKS));
    const marks = Math.ceil(this.sorted.length / step);
    const below = new Int32Array(marks * n);
    const running = new Int32Array(n);
    for (let k = 0; k < marks; k++) {
      below.set(running, k * n);
      for (let j = k * step; j < Math.min((k + 1) * step, this.sorted.length); j++) running[this.owner[j]!]!++;
    }
    this.grid = { step, marks, below };
    return this.grid;
  }

  /** The q-quantile of the weighted pool, interpolated like numpy.percentile (vLLM's median and P<N>). */
  quantile(q: number): Statistic {
    const { sorted, owner, sizes } = this;
    const { step, marks, below } = this.gridOf();
    const n = sizes.length;
    const weightBelow = (w: Int32Array, k: number) => {
      let sum = 0;
      for (let i = 0, o = k * n; i < n; i++) sum += w[i]! * below[o + i]!;
      return sum;
    };
    // The mark nearest the run's own rank of the quantile: a resample's rank lies a few marks from it at most.
    const anchor = Math.min(marks - 1, Math.round((q * (sorted.length - 1)) / step));
    return (w) => {
      let total = 0;
      for (let i = 0; i < n; i++) total += w[i]! * sizes[i]!;
      if (total === 0) return NaN;
      const pos = (total - 1) * q;
      const lo = Math.floor(pos);
      // The last mark with at most `lo` weight below it, then a walk of under `step` values to rank `lo`;
      // `before` is the weight of the values below index j.
      let k = anchor;
      let before = weightBelow(w, k);
      while (before > lo) before = weightBelow(w, --k);
      for (let next; k + 1 < marks && (next = weightBelow(w, k + 1)) <= lo; k++) before = next;
      let j = k * step;
      while (before + w[owner[j]!]! <= lo) before += w[owner[j++]!]!;
      const low = sorted[j]!;
      if (pos === lo) return low;
      // The next rank: the same value while its request's weight lasts, else the next value drawn.
      let rankEnd = before + w[owner[j]!]!;
      while (rankEnd <= lo + 1) rankEnd += w[owner[++j]!]!;
      return low + (sorted[j]! - low) * (pos - lo);
    };
  }
}

/** Mixes the run's own numbers into a seed, so the same run gives the same intervals and different runs differ. */
export function requestSeed(samples: RequestSamples): number {
  let h = 0x811c9dc5;
  const mix = (x: number) => {
    h = Math.imul(h ^ (x >>> 0), 0x01000193);
  };
  mix(samples.ttfts.length);
  samples.ttfts.forEach((t, i) => {
    mix(Math.round(t * 1e6));
    mix(samples.outputLens[i]!);
    mix(samples.itls[i]!.length);
  });
  return h >>> 0;
}

/** The statistic behind a latency key: mean, median or a percentile of one metric, in ms; null for std and others. */
function latencyStatistic(key: string, pools: (m: LatencyMetric) => WeightedPool): Statistic | null {
  const percentile = parsePercentileKey(key);
  const stat = /^(mean|median)_(ttft|tpot|itl|e2el)_ms$/.exec(key);
  const metric = (percentile?.metric ?? stat?.[2]) as LatencyMetric | undefined;
  const pool = metric ? pools(metric) : null;
  if (!pool || pool.size === 0) return null;
  const s = stat?.[1] === 'mean' ? pool.mean() : pool.quantile(percentile ? Number(percentile.percentile) / 100 : 0.5);
  return (w) => s(w) * 1000;
}

/**
 * Bootstrap intervals, at INTERVAL_LEVEL, of every metric of `metrics` the requests determine: mean, median and
 * percentiles of TTFT, TPOT, ITL and E2EL; mean latency; output and total token throughput. Null when no metric can
 * be given one (no requests). Standard deviations and counts get none.
 */
export function requestIntervals(samples: RequestSamples, metrics: BenchMetrics): ResultIntervals | null {
  const n = samples.ttfts.length;
  if (n === 0) return null;
  const pools = new Map<LatencyMetric, WeightedPool>();
  const pool = (m: LatencyMetric) => {
    if (!pools.has(m)) pools.set(m, new WeightedPool(latencyValues(samples, m)));
    return pools.get(m)!;
  };
  const statistics: Record<string, Statistic> = {};
  for (const [key, value] of Object.entries(metrics)) {
    if (typeof value !== 'number') continue;
    const latency = latencyStatistic(key, pool);
    if (latency) statistics[key] = latency;
  }
  if (typeof metrics.mean_latency_s === 'number' && pool('e2el').size > 0) statistics.mean_latency_s = pool('e2el').mean();
  // Throughputs: the resample's tokens over the run's own duration. The duration is the wall-clock span of the whole
  // run, not a sum over requests (they overlap), so no resample has a duration of its own; holding it fixed leaves
  // the variation that comes from which requests, of which lengths, the run drew.
  const duration = metrics.duration;
  if (typeof duration === 'number' && duration > 0) {
    const tokens = (perRequest: (i: number) => number): Statistic => (w) => {
      let sum = 0;
      for (let i = 0; i < w.length; i++) sum += w[i]! * perRequest(i);
      return sum / duration;
    };
    if (typeof metrics.output_throughput === 'number') statistics.output_throughput = tokens((i) => samples.outputLens[i]!);
    if (typeof metrics.total_token_throughput === 'number') statistics.total_token_throughput = tokens((i) => samples.inputLens[i]! + samples.outputLens[i]!);
  }
  if (Object.keys(statistics).length === 0) return null;
  const found = bootstrapCountIntervals(n, statistics, { resamples: REQUEST_RESAMPLES, level: INTERVAL_LEVEL, seed: requestSeed(samples) });
  const values: ResultIntervals['values'] = {};
  for (const [key, interval] of Object.entries(found)) if (interval) values[key] = interval;
  return { level: INTERVAL_LEVEL, requests: n, resamples: REQUEST_RESAMPLES, values };
}
