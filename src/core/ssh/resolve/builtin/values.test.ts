import { describe, expect, it } from 'vitest';
import { a2port, atoiErr, convtime, parseSshUri, parseUserHostPort, validDomainError } from './values';

// misc.c (OpenSSH 9.2): convtime, a2port, parse_user_host_port, parse_uri, valid_domain.
describe('ssh value syntax', () => {
  it('converts time units to seconds', () => {
    expect(convtime('90')).toBe(90);
    expect(convtime('1m')).toBe(60);
    expect(convtime('1h30m')).toBe(5400);
    expect(convtime('2d')).toBe(172800);
    expect(convtime('1W')).toBe(604800);
    expect(convtime('5x')).toBe(-1);
    expect(convtime('')).toBe(-1);
    expect(convtime('-1')).toBe(-1);
  });

  it('parses ports, service names included', () => {
    expect(a2port('2222')).toBe(2222);
    expect(a2port('0')).toBe(0);
    expect(a2port('70000')).toBe(-1);
    expect(a2port('ssh')).toBe(22);
  });

  it('reports integer errors with strtonum words', () => {
    expect(atoiErr('-1')).toEqual({ error: 'too small' });
    expect(atoiErr('abc')).toEqual({ error: 'invalid' });
    expect(atoiErr(undefined)).toEqual({ error: 'missing' });
  });

  it('parses jump hops', () => {
    expect(parseUserHostPort('u@[::1]:2222')).toEqual({ user: 'u', host: '::1', port: 2222 });
    expect(parseUserHostPort('h')).toEqual({ user: null, host: 'h', port: -1 });
    expect(parseUserHostPort(' b')).toEqual({ user: null, host: ' b', port: -1 });
    expect(parseUserHostPort('')).toBeNull();
    expect(parseUserHostPort('h:0')).toBeNull();
    expect(parseSshUri('ssh://u%40x@h:23')).toEqual({ user: 'u@x', host: 'h', port: 23 });
    expect(parseSshUri('ssh://h/path')).toBe('invalid');
    expect(parseSshUri('h')).toBe('not-uri');
  });

  it('validates domains as CanonicalDomains does', () => {
    expect(validDomainError('lab.example')).toBeNull();
    expect(validDomainError('-bad')).toBe('domain name "-bad" starts with invalid character');
    expect(validDomainError('a..b')).toBe('domain name "a..b" contains consecutive separators');
  });
});
