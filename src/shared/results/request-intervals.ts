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

/** Resamples per run: 1000 leaves 25 resampled values beyond each end of a 95% interval, the usual least for a percentile bootstrap. */
export const REQUEST_RESAMPLES = 1000;

type Statistic = (counts: Int32Array, resample: number) => number;

/** Bits of a value's mantissa that carry its request while a pool sorts (so up to 2^20 requests per run). */
const OWNER_MASK = (1 << 20) - 1;
/** Which 32-bit half of a float64 holds the low mantissa bits on this platform. */
const LOW_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1;

/** Grid marks per pool for quantiles: the walk between two marks is at most 1/GRID_MARKS of the pool. */
const GRID_MARKS = 256;

/**
 * One latency metric's values, each owned by a request (one per request, or a request's every ITL), sorted once.
 * A resample weighs each value by how often its request was drawn.
 */
class WeightedPool {
  private readonly sums: Float64Array;
  private readonly sizes: Int32Array;
  private readonly count: number;

  constructor(private readonly perRequest: readonly (readonly number[])[]) {
    const n = perRequest.length;
    this.sums = new Float64Array(n);
    this.sizes = new Int32Array(n);
    let count = 0;
    perRequest.forEach((values, i) => {
      this.sizes[i] = values.length;
      count += values.length;
      let sum = 0;
      for (const v of values) sum += v;
      this.sums[i] = sum;
    });
    this.count = count;
  }

  get size(): number {
    return this.count;
  }

  /**
   * The values sorted, with the request each came from; built on first use (a mean needs neither). Sorting pairs
   * with a comparator, or finding each value's slot afterwards, costs seconds on a long run's ITLs; instead the
   * request's index replaces the lowest 20 bits of each value's mantissa and the values sort natively: the order is
   * the values' order, up to values within 2^-32 of each other (whose order cannot move a quantile by more than
   * that fraction), and each request's own values, sorted, then take back its places exactly.
   */
  private order?: { sorted: Float64Array; owner: Int32Array };

  private orderOf(): { sorted: Float64Array; owner: Int32Array } {
    if (this.order) return this.order;
    const sorted = new Float64Array(this.count);
    const words = new Uint32Array(sorted.buffer);
    let at = 0;
    this.perRequest.forEach((values, i) => {
      for (const v of values) {
        sorted[at] = v;
        words[2 * at + LOW_WORD] = (words[2 * at + LOW_WORD]! & ~OWNER_MASK) | i;
        at++;
      }
    });
    sorted.sort();
    // Each request's values, sorted on their own, go back in the order its marks came out: the exact values.
    const own = this.perRequest.map((values) => Float64Array.from(values).sort());
    const next = new Int32Array(own.length);
    const owner = new Int32Array(this.count);
    for (let j = 0; j < owner.length; j++) {
      const i = words[2 * j + LOW_WORD]! & OWNER_MASK;
      owner[j] = i;
      sorted[j] = own[i]![next[i]!++]!;
    }
    this.order = { sorted, owner };
    return this.order;
  }

  /** The resample's number of values, computed once per resample for every statistic of the pool. */
  private totalResample = -1;
  private totalValue = 0;
  private total(w: Int32Array, resample: number): number {
    if (resample !== this.totalResample) {
      let count = 0;
      for (let i = 0; i < w.length; i++) count += w[i]! * this.sizes[i]!;
      this.totalResample = resample;
      this.totalValue = count;
    }
    return this.totalValue;
  }

  mean(): Statistic {
    return (w, resample) => {
      const count = this.total(w, resample);
      let sum = 0;
      for (let i = 0; i < w.length; i++) sum += w[i]! * this.sums[i]!;
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
    const { sorted, owner } = this.orderOf();
    const step = Math.max(1, Math.ceil(sorted.length / GRID_MARKS));
    const marks = Math.ceil(sorted.length / step);
    const below = new Int32Array(marks * n);
    const running = new Int32Array(n);
    for (let k = 0; k < marks; k++) {
      below.set(running, k * n);
      for (let j = k * step; j < Math.min((k + 1) * step, sorted.length); j++) running[owner[j]!]!++;
    }
    this.grid = { step, marks, below };
    return this.grid;
  }

  private readonly quantiles = new Map<number, Statistic>();

  /**
   * The q-quantile of the weighted pool, interpolated like numpy.percentile (vLLM's median and P<N>); one statistic
   * per q, so the median and P50 are computed once.
   */
  quantile(q: number): Statistic {
    const known = this.quantiles.get(q);
    if (known) return known;
    const { sizes } = this;
    const { sorted, owner } = this.orderOf();
    const { step, marks, below } = this.gridOf();
    const n = sizes.length;
    const weightBelow = (w: Int32Array, k: number) => {
      let sum = 0;
      for (let i = 0, o = k * n; i < n; i++) sum += w[i]! * below[o + i]!;
      return sum;
    };
    // The mark nearest the run's own rank of the quantile: a resample's rank lies close to it.
    const anchor = Math.min(marks - 1, Math.round((q * (sorted.length - 1)) / step));
    const jumps = step > n;
    // A tail quantile (P99 of TTFT) is nearer an end of the pool than one pass over the requests: walk from there.
    const end = Math.min(q, 1 - q) * sorted.length < n + step ? (q < 0.5 ? 'low' : 'high') : null;
    let lastResample = -1;
    let lastValue = NaN;
    const statistic: Statistic = (w, resample) => {
      if (resample === lastResample) return lastValue;
      lastResample = resample;
      const total = this.total(w, resample);
      if (total === 0) return (lastValue = NaN);
      const pos = (total - 1) * q;
      const lo = Math.floor(pos);
      // Walk from the anchor to the value at weighted rank `lo`; `before` is the weight of the values below index j.
      // Where a grid step holds more values than there are requests, a walk longer than a step jumps whole steps,
      // one pass over the requests each.
      let j = end === 'low' ? 0 : end === 'high' ? sorted.length : anchor * step;
      let before = end === 'low' ? 0 : end === 'high' ? total : weightBelow(w, anchor);
      let walked = 0;
      while (before > lo) {
        if (jumps && j % step === 0 && walked >= step && j > 0) {
          j -= step;
          before = weightBelow(w, j / step);
          continue;
        }
        before -= w[owner[--j]!]!;
        walked++;
      }
      walked = 0;
      while (before + w[owner[j]!]! <= lo) {
        if (jumps && j % step === 0 && walked >= step && j / step + 1 < marks) {
          const next = weightBelow(w, j / step + 1);
          if (next <= lo) {
            j += step;
            before = next;
            continue;
          }
          walked = -Infinity;
        }
        before += w[owner[j++]!]!;
        walked++;
      }
      const low = sorted[j]!;
      if (pos === lo) return (lastValue = low);
      // The next rank: the same value while its request's weight lasts, else the next value drawn.
      let rankEnd = before + w[owner[j]!]!;
      while (rankEnd <= lo + 1) rankEnd += w[owner[++j]!]!;
      return (lastValue = low + (sorted[j]! - low) * (pos - lo));
    };
    this.quantiles.set(q, statistic);
    return statistic;
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
  return (w, resample) => s(w, resample) * 1000;
}

/**
 * Bootstrap intervals, at INTERVAL_LEVEL, of every metric of `metrics` the requests determine: mean, median and
 * percentiles of TTFT, TPOT, ITL and E2EL; mean latency; output and total token throughput. Null when no metric can
 * be given one (no requests). Standard deviations and counts get none.
 */
export function requestIntervals(samples: RequestSamples, metrics: BenchMetrics): ResultIntervals | null {
  const n = samples.ttfts.length;
  // More requests than a value's mantissa can carry while its pool sorts: no run of a benchmark client comes near.
  if (n === 0 || n > OWNER_MASK + 1) return null;
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
