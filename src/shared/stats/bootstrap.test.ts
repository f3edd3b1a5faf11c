import { describe, expect, it } from 'vitest';
import { bootstrapCountIntervals, bootstrapInterval, quantileSorted } from './bootstrap';
import { seededRandom } from './prng';

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const sample = (n: number, seed: number) => {
  const r = seededRandom(seed);
  return Array.from({ length: n }, () => 100 + 20 * (r() - 0.5));
};

describe('bootstrapInterval', () => {
  it('contains the sample mean and is reproducible from the seed', () => {
    const xs = sample(200, 3);
    const a = bootstrapInterval(xs, mean, { seed: 5 })!;
    expect(a.low).toBeLessThan(mean(xs));
    expect(a.high).toBeGreaterThan(mean(xs));
    expect(bootstrapInterval(xs, mean, { seed: 5 })).toEqual(a);
    expect(bootstrapInterval(xs, mean, { seed: 6 })).not.toEqual(a);
  });

  it('narrows with more samples, roughly as 1/√n', () => {
    const width = (n: number) => {
      const i = bootstrapInterval(sample(n, 9), mean)!;
      return i.high - i.low;
    };
    const ratio = width(100) / width(1600);
    expect(ratio).toBeGreaterThan(2.5);
    expect(ratio).toBeLessThan(6);
  });

  it('is close to the normal-theory interval of a mean', () => {
    const xs = sample(400, 11);
    const m = mean(xs);
    const sd = Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
    const i = bootstrapInterval(xs, mean, { resamples: 4000 })!;
    expect((i.high - i.low) / (2 * 1.96 * sd / Math.sqrt(xs.length))).toBeCloseTo(1, 1);
  });

  it('widens with the level; one sample gives a point; none gives null', () => {
    const xs = sample(100, 2);
    const w = (level: number) => {
      const i = bootstrapInterval(xs, mean, { level })!;
      return i.high - i.low;
    };
    expect(w(0.99)).toBeGreaterThan(w(0.8));
    expect(bootstrapInterval([4], mean)).toEqual({ low: 4, high: 4 });
    expect(bootstrapInterval([], mean)).toBeNull();
  });
});

describe('quantileSorted', () => {
  it('interpolates between ranks like numpy', () => {
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantileSorted([1, 2, 3, 4], 0.99)).toBeCloseTo(3.97, 10);
  });
});

describe('bootstrapCountIntervals', () => {
  it('draws the resamples bootstrapInterval draws for the same seed, as counts, for every statistic at once', () => {
    const xs = sample(120, 4);
    const weightedMean = (counts: Int32Array) => xs.reduce((s, x, i) => s + counts[i]! * x, 0) / xs.length;
    const max = (counts: Int32Array) => Math.max(...xs.filter((_, i) => counts[i]! > 0));
    const both = bootstrapCountIntervals(xs.length, { mean: weightedMean, max }, { seed: 7, resamples: 300 });
    const plainMean = bootstrapInterval(xs, mean, { seed: 7, resamples: 300 })!;
    expect(both.mean!.low).toBeCloseTo(plainMean.low, 9);
    expect(both.mean!.high).toBeCloseTo(plainMean.high, 9);
    expect(both.max).toEqual(bootstrapInterval(xs, (r) => Math.max(...r), { seed: 7, resamples: 300 }));
  });

  it('gives null to a statistic that is not finite on a resample, and to every statistic of no items', () => {
    const out = bootstrapCountIntervals(5, { nan: () => NaN, one: () => 1 });
    expect(out).toEqual({ nan: null, one: { low: 1, high: 1 } });
    expect(bootstrapCountIntervals(0, { one: () => 1 })).toEqual({ one: null });
  });
});
