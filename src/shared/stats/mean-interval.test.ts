import { describe, expect, it } from 'vitest';
import { meanInterval } from './mean-interval';

describe('meanInterval', () => {
  it('is mean ± t·s/√n', () => {
    // mean 2, s = 1, n = 3: half-width t(0.975, 2)/√3 = 4.303/1.732.
    const i = meanInterval([1, 2, 3]);
    expect(i.mean).toBe(2);
    expect(i.n).toBe(3);
    expect(i.high! - 2).toBeCloseTo(4.3027 / Math.sqrt(3), 3);
    expect(2 - i.low!).toBeCloseTo(4.3027 / Math.sqrt(3), 3);
  });

  it('gives null bounds for a single value and refuses none', () => {
    expect(meanInterval([5])).toEqual({ mean: 5, low: null, high: null, n: 1 });
    expect(() => meanInterval([])).toThrow(RangeError);
  });

  it('narrows at a lower level', () => {
    const a = meanInterval([10, 12, 11, 13], 0.9);
    const b = meanInterval([10, 12, 11, 13], 0.99);
    expect(a.high! - a.low!).toBeLessThan(b.high! - b.low!);
  });
});
