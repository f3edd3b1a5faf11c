// Percentile bootstrap: resample the samples with replacement, take the statistic of each resample, and read the
// interval off the resampled statistics' quantiles. Seeded, so the same samples give the same interval.
import { seededRandom } from './prng';

export interface BootstrapOptions {
  /** Resamples drawn; 1000 by default. */
  resamples?: number;
  /** Two-sided confidence level; 0.95 by default. */
  level?: number;
  /** PRNG seed; 1 by default. */
  seed?: number;
}

export interface Interval {
  low: number;
  high: number;
}

/** The q-quantile (0..1) of sorted values, linearly interpolated as numpy's default does. */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * The percentile-bootstrap interval of `statistic` over `samples`; null with no samples or when the statistic is
 * not finite on a resample. With one sample every resample is that sample, so low = high.
 */
export function bootstrapInterval<T>(samples: readonly T[], statistic: (resample: readonly T[]) => number, options: BootstrapOptions = {}): Interval | null {
  const { resamples = 1000, level = 0.95, seed = 1 } = options;
  if (samples.length === 0) return null;
  if (!(level > 0 && level < 1)) throw new RangeError(`bootstrapInterval: level must be in (0, 1), got ${level}`);
  const random = seededRandom(seed);
  const n = samples.length;
  const stats: number[] = [];
  const resample: T[] = new Array<T>(n);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) resample[i] = samples[Math.floor(random() * n)]!;
    const value = statistic(resample);
    if (!Number.isFinite(value)) return null;
    stats.push(value);
  }
  return percentileInterval(stats, level);
}

/** The interval read off resampled statistics: their (1 − level)/2 and (1 + level)/2 quantiles. Sorts `stats`. */
function percentileInterval(stats: number[], level: number): Interval {
  stats.sort((a, b) => a - b);
  const alpha = (1 - level) / 2;
  return { low: quantileSorted(stats, alpha), high: quantileSorted(stats, 1 - alpha) };
}

/**
 * The percentile-bootstrap intervals of several statistics of the same n items, all read off the same resamples.
 * Each resample is given as counts (how many times each item was drawn), so a statistic costs O(n) per resample
 * however it is computed, instead of a copy of the items per statistic. A statistic that is not finite on some
 * resample gets null. With n = 1 every resample is that item, so low = high.
 */
export function bootstrapCountIntervals<K extends string>(
  n: number,
  /** Each is given the resample's counts and its index, by which statistics that share work can cache it. */
  statistics: Readonly<Record<K, (counts: Int32Array, resample: number) => number>>,
  options: BootstrapOptions = {},
): Record<K, Interval | null> {
  const { resamples = 1000, level = 0.95, seed = 1 } = options;
  if (!(level > 0 && level < 1)) throw new RangeError(`bootstrapCountIntervals: level must be in (0, 1), got ${level}`);
  const keys = Object.keys(statistics) as K[];
  const out = {} as Record<K, Interval | null>;
  if (n === 0) {
    for (const key of keys) out[key] = null;
    return out;
  }
  const random = seededRandom(seed);
  const stats = keys.map(() => [] as number[]);
  const counts = new Int32Array(n);
  for (let r = 0; r < resamples; r++) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[Math.floor(random() * n)]!++;
    keys.forEach((key, k) => stats[k]!.push(statistics[key](counts, r)));
  }
  keys.forEach((key, k) => {
    const values = stats[k]!;
    out[key] = values.every(Number.isFinite) ? percentileInterval(values, level) : null;
  });
  return out;
}
