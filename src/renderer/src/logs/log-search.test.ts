import { describe, expect, it } from 'vitest';
import { LogBuffer } from './log-buffer';
import { LineMatcher } from './log-search';

function all(m: { count: number; at(k: number): number }): number[] {
  return Array.from({ length: m.count }, (_, k) => m.at(k));
}

describe('LineMatcher', () => {
  it('finds lines case-insensitively on the text without escapes, the unfinished line included', () => {
    const buffer = LogBuffer.fromText('\x1b[31mERROR\x1b[0m a\ninfo\nerror b\nErr');
    const matcher = new LineMatcher(buffer);
    expect(all(matcher.update('error'))).toEqual([0, 2]);
    expect(all(matcher.update('ERR'))).toEqual([0, 2, 3]);
    // An escape's own letters never match.
    expect(matcher.update('31m').count).toBe(0);
    expect(matcher.update('').count).toBe(0);
  });

  it('scans only new lines as the log grows, and forgets dropped ones by their absolute numbers', () => {
    const buffer = new LogBuffer({ capacity: 4 });
    const matcher = new LineMatcher(buffer);
    buffer.append('hit 0\nmiss\nhit 2\n');
    expect(all(matcher.update('hit'))).toEqual([0, 2]);
    buffer.append('hit 3\nmiss\nhit 5\n');
    const m = matcher.update('hit');
    // Lines 0 and 1 are gone: the ones left keep their numbers.
    expect(buffer.dropped).toBe(2);
    expect(all(m)).toEqual([2, 3, 5]);
    expect(m.lowerBound(3)).toBe(1);
    expect(m.lowerBound(4)).toBe(2);
    expect(m.lowerBound(6)).toBe(3);
  });

  it('answers one version from its cache and returns snapshots that later appends do not change', () => {
    const buffer = LogBuffer.fromText('a hit\n');
    const matcher = new LineMatcher(buffer);
    const first = matcher.update('hit');
    expect(matcher.update('hit')).toBe(first);
    buffer.append('another hit\n');
    const second = matcher.update('hit');
    expect(first.count).toBe(1);
    expect(second.count).toBe(2);
  });
});
