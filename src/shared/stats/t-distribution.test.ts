import { describe, expect, it } from 'vitest';
import { tCdf, tQuantile } from './t-distribution';

describe('tQuantile', () => {
  // Student's t table, two-sided 95% (one-sided 0.975).
  it.each([
    [1, 12.706],
    [2, 4.303],
    [4, 2.776],
    [10, 2.228],
    [30, 2.042],
  ])('t(0.975, %i) = %f', (df, expected) => {
    expect(tQuantile(0.975, df)).toBeCloseTo(expected, 3);
  });

  it('matches exact closed forms: df=1 is Cauchy, df=2 has t = (2p−1)·√(2/(4p(1−p)))', () => {
    expect(tQuantile(0.9, 1)).toBeCloseTo(Math.tan(Math.PI * 0.4), 6);
    const p = 0.95;
    expect(tQuantile(p, 2)).toBeCloseTo((2 * p - 1) * Math.sqrt(2 / (4 * p * (1 - p))), 6);
  });

  it('approaches the normal quantile for large df and is symmetric', () => {
    expect(tQuantile(0.975, 100000)).toBeCloseTo(1.959964, 3);
    expect(tQuantile(0.025, 10)).toBeCloseTo(-tQuantile(0.975, 10), 9);
    expect(tQuantile(0.5, 5)).toBe(0);
  });

  it('inverts the CDF', () => {
    expect(tCdf(tQuantile(0.99, 7), 7)).toBeCloseTo(0.99, 9);
  });

  it('refuses p outside (0, 1)', () => {
    expect(() => tQuantile(1, 3)).toThrow(RangeError);
  });
});
