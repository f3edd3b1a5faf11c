import { describe, expect, it } from 'vitest';
import { importBatches } from './results-slice';

describe('importBatches', () => {
  const file = (name: string, chars: number) => ({ name, text: 'x'.repeat(chars) });

  it('packs files into calls below the limit, in order, and sets aside a file no call could carry', () => {
    const { batches, tooLarge } = importBatches([file('a', 400), file('b', 400), file('huge', 5000), file('c', 400)], 1000);
    expect(batches.map((b) => b.map((f) => f.name))).toEqual([['a', 'b'], ['c']]);
    expect(tooLarge.map((f) => f.name)).toEqual(['huge']);
    expect(tooLarge[0]!.bytes).toBeGreaterThan(5000);
  });

  it('counts the JSON-escaped UTF-8 size, not the characters', () => {
    // 300 "é" are 600 bytes, and 300 newlines are 600 bytes once escaped.
    const { batches } = importBatches([{ name: 'a', text: 'é'.repeat(300) }, { name: 'b', text: '\n'.repeat(300) }], 1000);
    expect(batches).toHaveLength(2);
  });

  it('sends everything in one call when the link has no limit', () => {
    expect(importBatches([file('a', 10_000), file('b', 10_000)], Infinity).batches).toHaveLength(1);
  });
});
