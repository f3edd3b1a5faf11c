import { describe, expect, it } from 'vitest';
import { seededRandom } from './prng';

describe('seededRandom', () => {
  it('repeats its sequence for a seed and differs between seeds', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const c = seededRandom(8);
    const seqA = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(seqA);
    expect(Array.from({ length: 5 }, c)).not.toEqual(seqA);
  });

  it('stays in [0, 1) with a mean near one half', () => {
    const r = seededRandom(1);
    const xs = Array.from({ length: 10000 }, r);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.02);
  });
});
