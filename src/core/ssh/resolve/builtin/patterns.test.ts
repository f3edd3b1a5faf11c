import { describe, expect, it } from 'vitest';
import { asciiLower, matchHostname, matchPattern, matchPatternList } from './patterns';

// Cases follow OpenSSH 9.2 match.c: match_pattern is case-sensitive, match_hostname lower-cases both sides.
describe('ssh patterns', () => {
  it('matches * and ? wildcards', () => {
    expect(matchPattern('gpu1', 'gpu?')).toBe(true);
    expect(matchPattern('gpu10', 'gpu?')).toBe(false);
    expect(matchPattern('a.farm', '*.farm')).toBe(true);
    expect(matchPattern('farm', '*.farm')).toBe(false);
    expect(matchPattern('abc', 'a**c')).toBe(true);
    expect(matchPattern('', '*')).toBe(true);
  });

  it('is case-sensitive for Host lines', () => {
    expect(matchPattern('Foo', 'foo')).toBe(false);
  });

  it('returns -1 when a negated item matches, whatever comes after', () => {
    expect(matchPatternList('ab', 'a*,!ab', false)).toBe(-1);
    expect(matchPatternList('ac', 'a*,!ab', false)).toBe(1);
    expect(matchPatternList('zz', 'a*,!ab', false)).toBe(0);
    expect(matchPatternList('a', 'a,', false)).toBe(1);
  });

  it('lower-cases host and pattern for Match host, only in ASCII', () => {
    expect(matchHostname('FooBar', 'FOO*')).toBe(1);
    expect(matchPatternList('Alice', 'alice', false)).toBe(0);
    expect(asciiLower('ÄBC')).toBe('Äbc');
  });
});
