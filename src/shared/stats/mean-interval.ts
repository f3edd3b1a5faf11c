// The t-interval of a mean, for repeats between runs (few values, so Student's t rather than the bootstrap).
import { tQuantile } from './t-distribution';

export interface MeanInterval {
  mean: number;
  /** null when n = 1: one value says nothing about the spread. */
  low: number | null;
  high: number | null;
  n: number;
}

/** Mean ± t(1 − α/2, n − 1)·s/√n; null bounds for a single value; throws on none. */
export function meanInterval(values: readonly number[], level = 0.95): MeanInterval {
  const n = values.length;
  if (n === 0) throw new RangeError('meanInterval: no values');
  if (!(level > 0 && level < 1)) throw new RangeError(`meanInterval: level must be in (0, 1), got ${level}`);
  const mean = values.reduce((s, v) => s + v, 0) / n;
  if (n === 1) return { mean, low: null, high: null, n };
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1);
  const half = tQuantile(1 - (1 - level) / 2, n - 1) * Math.sqrt(variance / n);
  return { mean, low: mean - half, high: mean + half, n };
}
